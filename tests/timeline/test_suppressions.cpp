// Leak suppressions: LeakSanitizer's pattern rules, the built-in rules, and bad files.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <fstream>

#include "log_builder.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/names/stack_names.hpp"
#include "timeline/replay/stack_metrics.hpp"
#include "timeline/names/suppressions.hpp"

using memlog::timeline::patternMatches;
using memlog::timeline::Suppressions;
using memlog::unwind::SourceFrame;

namespace {

SourceFrame frame(const std::string& function, const std::string& module, const std::string& file = {}) {
    return SourceFrame{function, file, 0, module, false};
}

std::string writeFile(const std::string& text) {
    const std::string path = "/tmp/memlog-suppressions-" + std::to_string(getpid()) + ".txt";
    std::ofstream(path) << text;
    return path;
}

}  // namespace

TEST_CASE("a leak pattern is a substring with '*' for any text and '^' and '$' anchors") {
    CHECK(patternMatches("make_obj", "ns::make_object()"));
    CHECK(patternMatches("make*obj", "make_the_obj"));
    CHECK(patternMatches("^ns::", "ns::f"));
    CHECK_FALSE(patternMatches("^ns::", "other::ns::f"));
    CHECK(patternMatches("cpp$", "widget.cpp"));
    CHECK_FALSE(patternMatches("cpp$", "widget.cpp.o"));
    CHECK(patternMatches("^*$", "anything"));
    CHECK_FALSE(patternMatches("missing", "present"));
    CHECK_FALSE(patternMatches("x", ""));
}

TEST_CASE("leak:PATTERN lines match a stack by any frame's function, module or file") {
    const std::string path = writeFile("# a comment\n\n  leak:^cache_\nleak:libplugin.so\nleak:tables.c$\n");
    Suppressions suppressions;
    const size_t builtIns = suppressions.rules().size();
    suppressions.load(path);
    REQUIRE(suppressions.rules().size() == builtIns + 3);
    CHECK(suppressions.rules()[builtIns].m_origin == path + ":3");
    const auto* byFunction = suppressions.match({frame("helper", "app"), frame("cache_init", "app")});
    REQUIRE(byFunction);
    CHECK(byFunction->m_pattern == "^cache_");
    const auto* byModule = suppressions.match({frame("f", "libplugin.so"), frame("main", "app")});
    REQUIRE(byModule);
    CHECK(byModule->m_pattern == "libplugin.so");
    const auto* byFile = suppressions.match({frame("g", "app", "/src/tables.c")});
    REQUIRE(byFile);
    CHECK(byFile->m_pattern == "tables.c$");
    CHECK_FALSE(suppressions.match({frame("my_cache_init", "app", "/src/tables.cpp"), frame("main", "app")}));
    unlink(path.c_str());
}

TEST_CASE("built-in rules: a C++ runtime's own initialiser and glibc's stdio buffers, not the program's calls") {
    const Suppressions builtIn;
    // libstdc++'s emergency pool: libstdc++ called by nothing but the dynamic loader.
    CHECK(builtIn.match({frame("libstdc++.so.6+0xa57b9", "libstdc++.so.6"), frame("call_init", "ld-linux-x86-64.so.2"),
                         frame("_dl_init", "ld-linux-x86-64.so.2")}));
    // The same library called by the program: a leak of the program's.
    CHECK_FALSE(builtIn.match({frame("std::string::_M_create", "libstdc++.so.6"), frame("main", "app"),
                               frame("_dl_init", "ld-linux-x86-64.so.2")}));
    CHECK(builtIn.match({frame("__GI__IO_file_doallocate", "libc.so.6"), frame("puts", "libc.so.6"), frame("main", "app")}));
    CHECK(builtIn.match({frame("getpwuid", "libc.so.6"), frame("main", "app")}));
    CHECK_FALSE(builtIn.match({frame("getpwuid", "app")}));  // a function of the program's own with that name
    CHECK_FALSE(builtIn.match({frame("malloc_wrapper", "app"), frame("main", "app")}));
}

TEST_CASE("built-in rule: the loader's state for a library dlopen'd and kept open, not the library's own blocks") {
    const Suppressions builtIn;
    const SourceFrame loader = frame("_dl_open", "ld-linux-x86-64.so.2");
    const SourceFrame dlopen = frame("___dlopen", "libc.so.6");
    // A plain dlopen: the loader allocates inside _dl_open, called by the C library for the program.
    CHECK(builtIn.match({frame("_dl_check_map_versions", "ld-linux-x86-64.so.2"),
                         frame("dl_open_worker_begin", "ld-linux-x86-64.so.2"), loader, dlopen,
                         frame("open_plugin", "app"), frame("main", "app")}));
    CHECK(builtIn.match({frame("__strdup", "libc.so.6"), frame("_dl_map_object", "ld-linux-x86-64.so.2"), loader,
                         dlopen, frame("main", "app")}));
    // RTLD_DEEPBIND: the recorder opens the library in the program's place, between the two.
    CHECK(builtIn.match({frame("_dl_find_object_update", "ld-linux-x86-64.so.2"), loader, dlopen,
                         frame("memlog::preload::openDeepBound(char const*, int, bool)", "libmemlog.so"),
                         frame("open_plugin", "app")}));
    // The library's constructor, run inside the same dlopen, allocating: the library's block.
    CHECK_FALSE(builtIn.match({frame("operator new(unsigned long)", "libstdc++.so.6"),
                               frame("init_tables", "libplugin.so"), frame("call_init", "ld-linux-x86-64.so.2"),
                               loader, dlopen, frame("main", "app")}));
    // The loader at work for anything else (a thread's TLS): not this rule's.
    CHECK_FALSE(builtIn.match({frame("_dl_allocate_tls", "ld-linux-x86-64.so.2"),
                               frame("pthread_create", "libc.so.6"), frame("main", "app")}));
}

TEST_CASE("a suppressions file that is not leak: lines is refused with its name and the offset") {
    const std::string path = writeFile("leak:fine\ninterceptor_via_fun:foo\n");
    Suppressions suppressions;
    try {
        suppressions.load(path);
        FAIL("no error");
    } catch (const memlog::timeline::LogError& error) {
        CHECK(error.path() == path);
        CHECK(error.offset() == 10);
        CHECK(std::string(error.what()).find("line 2") != std::string::npos);
    }
    unlink(path.c_str());
    CHECK_THROWS_AS(suppressions.load("/nonexistent/suppressions.txt"), memlog::timeline::LogError);
}

namespace {

// A stack of modules whose frames count every time a rule asks for them.
class CountingStack final : public memlog::timeline::StackView {
public:
    explicit CountingStack(std::vector<SourceFrame> frames) : m_frames(std::move(frames)) {}
    size_t addresses() const override { return m_frames.size(); }
    const std::string& module(size_t address) override { return m_frames[address].m_module; }
    std::span<const SourceFrame> frames(size_t address) override {
        ++m_named;
        return {&m_frames[address], 1};
    }
    size_t m_named = 0;

private:
    std::vector<SourceFrame> m_frames;
};

}  // namespace

TEST_CASE("the built-in rules name only the C library's frames, a pattern only when no module matched") {
    const Suppressions builtIn;
    CountingStack program({frame("PyUnicode_New", "libpython3.11.so"), frame("main", "python3"),
                           frame("_dl_init", "ld-linux-x86-64.so.2")});
    CHECK_FALSE(builtIn.match(program));
    CHECK(program.m_named == 0);
    CountingStack runtime({frame("pool", "libstdc++.so.6"), frame("call_init", "ld-linux-x86-64.so.2")});
    CHECK(builtIn.match(runtime));
    CHECK(runtime.m_named == 0);
    CountingStack behindMain({frame("PyUnicode_New", "libpython3.11.so"), frame("main", "python3"),
                              frame("__libc_start_call_main", "libc.so.6")});
    CHECK_FALSE(builtIn.match(behindMain));
    CHECK(behindMain.m_named == 1);  // the C library's frame alone (stdio's buffer is asked by name)
    CountingStack stdio({frame("__GI__IO_file_doallocate", "libc.so.6"), frame("main", "app")});
    CHECK(builtIn.match(stdio));

    const std::string path = writeFile("leak:libplugin.so\nleak:^cache_\n");
    Suppressions patterns;
    patterns.load(path);
    CountingStack plugin({frame("f", "libplugin.so"), frame("main", "app")});
    REQUIRE(patterns.match(plugin));
    CHECK(patterns.match(plugin)->m_pattern == "libplugin.so");
    CHECK(plugin.m_named == 0);
    CountingStack cache({frame("helper", "app"), frame("cache_init", "app")});
    REQUIRE(patterns.match(cache));
    CHECK(patterns.match(cache)->m_pattern == "^cache_");
    unlink(path.c_str());
}

TEST_CASE("applying the built-in rules to a log's leaks names none of the program's frames") {
    memlog::test::LogBuilder log;
    auto& thread = log.thread(1);
    thread.module("/nonexistent/app", 0x30000, 0x30000, 0x40000)
        .module("/nonexistent/ld-linux-x86-64.so.2", 0x40000, 0x40000, 0x50000);
    thread.stack(1, {0x30030, 0x30040, 0x40010}).malloc(1, 0x1000, 16, 1);
    const std::string path = "/tmp/memlog-suppressions-" + std::to_string(getpid()) + ".memlog";
    log.write(path);
    memlog::timeline::LogReader reader(path);
    memlog::timeline::MeasuredLog measured = memlog::timeline::measureStacks(reader);
    REQUIRE(measured.m_summary.m_leakedBlocks == 1);
    memlog::timeline::StackNames names(reader, {});
    memlog::timeline::applySuppressions(measured, names, Suppressions());
    CHECK(measured.m_summary.m_leakedBlocks == 1);
    CHECK(measured.m_summary.m_suppressedBlocks == 0);
    CHECK(names.addressesNamed() == 0);
    unlink(path.c_str());
}

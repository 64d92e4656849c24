// Leak suppressions: LeakSanitizer's pattern rules, the built-in rules, and bad files.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <fstream>

#include "timeline/log_reader.hpp"
#include "timeline/suppressions.hpp"

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

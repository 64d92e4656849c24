// The allocation-site rule: the innermost frame a user would point at; the modules a log names,
// however many or strange.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include "log_builder.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/names/allocator_plumbing.hpp"
#include "timeline/names/stack_names.hpp"
#include "unwind/symbolizer.hpp"

using memlog::test::LogBuilder;
using memlog::timeline::isAllocatorPlumbing;
using memlog::unwind::SourceFrame;

TEST_CASE("allocator plumbing: C library, libstdc++, operator new, C++ library templates, the recorder") {
    CHECK(isAllocatorPlumbing({"__strdup", "", 0, "libc.so.6", false}));
    CHECK(isAllocatorPlumbing({"operator new(unsigned long)", "", 0, "libstdc++.so.6", false}));
    CHECK(isAllocatorPlumbing({"operator new(unsigned long)", "new_op.cc", 50, "app", false}));
    CHECK(isAllocatorPlumbing(
        {"std::vector<int>::push_back(int const&)", "/usr/include/c++/12/bits/stl_vector.h", 1287, "app", true}));
    CHECK(isAllocatorPlumbing({"std::allocator<char>::allocate(unsigned long)", "", 0, "app", false}));
    CHECK(isAllocatorPlumbing({"_dl_new_object", "", 0, "ld-linux-x86-64.so.2", false}));
    // The recorder's dlopen of an RTLD_DEEPBIND library, on the program's behalf.
    CHECK(isAllocatorPlumbing(
        {"memlog::preload::openDeepBound(char const*, int, bool)", "deep_bind.cpp", 232, "libmemlog.so", false}));
    CHECK(memlog::timeline::isAllocatorPlumbingModule("libmemlog.so"));
}

TEST_CASE("a demangled name's parameter list: found after templates and before qualifiers, never in a namespace") {
    using memlog::timeline::withoutParameterList;
    CHECK(withoutParameterList("gamma_site(int)") == "gamma_site");
    CHECK(withoutParameterList("ns::Grid<int (*)(int)>::at(unsigned long) const") == "ns::Grid<int (*)(int)>::at");
    CHECK(withoutParameterList("Box::operator()(int) &&") == "Box::operator()");
    CHECK(withoutParameterList("fill(int) [clone .cold]") == "fill");
    CHECK(withoutParameterList("make_obj") == "make_obj");
    CHECK(withoutParameterList("(anonymous namespace)::make_obj") == "(anonymous namespace)::make_obj");
    CHECK(withoutParameterList("app+0x1234") == "app+0x1234");
    CHECK(memlog::timeline::parameterListAt("main") == std::string::npos);
}

TEST_CASE("the program's own frames are sites, inlined or not") {
    CHECK_FALSE(isAllocatorPlumbing({"make_small", "/src/app.c", 23, "app", false}));
    CHECK_FALSE(isAllocatorPlumbing({"grab", "/src/app.c", 19, "app", true}));
    CHECK_FALSE(isAllocatorPlumbing({"plugin_allocate", "plugin.c", 8, "libplugin.so", false}));
    CHECK_FALSE(isAllocatorPlumbing({"app+0x1234", "", 0, "app", false}));
}

namespace {

std::string tempPath(const std::string& name) {
    return "/tmp/memlog-sites-" + std::to_string(getpid()) + "-" + name;
}

}  // namespace

TEST_CASE("the modules that hold addresses: the latest map's where maps overlap, empty ranges left out") {
    using memlog::unwind::LoadedModule;
    const std::vector<LoadedModule> inMapOrder = {
        {"/a", "", 0, 0x1000, 0x2000},  // 0: overlapped by 3, a later map's
        {"/b", "", 0, 0x3000, 0x4000},  // 1
        {"/c", "", 0, 0x5000, 0x5000},  // 2: empty
        {"/d", "", 0, 0x1800, 0x2800},  // 3
        {"/e", "", 0, 0x0800, 0x1000},  // 4: touches 3's start, no overlap
    };
    CHECK(memlog::unwind::latestModulesByAddress(inMapOrder) == std::vector<size_t>{4, 3, 1});
}

// A damaged log may hold a module record for every few bytes: choosing the modules compared each
// with every one kept (hundreds of thousands squared), and the symbolizer searched them in a line.
TEST_CASE("a log naming 300,000 modules is named without comparing every module with every other") {
    LogBuilder log;
    auto& thread = log.thread(1, 1u << 20);
    constexpr uint64_t kModules = 300'000;
    for (uint64_t i = 0; i < kModules; ++i) thread.module("[m" + std::to_string(i % 10) + "]", i << 12, i << 12, (i + 1) << 12);
    thread.stack(1, {(kModules - 1) << 12 | 0x10, 0x5'0010}).malloc(1, 0x1000, 16, 1);
    const std::string path = tempPath("modules.memlog");
    log.write(path);
    memlog::timeline::LogReader reader(path);
    reader.forEachEvent([](const memlog::timeline::Event&) {});
    REQUIRE(reader.modules().size() == kModules);
    memlog::timeline::StackNames names(reader, {});
    const std::vector<SourceFrame> frames = names.frames(1);
    REQUIRE(frames.size() == 2);
    CHECK(frames[0].m_function == "[m9]+0xf");  // the return address less one, from its module's base
    CHECK(frames[1].m_function == "[m0]+0xf");
    unlink(path.c_str());
}

// A damaged path may name a FIFO: libelf opened it and waited for a writer, for ever.
TEST_CASE("a module path that is not a regular file is warned about, never opened") {
    const std::string fifo = tempPath("fifo");
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    std::vector<std::string> warnings;
    memlog::unwind::Symbolizer symbolizer({{fifo, "", 0x10000, 0x10000, 0x20000}},
                                          [&](const std::string& warning) { warnings.push_back(warning); });
    CHECK(symbolizer.resolve(0x10010).front().m_function == "memlog-sites-" + std::to_string(getpid()) + "-fifo+0xf");
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0] == fifo + ": not a regular file; its frames stay as offsets");
    unlink(fifo.c_str());
}

// Naming a frame reads its module's debug information: the C library's is compressed and took
// tens of ms to load for frames that are plumbing by their module alone.
TEST_CASE("a site is found without naming the C library's, libstdc++'s or the loader's addresses before it") {
    LogBuilder log;
    auto& thread = log.thread(1);
    thread.module("/nonexistent/libc.so.6", 0x10000, 0x10000, 0x20000)
        .module("/nonexistent/libstdc++.so.6", 0x20000, 0x20000, 0x30000)
        .module("/nonexistent/app", 0x30000, 0x30000, 0x40000);
    thread.stack(1, {0x10010, 0x20020, 0x30030, 0x30040}).malloc(1, 0x1000, 16, 1);
    thread.stack(2, {0x10010, 0x20020}).malloc(2, 0x2000, 16, 2);  // all plumbing
    const std::string path = tempPath("plumbing.memlog");
    log.write(path);
    memlog::timeline::LogReader reader(path);
    reader.forEachEvent([](const memlog::timeline::Event&) {});
    memlog::timeline::StackNames names(reader, {});
    const SourceFrame site = names.site(1);
    CHECK(site.m_function == "app+0x2f");
    CHECK(names.addressesNamed() == 1);  // the app's first address alone: the walk stops there
    CHECK(names.moduleAt(0x20020) == "libstdc++.so.6");
    CHECK(names.addressesNamed() == 1);
    // A stack of nothing but plumbing: its innermost frame stands for the site, as before.
    CHECK(names.site(2).m_function == "libc.so.6+0xf");
    unlink(path.c_str());
}

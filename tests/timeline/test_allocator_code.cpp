// The C library's allocator code by address (unwind/allocator_code): glibc's malloc family and
// its static helpers found in this machine's C library, nothing else of the library.
#include <catch2/catch.hpp>

#include <dlfcn.h>

#include <set>
#include <string>

#include "this_c_library.hpp"
#include "unwind/allocator_code.hpp"
#include "unwind/symbolizer.hpp"

using namespace memlog::unwind;

namespace {

LoadedModule thisCLibrary() {
    const memlog::test::CLibrary libc = memlog::test::thisCLibrary();
    return {libc.m_path, libc.m_buildId, libc.m_bias, libc.m_lo, libc.m_hi};
}

bool inside(const std::vector<CodeRange>& ranges, uint64_t address) {
    for (const CodeRange& range : ranges)
        if (address >= range.m_lo && address < range.m_hi) return true;
    return false;
}

uint64_t addressOf(const char* name) { return memlog::test::cLibraryFunction(name); }

}  // namespace

TEST_CASE("the allocator's functions by name: the malloc family, glibc's helpers and their split pieces") {
    for (const char* name : {"malloc", "free", "__libc_calloc", "__GI___libc_free", "_int_malloc", "_int_free",
                             "malloc_consolidate", "sysmalloc_mmap.constprop.0", "unlink_chunk.constprop.0",
                             "ptmalloc_init.part.0", "cfree@GLIBC_2.2.5", "malloc_trim", "tcache_init"})
        CHECK(isAllocatorFunction(name));
    for (const char* name : {"strlen", "memset", "_IO_file_doallocate", "__libc_start_main", "free_mem",
                             "__nss_module_allocate", "malloc_hook_ini", "", "."})
        CHECK_FALSE(isAllocatorFunction(name));
    CHECK(isCLibrary("libc.so.6"));
    CHECK_FALSE(isCLibrary("libcrypt.so.1"));
    CHECK_FALSE(isCLibrary("libmemlog.so"));
}

TEST_CASE("this process's C library: malloc, free and calloc are allocator code, strlen and memcpy are not") {
    const LoadedModule libc = thisCLibrary();
    REQUIRE(!libc.m_path.empty());
    const std::vector<CodeRange> ranges = allocatorCode(libc);
    REQUIRE(!ranges.empty());
    for (const char* name : {"malloc", "free", "calloc", "realloc", "posix_memalign", "malloc_trim"}) {
        INFO(name);
        CHECK(inside(ranges, addressOf(name)));
        CHECK(inside(ranges, addressOf(name) + 3));
    }
    for (const char* name : {"strlen", "memcpy", "qsort", "fopen", "getpwnam"}) {
        INFO(name);
        REQUIRE(addressOf(name) != 0);
        CHECK_FALSE(inside(ranges, addressOf(name)));
    }
    for (size_t i = 1; i < ranges.size(); ++i) CHECK(ranges[i - 1].m_hi < ranges[i].m_lo);  // sorted, merged

    // With the library's debug symbols (libc6-dbg), the static helpers too: what the demo's
    // python3 run sampled in freed blocks, reached from inside the C library.
    Symbolizer names({libc}, {});
    std::set<std::string> helpers;
    for (const CodeRange& range : ranges)
        for (uint64_t at = range.m_lo; at < range.m_hi; at += 64) {  // the smallest helper is longer
            const std::vector<SourceFrame>& frames = names.resolveInstruction(at);
            for (const SourceFrame& frame : frames) helpers.insert(frame.m_function);
            // Every function around them is one of the allocator's (with what it inlined).
            CHECK(isAllocatorFunction(frames.back().m_function));
        }
    if (!helpers.count("_int_free")) {
        WARN("no debug symbols for " << libc.m_path << ": only the exported entry points are known");
        return;
    }
    CHECK(helpers.count("_int_malloc"));
    CHECK(helpers.count("malloc_consolidate"));
}

TEST_CASE("a C library that is not the recorded build, or not a file, gives no ranges") {
    LoadedModule libc = thisCLibrary();
    REQUIRE(!libc.m_buildId.empty());
    libc.m_buildId = std::string(libc.m_buildId.size(), '0');
    CHECK(allocatorCode(libc).empty());
    CHECK(allocatorCode({"/nonexistent/libc.so.6", "", 0x1000, 0x1000, 0x2000}).empty());
    CHECK(allocatorCode({"/dev/null", "", 0x1000, 0x1000, 0x2000}).empty());
}

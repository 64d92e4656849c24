// The allocation-site rule: the innermost frame a user would point at.
#include <catch2/catch.hpp>

#include "timeline/sites.hpp"

using memlog::timeline::isAllocatorPlumbing;
using memlog::unwind::SourceFrame;

TEST_CASE("allocator plumbing: C library, libstdc++, operator new, C++ library templates") {
    CHECK(isAllocatorPlumbing({"__strdup", "", 0, "libc.so.6", false}));
    CHECK(isAllocatorPlumbing({"operator new(unsigned long)", "", 0, "libstdc++.so.6", false}));
    CHECK(isAllocatorPlumbing({"operator new(unsigned long)", "new_op.cc", 50, "app", false}));
    CHECK(isAllocatorPlumbing(
        {"std::vector<int>::push_back(int const&)", "/usr/include/c++/12/bits/stl_vector.h", 1287, "app", true}));
    CHECK(isAllocatorPlumbing({"std::allocator<char>::allocate(unsigned long)", "", 0, "app", false}));
    CHECK(isAllocatorPlumbing({"_dl_new_object", "", 0, "ld-linux-x86-64.so.2", false}));
}

TEST_CASE("the program's own frames are sites, inlined or not") {
    CHECK_FALSE(isAllocatorPlumbing({"make_small", "/src/app.c", 23, "app", false}));
    CHECK_FALSE(isAllocatorPlumbing({"grab", "/src/app.c", 19, "app", true}));
    CHECK_FALSE(isAllocatorPlumbing({"plugin_allocate", "plugin.c", 8, "libplugin.so", false}));
    CHECK_FALSE(isAllocatorPlumbing({"app+0x1234", "", 0, "app", false}));
}

// Numbers as users type them: sizes with a unit (memlog cache --size, memtimeline --cache).
#include <catch2/catch.hpp>

#include "timeline/base/number_parsing.hpp"

using memlog::timeline::parseByteSize;

TEST_CASE("number parsing: sizes with units K, M, G, and what is not a size") {
    CHECK(parseByteSize("32K") == 32768u);
    CHECK(parseByteSize("8M") == 8u << 20);
    CHECK(parseByteSize("1g") == 1u << 30);
    CHECK(parseByteSize("4096") == 4096u);
    CHECK(!parseByteSize("32KB"));
    CHECK(!parseByteSize("-1"));
    CHECK(!parseByteSize(""));
    CHECK(!parseByteSize("K"));
    CHECK(!parseByteSize("17179869184G"));  // 2^34 GiB: past 64 bits
}

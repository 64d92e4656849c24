// Numbers as users type them: sizes with a unit (memlog cache --size, memtimeline --cache).
#include <catch2/catch.hpp>

#include "timeline/base/number_parsing.hpp"

using memlog::timeline::parseByteSize;
using memlog::timeline::parseDuration;

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

TEST_CASE("number parsing: durations with units ns, us, ms, s, and what is not a duration") {
    CHECK(parseDuration("1.5s") == 1'500'000'000u);
    CHECK(parseDuration("250ms") == 250'000'000u);
    CHECK(parseDuration("40us") == 40'000u);
    CHECK(parseDuration("1200ns") == 1200u);
    CHECK(parseDuration("0s") == 0u);
    CHECK(parseDuration(".5ms") == 500'000u);
    CHECK(!parseDuration("12"));  // no unit: seconds or nanoseconds?
    CHECK(!parseDuration("-1s"));
    CHECK(!parseDuration("1 s"));
    CHECK(!parseDuration("0x10ms"));
    CHECK(!parseDuration("inf"));
    CHECK(!parseDuration("1e30s"));
    CHECK(!parseDuration("5min"));
    CHECK(!parseDuration(""));
}

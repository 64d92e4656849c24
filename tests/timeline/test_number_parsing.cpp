// Numbers as users type them: counts, sizes with a unit, times with a unit, factors, addresses,
// all through the one reader of memlog/option_row.hpp (memlog's options, memtimeline's, and the
// recorder's MEMLOG_* settings).
#include <catch2/catch.hpp>

#include "timeline/base/number_parsing.hpp"

using namespace memlog::timeline;

TEST_CASE("number parsing: counts are digits alone") {
    CHECK(parseCount("0") == 0u);
    CHECK(parseCount("4096") == 4096u);
    CHECK(parseCount("18446744073709551615") == UINT64_MAX);
    CHECK(!parseCount("18446744073709551616"));  // past 64 bits
    CHECK(!parseCount(""));
    CHECK(!parseCount("-1"));
    CHECK(!parseCount("+1"));
    CHECK(!parseCount("1.5"));
    CHECK(!parseCount("8x"));
    CHECK(!parseCount("32K"));
}

TEST_CASE("number parsing: sizes with units K, M, G, and what is not a size") {
    CHECK(parseByteSize("32K") == 32768u);
    CHECK(parseByteSize("8M") == 8u << 20);
    CHECK(parseByteSize("1g") == 1u << 30);
    CHECK(parseByteSize("4096") == 4096u);
    CHECK(!parseByteSize("32KB"));
    CHECK(!parseByteSize("-1"));
    CHECK(!parseByteSize(""));
    CHECK(!parseByteSize("K"));
    CHECK(!parseByteSize("1.5K"));
    CHECK(!parseByteSize("17179869184G"));  // 2^34 GiB: past 64 bits
}

TEST_CASE("number parsing: times in nanoseconds, with a unit or plain, fractions rounded") {
    CHECK(parseDuration("1.5s") == 1'500'000'000u);
    CHECK(parseDuration("200ms") == 200'000'000u);
    CHECK(parseDuration("3us") == 3000u);
    CHECK(parseDuration("3\u00b5s") == 3000u);
    CHECK(parseDuration("40ns") == 40u);
    CHECK(parseDuration("12") == 12u);  // plain: nanoseconds
    CHECK(parseDuration("1.5ns") == 2u);  // to the nearest nanosecond
    CHECK(parseDuration("0.25us") == 250u);
    CHECK(!parseDuration("soon"));
    CHECK(!parseDuration("5 ms"));
    CHECK(!parseDuration("5m"));
    CHECK(!parseDuration("-1s"));
    CHECK(!parseDuration("1.2.3s"));
}

TEST_CASE("number parsing: factors as decimals, addresses in hex") {
    CHECK(parseReal("0.3") == 0.3);  // the same double as the literal
    CHECK(parseReal("4") == 4.0);
    CHECK(parseReal(".5") == 0.5);
    CHECK(!parseReal("1e3"));
    CHECK(!parseReal("-0.5"));
    CHECK(!parseReal(""));
    CHECK(parseHex("0x55d0c8a2b000") == 0x55d0c8a2b000u);
    CHECK(parseHex("7F00") == 0x7f00u);
    CHECK(parseHex("0xffffffffffffffff") == UINT64_MAX);
    CHECK(!parseHex("0x1ffffffffffffffff"));
    CHECK(!parseHex("0x"));
    CHECK(!parseHex("0xg"));
}

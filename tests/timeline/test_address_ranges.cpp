// Address compaction: every block keeps its place, only empty address space goes.
#include <catch2/catch.hpp>

#include <random>

#include "timeline/model/address_ranges.hpp"

using memlog::timeline::AddressRange;
using memlog::timeline::AddressRanges;

TEST_CASE("compaction keeps every block and removes only empty ranges") {
    std::mt19937_64 random(7);
    for (int round = 0; round < 20; ++round) {
        // Clusters far apart (heap, arenas, mappings), blocks of every size inside them.
        std::vector<AddressRange> blocks;
        for (int i = 0; i < 2000; ++i) {
            const uint64_t cluster = 0x5500'0000'0000ull + (random() % 12) * 0x10'0000'0000ull;
            const uint64_t lo = cluster + random() % (1u << 24);
            blocks.push_back({lo, lo + 1 + random() % (random() % 10 == 0 ? 1u << 20 : 256u)});
        }
        AddressRanges::Builder builder;
        for (const AddressRange& b : blocks) builder.add(b.m_lo, b.m_hi);
        const AddressRanges ranges = builder.finish();
        const auto& list = ranges.ranges();
        // Every block lies inside one range (so no block touches a removed gap), and every
        // range holds a block.
        std::vector<int> held(list.size(), 0);
        for (const AddressRange& b : blocks) {
            const auto range = ranges.rangeOf(b.m_lo);
            REQUIRE(range);
            CHECK(b.m_hi <= list[*range].m_hi);
            ++held[*range];
        }
        for (size_t i = 0; i < list.size(); ++i) CHECK(held[i] > 0);
        // Removed gaps are at least the threshold; smaller ones stayed inside a range.
        for (size_t i = 0; i + 1 < list.size(); ++i) CHECK(list[i + 1].m_lo - list[i].m_hi >= AddressRanges::kKeepGapsBelow);
        uint64_t total = 0;
        for (const AddressRange& range : list) total += range.bytes();
        CHECK(ranges.bytes() == total);
    }
}

TEST_CASE("ranges are whole pages, and gaps under 64 KiB stay inside a range") {
    AddressRanges::Builder builder;
    builder.add(0x10010, 0x10020);
    builder.add(0x20000, 0x21001);          // 0xf000 after the first page: kept inside
    builder.add(0x1000000, 0x1000008);      // far away: a range of its own
    const AddressRanges ranges = builder.finish();
    REQUIRE(ranges.ranges().size() == 2);
    CHECK(ranges.ranges()[0].m_lo == 0x10000);
    CHECK(ranges.ranges()[0].m_hi == 0x22000);
    CHECK(ranges.ranges()[1].m_lo == 0x1000000);
    CHECK(ranges.ranges()[1].m_hi == 0x1001000);
    CHECK_FALSE(ranges.rangeOf(0x22000));
    CHECK(ranges.rangeOf(0x21fff) == 0u);
    CHECK_FALSE(ranges.rangeOf(0xffff));
}

TEST_CASE("with room for fewer ranges, the smallest gaps close first") {
    AddressRanges::Builder builder(1);
    builder.add(0, 10);
    builder.add(1'000'000, 1'000'010);    // gap ~1 M
    builder.add(1'200'000, 1'200'010);    // gap 200 k: the smallest
    builder.add(9'000'000, 9'000'010);    // gap ~7.8 M
    const AddressRanges three = builder.finish(0, 3);
    REQUIRE(three.ranges().size() == 3);
    CHECK(three.ranges()[1].m_lo == 1'000'000);
    CHECK(three.ranges()[1].m_hi == 1'200'010);
    const AddressRanges two = builder.finish(0, 2);
    REQUIRE(two.ranges().size() == 2);
    CHECK(two.ranges()[0].m_hi == 1'200'010);
    CHECK(two.ranges()[1].m_lo == 9'000'000);
}

TEST_CASE("an address window clips the ranges") {
    AddressRanges::Builder builder(1);
    builder.add(100, 200);
    builder.add(1'000'000, 1'000'100);
    const AddressRanges clipped = builder.finish().clip(150, 1'000'050);
    REQUIRE(clipped.ranges().size() == 2);
    CHECK(clipped.ranges()[0].m_lo == 150);
    CHECK(clipped.ranges()[0].m_hi == 200);
    CHECK(clipped.ranges()[1].m_hi == 1'000'050);
    CHECK(clipped.bytes() == 100);
    CHECK(builder.finish().clip(300, 900).empty());
}

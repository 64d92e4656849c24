// AddressScale scrolled for the window's zoom: the rows of a tall scale seen through a view.
#include <catch2/catch.hpp>

#include "render/raster/address_scale.hpp"

using Catch::Detail::Approx;
using memlog::render::AddressScale;
using memlog::timeline::AddressRange;
using memlog::timeline::AddressRanges;

namespace {

// Two ranges, 1 MiB and 64 KiB, laid out 10,000 rows tall (a 10x zoom of a 1,000-row view).
AddressScale tallScale() {
    return AddressScale(AddressRanges({{0x10000000, 0x10100000}, {0x7f0000000000, 0x7f0000010000}}), 10000);
}

}  // namespace

TEST_CASE("a scrolled scale maps addresses as the tall one did, shifted by the scroll") {
    const AddressScale tall = tallScale();
    const AddressScale view = tall.windowed(9000, 1000);  // the bottom tenth: low addresses
    REQUIRE(view.bands().size() == 1);
    CHECK(view.height() == 1000);
    for (uint64_t addr : {0x10000000ull, 0x10080000ull, 0x100fffffull})
        CHECK(*view.y(addr) == Approx(*tall.y(addr) - 9000));
    // The band reaches above the view: its rows run negative, its range stays whole.
    CHECK(view.bands()[0].m_top < 0);
    CHECK(view.bands()[0].m_range.m_hi == 0x10100000);
    const uint64_t atMiddle = *view.addressAt(500);
    CHECK(atMiddle == *tall.addressAt(9500));
}

TEST_CASE("shownAddresses names the lowest and highest address on the view's rows") {
    const AddressScale tall = tallScale();
    const auto whole = tall.shownAddresses();
    REQUIRE(whole);
    CHECK(whole->first == 0x10000000);
    CHECK(whole->second == 0x7f000000ffff);
    const AddressScale bottom = tall.windowed(9000, 1000);
    const auto shown = bottom.shownAddresses();
    REQUIRE(shown);
    CHECK(shown->first == 0x10000000);
    CHECK(shown->second == *tall.addressAt(9000));
    CHECK(shown->second < 0x10100000);
    // Scrolled past everything: nothing shown.
    CHECK_FALSE(tall.windowed(20000, 1000).shownAddresses());
    CHECK(tall.windowed(20000, 1000).bands().empty());
}

TEST_CASE("a range's height is half its bytes' share and half its blocks': a huge mapping leaves the blocks theirs") {
    // 256 MiB mapped as one block far above 8 MiB of 100,000 small blocks (as cc1plus's
    // garbage-collected heap beside its malloc'd blocks): counted by the builder as they come.
    AddressRanges::Builder builder;
    const uint64_t heap = 0x10000000, mapping = 0x7f0000000000;
    for (uint64_t i = 0; i < 100'000; ++i) builder.add(heap + i * 80, heap + i * 80 + 64);
    builder.add(mapping, mapping + (256ull << 20));
    const AddressRanges ranges = builder.finish();
    REQUIRE(ranges.ranges().size() == 2);
    CHECK(ranges.ranges()[0].m_blocks == 100'000);
    CHECK(ranges.ranges()[1].m_blocks == 1);
    const AddressScale scale(ranges, 1000);
    const auto& bands = scale.bands();
    const double heapRows = bands[0].m_bottom - bands[0].m_top, mappingRows = bands[1].m_bottom - bands[1].m_top;
    // By bytes alone the heap would get 3 % of the height; by half and half, about half of it.
    CHECK(heapRows > 0.45 * (heapRows + mappingRows));
    CHECK(mappingRows > 0.45 * (heapRows + mappingRows));
    // Ranges nobody counted blocks for: bytes alone, as before.
    const AddressScale uncounted(AddressRanges({{heap, heap + (8ull << 20)}, {mapping, mapping + (256ull << 20)}}),
                                 1000);
    const auto& plain = uncounted.bands();
    CHECK(plain[0].m_bottom - plain[0].m_top <
          0.05 * (plain[1].m_bottom - plain[1].m_top + plain[0].m_bottom - plain[0].m_top));
}

TEST_CASE("the row of an address asked after another's, from that one's band, is the row asked alone") {
    const AddressScale scale(AddressRanges({{0x1000, 0x2000}, {0x5000, 0x5100}, {0x9000, 0x20000}}), 600);
    // In a band, in the next, in a gap, below and above everything, each from every band.
    const uint64_t addresses[] = {0x1000, 0x1fff, 0x5000, 0x50ff, 0x9000, 0x1ffff, 0x2000, 0x5100, 0x800, 0x20000};
    size_t asked = 0, moved = 0;
    for (size_t from = 0; from < 4; ++from)
        for (const uint64_t addr : addresses) {
            size_t band = from;  // 3: no band at all
            const auto alone = scale.y(addr), after = scale.y(addr, band);
            REQUIRE(alone.has_value() == after.has_value());
            if (alone) CHECK(*after == *alone);
            if (alone) moved += band != from;
            ++asked;
        }
    CHECK(asked == 40);
    CHECK(moved > 0);  // the band followed the addresses
}

// A playback's slices and the access filter, on made-up samples with known answers.
#include <catch2/catch.hpp>

#include "timeline/accesses/array_cells.hpp"
#include "timeline/accesses/array_playback.hpp"

using namespace memlog::timeline;
using memlog::format::AccessKind;

namespace {

// A 2 x 4 array of 8-byte elements sampled at 0, 10, 20 ... 90 ns, element i at 10 * i ns
// (element 8 and 9 wrap to 0 and 1), odd samples written.
SampledArray tenSamples() {
    SampledArray array;
    array.m_size = 64;
    for (uint64_t i = 0; i < 10; ++i)
        array.m_samples.push_back({i, 10 * i, (i % 8) * 8, 0x1000, 8, 1, i % 2 ? AccessKind::Write : AccessKind::Read});
    return array;
}

const ArrayShape kShape{8, 2, 4, 1};

}  // namespace

TEST_CASE("playback: the samples' span cut in equal slices, each sample in the slice its time falls in") {
    const Playback played = playback(tenSamples(), kShape, ArrayOrder::RowMajor, 3);
    CHECK(played.m_firstNs == 0);
    CHECK(played.m_lastNs == 90);
    CHECK(played.m_sliceEndNs == std::vector<uint64_t>{30, 60, 90});
    REQUIRE(played.m_touches.size() == 3);
    // 0..30 ns: samples 0, 1, 2, 3; 31..60: 4, 5, 6; 61..90: 7, 8 (element 0), 9 (element 1).
    std::vector<std::vector<uint64_t>> cells;
    for (const auto& slice : played.m_touches) {
        cells.emplace_back();
        for (const CellTouch& touch : slice) cells.back().push_back(touch.m_cell);
    }
    CHECK(cells == std::vector<std::vector<uint64_t>>{{0, 1, 2, 3}, {4, 5, 6}, {7, 0, 1}});
    CHECK(played.m_touches[0][1].m_written);
    CHECK_FALSE(played.m_touches[0][1].m_read);
    CHECK(played.m_touches[0][0].m_read);
}

TEST_CASE("playback: column-major order and the access filter pick the cells and samples as the views do") {
    const Playback writes = playback(tenSamples(), kShape, ArrayOrder::ColumnMajor, 1, AccessFilter::Writes);
    REQUIRE(writes.m_touches.size() == 1);
    std::vector<uint64_t> cells;
    for (const CellTouch& touch : writes.m_touches[0]) {
        CHECK(touch.m_written);
        cells.push_back(touch.m_cell);
    }
    // Elements 1, 3, 5, 7, 1 column-major in 2 rows: (1, 0), (1, 1), (1, 2), (1, 3), (1, 0).
    CHECK(cells == std::vector<uint64_t>{4, 5, 6, 7, 4});
    CHECK(writes.m_firstNs == 10);
    const ArrayCells reads = arrayCells(tenSamples(), kShape, ArrayOrder::RowMajor, UINT64_MAX, AccessFilter::Reads);
    CHECK(reads.m_samples == 5);
    CHECK(reads.cellAt(0, 0, 0).m_reads == 2);  // samples 0 and 8
    CHECK(reads.cellAt(0, 0, 0).m_writes == 0);
    CHECK(reads.cellAt(0, 0, 1).m_reads == 0);  // written only
    CHECK(reads.m_firstNs == 0);
    CHECK(reads.m_lastNs == 80);
}

TEST_CASE("playback: no samples, or one instant, still gives the slices asked for") {
    const Playback none = playback(SampledArray{}, kShape, ArrayOrder::RowMajor, 4);
    CHECK(none.m_touches.size() == 4);
    CHECK(none.m_sliceEndNs.size() == 4);
    SampledArray once;
    once.m_samples.push_back({1, 500, 8, 0, 8, 1, AccessKind::Read});
    const Playback instant = playback(once, kShape, ArrayOrder::RowMajor, 2);
    CHECK(instant.m_touches[0].size() == 1);
    CHECK(instant.m_touches[1].empty());
}

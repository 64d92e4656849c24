// The loading screen's coarse picture: each region's bytes live at each column's end, exact
// through the merging of columns and regions, and the same as the model's blocks when the walk
// draws it.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>
#include <vector>

#include "heap_records.hpp"
#include "timeline/model/occupancy_sketch.hpp"

using memlog::timeline::OccupancySketch;
using memlog::timeline::XAxis;

namespace {

struct SketchedBlock {
    uint64_t m_addr, m_size, m_from, m_to;  // m_to == UINT64_MAX: live at the end
};

uint64_t overlap(uint64_t lo, uint64_t hi, uint64_t from, uint64_t to) {
    return std::min(hi, to) > std::max(lo, from) ? std::min(hi, to) - std::max(lo, from) : 0;
}

// Every cell of `picture` against the blocks counted afresh: those begun in the column or before,
// and not ended by its end, each with the bytes it covers of the row's region.
void checkAgainst(const OccupancySketch::Picture& picture, const std::vector<SketchedBlock>& blocks) {
    REQUIRE(picture.m_columns > 0);
    REQUIRE(std::is_sorted(picture.m_regions.begin(), picture.m_regions.end()));
    uint64_t lastX = 0;
    for (const SketchedBlock& block : blocks)
        lastX = std::max({lastX, block.m_from, block.m_to == UINT64_MAX ? 0 : block.m_to});
    CHECK(picture.m_lastX == lastX);
    CHECK(picture.m_columns == lastX / picture.m_columnWidth + 1);
    size_t wrong = 0;
    for (size_t row = 0; row < picture.m_regions.size(); ++row) {
        const uint64_t lo = picture.m_regions[row], hi = lo + picture.m_regionBytes;
        std::vector<const SketchedBlock*> inRegion;
        for (const SketchedBlock& block : blocks)
            if (overlap(lo, hi, block.m_addr, block.m_addr + block.m_size) > 0) inRegion.push_back(&block);
        for (size_t column = 0; column < picture.m_columns; ++column) {
            uint64_t expected = 0;
            for (const SketchedBlock* block : inRegion)
                if (block->m_from / picture.m_columnWidth <= column &&
                    (block->m_to == UINT64_MAX || block->m_to / picture.m_columnWidth > column))
                    expected += overlap(lo, hi, block->m_addr, block->m_addr + block->m_size);
            wrong += picture.bytes(row, column) != expected;
        }
    }
    CHECK(wrong == 0);
}

}  // namespace

TEST_CASE(
    "the sketch holds each region's bytes live at each column's end, exactly, through merged columns and regions") {
    // Blocks over 3,000 pages in two far parts of the address space (more regions than rows),
    // some across a page's edge, over x to 10^6 (more columns than kColumns).
    std::mt19937_64 random(7);
    std::vector<SketchedBlock> blocks;
    for (int i = 0; i < 4000; ++i) {
        const uint64_t base = random() % 3 ? 0x5555'0000'0000ull : 0x7f00'0000'0000ull;
        const uint64_t addr = base + (random() % 1500) * 4096 + random() % 4096;
        const uint64_t from = random() % 1'000'000;
        const uint64_t to = random() % 8 == 0 ? UINT64_MAX : from + random() % 200'000;
        blocks.push_back({addr, 1 + random() % 12'000, from, to});
    }
    // Told in x order, as a walk tells them: an end before a begin at the same x.
    struct Change {
        uint64_t m_x;
        bool m_begin;
        size_t m_block;
    };
    std::vector<Change> changes;
    for (size_t i = 0; i < blocks.size(); ++i) {
        changes.push_back({blocks[i].m_from, true, i});
        if (blocks[i].m_to != UINT64_MAX) changes.push_back({blocks[i].m_to, false, i});
    }
    std::stable_sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) {
        return a.m_x != b.m_x ? a.m_x < b.m_x : !a.m_begin && b.m_begin;
    });
    OccupancySketch sketch(XAxis::Time);
    CHECK(sketch.picture() == nullptr);
    for (const Change& change : changes) {
        const SketchedBlock& block = blocks[change.m_block];
        if (change.m_begin)
            sketch.begin(block.m_addr, block.m_size, change.m_x);
        else
            sketch.end(block.m_addr, block.m_size, change.m_x);
    }
    sketch.finish();
    const auto picture = sketch.picture();
    REQUIRE(picture);
    CHECK(picture->m_read == 1);
    CHECK(picture->m_columnWidth > 1'000'000 / OccupancySketch::kColumns);  // the columns were merged
    CHECK(picture->m_regionBytes > 4096);  // and so were the regions
    CHECK(picture->m_regions.size() <= OccupancySketch::kRows);
    checkAgainst(*picture, blocks);
}

TEST_CASE("a walk draws the sketch of its model's blocks, on time or on the events' order") {
    // Two threads over 3 MiB, blocks freed and taken again, some live at the end, a realloc.
    std::mt19937_64 random(11);
    memlog::test::LogBuilder log;
    auto& a = log.thread(10, 1 << 16);
    auto& b = log.thread(11, 1 << 16);
    std::vector<bool> live(600, false);
    uint64_t seq = 1;
    for (; seq <= 20'000; ++seq) {
        auto& thread = random() % 2 ? a : b;
        const size_t slot = random() % live.size();
        const uint64_t addr = 0x5555'0000'0000ull + slot * 5000;
        if (live[slot])
            thread.free(seq, addr);
        else
            thread.malloc(seq, addr, 1 + random() % 5000);
        live[slot] = !live[slot];
    }
    const std::string path = "/tmp/memlog-sketch-" + std::to_string(getpid()) + ".memlog";
    log.write(path);
    for (const XAxis axis : {XAxis::Time, XAxis::Events}) {
        INFO(memlog::timeline::xAxisName(axis));
        memlog::timeline::LogReader reader(path);
        OccupancySketch sketch(axis);
        const memlog::timeline::BlockModel model =
            memlog::timeline::buildBlockModel(reader, {}, false, XAxis::Time, &sketch);
        std::vector<SketchedBlock> blocks;
        model.forEach([&](const memlog::timeline::Block& block) {
            blocks.push_back(
                {block.addr(), block.size(), block.from(axis), block.liveAtEnd() ? UINT64_MAX : block.to(axis)});
        });
        REQUIRE(blocks.size() > 10'000);
        const auto picture = sketch.picture();
        REQUIRE(picture);
        CHECK(picture->m_read == 1);
        checkAgainst(*picture, blocks);
    }
    unlink(path.c_str());
}

TEST_CASE("the sketch is published as the walk goes, a quarter second apart, with the share read") {
    OccupancySketch sketch(XAxis::Events);
    sketch.read(0.25);
    for (uint64_t x = 1; x <= 100; ++x) sketch.begin(0x10000 + 32 * x, 32, x);  // all in one page
    CHECK(sketch.picture() == nullptr);  // the first look at the clock comes later
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    for (uint64_t i = 0; i < 8192; ++i) sketch.tick();  // accesses between the blocks
    const auto first = sketch.picture();
    REQUIRE(first);
    CHECK(first->m_read == 0.25);
    CHECK(first->m_columns == 101);
    CHECK(first->bytes(0, 100) == 100 * 32);
    // Not again within the quarter second: the window is not handed 4 MiB every millisecond.
    sketch.read(0.5);
    for (uint64_t i = 0; i < 8192; ++i) sketch.tick();
    CHECK(sketch.picture() == first);
    sketch.finish();
    CHECK(sketch.picture()->m_read == 1);
}

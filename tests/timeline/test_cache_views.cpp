// What the cache views draw, against cases computed by hand: which access missed, the main
// memory display's cells, sets, rows and strip charts, and the working set's columns.
#include <catch2/catch.hpp>

#include "timeline/trace/cache_views.hpp"

using namespace memlog::timeline;

namespace {

AccessMark at(uint64_t timeNs, uint64_t addr, uint32_t size = 8) {
    AccessMark mark;
    mark.m_timeNs = timeNs;
    mark.m_seq = timeNs;
    mark.m_addr = addr;
    mark.m_size = size;
    return mark;
}

}  // namespace

TEST_CASE("cache views: a sequential sweep misses on the first access of each line only") {
    std::vector<AccessMark> marks;
    for (uint64_t i = 0; i < 32; ++i) marks.push_back(at(i, 0x1000 + 8 * i));
    const std::vector<uint8_t> missed = missesOfAccesses(marks, {32 * 1024, 8, 64});
    REQUIRE(missed.size() == 32);
    for (size_t i = 0; i < 32; ++i) {
        INFO("access " << i);
        CHECK(missed[i] == (i % 8 == 0 ? 1 : 0));
    }
}

TEST_CASE("cache views: an access over two lines misses when its second line is new") {
    const std::vector<AccessMark> marks = {at(0, 0x1000), at(1, 0x103c, 8), at(2, 0x1040)};
    CHECK(missesOfAccesses(marks, {32 * 1024, 8, 64}) == std::vector<uint8_t>{1, 1, 0});
}

TEST_CASE("cache views: the main memory display counts each line, set and row of the compacted memory") {
    // Direct-mapped, 4 sets of 64 bytes: a row is 256 bytes, a 64 KiB piece 256 rows.
    const std::vector<AccessMark> marks = {
        at(0, 0x10000),   // row 0, set 0: compulsory miss
        at(10, 0x10008),  // the same line: hit
        at(20, 0x10100),  // row 1, set 0: miss, evicts row 0's line
        at(30, 0x10000),  // row 0 again: conflict miss
        at(40, 0x50040),  // the second piece (the one between is left out): row 256, set 1
    };
    const MemoryDisplay display = memoryDisplay(marks, {256, 1, 64}, 0, 50, 5, 5);
    CHECK(display.m_rowBytes == 256);
    CHECK(display.m_pieces == std::vector<uint64_t>{0x10000, 0x50000});
    REQUIRE(display.m_lines.m_rows == 512);
    REQUIRE(display.m_lines.m_columns == 4);
    CHECK(display.m_lines.at(0, 0) == HitsMisses{1, 2});
    CHECK(display.m_lines.at(1, 0) == HitsMisses{0, 1});
    CHECK(display.m_lines.at(256, 1) == HitsMisses{0, 1});
    CHECK(display.m_lines.at(0, 1) == HitsMisses{0, 0});
    CHECK(display.m_sets == std::vector<HitsMisses>{{1, 3}, {0, 1}, {0, 0}, {0, 0}});
    CHECK(display.m_rows[0] == HitsMisses{1, 2});
    CHECK(display.m_rows[1] == HitsMisses{0, 1});
    CHECK(display.m_rows[256] == HitsMisses{0, 1});
    CHECK(display.m_total == HitsMisses{1, 4});
    CHECK(display.rowAddress(1) == 0x10100);
    CHECK(display.rowAddress(256) == 0x50000);
    CHECK(display.cellOf(0x50040) == std::pair<size_t, size_t>{256, 1});
    CHECK(display.cellOf(0x100c0) == std::pair<size_t, size_t>{0, 3});
    CHECK_FALSE(display.cellOf(0x30000));
    // Five slices of 10 ns: one access in each.
    REQUIRE(display.m_setsOverTime.m_rows == 5);
    CHECK(display.m_setsOverTime.at(0, 0) == HitsMisses{0, 1});
    CHECK(display.m_setsOverTime.at(1, 0) == HitsMisses{1, 0});
    CHECK(display.m_setsOverTime.at(4, 1) == HitsMisses{0, 1});
    CHECK(display.m_setsOverTime.at(4, 0) == HitsMisses{0, 0});
    REQUIRE(display.m_rowsOverTime.m_columns == 5);
    CHECK(display.m_rowsOverTime.at(0, 3) == HitsMisses{0, 1});
    CHECK(display.m_rowsOverTime.at(1, 2) == HitsMisses{0, 1});
    CHECK(display.m_rowsOverTime.at(256, 4) == HitsMisses{0, 1});
}

TEST_CASE("cache views: with two ways a row is one way of the cache, and the conflict is gone") {
    // 512 bytes, 2 ways, 64-byte lines: 4 sets, rows of 256 bytes as before.
    const std::vector<AccessMark> marks = {at(0, 0x10000), at(20, 0x10100), at(30, 0x10000)};
    const MemoryDisplay display = memoryDisplay(marks, {512, 2, 64}, 0, 50, 5, 5);
    CHECK(display.m_rowBytes == 256);
    CHECK(display.m_lines.at(0, 0) == HitsMisses{1, 1});
    CHECK(display.m_lines.at(1, 0) == HitsMisses{0, 1});
}

TEST_CASE("cache views: a line stays in the working set until it has been idle for the idle time") {
    const std::vector<AccessMark> marks = {
        at(10, 0, 8),    // line 0: bytes 0-7
        at(50, 8, 8),    // line 0: bytes 8-15
        at(150, 64, 64), // line 1, whole
        at(320, 0, 4),   // line 0 again, after 270 ns idle: it had left, its count starts again
    };
    const WorkingSet set = workingSet(marks, 64, 100, 0, 400, 4);
    REQUIRE(set.m_columns.size() == 4);
    // [0, 100): line 0, last used at 50, idle (100 - 50) / 100.
    CHECK(set.m_columns[0] == std::vector<WorkingLine>{{0, 0.5, 16}});
    // [100, 200): line 0 leaves at 150 (shown fully faded); line 1 joins at 150.
    CHECK(set.m_columns[1] == std::vector<WorkingLine>{{0, 1.0, 16}, {1, 0.5, 64}});
    // [200, 300): line 0 is gone; line 1 leaves at 250.
    CHECK(set.m_columns[2] == std::vector<WorkingLine>{{1, 1.0, 64}});
    // [300, 400): line 0 back with 4 bytes used; line 1 left at 250.
    CHECK(set.m_columns[3] == std::vector<WorkingLine>{{0, 0.8, 4}});
    CHECK(set.m_largest == 2);
    CHECK(set.m_distinct == 2);
}

// The cache views' pixels against cases worked out by hand: a cell's colour, grids of cells
// whole and summed, bar graphs, the working set's lines.
#include <catch2/catch.hpp>

#include <vector>

#include "render/raster/cache_display.hpp"

using namespace memlog::render;
using memlog::timeline::CountGrid;
using memlog::timeline::HitsMisses;
using memlog::timeline::WorkingLine;
using memlog::timeline::WorkingSet;

namespace {

struct Canvas {
    std::vector<uint32_t> m_pixels;
    PixelBuffer m_buffer;
    Canvas(int width, int height) : m_pixels(static_cast<size_t>(width * height), 0) {
        m_buffer = {m_pixels.data(), width, height, width};
    }
    uint32_t at(int x, int y) const { return m_buffer.at(x, y); }
};

// Equal to a colour but for rounding to 8 bits (a channel of 0.1 is 25.5).
bool near(uint32_t pixel, const Rgb& colour) {
    const uint32_t expected = toArgb(colour);
    for (int shift = 0; shift < 24; shift += 8) {
        const int a = static_cast<int>(pixel >> shift & 0xff), b = static_cast<int>(expected >> shift & 0xff);
        if (a - b > 1 || b - a > 1) return false;
    }
    return true;
}

}  // namespace

TEST_CASE("cache display: a cell's hue is its share of misses, its strength its accesses") {
    CHECK(toArgb(hitMissColour({0, 0}, 10)) == toArgb(kNoAccessColour));
    CHECK(near(toArgb(hitMissColour({4, 0}, 4)), kCellHitColour));
    CHECK(near(toArgb(hitMissColour({0, 4}, 4)), kCellMissColour));
    CHECK(toArgb(hitMissColour({0, 1}, 16)) == toArgb(mixed(kNoAccessColour, kCellMissColour, kWeakestCell)));
    CHECK(near(toArgb(hitMissColour({2, 2}, 4)), mixed(kCellHitColour, kCellMissColour, 0.5)));
}

TEST_CASE("cache display: cells of 5 pixels keep a seam and more cells than pixels are summed") {
    const CountGrid grid{2, 2, {{1, 0}, {0, 0}, {0, 0}, {0, 2}}};
    Canvas canvas(10, 10);
    drawCountGrid(grid, kNoAccessColour, canvas.m_buffer);
    CHECK(canvas.at(2, 2) == toArgb(hitMissColour({1, 0}, 2)));
    CHECK(near(canvas.at(7, 7), kCellMissColour));
    CHECK(canvas.at(7, 2) == toArgb(kNoAccessColour));
    CHECK(canvas.at(4, 2) == toArgb(kNoAccessColour));  // the seam right of cell (0, 0)
    CHECK(canvas.at(2, 4) == toArgb(kNoAccessColour));  // and below it
    // Four rows on two pixels: rows 0 and 1 summed, then 2 and 3.
    const CountGrid tall{4, 1, {{1, 0}, {0, 1}, {0, 0}, {2, 0}}};
    Canvas two(1, 2);
    drawCountGrid(tall, kNoAccessColour, two.m_buffer);
    CHECK(two.at(0, 0) == toArgb(hitMissColour({1, 1}, 2)));
    CHECK(near(two.at(0, 1), kCellHitColour));
}

TEST_CASE("cache display: a bar's length is its accesses against the most, misses red at the base") {
    Canvas canvas(2, 4);
    drawCountBars({{2, 2}, {0, 1}}, true, canvas.m_buffer);
    const uint32_t red = toArgb(kCellMissColour), green = toArgb(kCellHitColour), white = toArgb(kChartBackground);
    CHECK(canvas.at(0, 3) == red);
    CHECK(canvas.at(0, 2) == red);
    CHECK(canvas.at(0, 1) == green);
    CHECK(canvas.at(0, 0) == green);
    CHECK(canvas.at(1, 3) == red);
    CHECK(canvas.at(1, 2) == white);
    // Along rows, growing right.
    Canvas rows(4, 2);
    drawCountBars({{3, 1}, {1, 0}}, false, rows.m_buffer);
    CHECK(rows.at(0, 0) == red);
    CHECK(rows.at(1, 0) == green);
    CHECK(rows.at(3, 0) == green);
    CHECK(rows.at(0, 1) == green);
    CHECK(rows.at(1, 1) == white);
}

TEST_CASE("cache display: the working set's lines from the top by address, faded while idle") {
    WorkingSet set;
    set.m_lineBytes = 64;
    set.m_columns = {{{5, 0, 64}}, {{5, 0, 64}, {9, 1.0, 1}}};
    set.m_largest = 2;
    Canvas canvas(2, 16);  // 8 pixels a line
    drawWorkingSet(set, canvas.m_buffer);
    CHECK(near(canvas.at(0, 3), kAllBytesColour));
    CHECK(canvas.at(0, 12) == toArgb(kChartBackground));
    CHECK(near(canvas.at(1, 7), kAllBytesColour));
    CHECK(near(canvas.at(1, 8), mixed(mixed(kFewBytesColour, kAllBytesColour, 1.0 / 64), kChartBackground, kMostFade)));
    CHECK(near(toArgb(workingLineColour({0, 0, 32}, 64)), mixed(kFewBytesColour, kAllBytesColour, 0.5)));
}

TEST_CASE("cache display: played back, the run's cells are washed out and the lit lines shown by strength") {
    CountGrid grid;
    grid.m_rows = 1;
    grid.m_columns = 3;
    grid.m_cells = {{4, 0}, {0, 4}, {0, 0}};  // a line of hits, one of misses, one never used
    Canvas summed(3, 1), lit(3, 1);
    drawCountGrid(grid, kNoAccessColour, summed.m_buffer);
    drawLitGrid(grid, {}, lit.m_buffer);
    for (int x = 0; x < 3; ++x)  // nothing lit: each pixel the run's colour, most of the way to white
        CHECK(near(lit.at(x, 0), mixed(fromArgb(summed.at(x, 0)), kChartBackground, 0.8)));
    // The hit line lit by a miss now at full strength, the never-used one by a hit at half; a
    // row or column out of the grid is left alone.
    drawLitGrid(grid, {{0, 0, true, 1.0}, {0, 2, false, 0.5}, {1, 0, true, 1.0}}, lit.m_buffer);
    CHECK(near(lit.at(0, 0), kCellMissColour));
    CHECK(near(lit.at(1, 0), mixed(fromArgb(summed.at(1, 0)), kChartBackground, 0.8)));
    CHECK(near(lit.at(2, 0), mixed(mixed(kNoAccessColour, kChartBackground, 0.8), kCellHitColour, 0.5)));
}

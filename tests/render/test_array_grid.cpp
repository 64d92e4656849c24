// An array's cells as pixels: the ramp only brightens, each cell's centre pixel shows that cell,
// unsampled cells are the no-sample grey, and a playback frame fades its touches.
#include <catch2/catch.hpp>

#include <vector>

#include "render/raster/array_grid.hpp"

using namespace memlog::render;
using namespace memlog::timeline;

namespace {

struct Buffer {
    std::vector<uint32_t> m_pixels;
    PixelBuffer m_view;
    Buffer(int width, int height) : m_pixels(static_cast<size_t>(width) * height) {
        m_view = {m_pixels.data(), width, height, width};
    }
};

// 2 x 3 cells: (0, 0) touched at 100 ns, (1, 2) at 300 ns twice, (0, 1) at 200 ns; the rest never.
ArrayCells smallCells() {
    ArrayCells cells;
    cells.m_shape = {8, 2, 3, 1};
    cells.m_cells.resize(6);
    cells.m_cells[0] = {1, 0, 100, 100};
    cells.m_cells[1] = {0, 1, 200, 200};
    cells.m_cells[5] = {2, 0, 300, 300};
    cells.m_samples = 4;
    cells.m_firstNs = 100;
    cells.m_lastNs = 300;
    cells.m_mostTouched = 2;
    return cells;
}

}  // namespace

TEST_CASE("array grid: the ramp's every channel grows from early to late, so later is never darker") {
    Rgb previous = touchRampColour(0);
    for (int step = 1; step <= 1000; ++step) {
        const Rgb colour = touchRampColour(step / 1000.0);
        CHECK(colour.m_r >= previous.m_r);
        CHECK(colour.m_g >= previous.m_g);
        CHECK(colour.m_b >= previous.m_b);
        previous = colour;
    }
    CHECK(toArgb(touchRampColour(0)) != toArgb(kNoSampleColour));
    CHECK(toArgb(touchRampColour(1)) != toArgb(kNoSampleColour));
}

TEST_CASE("array grid: a cell's centre pixel shows that cell, with more pixels than cells and fewer") {
    for (const auto& [pixels, cells] :
         std::vector<std::pair<int, uint64_t>>{{768, 256}, {100, 7}, {513, 512}, {64, 64}})
        for (uint64_t cell = 0; cell < cells; ++cell) {
            INFO(pixels << " pixels, " << cells << " cells, cell " << cell);
            const int centre = cellCentrePixel(cell, pixels, cells);
            CHECK(centre >= 0);
            CHECK(centre < pixels);
            CHECK(cellAtPixel(centre, pixels, cells) == cell);
        }
    CHECK(cellAtPixel(99, 100, 1000) == 995);
}

TEST_CASE(
    "array grid: a plane's cells by first access, count, and no sample, with lines between cells of 8 pixels or more") {
    const ArrayCells cells = smallCells();
    Buffer buffer(30, 20);  // cells of 10 x 10 pixels
    drawCellPlane(cells, 0, CellColouring::FirstTouch, buffer.m_view);
    CHECK(buffer.m_view.at(5, 5) == toArgb(touchRampColour(0)));  // (0, 0): the earliest
    CHECK(buffer.m_view.at(15, 5) == toArgb(touchRampColour(0.5)));  // (0, 1): halfway
    CHECK(buffer.m_view.at(25, 15) == toArgb(touchRampColour(1)));  // (1, 2): the latest
    CHECK(buffer.m_view.at(25, 5) == toArgb(kNoSampleColour));  // (0, 2): no sample
    CHECK(buffer.m_view.at(5, 15) == toArgb(kNoSampleColour));
    CHECK(buffer.m_view.at(10, 5) == toArgb(kCellSeparatorColour));
    CHECK(buffer.m_view.at(5, 10) == toArgb(kCellSeparatorColour));
    drawCellPlane(cells, 0, CellColouring::Count, buffer.m_view);
    CHECK(buffer.m_view.at(5, 5) == toArgb(touchRampColour(0.5)));  // 1 of at most 2
    CHECK(buffer.m_view.at(25, 15) == toArgb(touchRampColour(1)));
    Buffer small(3, 2);  // a pixel a cell: no lines
    drawCellPlane(cells, 0, CellColouring::LastTouch, small.m_view);
    CHECK(small.m_view.at(1, 0) == toArgb(touchRampColour(0.5)));
    CHECK(small.m_view.at(0, 1) == toArgb(kNoSampleColour));
}

TEST_CASE("array grid: a playback frame shows its slice in full colour, the one before faded, older ones idle") {
    const ArrayCells cells = smallCells();
    Playback played;
    played.m_touches = {{{0, true, false}}, {{1, false, true}}, {{5, true, false}}};
    played.m_sliceEndNs = {100, 200, 300};
    Buffer buffer(3, 2);
    drawPlaybackPlane(cells, played, 2, 2, 0, buffer.m_view);
    CHECK(buffer.m_view.at(2, 1) == toArgb(kPlaybackReadColour));  // slice 2: now
    CHECK(buffer.m_view.at(1, 0) == toArgb(mixed(kPlaybackIdleColour, kPlaybackWriteColour, 0.5)));  // slice 1: fading
    CHECK(buffer.m_view.at(0, 0) == toArgb(kPlaybackIdleColour));  // slice 0: gone
    CHECK(buffer.m_view.at(2, 0) == toArgb(kNoSampleColour));
    drawPlaybackPlane(cells, played, 0, 2, 0, buffer.m_view);
    CHECK(buffer.m_view.at(0, 0) == toArgb(kPlaybackReadColour));
    CHECK(buffer.m_view.at(2, 1) == toArgb(kPlaybackIdleColour));  // sampled later, not yet
}

TEST_CASE("array grid: more cells than pixels: a pixel shows every cell it covers, none skipped") {
    ArrayCells cells;
    cells.m_shape = {8, 4, 4, 1};
    cells.m_cells.resize(16);
    cells.m_cells[1 * 4 + 1] = {1, 0, 100, 100};  // (1, 1): in the top-left pixel, off its centre
    cells.m_cells[0 * 4 + 3] = {1, 0, 200, 200};  // (0, 3): top-right
    cells.m_cells[1 * 4 + 2] = {0, 1, 300, 300};  // (1, 2): top-right too, later
    cells.m_samples = 3;
    cells.m_firstNs = 100;
    cells.m_lastNs = 300;
    cells.m_mostTouched = 1;
    Buffer buffer(2, 2);
    drawCellPlane(cells, 0, CellColouring::FirstTouch, buffer.m_view);
    CHECK(buffer.m_view.at(0, 0) == toArgb(touchRampColour(0)));
    CHECK(buffer.m_view.at(1, 0) == toArgb(touchRampColour(0.5)));  // the earlier of its two
    CHECK(buffer.m_view.at(0, 1) == toArgb(kNoSampleColour));
    drawCellPlane(cells, 0, CellColouring::LastTouch, buffer.m_view);
    CHECK(buffer.m_view.at(1, 0) == toArgb(touchRampColour(1)));  // the later
    Playback played;
    played.m_touches = {{{5, true, false}, {6, false, true}}};
    drawPlaybackPlane(cells, played, 0, 3, 0, buffer.m_view);
    CHECK(buffer.m_view.at(0, 0) == toArgb(kPlaybackReadColour));
    CHECK(buffer.m_view.at(1, 0) == toArgb(kPlaybackWriteColour));
    CHECK(buffer.m_view.at(1, 1) == toArgb(kNoSampleColour));
}

TEST_CASE("array grid: the window's playback lights cells by their strength, a later touch of a cell over an earlier") {
    const ArrayCells cells = smallCells();
    Buffer buffer(3, 2);  // a pixel a cell
    // Cell (0, 0) read at full strength; (0, 1) written at half; (1, 2) read, then written weakly
    // (the later touch is the one shown); the never-sampled cells stay "no sample".
    drawFadingPlane(cells, {{0, false, 1.0}, {1, true, 0.5}, {5, false, 0.9}, {5, true, 0.25}}, 0, buffer.m_view);
    CHECK(buffer.m_pixels[0] == toArgb(kPlaybackReadColour));
    CHECK(buffer.m_pixels[1] == toArgb(mixed(kPlaybackIdleColour, kPlaybackWriteColour, 0.5)));
    CHECK(buffer.m_pixels[2] == toArgb(kNoSampleColour));
    CHECK(buffer.m_pixels[5] == toArgb(mixed(kPlaybackIdleColour, kPlaybackWriteColour, 0.25)));
    // Nothing lit: sampled cells idle, the others "no sample".
    drawFadingPlane(cells, {}, 0, buffer.m_view);
    CHECK(buffer.m_pixels[0] == toArgb(kPlaybackIdleColour));
    CHECK(buffer.m_pixels[3] == toArgb(kNoSampleColour));
    // A weaker touch fades further towards the idle grey: strength orders the blue channel.
    drawFadingPlane(cells, {{0, false, 0.8}}, 0, buffer.m_view);
    const uint32_t strong = buffer.m_pixels[0];
    drawFadingPlane(cells, {{0, false, 0.3}}, 0, buffer.m_view);
    const uint32_t weak = buffer.m_pixels[0];
    CHECK((strong >> 16 & 255) < (weak >> 16 & 255));  // less red: nearer the read colour
}

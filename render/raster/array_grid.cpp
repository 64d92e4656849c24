// Each pixel asks which cell it shows (nearest, no averaging): a view smaller than its array
// skips cells, which the page avoids by giving each cell at least a pixel where it can.
#include "render/raster/array_grid.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <vector>

namespace memlog::render {

namespace {

// Each channel non-decreasing from stop to stop (see touchRampColour).
constexpr Rgb kRampStops[] = {
    {0.10, 0.05, 0.22}, {0.36, 0.10, 0.45}, {0.76, 0.22, 0.45}, {0.97, 0.58, 0.45}, {1.00, 0.96, 0.70}};

bool separates(int pixel, int pixels, uint64_t cells) {
    return pixel > 0 && static_cast<double>(pixels) / static_cast<double>(cells) >= 8 &&
           cellAtPixel(pixel, pixels, cells) != cellAtPixel(pixel - 1, pixels, cells);
}

}  // namespace

Rgb touchRampColour(double t) {
    t = std::isfinite(t) ? std::clamp(t, 0.0, 1.0) : 0.0;
    const double position = t * static_cast<double>(std::size(kRampStops) - 1);
    const size_t stop = std::min(static_cast<size_t>(position), std::size(kRampStops) - 2);
    return mixed(kRampStops[stop], kRampStops[stop + 1], position - static_cast<double>(stop));
}

double cellRampPosition(const timeline::ArrayCell& cell, const timeline::ArrayCells& cells, CellColouring colouring) {
    if (colouring == CellColouring::Count)
        return cells.m_mostTouched ? static_cast<double>(cell.m_reads + cell.m_writes) / cells.m_mostTouched : 0;
    const uint64_t at = colouring == CellColouring::FirstTouch ? cell.m_firstNs : cell.m_lastNs;
    const uint64_t span = cells.m_lastNs - cells.m_firstNs;
    return span ? static_cast<double>(at - cells.m_firstNs) / static_cast<double>(span) : 1.0;
}

uint64_t cellAtPixel(int pixel, int pixels, uint64_t cells) {
    const double at = (pixel + 0.5) * static_cast<double>(cells) / pixels;
    return std::min<uint64_t>(static_cast<uint64_t>(at), cells - 1);
}

int cellCentrePixel(uint64_t cell, int pixels, uint64_t cells) {
    return static_cast<int>((static_cast<double>(cell) + 0.5) * pixels / static_cast<double>(cells));
}

void drawCellPlane(const timeline::ArrayCells& cells, uint64_t plane, CellColouring colouring, PixelBuffer target) {
    const timeline::ArrayShape& shape = cells.m_shape;
    if (shape.cells() == 0 || target.m_width <= 0 || target.m_height <= 0) return;
    const uint32_t noSample = toArgb(kNoSampleColour), separator = toArgb(kCellSeparatorColour);
    std::vector<uint64_t> columnOf(static_cast<size_t>(target.m_width));
    for (int x = 0; x < target.m_width; ++x) columnOf[x] = cellAtPixel(x, target.m_width, shape.m_columns);
    for (int y = 0; y < target.m_height; ++y) {
        uint32_t* row = target.row(y);
        if (separates(y, target.m_height, shape.m_rows)) {
            std::fill(row, row + target.m_width, separator);
            continue;
        }
        const uint64_t r = cellAtPixel(y, target.m_height, shape.m_rows);
        for (int x = 0; x < target.m_width; ++x) {
            if (separates(x, target.m_width, shape.m_columns)) {
                row[x] = separator;
                continue;
            }
            const timeline::ArrayCell& cell = cells.cellAt(plane, r, columnOf[x]);
            row[x] = cell.sampled() ? toArgb(touchRampColour(cellRampPosition(cell, cells, colouring))) : noSample;
        }
    }
}

void drawPlaybackPlane(const timeline::ArrayCells& cells, const timeline::Playback& playback, uint32_t frame,
                       uint32_t fade, uint64_t plane, PixelBuffer target) {
    const timeline::ArrayShape& shape = cells.m_shape;
    if (shape.cells() == 0 || target.m_width <= 0 || target.m_height <= 0) return;
    fade = std::max<uint32_t>(fade, 1);
    const uint64_t perPlane = shape.m_rows * shape.m_columns, base = plane * perPlane;
    // The latest touch of each cell of the plane: its age in slices (-1: none) and whether written.
    std::vector<int32_t> age(perPlane, -1);
    std::vector<uint8_t> written(perPlane, 0);
    const uint32_t from = frame + 1 >= fade ? frame + 1 - fade : 0;
    for (uint32_t slice = from; slice <= frame && slice < playback.m_touches.size(); ++slice)
        for (const timeline::CellTouch& touch : playback.m_touches[slice]) {
            if (touch.m_cell < base || touch.m_cell >= base + perPlane) continue;
            age[touch.m_cell - base] = static_cast<int32_t>(frame - slice);
            written[touch.m_cell - base] = touch.m_written;
        }
    const uint32_t separator = toArgb(kCellSeparatorColour);
    for (int y = 0; y < target.m_height; ++y) {
        uint32_t* row = target.row(y);
        const bool rowEdge = separates(y, target.m_height, shape.m_rows);
        const uint64_t r = cellAtPixel(y, target.m_height, shape.m_rows);
        for (int x = 0; x < target.m_width; ++x) {
            if (rowEdge || separates(x, target.m_width, shape.m_columns)) {
                row[x] = separator;
                continue;
            }
            const uint64_t c = cellAtPixel(x, target.m_width, shape.m_columns);
            const uint64_t index = r * shape.m_columns + c;
            Rgb colour = cells.cellAt(plane, r, c).sampled() ? kPlaybackIdleColour : kNoSampleColour;
            if (age[index] >= 0) {  // touched lately: this slice in full colour, earlier ones fading
                const Rgb touch = written[index] ? kPlaybackWriteColour : kPlaybackReadColour;
                colour = age[index] == 0 ? touch : mixed(colour, touch, 1.0 - static_cast<double>(age[index]) / fade);
            }
            row[x] = toArgb(colour);
        }
    }
}

}  // namespace memlog::render

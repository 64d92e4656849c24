// While cells are a pixel or more, each pixel shows the cell its centre falls in; an array
// larger than its view puts several cells in a pixel, which then shows them all (the earliest,
// latest or most touched of them), never skipping one.
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

Rgb touchRampColour(double t) { return rampColour(kRampStops, t); }

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

namespace {

// The cells a pixel shows along one axis, [m_first, m_end): the one its centre falls in while
// cells are at least a pixel, else every cell it covers (none is skipped: a pixel is "no
// sample" only when none of its cells had one).
struct CellSpan {
    uint64_t m_first = 0, m_end = 0;
};

std::vector<CellSpan> spansOf(int pixels, uint64_t cells) {
    std::vector<CellSpan> spans(static_cast<size_t>(pixels));
    for (int p = 0; p < pixels; ++p) {
        if (cells <= static_cast<uint64_t>(pixels)) {
            const uint64_t cell = cellAtPixel(p, pixels, cells);
            spans[p] = {cell, cell + 1};
        } else {
            spans[p] = {static_cast<uint64_t>(p) * cells / static_cast<uint64_t>(pixels),
                        static_cast<uint64_t>(p + 1) * cells / static_cast<uint64_t>(pixels)};
        }
    }
    return spans;
}

}  // namespace

void drawCellPlane(const timeline::ArrayCells& cells, uint64_t plane, CellColouring colouring, PixelBuffer target) {
    const timeline::ArrayShape& shape = cells.m_shape;
    if (shape.cells() == 0 || target.m_width <= 0 || target.m_height <= 0) return;
    const uint32_t noSample = toArgb(kNoSampleColour), separator = toArgb(kCellSeparatorColour);
    const std::vector<CellSpan> columns = spansOf(target.m_width, shape.m_columns);
    const std::vector<CellSpan> rows = spansOf(target.m_height, shape.m_rows);
    // Several cells in a pixel: the earliest first access, or the latest last one, or the most
    // touched, of those sampled.
    const bool earliest = colouring == CellColouring::FirstTouch;
    for (int y = 0; y < target.m_height; ++y) {
        uint32_t* row = target.row(y);
        if (separates(y, target.m_height, shape.m_rows)) {
            std::fill(row, row + target.m_width, separator);
            continue;
        }
        for (int x = 0; x < target.m_width; ++x) {
            if (separates(x, target.m_width, shape.m_columns)) {
                row[x] = separator;
                continue;
            }
            double position = earliest ? 2 : -1;
            for (uint64_t r = rows[y].m_first; r < rows[y].m_end; ++r)
                for (uint64_t c = columns[x].m_first; c < columns[x].m_end; ++c) {
                    const timeline::ArrayCell& cell = cells.cellAt(plane, r, c);
                    if (!cell.sampled()) continue;
                    const double at = cellRampPosition(cell, cells, colouring);
                    position = earliest ? std::min(position, at) : std::max(position, at);
                }
            row[x] = position >= 0 && position <= 1 ? toArgb(touchRampColour(position)) : noSample;
        }
    }
}

void drawFadingPlane(const timeline::ArrayCells& cells, const std::vector<FadingTouch>& touches, uint64_t plane,
                     PixelBuffer target) {
    const timeline::ArrayShape& shape = cells.m_shape;
    if (shape.cells() == 0 || target.m_width <= 0 || target.m_height <= 0) return;
    const uint64_t perPlane = shape.m_rows * shape.m_columns, base = plane * perPlane;
    // The latest touch of each cell of the plane: its strength (<= 0: none) and whether written.
    std::vector<double> strength(perPlane, 0);
    std::vector<uint8_t> written(perPlane, 0);
    for (const FadingTouch& touch : touches) {
        if (touch.m_cell < base || touch.m_cell >= base + perPlane || touch.m_strength <= 0) continue;
        strength[touch.m_cell - base] = std::min(touch.m_strength, 1.0);
        written[touch.m_cell - base] = touch.m_written;
    }
    const uint32_t separator = toArgb(kCellSeparatorColour);
    const std::vector<CellSpan> columns = spansOf(target.m_width, shape.m_columns);
    const std::vector<CellSpan> rows = spansOf(target.m_height, shape.m_rows);
    for (int y = 0; y < target.m_height; ++y) {
        uint32_t* row = target.row(y);
        const bool rowEdge = separates(y, target.m_height, shape.m_rows);
        for (int x = 0; x < target.m_width; ++x) {
            if (rowEdge || separates(x, target.m_width, shape.m_columns)) {
                row[x] = separator;
                continue;
            }
            // Of the pixel's cells: the strongest touch (a write before a read as strong).
            bool sampled = false, write = false;
            double strongest = 0;
            for (uint64_t r = rows[y].m_first; r < rows[y].m_end; ++r)
                for (uint64_t c = columns[x].m_first; c < columns[x].m_end; ++c) {
                    const uint64_t index = r * shape.m_columns + c;
                    sampled = sampled || cells.cellAt(plane, r, c).sampled();
                    if (strength[index] <= 0) continue;
                    if (strength[index] > strongest || (strength[index] == strongest && written[index])) {
                        write = written[index] || (strength[index] == strongest && write);
                        strongest = strength[index];
                    }
                }
            Rgb colour = sampled ? kPlaybackIdleColour : kNoSampleColour;
            if (strongest > 0) {  // touched lately: at full strength in full colour, older ones fading
                const Rgb touch = write ? kPlaybackWriteColour : kPlaybackReadColour;
                colour = strongest >= 1 ? touch : mixed(colour, touch, strongest);
            }
            row[x] = toArgb(colour);
        }
    }
}

void drawPlaybackPlane(const timeline::ArrayCells& cells, const timeline::Playback& playback, uint32_t frame,
                       uint32_t fade, uint64_t plane, PixelBuffer target) {
    fade = std::max<uint32_t>(fade, 1);
    // Slices frame - fade + 1 .. frame, in time order: a slice `age` frames old at 1 - age / fade.
    std::vector<FadingTouch> touches;
    const uint32_t from = frame + 1 >= fade ? frame + 1 - fade : 0;
    for (uint32_t slice = from; slice <= frame && slice < playback.m_touches.size(); ++slice)
        for (const timeline::CellTouch& touch : playback.m_touches[slice])
            touches.push_back(
                {touch.m_cell, touch.m_written, 1.0 - static_cast<double>(frame - slice) / static_cast<double>(fade)});
    drawFadingPlane(cells, touches, plane, target);
}

}  // namespace memlog::render

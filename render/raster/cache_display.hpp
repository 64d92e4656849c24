// Pixels of the cache views (timeline/trace/cache_views.hpp): grids of hit and miss counts (the main
// memory display and its strip charts), their bar graphs, and the working set of cache lines.
#pragma once

#include <vector>

#include "render/raster/colour_map.hpp"
#include "render/raster/pixel_buffer.hpp"
#include "timeline/trace/cache_views.hpp"

namespace memlog::render {

inline constexpr Rgb kCellHitColour{0.1, 0.66, 0.2};
inline constexpr Rgb kCellMissColour{0.9, 0.05, 0.05};
inline constexpr Rgb kNoAccessColour{0.9, 0.9, 0.91};  // a line of a touched piece never used
inline constexpr Rgb kChartBackground{1, 1, 1};
// A cell with one access is drawn at least this strong; the busiest cell of the grid in full.
inline constexpr double kWeakestCell = 0.35;

// A cell's colour: its hue the share of misses (green to red), its strength the logarithm of
// its accesses against `most`, from kWeakestCell; kNoAccessColour for none.
Rgb hitMissColour(const timeline::HitsMisses& counts, uint64_t most);

// The grid stretched over `target`, rows top to bottom: a pixel sums the cells it covers
// (several when the grid has more cells than pixels), each cell whole pixels when it has fewer.
// Cells of at least 5 pixels keep a one-pixel seam of the empty colour at their right and bottom.
void drawCountGrid(const timeline::CountGrid& grid, Rgb empty, PixelBuffer target);

// A line of the display lit in a playback: hit (green) or miss (red), from full strength (1:
// now) fading towards 0.
struct LitGridCell {
    size_t m_row = 0, m_column = 0;
    bool m_miss = false;
    double m_strength = 1;
};

// The grid as drawCountGrid draws it, washed out towards white, with `lit` over it (later
// entries of a cell over earlier ones; a pixel of several cells shows the strongest, a miss
// before a hit as strong): the memory display played back.
void drawLitGrid(const timeline::CountGrid& grid, const std::vector<LitGridCell>& lit, PixelBuffer target);

// One bar per entry, the entries spread as drawCountGrid spreads columns (`upwards`: bars grow
// up from the bottom, one per column) or rows (else: bars grow right from the left, one per
// row): its length the accesses against the most, its misses red at the base, hits green.
void drawCountBars(const std::vector<timeline::HitsMisses>& counts, bool upwards, PixelBuffer target);

// The bytes-used colour of a working-set line (purple: one byte, green: all of it) faded
// towards white by its idleness.
inline constexpr Rgb kFewBytesColour{0.55, 0.2, 0.78};
inline constexpr Rgb kAllBytesColour{0.1, 0.68, 0.25};
inline constexpr double kMostFade = 0.8;  // a line about to leave keeps a fifth of its colour
Rgb workingLineColour(const timeline::WorkingLine& line, uint32_t lineBytes);

// One pixel column per column of `set` (as many as the target is wide), its lines from the
// top by address, the largest column filling the height (a line at most 8 pixels tall, at
// least one: ranks share pixel rows when there are more lines than rows).
double workingLineHeight(const timeline::WorkingSet& set, int height);
void drawWorkingSet(const timeline::WorkingSet& set, PixelBuffer target);

}  // namespace memlog::render

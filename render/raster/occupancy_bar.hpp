// The occupancy bar under a view (figure 5 of Moreta & Telea): live bytes over time on the
// ordinal map, flat where blocks begin and end (busy), cushioned over quiet stretches so the
// two kinds of period separate at a glance. And cushion cursors, drawn over views and bars.
#pragma once

#include <vector>

#include "render/raster/cushion.hpp"
#include "render/raster/pixel_buffer.hpp"
#include "timeline/model/occupancy.hpp"

namespace memlog::render {

// Columns without any event for at least this many pixels are quiet.
inline constexpr int kMinQuietColumns = 3;

// One column of `columns` per pixel column of `target`; colour by live bytes / `fullBytes`.
void drawOccupancyBar(const std::vector<timeline::OccupancyColumn>& columns, double fullBytes, CushionStyle style,
                      PixelBuffer target);

// A soft vertical band centred on column `x`: a cushion profile blended over what is there,
// darkest at its edges, so the pixels under it stay readable.
inline constexpr double kCursorHalfWidth = 7;
void drawCushionCursor(PixelBuffer target, double x);

}  // namespace memlog::render

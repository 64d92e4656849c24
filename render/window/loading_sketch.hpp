// The heap as read so far, under the loading bar: the walk's coarse picture
// (timeline::OccupancySketch) drawn dimmed, regions from the bottom (low addresses) up as the
// timeline stacks them, filled from the left as far as the log has been read.
#pragma once

#include <cairo.h>

#include "render/report/cairo_draw.hpp"
#include "timeline/model/occupancy_sketch.hpp"

namespace memlog::render {

// How far across `area` the picture reaches: the x read so far over the x the whole log will
// span, guessed from the share of it read (the right edge of the area is the log's end).
double sketchReach(const timeline::OccupancySketch::Picture& picture);

// Each region's share of its bytes live at a column's end, white (none) to blue (all), over
// `area`.
void drawSketch(cairo_t* cr, const Rect& area, const timeline::OccupancySketch::Picture& picture);

}  // namespace memlog::render

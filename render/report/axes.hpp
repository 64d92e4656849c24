// The axes of a view, drawn with Cairo around its raster: hex labels where each compacted
// range starts (and at round addresses inside tall ranges), thin dashed separators where gaps
// were removed, and the x axis with ticks in readable units.
#pragma once

#include <cairo.h>

#include "render/raster/address_scale.hpp"
#include "render/report/cairo_draw.hpp"
#include "timeline/model/block_model.hpp"

namespace memlog::render {

// Labels (when `labels`) right-aligned at `labelRight`, separators across `view`.
void drawAddressAxis(cairo_t* cr, const AddressScale& scale, const Rect& view, double labelRight, double fontSize,
                     bool labels = true);

// Ticks hanging below `top`, across [left, left + width); labels under them; with `title`,
// the axis name under the labels.
void drawXAxis(cairo_t* cr, timeline::XAxis axis, timeline::XWindow window, double left, double width, double top,
               double fontSize, bool title);

}  // namespace memlog::render

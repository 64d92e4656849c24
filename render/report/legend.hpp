// The legend beside the views: what every colour and mark in the report means, as a list of
// items (so tests can read what is listed) drawn top to bottom in a column.
#pragma once

#include <cairo.h>

#include <string>
#include <vector>

#include "render/report/cairo_draw.hpp"

namespace memlog::render {

struct LegendItem {
    enum class Kind { Heading, Swatch, Gradient, Note };
    Kind m_kind = Kind::Note;
    std::string m_label;  // heading or note text; a swatch's name
    Rgb m_colour;  // swatches
    std::string m_low, m_high;  // gradients: the ends of the ordinal map
};

// Draws the items from the top of `area`; returns the height used.
double drawLegend(cairo_t* cr, const std::vector<LegendItem>& items, const Rect& area, double fontSize);

}  // namespace memlog::render

// Where everything goes on a report page: header, views, occupancy bars, x axes, context view,
// legend. Pure geometry in whole pixels, from the page size alone, so tests can find a view's
// pixels in a rendered report.
#pragma once

#include <vector>

#include "render/report/cairo_draw.hpp"

namespace memlog::render {

enum class BinLayout { Time, Address };  // views stacked (aligned in time) or side by side (in address)

struct ViewCell {
    Rect m_title;  // the bin's name
    Rect m_labels;  // hex address labels (right-aligned at its right edge)
    Rect m_view;  // the blocks
    Rect m_bar;  // its occupancy bar
    Rect m_axis;  // its x axis (ticks, labels); empty when shared with the cell below
};

struct ReportLayout {
    double m_scale = 1;  // text and margins grow with the page
    double m_fontSize = 11;
    Rect m_header;
    Rect m_context;  // empty in correlated views
    Rect m_legend;
    std::vector<ViewCell> m_cells;  // one (the main view), or one per bin
    bool m_axisTitle = true;  // the x axis title under the last axis
};

// The main view with its bar, context view and legend. `uiScale` grows text and margins beyond
// what the page size gives them (a HiDPI screen that reports no scale of its own: --scale).
ReportLayout mainLayout(int width, int height, double uiScale = 1);
// `cells` views in a grid aligned in time (one column) or in address (one row). Views side by
// side that share one address axis (`sharedAddresses`) have its labels once, on the left.
ReportLayout binsLayout(int width, int height, size_t cells, BinLayout layout, bool sharedAddresses = false,
                        double uiScale = 1);

}  // namespace memlog::render

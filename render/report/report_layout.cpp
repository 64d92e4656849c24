// Report geometry. Sizes scale with the page from a 1600 x 1000 design; everything lands on
// whole pixels so rasters paint 1:1.
#include "render/report/report_layout.hpp"

#include <algorithm>
#include <cmath>

namespace memlog::render {

namespace {

struct Frame {
    double m_scale, m_margin, m_gap, m_labelWidth, m_axisHeight, m_legendWidth;
    double m_top;  // below the header
    Rect m_header;
};

Frame frameOf(int width, int height, ReportLayout& layout, double uiScale) {
    Frame f{};
    f.m_scale = std::clamp(std::min(width / 1600.0, height / 1000.0), 0.55, 2.5) * uiScale;
    const double s = f.m_scale;
    layout.m_scale = s;
    layout.m_fontSize = std::round(11 * s * 2) / 2;
    f.m_margin = std::round(14 * s);
    f.m_gap = std::round(12 * s);
    f.m_labelWidth = std::round(layout.m_fontSize * 9.4);
    f.m_axisHeight = std::round(layout.m_fontSize * 3.9);
    f.m_legendWidth = std::round(std::clamp(width * 0.2, 190 * s, 340 * s));
    f.m_header = {f.m_margin, f.m_margin, width - 2 * f.m_margin, std::round(64 * s)};
    f.m_top = f.m_header.bottom() + std::round(10 * s);
    layout.m_header = f.m_header;
    layout.m_legend = {width - f.m_margin - f.m_legendWidth, f.m_top, f.m_legendWidth, height - f.m_margin - f.m_top};
    return f;
}

Rect rounded(double x, double y, double right, double bottom) {
    const double left = std::round(x), top = std::round(y);
    return {left, top, std::max(0.0, std::round(right) - left), std::max(0.0, std::round(bottom) - top)};
}

}  // namespace

ReportLayout mainLayout(int width, int height, double uiScale) {
    ReportLayout layout;
    const Frame f = frameOf(width, height, layout, uiScale);
    const double contextWidth = std::round(std::clamp(width * 0.06, 48 * f.m_scale, 110 * f.m_scale));
    const double barHeight = std::round(std::clamp(height * 0.04, 14.0, 44 * f.m_scale));
    const double barGap = std::round(6 * f.m_scale);
    const double viewRight = layout.m_legend.m_x - f.m_gap - contextWidth - f.m_gap;
    const double viewBottom = height - f.m_margin - f.m_axisHeight - barHeight - barGap;
    ViewCell cell;
    cell.m_view = rounded(f.m_margin + f.m_labelWidth, f.m_top, viewRight, viewBottom);
    cell.m_labels = rounded(f.m_margin, f.m_top, cell.m_view.m_x - 4, viewBottom);
    cell.m_bar = rounded(cell.m_view.m_x, viewBottom + barGap, viewRight, viewBottom + barGap + barHeight);
    cell.m_axis = rounded(cell.m_view.m_x, cell.m_bar.bottom(), viewRight, height - f.m_margin);
    layout.m_cells.push_back(cell);
    layout.m_context = rounded(viewRight + f.m_gap, f.m_top, viewRight + f.m_gap + contextWidth, viewBottom);
    return layout;
}

ReportLayout binsLayout(int width, int height, size_t cells, BinLayout arrangement, bool sharedAddresses,
                        double uiScale) {
    ReportLayout layout;
    const Frame f = frameOf(width, height, layout, uiScale);
    const double titleHeight = std::round(layout.m_fontSize * 1.6);
    const double left = f.m_margin, right = layout.m_legend.m_x - f.m_gap;
    const double top = f.m_top, bottom = height - f.m_margin;
    const double count = static_cast<double>(std::max<size_t>(cells, 1));
    if (arrangement == BinLayout::Time) {
        // One column: the views share the x axis, drawn once under the last bar.
        const double rowHeight = (bottom - f.m_axisHeight - top) / count;
        for (size_t i = 0; i < cells; ++i) {
            const double rowTop = top + rowHeight * static_cast<double>(i);
            const double barHeight = std::round(std::clamp(rowHeight * 0.12, 6.0, 24 * f.m_scale));
            const double viewBottom = rowTop + rowHeight - barHeight - std::round(8 * f.m_scale);
            ViewCell cell;
            cell.m_title = rounded(left + f.m_labelWidth, rowTop, right, rowTop + titleHeight);
            cell.m_view = rounded(left + f.m_labelWidth, rowTop + titleHeight, right, viewBottom);
            cell.m_labels = rounded(left, cell.m_view.m_y, cell.m_view.m_x - 4, viewBottom);
            cell.m_bar = rounded(cell.m_view.m_x, viewBottom + 2, right, viewBottom + 2 + barHeight);
            if (i + 1 == cells) cell.m_axis = rounded(cell.m_view.m_x, cell.m_bar.bottom(), right, bottom);
            layout.m_cells.push_back(cell);
        }
    } else {
        // One row, all views of the same height: one address axis on the left when they share
        // it, else one per view.
        const double shared = sharedAddresses ? f.m_labelWidth : 0;
        const double columnWidth = (right - left - shared) / count;
        const double ownLabels = sharedAddresses ? 0 : std::min(f.m_labelWidth, std::round(columnWidth * 0.42));
        const double barHeight = std::round(std::clamp(height * 0.03, 10.0, 36 * f.m_scale));
        const double viewBottom = bottom - f.m_axisHeight - barHeight - 2;
        for (size_t i = 0; i < cells; ++i) {
            const double cellLeft = left + shared + columnWidth * static_cast<double>(i);
            const double viewLeft = cellLeft + ownLabels,
                         viewRight = cellLeft + columnWidth - std::round(8 * f.m_scale);
            ViewCell cell;
            cell.m_title = rounded(viewLeft, top, viewRight, top + titleHeight);
            cell.m_view = rounded(viewLeft, top + titleHeight, viewRight, viewBottom);
            if (!sharedAddresses || i == 0)
                cell.m_labels =
                    rounded(sharedAddresses ? left : cellLeft, cell.m_view.m_y, cell.m_view.m_x - 4, viewBottom);
            cell.m_bar = rounded(cell.m_view.m_x, viewBottom + 2, viewRight, viewBottom + 2 + barHeight);
            cell.m_axis = rounded(cell.m_view.m_x, cell.m_bar.bottom(), viewRight, bottom);
            layout.m_cells.push_back(cell);
        }
    }
    return layout;
}

}  // namespace memlog::render

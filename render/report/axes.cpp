// Axis drawing. Labels that would collide are left out rather than overprinted: range starts
// first, then the round addresses inside ranges where room remains.
#include "render/report/axes.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "render/raster/x_scale.hpp"
#include "timeline/base/text_format.hpp"

namespace memlog::render {

void drawAddressAxis(cairo_t* cr, const AddressScale& scale, const Rect& view, double labelRight, double fontSize,
                     bool labels) {
    setFont(cr, fontSize);
    const double spacing = fontSize * 1.35;
    std::vector<double> taken;  // label rows already used
    auto free = [&](double row) {
        return std::none_of(taken.begin(), taken.end(), [&](double used) { return std::fabs(used - row) < spacing; });
    };
    auto label = [&](uint64_t addr, double row, const Rgb& colour) {
        taken.push_back(row);
        setColour(cr, colour);
        drawText(cr, timeline::hexText(addr), labelRight, row + fontSize * 0.35, Align::Right);
        cairo_set_line_width(cr, 1);
        cairo_move_to(cr, labelRight + 2, std::round(row) + 0.5);
        cairo_line_to(cr, view.m_x, std::round(row) + 0.5);
        cairo_stroke(cr);
    };
    // A scrolled scale (the window's zoom) has bands reaching past the view: only what is on
    // it is labelled, and a tall band's labels are found in its visible rows alone.
    const auto visible = [&](double row) { return row >= view.m_y && row <= view.bottom(); };
    const auto& bands = scale.bands();
    for (const AddressScale::Band& band : bands) {
        const double row = view.m_y + band.m_bottom;
        if (labels && visible(row) && free(row)) label(band.m_range.m_lo, row, kTextColour);
    }
    // Round addresses inside tall bands: powers of two apart, about four labels' height.
    for (const AddressScale::Band& band : labels ? bands : std::vector<AddressScale::Band>{}) {
        const double height = band.m_bottom - band.m_top;
        if (height < 4 * spacing) continue;
        const double bytesPerPixel = static_cast<double>(band.m_range.bytes()) / height;
        uint64_t step = 1;
        while (static_cast<double>(step) < bytesPerPixel * 4 * spacing) step <<= 1;
        // The addresses at the view's bottom and top edges, within the band.
        const double lowRow = std::min(band.m_bottom, view.m_height), highRow = std::max(band.m_top, 0.0);
        const auto lowest = scale.addressAt(std::max(lowRow - 0.5, highRow));
        const auto highest = scale.addressAt(highRow);
        if (!lowest || !highest) continue;
        for (uint64_t addr = (*lowest / step + 1) * step; addr <= *highest && addr < band.m_range.m_hi; addr += step) {
            const auto y = scale.y(addr);
            if (y && visible(view.m_y + *y) && free(view.m_y + *y)) label(addr, view.m_y + *y, kMutedTextColour);
        }
    }
    // Separators: a dashed line in the middle of each removed gap.
    setColour(cr, kFrameColour);
    cairo_set_line_width(cr, 1);
    const double dashes[] = {3, 3};
    cairo_set_dash(cr, dashes, 2, 0);
    for (size_t i = 1; i < bands.size(); ++i) {
        const double row = std::round(view.m_y + (bands[i].m_bottom + bands[i - 1].m_top) / 2) + 0.5;
        if (!visible(row)) continue;
        cairo_move_to(cr, view.m_x, row);
        cairo_line_to(cr, view.right(), row);
        cairo_stroke(cr);
    }
    cairo_set_dash(cr, nullptr, 0, 0);
}

void drawXAxis(cairo_t* cr, timeline::XAxis axis, timeline::XWindow window, double left, double width, double top,
               double fontSize, bool title) {
    setFont(cr, fontSize);
    const double minSpacing = fontSize * 7;
    setColour(cr, kTextColour);
    cairo_set_line_width(cr, 1);
    double lastRight = -1e9;
    for (const Tick& tick : xTicks(axis, window, width, minSpacing)) {
        const double x = std::round(left + tick.m_x) + 0.5;
        cairo_move_to(cr, x, top);
        cairo_line_to(cr, x, top + 4);
        cairo_stroke(cr);
        const double labelWidth = textWidth(cr, tick.m_label);
        const double labelLeft = std::clamp(x - labelWidth / 2, left - labelWidth / 2, left + width - labelWidth / 2);
        if (labelLeft < lastRight + fontSize) continue;
        drawText(cr, tick.m_label, labelLeft, top + 5 + fontSize);
        lastRight = labelLeft + labelWidth;
    }
    if (title) {
        setColour(cr, kMutedTextColour);
        drawText(cr, timeline::xAxisTitle(axis),
                 left + width / 2, top + 9 + 2.2 * fontSize, Align::Centre);
    }
}

}  // namespace memlog::render

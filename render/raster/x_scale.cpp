// Tick placement: the smallest round step that keeps labels apart.
#include "render/raster/x_scale.hpp"

#include <cmath>
#include <cstdio>

#include "timeline/base/text_format.hpp"

namespace memlog::render {

std::vector<Tick> xTicks(timeline::XAxis axis, timeline::XWindow window, double width, double minSpacing) {
    std::vector<Tick> ticks;
    if (window.width() == 0 || width <= 0) return ticks;
    const XScale scale(window, width);
    const double span = static_cast<double>(window.width());
    const double wanted = span * minSpacing / width;
    double step = std::pow(10.0, std::floor(std::log10(std::max(wanted, 1.0))));
    for (double factor : {1.0, 2.0, 5.0, 10.0})
        if (step * factor >= wanted) {
            step *= factor;
            break;
        }
    step = std::max(step, 1.0);
    const double first = std::ceil(static_cast<double>(window.m_from) / step) * step;
    const double last = static_cast<double>(window.m_to);
    // Time: one unit for every label, chosen by the largest value; decimals by the step.
    double unit = 1;
    const char* suffix = " ns";
    if (axis == timeline::XAxis::Time) {
        if (last >= 1e9)
            unit = 1e9, suffix = " s";
        else if (last >= 1e6)
            unit = 1e6, suffix = " ms";
        else if (last >= 1e3)
            unit = 1e3, suffix = " \u00b5s";
    }
    const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step / unit) + 1e-9)));
    for (double value = first; value <= last + step * 1e-9; value += step) {
        std::string label;
        if (axis == timeline::XAxis::Time) {
            char text[48];
            std::snprintf(text, sizeof text, "%.*f%s", decimals, value / unit, value == 0 ? "" : suffix);
            label = value == 0 ? "0" : text;
        } else if (axis == timeline::XAxis::Instructions && value != 0) {
            label = timeline::xText(axis, value);
        } else {
            label = timeline::shortCountText(value);
        }
        ticks.push_back({scale.x(value), label});
    }
    return ticks;
}

}  // namespace memlog::render

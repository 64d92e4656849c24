// The x axis of a view: a window of time (ns) or of events mapped onto pixel columns, and
// tick marks at round values with labels in units that read well.
#pragma once

#include <string>
#include <vector>

#include "timeline/model/block_model.hpp"

namespace memlog::render {

class XScale {
public:
    XScale() = default;
    XScale(timeline::XWindow window, double width)
        : m_from(static_cast<double>(window.m_from)),
          m_perUnit(width / static_cast<double>(window.width() ? window.width() : 1)),
          m_width(width) {}
    double x(double value) const { return (value - m_from) * m_perUnit; }
    double value(double x) const { return m_from + x / m_perUnit; }
    double width() const { return m_width; }

private:
    double m_from = 0, m_perUnit = 1, m_width = 0;
};

struct Tick {
    double m_x;
    std::string m_label;
};

// Ticks at 1, 2 or 5 times a power of ten, at least `minSpacing` pixels apart, all labelled
// in one unit (time) or with k/M suffixes (events).
std::vector<Tick> xTicks(timeline::XAxis axis, timeline::XWindow window, double width, double minSpacing);

}  // namespace memlog::render

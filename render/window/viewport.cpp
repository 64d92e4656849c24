// Zoom keeps what is under the pointer fixed: for x the value at that fraction of the width,
// for addresses the address at that row (the tall scale is laid out anew at each zoom, and
// its small ranges keep their minimum rows, so rows do not simply scale).
#include "render/window/viewport.hpp"

#include <algorithm>
#include <cmath>

namespace memlog::render {

Viewport::Viewport(timeline::XWindow whole, timeline::AddressRanges ranges, double viewHeight)
    : m_wholeX{static_cast<double>(whole.m_from), static_cast<double>(std::max(whole.m_to, whole.m_from + 1))},
      m_ranges(std::move(ranges)),
      m_viewHeight(std::max(viewHeight, 1.0)) {
    reset();
}

void Viewport::reset() {
    m_x = m_wholeX;
    m_zoom = 1;
    m_top = 0;
    layOut();
}

timeline::XWindow Viewport::xWindow() const {
    const auto from = static_cast<uint64_t>(std::floor(m_x.m_from));
    const auto to = static_cast<uint64_t>(std::ceil(m_x.m_to));
    return {from, std::max(to, from + 1)};
}

void Viewport::zoomX(double factor, double atFraction) {
    const double anchor = m_x.m_from + m_x.width() * atFraction;
    const double width = std::clamp(m_x.width() / factor, std::min(kMinXSpan, m_wholeX.width()), m_wholeX.width());
    const double from = std::clamp(anchor - width * atFraction, m_wholeX.m_from, m_wholeX.m_to - width);
    m_x = {from, from + width};
}

void Viewport::panX(double fraction) {
    const double width = m_x.width();
    const double from = std::clamp(m_x.m_from + width * fraction, m_wholeX.m_from, m_wholeX.m_to - width);
    m_x = {from, from + width};
}

void Viewport::showX(double from, double to) {
    const double width = std::clamp(to - from, std::min(kMinXSpan, m_wholeX.width()), m_wholeX.width());
    const double start = std::clamp(from, m_wholeX.m_from, m_wholeX.m_to - width);
    m_x = {start, start + width};
}

void Viewport::setViewHeight(double rows) {
    const double fraction = m_top / (m_viewHeight * m_zoom);
    m_viewHeight = std::max(rows, 1.0);
    m_top = fraction * m_viewHeight * m_zoom;
    layOut();
}

void Viewport::layOut() {
    const double height = m_viewHeight * m_zoom;
    m_full = AddressScale(m_ranges, height);
    m_top = std::clamp(m_top, 0.0, height - m_viewHeight);
    m_shown = m_full.windowed(m_top, m_viewHeight);
}

double Viewport::rowOf(uint64_t address) const { return m_full.nearestY(address); }

void Viewport::zoomAddress(double factor, double atRow) {
    const auto anchor = m_full.addressAt(m_top + atRow);
    const double zoom = m_zoom, top = m_top;
    m_zoom = std::max(1.0, m_zoom * factor);
    layOut();
    if (anchor) {
        m_top = rowOf(*anchor) - atRow;
        layOut();
    }
    // Deeper than kMinAddressBytes on the view: stay at the last zoom that showed that many.
    if (const auto shown = m_shown.shownAddresses();
        factor > 1 && (!shown || shown->second - shown->first + 1 < kMinAddressBytes)) {
        m_zoom = zoom;
        m_top = top;
        layOut();
    }
}

void Viewport::panAddress(double rows) {
    m_top += rows;
    layOut();
}

void Viewport::zoomToBox(double x0, double row0, double x1, double row1) {
    showX(m_x.m_from + m_x.width() * std::min(x0, x1), m_x.m_from + m_x.width() * std::max(x0, x1));
    const double top = std::min(row0, row1), bottom = std::max(row0, row1);
    if (bottom - top < 1) return;
    // The rows between the two become the view: zoom by their share of it about their middle,
    // then bring that middle to the view's middle.
    const auto middle = m_full.addressAt(m_top + (top + bottom) / 2);
    zoomAddress(m_viewHeight / (bottom - top), (top + bottom) / 2);
    if (middle) centreAddress(*middle);
}

void Viewport::centreAddress(uint64_t address) {
    m_top = rowOf(address) - m_viewHeight / 2;
    layOut();
}

}  // namespace memlog::render

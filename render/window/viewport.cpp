// Zoom keeps the point under the pointer fixed; every change ends in clamp(), which keeps the
// window inside the log and no narrower than the deepest zoom.
#include "render/window/viewport.hpp"

#include <algorithm>

namespace memlog::render {

Viewport::Viewport(double xFrom, double xTo, double addressBytes)
    : m_wholeX{xFrom, std::max(xTo, xFrom + kMinXSpan)}, m_wholeAddress{0, std::max(addressBytes, kMinAddressSpan)} {
    reset();
}

void Viewport::reset() {
    m_x = m_wholeX;
    m_address = m_wholeAddress;
}

void Viewport::clamp(Span& span, const Span& whole, double minimum) {
    double width = std::clamp(span.width(), std::min(minimum, whole.width()), whole.width());
    const double middle = (span.m_from + span.m_to) / 2;
    span.m_from = std::clamp(middle - width / 2, whole.m_from, whole.m_to - width);
    span.m_to = span.m_from + width;
}

namespace {

void zoomSpan(Span& span, double factor, double atFraction) {
    const double anchor = span.m_from + span.width() * atFraction;
    span.m_from = anchor - (anchor - span.m_from) / factor;
    span.m_to = anchor + (span.m_to - anchor) / factor;
}

}  // namespace

void Viewport::zoomX(double factor, double atFraction) {
    const Span before = m_x;
    zoomSpan(m_x, factor, atFraction);
    // At a limit the width stops changing; keep the anchor where it was rather than recentre.
    if (m_x.width() < std::min(kMinXSpan, m_wholeX.width())) {
        const double anchor = before.m_from + before.width() * atFraction;
        const double width = std::min(kMinXSpan, m_wholeX.width());
        m_x = {anchor - width * atFraction, anchor + width * (1 - atFraction)};
    }
    clamp(m_x, m_wholeX, kMinXSpan);
}

void Viewport::zoomAddress(double factor, double atFraction) {
    const Span before = m_address;
    zoomSpan(m_address, factor, atFraction);
    if (m_address.width() < std::min(kMinAddressSpan, m_wholeAddress.width())) {
        const double anchor = before.m_from + before.width() * atFraction;
        const double width = std::min(kMinAddressSpan, m_wholeAddress.width());
        m_address = {anchor - width * atFraction, anchor + width * (1 - atFraction)};
    }
    clamp(m_address, m_wholeAddress, kMinAddressSpan);
}

void Viewport::panX(double fraction) {
    const double shift = m_x.width() * fraction;
    m_x = {m_x.m_from + shift, m_x.m_to + shift};
    clamp(m_x, m_wholeX, kMinXSpan);
}

void Viewport::panAddress(double fraction) {
    const double shift = m_address.width() * fraction;
    m_address = {m_address.m_from + shift, m_address.m_to + shift};
    clamp(m_address, m_wholeAddress, kMinAddressSpan);
}

void Viewport::zoomToBox(double x0, double address0, double x1, double address1) {
    const Span x{m_x.m_from + m_x.width() * std::min(x0, x1), m_x.m_from + m_x.width() * std::max(x0, x1)};
    const Span address{m_address.m_from + m_address.width() * std::min(address0, address1),
                       m_address.m_from + m_address.width() * std::max(address0, address1)};
    show(x, address);
}

void Viewport::show(Span x, Span address) {
    m_x = x;
    m_address = address;
    clamp(m_x, m_wholeX, kMinXSpan);
    clamp(m_address, m_wholeAddress, kMinAddressSpan);
}

}  // namespace memlog::render

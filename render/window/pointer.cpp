// The pointer's bookkeeping: a press, the moves after it, its release.
#include "render/window/pointer.hpp"

#include <algorithm>
#include <cmath>

namespace memlog::render {

void Pointer::press(double x, double y) {
    m_x = m_pressX = x;
    m_y = m_pressY = y;
    m_moved = false;
}

std::pair<double, double> Pointer::move(double x, double y) {
    const std::pair<double, double> by{x - m_x, y - m_y};
    m_x = x;
    m_y = y;
    if (std::fabs(x - m_pressX) > kClickSlop || std::fabs(y - m_pressY) > kClickSlop) m_moved = true;
    return by;
}

Pointer::Drag Pointer::release(double x, double y) {
    m_x = x;
    m_y = y;
    return std::exchange(m_drag, Drag::None);
}

void Pointer::leave() {
    m_x = m_y = -1;
    m_hover = {};
}

Rect Pointer::box() const {
    return {std::min(m_pressX, m_x), std::min(m_pressY, m_y), std::fabs(m_x - m_pressX), std::fabs(m_y - m_pressY)};
}

bool Pointer::setHover(const Hover& hover) {
    if (hover == m_hover) return false;
    m_hover = hover;
    return true;
}

}  // namespace memlog::render

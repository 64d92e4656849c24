// The pointer: where it is (drawable pixels; none once it leaves the window), the press a drag
// began with and the drag's kind, whether it moved past a click's slop, the modifier keys as of
// the event being handled, and what it hovers. No SDL (tests/render/test_window_parts.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>

#include "render/report/cairo_draw.hpp"

namespace memlog::render {

class Pointer {
public:
    enum class Drag { None, Pan, Box, Context, Cursor, Alpha };
    static constexpr double kClickSlop = 3;  // pixels a press may move and still be a click

    // What is under the pointer: a block, an access sample (by their indices in the model), or
    // a moment of an occupancy bar (x, the bar's view).
    struct Hover {
        std::optional<size_t> m_block, m_mark;
        std::optional<std::pair<uint64_t, size_t>> m_bar;
        bool any() const { return m_block || m_mark || m_bar; }
        bool operator==(const Hover&) const = default;
    };

    double x() const { return m_x; }
    double y() const { return m_y; }
    bool inWindow() const { return m_x >= 0; }

    // A button went down at (x, y): a click until it moves more than kClickSlop.
    void press(double x, double y);
    // The pointer moved to (x, y): how far since it was last seen.
    std::pair<double, double> move(double x, double y);
    // A button went up at (x, y): the drag that ends (Drag::None after).
    Drag release(double x, double y);
    // It left the window: no position, nothing hovered.
    void leave();
    // What the press began (pressing a cursor: which one).
    void beginDrag(Drag drag, size_t cursor = 0) {
        m_drag = drag;
        m_dragCursor = cursor;
    }
    Drag drag() const { return m_drag; }
    size_t dragCursor() const { return m_dragCursor; }
    // It moved past the slop since the last press.
    bool moved() const { return m_moved; }
    double pressX() const { return m_pressX; }
    double pressY() const { return m_pressY; }
    // From the press to the pointer, for a box being dragged.
    Rect box() const;

    // A key went down or up with `modifiers` held. SDL's own state is that of the last event
    // pumped, so on a slow frame a shift+wheel whose shift was released later in the same batch
    // read as a plain wheel (the gui test under TSan): the keys' own events, in their order, say
    // what was held at each event.
    void keys(uint16_t modifiers) { m_modifiers = modifiers; }
    // The modifiers held now: `display`'s state until the first key event.
    uint16_t modifiers(uint16_t display) const { return m_modifiers.value_or(display); }

    const Hover& hover() const { return m_hover; }
    // Sets what is hovered: true when it changed.
    bool setHover(const Hover& hover);
    void clearHover() { m_hover = {}; }

private:
    double m_x = -1, m_y = -1;
    double m_pressX = 0, m_pressY = 0;
    bool m_moved = false;
    Drag m_drag = Drag::None;
    size_t m_dragCursor = 0;
    std::optional<uint16_t> m_modifiers;
    Hover m_hover;
};

}  // namespace memlog::render

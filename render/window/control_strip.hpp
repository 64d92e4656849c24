// The strip of controls along the window's top: one button per choice, showing its current
// value (click to switch), the alpha slider, and buttons for export and help. Laid out anew
// each frame; the window keeps the last layout to answer clicks.
#pragma once

#include <cairo.h>

#include <optional>
#include <string>
#include <vector>

#include "render/report/cairo_draw.hpp"
#include "render/window/window_state.hpp"

namespace memlog::render {

enum class Control { Colour, Cushion, Axis, Bins, Layout, Accesses, Alpha, Export, Help };

struct ControlBox {
    Control m_control;
    Rect m_rect;
    std::string m_label;
};

class ControlStrip {
public:
    ControlStrip() = default;
    // Lays the strip out over `area` (text measured with `cr`'s font machinery).
    ControlStrip(cairo_t* cr, const WindowState& state, const Rect& area, double fontSize);

    void paint(cairo_t* cr, const WindowState& state) const;
    std::optional<Control> at(double x, double y) const;
    // The alpha slider's value for a pointer at x (clamped to its track).
    double alphaAt(double x) const;
    const std::vector<ControlBox>& boxes() const { return m_boxes; }
    const Rect& area() const { return m_area; }

    static constexpr double kMinAlpha = 0.05;

private:
    Rect m_area, m_track;
    double m_fontSize = 11;
    std::vector<ControlBox> m_boxes;
};

}  // namespace memlog::render

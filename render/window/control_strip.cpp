// Buttons are text in rounded boxes, left to right; the slider is a track with a knob.
#include "render/window/control_strip.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace memlog::render {
namespace {

std::string labelOf(Control control, const WindowState& state) {
    switch (control) {
        case Control::Colour:
            return std::string("colour: ") + colourByName(state.m_colourBy);
        case Control::Cushion:
            return std::string("cushions: ") + cushionName(state.m_cushion);
        case Control::Axis:
            return std::string("x: ") + timeline::xAxisName(state.m_axis);
        case Control::Bins:
            return std::string("views: ") + (state.m_bins ? binKindName(*state.m_bins) : "one");
        case Control::Layout:
            return state.m_layout == BinLayout::Time ? "aligned in time" : "aligned in address";
        case Control::Accesses:
            return state.m_accessMarks ? "accesses: shown" : "accesses: hidden";
        case Control::Alpha: {
            char text[32];
            std::snprintf(text, sizeof text, "\u03b1 %.2f", state.m_alpha);
            return text;
        }
        case Control::Export:
            return "export (e)";
        case Control::Help:
            return "help (h)";
    }
    return "";
}

}  // namespace

ControlStrip::ControlStrip(cairo_t* cr, const WindowState& state, const Rect& area, double fontSize)
    : m_area(area), m_fontSize(fontSize) {
    setFont(cr, fontSize);
    const double pad = std::round(fontSize * 0.7), gap = std::round(fontSize * 0.5);
    const double top = area.m_y + std::round(area.m_height * 0.15), height = std::round(area.m_height * 0.7);
    double x = area.m_x + gap;
    for (Control control : {Control::Colour, Control::Cushion, Control::Axis, Control::Bins, Control::Layout,
                            Control::Accesses, Control::Alpha, Control::Export, Control::Help}) {
        const std::string label = labelOf(control, state);
        const double width = std::ceil(textWidth(cr, label)) + 2 * pad;
        m_boxes.push_back({control, {x, top, width, height}, label});
        x += width + gap;
        if (control == Control::Alpha) {
            // The slider follows its label.
            m_track = {x, top + height / 2 - 2, std::round(fontSize * 10), 4};
            x += m_track.m_width + 2 * gap;
        }
    }
}

void ControlStrip::paint(cairo_t* cr, const WindowState& state) const {
    fillRect(cr, m_area, {0.90, 0.90, 0.91});
    setFont(cr, m_fontSize);
    for (const ControlBox& box : m_boxes) {
        const bool on =
            (box.m_control == Control::Bins && state.m_bins) || (box.m_control == Control::Layout && state.m_bins);
        fillRect(cr, box.m_rect, on ? Rgb{0.82, 0.87, 0.95} : Rgb{0.98, 0.98, 0.98});
        strokeRect(cr, box.m_rect, kFrameColour);
        setColour(cr, box.m_control == Control::Layout && !state.m_bins ? kMutedTextColour : kTextColour);
        drawText(cr, box.m_label, box.m_rect.m_x + box.m_rect.m_width / 2,
                 box.m_rect.m_y + box.m_rect.m_height / 2 + m_fontSize * 0.35, Align::Centre);
    }
    fillRect(cr, m_track, kFrameColour);
    const double knob = m_track.m_x + m_track.m_width * (state.m_alpha - kMinAlpha) / (1 - kMinAlpha);
    setColour(cr, {0.2, 0.35, 0.7});
    cairo_arc(cr, knob, m_track.m_y + m_track.m_height / 2, m_fontSize * 0.55, 0, 2 * M_PI);
    cairo_fill(cr);
}

std::optional<Control> ControlStrip::at(double x, double y) const {
    for (const ControlBox& box : m_boxes)
        if (x >= box.m_rect.m_x && x < box.m_rect.right() && y >= box.m_rect.m_y && y < box.m_rect.bottom())
            return box.m_control;
    const double reach = m_fontSize;  // the knob is easier to grab than the thin track
    if (x >= m_track.m_x - reach && x <= m_track.right() + reach && y >= m_track.m_y - reach &&
        y <= m_track.bottom() + reach)
        return Control::Alpha;
    return std::nullopt;
}

double ControlStrip::alphaAt(double x) const {
    const double fraction = std::clamp((x - m_track.m_x) / std::max(m_track.m_width, 1.0), 0.0, 1.0);
    return std::round((kMinAlpha + fraction * (1 - kMinAlpha)) * 100) / 100;
}

}  // namespace memlog::render

// Overlays are drawn with Cairo vectors over the report's pixels, after it, every frame.
#include "render/window/overlays.hpp"

#include <algorithm>
#include <cmath>

#include "render/window/window_state.hpp"

namespace memlog::render {
namespace {

constexpr Rgb kHoverColour{0.1, 0.1, 0.1};
constexpr Rgb kPinnedColour{0.9, 0.1, 0.1};

void box(cairo_t* cr, const Rect& rect) {
    setColour(cr, {0, 0, 0}, 0.18);
    cairo_rectangle(cr, rect.m_x + 2, rect.m_y + 2, rect.m_width, rect.m_height);
    cairo_fill(cr);
    fillRect(cr, rect, kPaperColour);
    strokeRect(cr, rect, kFrameColour);
}

}  // namespace

void drawOutline(cairo_t* cr, const Rect& rect, bool pinned) {
    // At least a few pixels across, so that a block thinner than a pixel is still found.
    const double grow = 2;
    const Rect shown{rect.m_x - grow, rect.m_y - grow, std::max(rect.m_width, 1.0) + 2 * grow,
                     std::max(rect.m_height, 1.0) + 2 * grow};
    strokeRect(cr, shown, {1, 1, 1}, pinned ? 4 : 3);
    strokeRect(cr, shown, pinned ? kPinnedColour : kHoverColour, pinned ? 2 : 1.5);
}

void drawTooltip(cairo_t* cr, double x, double y, const std::vector<std::string>& lines, double fontSize,
                 const Rect& bounds) {
    if (lines.empty()) return;
    const double pad = fontSize * 0.6, lineHeight = fontSize * 1.35;
    double width = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
        setFont(cr, fontSize, i == 0);
        width = std::max(width, textWidth(cr, lines[i]));
    }
    const double height = lineHeight * static_cast<double>(lines.size()) + pad;
    width += 2 * pad;
    // Below and right of the pointer, flipped when that would leave the window.
    double left = x + 16, top = y + 18;
    if (left + width > bounds.right()) left = std::max(bounds.m_x, x - 12 - width);
    if (top + height > bounds.bottom()) top = std::max(bounds.m_y, y - 12 - height);
    box(cr, {std::round(left), std::round(top), std::ceil(width), std::ceil(height)});
    for (size_t i = 0; i < lines.size(); ++i) {
        setFont(cr, fontSize, i == 0);
        setColour(cr, kTextColour);
        drawText(cr, lines[i], left + pad, top + pad / 2 + lineHeight * (static_cast<double>(i) + 0.8));
    }
}

void drawPanel(cairo_t* cr, const Rect& area, const std::string& title, const std::vector<std::string>& lines,
               double fontSize) {
    box(cr, area);
    const double pad = fontSize * 0.8, lineHeight = fontSize * 1.3;
    setFont(cr, fontSize * 1.1, true);
    setColour(cr, kPinnedColour);
    drawText(cr, title, area.m_x + pad, area.m_y + pad + fontSize, Align::Left, area.m_width - 2 * pad);
    double y = area.m_y + pad + fontSize + lineHeight * 1.4;
    for (const std::string& line : lines) {
        if (y > area.bottom() - pad) break;
        const bool heading = !line.empty() && line.back() == ':';
        setFont(cr, fontSize, heading);
        setColour(cr, line.rfind("  ", 0) == 0 ? kMutedTextColour : kTextColour);
        drawText(cr, line, area.m_x + pad, y, Align::Left, area.m_width - 2 * pad);
        y += lineHeight;
    }
}

void drawHelp(cairo_t* cr, const Rect& window, double fontSize) {
    std::vector<std::pair<std::string, std::string>> rows;
    for (const KeyBinding& binding : keyBindings())
        if (*binding.m_keys) rows.emplace_back(binding.m_keys, binding.m_what);
    rows.emplace_back("", "");
    for (const MouseHelp& help : mouseHelp()) rows.emplace_back(help.m_gesture, help.m_what);
    const double lineHeight = fontSize * 1.45, pad = fontSize * 1.5;
    setFont(cr, fontSize, true);
    double keysWidth = 0, whatWidth = 0;
    for (const auto& [keys, what] : rows) keysWidth = std::max(keysWidth, textWidth(cr, keys));
    setFont(cr, fontSize);
    for (const auto& [keys, what] : rows) whatWidth = std::max(whatWidth, textWidth(cr, what));
    const double width = keysWidth + whatWidth + 3 * pad;
    const double height = lineHeight * (static_cast<double>(rows.size()) + 2) + pad;
    const Rect area{std::round(window.m_x + (window.m_width - width) / 2),
                    std::round(window.m_y + std::max(0.0, (window.m_height - height) / 2)), std::ceil(width),
                    std::ceil(height)};
    box(cr, area);
    setFont(cr, fontSize * 1.2, true);
    setColour(cr, kTextColour);
    drawText(cr, "memtimeline: keys and mouse (h or Esc closes this)", area.m_x + pad, area.m_y + pad + fontSize);
    double y = area.m_y + pad + fontSize + lineHeight * 1.5;
    for (const auto& [keys, what] : rows) {
        setFont(cr, fontSize, true);
        setColour(cr, kTextColour);
        drawText(cr, keys, area.m_x + pad, y);
        setFont(cr, fontSize);
        drawText(cr, what, area.m_x + 2 * pad + keysWidth, y);
        y += lineHeight;
    }
}

std::optional<double> secondsLeft(double fraction, double elapsedSeconds) {
    if (elapsedSeconds < 2 || fraction < 0.05 || fraction >= 1) return std::nullopt;
    return elapsedSeconds * (1 - fraction) / fraction;
}

std::string progressText(double fraction, double elapsedSeconds) {
    fraction = std::clamp(fraction, 0.0, 1.0);
    std::string text = std::to_string(static_cast<int>(fraction * 100)) + " %";
    const std::optional<double> guess = secondsLeft(fraction, elapsedSeconds);
    if (!guess) return text;
    const double left = *guess;
    if (left < 10) return text + ", a few seconds left";
    if (left < 90) return text + ", about " + std::to_string(static_cast<int>(std::round(left / 5) * 5)) + " s left";
    return text + ", about " + std::to_string(static_cast<int>(std::round(left / 60))) + " min left";
}

void drawProgress(cairo_t* cr, const Rect& window, const std::string& label, double fraction, double fontSize,
                  bool opaque) {
    if (opaque) fillRect(cr, window, kPageColour);
    const double width = std::min(window.m_width * 0.6, fontSize * 40), height = fontSize * 1.2;
    const Rect track{std::round(window.m_x + (window.m_width - width) / 2),
                     std::round(window.m_y + window.m_height / 2), std::round(width), std::round(height)};
    if (!opaque) {  // a backing over the picture, so that the words read on any pattern
        setFont(cr, fontSize * 1.1);
        const double pad = fontSize * 0.8, wide = std::max(track.m_width, textWidth(cr, label)) + 2 * pad;
        setColour(cr, kPageColour, 0.85);
        cairo_rectangle(cr, track.m_x + track.m_width / 2 - wide / 2, track.m_y - fontSize * 2.6, wide,
                        track.m_height + fontSize * 2.6 + pad);
        cairo_fill(cr);
    }
    fillRect(cr, track, {0.88, 0.88, 0.9});
    fillRect(cr, {track.m_x, track.m_y, std::round(track.m_width * std::clamp(fraction, 0.0, 1.0)), track.m_height},
             {0.2, 0.35, 0.7});
    strokeRect(cr, track, kFrameColour);
    setFont(cr, fontSize * 1.1);
    setColour(cr, kTextColour);
    drawText(cr, label, track.m_x + track.m_width / 2, track.m_y - fontSize, Align::Centre);
}

void drawToast(cairo_t* cr, const Rect& window, const std::string& text, double fontSize) {
    setFont(cr, fontSize);
    const double pad = fontSize * 0.7;
    const double width = std::min(textWidth(cr, text) + 2 * pad, window.m_width - 2 * pad);
    const Rect area{std::round(window.m_x + (window.m_width - width) / 2), std::round(window.bottom() - fontSize * 3.2),
                    std::ceil(width), std::ceil(fontSize * 2)};
    box(cr, area);
    setColour(cr, kTextColour);
    drawText(cr, text, area.m_x + pad, area.m_y + area.m_height / 2 + fontSize * 0.35, Align::Left, width - 2 * pad);
}

void drawRubberBand(cairo_t* cr, const Rect& rect) {
    setColour(cr, {0.2, 0.35, 0.7}, 0.15);
    cairo_rectangle(cr, rect.m_x, rect.m_y, rect.m_width, rect.m_height);
    cairo_fill(cr);
    strokeRect(cr, rect, {0.2, 0.35, 0.7}, 1.5);
}

}  // namespace memlog::render

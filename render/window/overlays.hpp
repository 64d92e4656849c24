// What the window draws over the report: the outline of the block under the pointer, a
// tooltip, the side panel of a pinned block, the help overlay, the loading screen, a short
// message (toast), and the box being dragged out for a zoom.
#pragma once

#include <cairo.h>

#include <optional>
#include <string>
#include <vector>

#include "render/report/cairo_draw.hpp"

namespace memlog::render {

inline constexpr Rgb kPaperColour{1.0, 1.0, 0.97};  // tooltips, panels, the help

// A block outlined in one view: pinned blocks in a stronger colour than hovered ones.
void drawOutline(cairo_t* cr, const Rect& rect, bool pinned);

// Lines of text in a box near (x, y), kept inside `bounds`; the first line bold.
void drawTooltip(cairo_t* cr, double x, double y, const std::vector<std::string>& lines, double fontSize,
                 const Rect& bounds);

// A panel over `area` (the legend's place): a title, then lines; cut at the bottom.
void drawPanel(cairo_t* cr, const Rect& area, const std::string& title, const std::vector<std::string>& lines,
               double fontSize);

// Every key and mouse gesture, in a box over the middle of `window`.
void drawHelp(cairo_t* cr, const Rect& window, double fontSize);

// The seconds a stage has left, guessed from the share done after `elapsedSeconds` at the pace so
// far; none before two seconds and 5 % have passed (a guess from less swings), nor once done.
std::optional<double> secondsLeft(double fraction, double elapsedSeconds);
// How far it got and what is left of it: "37 %, about 20 s left", in steps (5 s, then minutes)
// that do not flicker.
std::string progressText(double fraction, double elapsedSeconds);

// The loading screen: what is being done and how far it got; over the page colour, or (not
// `opaque`) over what is already there.
void drawProgress(cairo_t* cr, const Rect& window, const std::string& label, double fraction, double fontSize,
                  bool opaque = true);

// A one-line message at the bottom of `window` (an export's path, a warning).
void drawToast(cairo_t* cr, const Rect& window, const std::string& text, double fontSize);

// The zoom box while it is dragged.
void drawRubberBand(cairo_t* cr, const Rect& rect);

}  // namespace memlog::render

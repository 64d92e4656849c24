// Small drawing helpers over Cairo shared by the report's parts: rectangles, text with the
// report's font, and raster views painted into place. Works on any Cairo surface: an image
// (PNG, the window later) or a vector one (SVG, PDF), where rasters are embedded as images.
#pragma once

#include <cairo.h>

#include <functional>
#include <span>
#include <string>

#include "render/raster/colour_map.hpp"
#include "render/raster/pixel_buffer.hpp"

namespace memlog::render {

struct Rect {
    double m_x = 0, m_y = 0, m_width = 0, m_height = 0;
    double right() const { return m_x + m_width; }
    double bottom() const { return m_y + m_height; }
};

inline constexpr Rgb kPageColour{0.965, 0.965, 0.96};
inline constexpr Rgb kTextColour{0.13, 0.13, 0.15};
inline constexpr Rgb kMutedTextColour{0.42, 0.42, 0.45};
inline constexpr Rgb kFrameColour{0.55, 0.55, 0.58};

void setColour(cairo_t* cr, const Rgb& colour, double opacity = 1.0);
void fillRect(cairo_t* cr, const Rect& rect, const Rgb& colour);
void strokeRect(cairo_t* cr, const Rect& rect, const Rgb& colour, double lineWidth = 1.0);

enum class Align { Left, Right, Centre };
void setFont(cairo_t* cr, double size, bool bold = false);
double textWidth(cairo_t* cr, const std::string& text);
// Draws `text` with its baseline at y; cut with an ellipsis to `maxWidth` when given.
void drawText(cairo_t* cr, const std::string& text, double x, double y, Align align = Align::Left, double maxWidth = 0);

// Rasterises into an image the size of `rect` (whole pixels) and paints it there.
void paintRaster(cairo_t* cr, const Rect& rect, const std::function<void(PixelBuffer)>& draw);
// The same for several rects, drawn by one call (views drawn together): a buffer for each
// rect, in their order; one of no pixels (m_pixels null) for a rect less than a pixel.
void paintRasters(cairo_t* cr, std::span<const Rect> rects,
                  const std::function<void(std::span<const PixelBuffer>)>& draw);

}  // namespace memlog::render

// Cairo helpers. Text uses Cairo's own font selection with DejaVu Sans, the font every Debian
// desktop and fonts-dejavu-core carry, so reports look the same on a headless machine.
#include "render/report/cairo_draw.hpp"

#include <cmath>
#include <vector>

#include "timeline/base/text_format.hpp"

namespace memlog::render {

void setColour(cairo_t* cr, const Rgb& colour, double opacity) {
    cairo_set_source_rgba(cr, colour.m_r, colour.m_g, colour.m_b, opacity);
}

void fillRect(cairo_t* cr, const Rect& rect, const Rgb& colour) {
    setColour(cr, colour);
    cairo_rectangle(cr, rect.m_x, rect.m_y, rect.m_width, rect.m_height);
    cairo_fill(cr);
}

void strokeRect(cairo_t* cr, const Rect& rect, const Rgb& colour, double lineWidth) {
    setColour(cr, colour);
    cairo_set_line_width(cr, lineWidth);
    // Half-pixel inset: a 1-px line on pixel edges stays crisp.
    cairo_rectangle(cr, rect.m_x - lineWidth / 2, rect.m_y - lineWidth / 2, rect.m_width + lineWidth,
                    rect.m_height + lineWidth);
    cairo_stroke(cr);
}

void setFont(cairo_t* cr, double size, bool bold) {
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
}

double textWidth(cairo_t* cr, const std::string& text) {
    cairo_text_extents_t extents;
    cairo_text_extents(cr, timeline::validUtf8(text).c_str(), &extents);
    return extents.x_advance;
}

namespace {

// Cuts `text` at a UTF-8 character boundary and adds an ellipsis until it fits.
std::string fitted(cairo_t* cr, const std::string& text, double maxWidth) {
    if (maxWidth <= 0 || textWidth(cr, text) <= maxWidth) return text;
    std::string cut = text;
    while (!cut.empty()) {
        while (!cut.empty() && (static_cast<unsigned char>(cut.back()) & 0xc0) == 0x80) cut.pop_back();
        if (!cut.empty()) cut.pop_back();  // the lead byte, or an ASCII character
        if (textWidth(cr, cut + "\u2026") <= maxWidth) return cut + "\u2026";
    }
    return "";
}

}  // namespace

void drawText(cairo_t* cr, const std::string& text, double x, double y, Align align, double maxWidth) {
    const std::string shown = fitted(cr, timeline::validUtf8(text), maxWidth);
    const double width = textWidth(cr, shown);
    const double left = align == Align::Left ? x : align == Align::Right ? x - width : x - width / 2;
    cairo_move_to(cr, left, y);
    cairo_show_text(cr, shown.c_str());
}

void paintRasters(cairo_t* cr, std::span<const Rect> rects,
                  const std::function<void(std::span<const PixelBuffer>)>& draw) {
    struct Raster {
        PixelBuffer m_pixels;
        int m_x = 0, m_y = 0;
        cairo_surface_t* m_image = nullptr;  // null: straight into the target's pixels
    };
    std::vector<Raster> rasters(rects.size());
    std::vector<PixelBuffer> buffers(rects.size());
    cairo_surface_t* target = cairo_get_target(cr);
    cairo_matrix_t matrix;
    cairo_get_matrix(cr, &matrix);
    const bool image = cairo_surface_get_type(target) == CAIRO_SURFACE_TYPE_IMAGE &&
                       cairo_image_surface_get_format(target) == CAIRO_FORMAT_ARGB32 && matrix.xx == 1 &&
                       matrix.yy == 1 && matrix.xy == 0 && matrix.yx == 0 && matrix.x0 == 0 && matrix.y0 == 0;
    if (image) cairo_surface_flush(target);
    for (size_t i = 0; i < rects.size(); ++i) {
        const Rect& rect = rects[i];
        Raster& raster = rasters[i];
        const int width = static_cast<int>(std::lround(rect.m_width)),
                  height = static_cast<int>(std::lround(rect.m_height));
        if (width <= 0 || height <= 0) continue;
        raster.m_x = static_cast<int>(std::lround(rect.m_x));
        raster.m_y = static_cast<int>(std::lround(rect.m_y));
        // On an image surface drawn 1:1, straight into its pixels: no second copy of the view.
        if (image && raster.m_x >= 0 && raster.m_y >= 0 &&
            raster.m_x + width <= cairo_image_surface_get_width(target) &&
            raster.m_y + height <= cairo_image_surface_get_height(target)) {
            const int stride = cairo_image_surface_get_stride(target) / 4;
            uint32_t* origin = reinterpret_cast<uint32_t*>(cairo_image_surface_get_data(target)) +
                               static_cast<long>(raster.m_y) * stride + raster.m_x;
            raster.m_pixels = PixelBuffer{origin, width, height, stride};
        } else {
            raster.m_image = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
            cairo_surface_flush(raster.m_image);
            raster.m_pixels = PixelBuffer{reinterpret_cast<uint32_t*>(cairo_image_surface_get_data(raster.m_image)),
                                          width, height, cairo_image_surface_get_stride(raster.m_image) / 4};
        }
        buffers[i] = raster.m_pixels;
    }
    draw(buffers);
    for (const Raster& raster : rasters) {
        const PixelBuffer& pixels = raster.m_pixels;
        if (!pixels.m_pixels) continue;
        if (!raster.m_image) {
            cairo_surface_mark_dirty_rectangle(target, raster.m_x, raster.m_y, pixels.m_width, pixels.m_height);
            continue;
        }
        cairo_surface_mark_dirty(raster.m_image);
        cairo_save(cr);
        cairo_set_source_surface(cr, raster.m_image, raster.m_x, raster.m_y);
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
        cairo_rectangle(cr, raster.m_x, raster.m_y, pixels.m_width, pixels.m_height);
        cairo_fill(cr);
        cairo_restore(cr);
        cairo_surface_destroy(raster.m_image);
    }
}

void paintRaster(cairo_t* cr, const Rect& rect, const std::function<void(PixelBuffer)>& draw) {
    paintRasters(cr, std::span(&rect, 1), [&](std::span<const PixelBuffer> buffers) {
        if (buffers.front().m_pixels) draw(buffers.front());
    });
}

}  // namespace memlog::render

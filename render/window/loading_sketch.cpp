// Drawing the loading screen's coarse picture (loading_sketch.hpp): one pixel a cell, scaled.
#include "render/window/loading_sketch.hpp"

#include <algorithm>

#include "render/raster/colour_map.hpp"

namespace memlog::render {

namespace {

// From white (nothing live) to a full region's blue: the share of it that blocks hold, not
// what the picture will colour them by.
Rgb shade(double full) {
    constexpr Rgb kFull{0.25, 0.45, 0.72};
    return {kBackground.m_r + (kFull.m_r - kBackground.m_r) * full,
            kBackground.m_g + (kFull.m_g - kBackground.m_g) * full,
            kBackground.m_b + (kFull.m_b - kBackground.m_b) * full};
}

}  // namespace

double sketchReach(const timeline::OccupancySketch::Picture& picture) {
    if (picture.m_columns == 0) return 0;
    const double read = std::clamp(picture.m_read, 0.01, 1.0);
    const double spanned = static_cast<double>(picture.m_columns * picture.m_columnWidth);
    // The last column is whole in the picture, so it may reach a little past the x last seen.
    const double whole = std::max(static_cast<double>(picture.m_lastX + 1) / read, spanned);
    return spanned / whole;
}

void drawSketch(cairo_t* cr, const Rect& area, const timeline::OccupancySketch::Picture& picture) {
    const int columns = static_cast<int>(picture.m_columns), rows = static_cast<int>(picture.m_regions.size());
    if (columns == 0 || rows == 0 || area.m_width < 1 || area.m_height < 1) return;
    cairo_surface_t* cells = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, columns, rows);
    cairo_surface_flush(cells);
    unsigned char* data = cairo_image_surface_get_data(cells);
    const int stride = cairo_image_surface_get_stride(cells);
    const double regionBytes = static_cast<double>(picture.m_regionBytes);
    for (int row = 0; row < rows; ++row) {
        // Low addresses at the bottom: the picture's last line is the first region.
        auto* line = reinterpret_cast<uint32_t*>(data + static_cast<ptrdiff_t>(rows - 1 - row) * stride);
        for (int column = 0; column < columns; ++column) {
            const uint64_t bytes = picture.bytes(row, column);
            line[column] = toArgb(shade(std::min(bytes / regionBytes, 1.0)));
        }
    }
    cairo_surface_mark_dirty(cells);
    const double width = area.m_width * sketchReach(picture);
    cairo_save(cr);
    cairo_rectangle(cr, area.m_x, area.m_y, width, area.m_height);
    cairo_clip(cr);
    cairo_translate(cr, area.m_x, area.m_y);
    const double xScale = width / columns, yScale = area.m_height / rows;
    cairo_scale(cr, xScale, yScale);
    cairo_set_source_surface(cr, cells, 0, 0);
    // Cells larger than pixels stay sharp: they are as coarse as the picture is; smaller ones
    // are averaged.
    cairo_pattern_set_filter(cairo_get_source(cr),
                             xScale >= 1 && yScale >= 1 ? CAIRO_FILTER_NEAREST : CAIRO_FILTER_GOOD);
    cairo_paint_with_alpha(cr, 0.4);
    cairo_restore(cr);
    cairo_surface_destroy(cells);
}

}  // namespace memlog::render

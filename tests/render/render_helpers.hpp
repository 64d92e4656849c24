// Helpers of the render tests: views and reports rendered into memory, pixels read back.
#pragma once

#include <cairo.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "render/raster/block_view.hpp"
#include "render/report/export.hpp"
#include "render/report/report.hpp"

namespace memlog::test {

struct Image {
    int m_width = 0, m_height = 0;
    std::vector<uint32_t> m_pixels;
    uint32_t at(int x, int y) const {
        return m_pixels[static_cast<size_t>(y) * static_cast<size_t>(m_width) + static_cast<size_t>(x)];
    }
    // The pixels of a rectangle of the page, row by row.
    std::vector<uint32_t> region(const render::Rect& rect) const {
        std::vector<uint32_t> out;
        for (int y = static_cast<int>(rect.m_y); y < static_cast<int>(rect.bottom()); ++y)
            for (int x = static_cast<int>(rect.m_x); x < static_cast<int>(rect.right()); ++x) out.push_back(at(x, y));
        return out;
    }
};

inline Image imageOf(cairo_surface_t* surface) {
    cairo_surface_flush(surface);
    Image image;
    image.m_width = cairo_image_surface_get_width(surface);
    image.m_height = cairo_image_surface_get_height(surface);
    const int stride = cairo_image_surface_get_stride(surface) / 4;
    const auto* data = reinterpret_cast<const uint32_t*>(cairo_image_surface_get_data(surface));
    for (int y = 0; y < image.m_height; ++y)
        image.m_pixels.insert(image.m_pixels.end(), data + static_cast<long>(y) * stride,
                              data + static_cast<long>(y) * stride + image.m_width);
    return image;
}

// The whole report, painted as the PNG export paints it.
inline Image imageOf(const render::Report& report) {
    cairo_surface_t* surface = render::renderImage(report);
    Image image = imageOf(surface);
    cairo_surface_destroy(surface);
    return image;
}

// One view drawn into a buffer of its own.
inline Image viewImage(const timeline::BlockModel& model, const render::ViewSpec& spec,
                       const render::BlockColouring& colouring, int width) {
    Image image;
    image.m_width = width;
    image.m_height = static_cast<int>(spec.m_scale->height());
    image.m_pixels.assign(static_cast<size_t>(image.m_width) * static_cast<size_t>(image.m_height), 0);
    render::drawBlocks(model, spec, colouring, {image.m_pixels.data(), image.m_width, image.m_height, image.m_width});
    return image;
}

inline double luminance(uint32_t pixel) {
    const render::Rgb c = render::fromArgb(pixel);
    return 0.2126 * c.m_r + 0.7152 * c.m_g + 0.0722 * c.m_b;
}

// Largest difference of one channel, in levels of 255.
inline int channelDistance(uint32_t a, uint32_t b) {
    int worst = 0;
    for (int shift : {0, 8, 16})
        worst = std::max(worst, std::abs(static_cast<int>(a >> shift & 0xff) - static_cast<int>(b >> shift & 0xff)));
    return worst;
}

}  // namespace memlog::test

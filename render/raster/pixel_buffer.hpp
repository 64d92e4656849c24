// A view onto 32-bit pixels, CAIRO_FORMAT_ARGB32 in native order (the layout of SDL's
// SDL_PIXELFORMAT_ARGB8888): a Cairo image surface's data, or a test's own vector.
#pragma once

#include <cstdint>
#include <cstring>

namespace memlog::render {

struct PixelBuffer {
    uint32_t* m_pixels = nullptr;
    int m_width = 0;
    int m_height = 0;
    int m_stride = 0;  // in pixels

    uint32_t& at(int x, int y) const { return m_pixels[static_cast<long>(y) * m_stride + x]; }
    uint32_t* row(int y) const { return m_pixels + static_cast<long>(y) * m_stride; }
};

// Copies the pixels of `from` into `to`, of the same width and height, row by row.
inline void copyPixels(PixelBuffer from, PixelBuffer to) {
    for (int y = 0; y < from.m_height; ++y)
        std::memcpy(to.row(y), from.row(y), static_cast<size_t>(from.m_width) * sizeof(uint32_t));
}

}  // namespace memlog::render

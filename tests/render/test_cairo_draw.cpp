// paintRasters: every rect gets its own buffer, in the rects' order, straight in the surface's
// pixels where it can, through an image of its own where it cannot; either way the pixels land
// where the rect says.
#include <catch2/catch.hpp>

#include <vector>

#include "render/report/cairo_draw.hpp"

using namespace memlog::render;

namespace {

// Opaque, a shade of blue for each rect.
uint32_t colourOf(size_t rect) { return 0xff000000u | 0x10u * static_cast<uint32_t>(rect + 1); }

// Paints three rects (one less than a pixel) with a colour by their place in the call.
std::vector<PixelBuffer> paintThree(cairo_t* cr) {
    const Rect rects[] = {{10, 5, 20, 8}, {40, 5, 0.2, 8}, {10, 20, 30, 4}};
    std::vector<PixelBuffer> given;
    paintRasters(cr, rects, [&](std::span<const PixelBuffer> buffers) {
        given.assign(buffers.begin(), buffers.end());
        for (size_t i = 0; i < buffers.size(); ++i)
            for (int y = 0; y < buffers[i].m_height; ++y)
                for (int x = 0; x < buffers[i].m_width; ++x) buffers[i].at(x, y) = colourOf(i);
    });
    return given;
}

uint32_t pixel(cairo_surface_t* surface, int x, int y) {
    cairo_surface_flush(surface);
    const auto* data = reinterpret_cast<const uint32_t*>(cairo_image_surface_get_data(surface));
    return data[y * cairo_image_surface_get_stride(surface) / 4 + x];
}

}  // namespace

TEST_CASE("paintRasters gives each rect a buffer of its size and paints it in place") {
    for (const bool moved : {false, true}) {
        INFO((moved ? "through images of their own (a moved origin)" : "straight into the surface"));
        cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 80, 40);
        cairo_t* cr = cairo_create(surface);
        const int dx = moved ? 3 : 0, dy = moved ? 2 : 0;
        if (moved) cairo_translate(cr, dx, dy);
        const std::vector<PixelBuffer> given = paintThree(cr);
        REQUIRE(given.size() == 3);
        CHECK(given[0].m_width == 20);
        CHECK(given[0].m_height == 8);
        CHECK(given[1].m_pixels == nullptr);
        CHECK(given[2].m_width == 30);
        const auto* data = reinterpret_cast<const uint32_t*>(cairo_image_surface_get_data(surface));
        CHECK((given[0].m_pixels == data + 5 * 80 + 10) == !moved);
        CHECK(pixel(surface, 10 + dx, 5 + dy) == colourOf(0));
        CHECK(pixel(surface, 29 + dx, 12 + dy) == colourOf(0));
        CHECK(pixel(surface, 30 + dx, 12 + dy) == 0);  // just outside
        CHECK(pixel(surface, 39 + dx, 23 + dy) == colourOf(2));
        CHECK(pixel(surface, 40 + dx, 6 + dy) == 0);  // the rect of no pixels
        cairo_destroy(cr);
        cairo_surface_destroy(surface);
    }
}

// Found by scripts/damage-logs: a program path with a damaged byte in the header made Cairo refuse
// the text, and with it the whole report ("input string not valid UTF-8", exit 2).
TEST_CASE("text that is not valid UTF-8 is drawn with replacement characters, and drawing goes on") {
    cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 200, 40);
    cairo_t* cr = cairo_create(surface);
    setFont(cr, 12, false);
    const std::string damaged = "/usr/bin/pyth\xf6n3 \xc0\xaf \xed\xa0\x80";
    CHECK(textWidth(cr, damaged) > 0);
    drawText(cr, damaged, 5, 20, Align::Left, 100);
    CHECK(cairo_status(cr) == CAIRO_STATUS_SUCCESS);
    cairo_destroy(cr);
    cairo_surface_destroy(surface);
}

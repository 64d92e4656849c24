// One view of blocks, rasterised: every block of the window (and bin) through the coverage
// accumulator, cushions on the blocks big enough to show them, equation 1 per pixel (the access
// samples over them: access_layer.hpp). Pure pixels: the same code fills a PNG report and, later, a window.
#pragma once

#include <algorithm>
#include <vector>

#include "render/raster/address_scale.hpp"
#include "render/raster/block_colouring.hpp"
#include "render/raster/coverage_accumulator.hpp"
#include "render/raster/cushion.hpp"
#include "render/raster/pixel_buffer.hpp"
#include "render/raster/x_scale.hpp"
#include "timeline/model/access_marks.hpp"
#include "timeline/model/bins.hpp"
#include "timeline/model/block_model.hpp"

namespace memlog::render {

struct ViewSpec {
    timeline::XAxis m_axis = timeline::XAxis::Time;
    timeline::XWindow m_window;
    const AddressScale* m_scale = nullptr;  // rows; its height is the buffer's
    const timeline::Bins* m_bins = nullptr;  // with m_bin: only that bin's blocks
    int m_bin = 0;
    double m_alpha = 0.5;  // equation 1's bias: lower shows thin blocks more
    CushionStyle m_cushion = CushionStyle::Plateau;
};

// Equation 1 for one pixel: C = (F c(a) + B c_B) / (F + B), F = sum f^alpha, B = (1 - sum
// f)^alpha, with c(a) the weighted mean attribute (or colour) dimmed by the weighted mean
// cushion; `shade` points to sum f^alpha (luminance - 1), or is null without cushions. Shared
// by every path that draws blocks, so that they agree to the bit.
inline uint32_t pixelColour(const PixelSums& p, bool categorical, const PowerTable& power, const float* shade) {
    if (p.m_weight <= 1e-9) return toArgb(kBackground);
    const double covered = std::clamp(p.m_coverage, 0.0, 1.0);
    const double background = power(1 - covered);
    const double weight = p.m_weight, inverse = 1 / weight;  // one division, not five
    Rgb colour = categorical ? Rgb{p.m_attribute[0] * inverse, p.m_attribute[1] * inverse, p.m_attribute[2] * inverse}
                             : ordinalColour(p.m_attribute[0] * inverse);
    if (shade) colour = scaled(colour, std::max(0.0, 1 + *shade * inverse));
    return toArgb(mixed(kBackground, colour, weight / (weight + background)));
}

// Adds sum f^alpha * (luminance - 1) of one block at least kMinCushionPixels both ways to
// `shade` (width x height, row-major): pixel by pixel, which big blocks can afford.
void addCushion(const PixelRect& rect, CushionStyle style, const PowerTable& power, int width, int height,
                std::vector<float>& shade);

// Where [from, to) x [lo, hi) (axis units, addresses) lands in a view `scale.width()` pixels
// wide: false when it is outside the window or its address range. The rectangle is in pixels,
// unclipped. Inline: every block of every frame comes through here.
inline bool boxRect(uint64_t from, uint64_t to, uint64_t lo, uint64_t hi, const ViewSpec& spec, const XScale& scale,
                    PixelRect& rect) {
    if (to <= spec.m_window.m_from || from >= spec.m_window.m_to) return false;
    // Through int64_t: times and event numbers stay below 2^63, and an unsigned conversion is a
    // branch and four instructions more, twice a block.
    rect = {scale.x(static_cast<double>(static_cast<int64_t>(from))),
            scale.x(static_cast<double>(static_cast<int64_t>(to))), 0, 0, 0};
    return spec.m_scale->span(lo, hi, rect.m_y0, rect.m_y1);
}

// The same for a block. One shorter than the axis unit, or of size 0, still existed: one unit,
// one byte (as ModelIndex::boxOf has it).
inline bool blockRect(const timeline::Block& block, const ViewSpec& spec, const XScale& scale, PixelRect& rect) {
    const uint64_t from = block.from(spec.m_axis), to = std::max(block.to(spec.m_axis), from + 1);
    return boxRect(from, to, block.addr(), block.addr() + std::max<uint64_t>(block.size(), 1), spec, scale, rect);
}

// Fills `target` (every pixel) with the blocks of `spec` on the background.
void drawBlocks(const timeline::BlockModel& model, const ViewSpec& spec, const BlockColouring& colouring,
                PixelBuffer target);

}  // namespace memlog::render

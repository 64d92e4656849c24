// Rasterising a view. Blocks go through the difference arrays (O(1) each); blocks at least
// kMinCushionPixels on both axes also add their cushion pixel by pixel into one more buffer.
// Live blocks are disjoint, so those big blocks cover the view at most about once: the cushion
// pass stays O(pixels) however many blocks there are.
#include "render/raster/block_view.hpp"

#include <algorithm>
#include <cmath>

#include "render/raster/coverage_accumulator.hpp"
#include "render/raster/x_scale.hpp"

namespace memlog::render {

using timeline::Block;

void addCushion(const PixelRect& rect, CushionStyle style, const PowerTable& power, int width, int height,
                std::vector<float>& shade) {
    const int x0 = std::max(0, static_cast<int>(std::floor(rect.m_x0)));
    const int x1 = std::min(width, static_cast<int>(std::ceil(rect.m_x1)));
    const int y0 = std::max(0, static_cast<int>(std::floor(rect.m_y0)));
    const int y1 = std::min(height, static_cast<int>(std::ceil(rect.m_y1)));
    if (x0 >= x1 || y0 >= y1) return;
    const double blockWidth = rect.m_x1 - rect.m_x0, blockHeight = rect.m_y1 - rect.m_y0;
    std::vector<double> slopeX(static_cast<size_t>(x1 - x0)), coverX(static_cast<size_t>(x1 - x0));
    for (int x = x0; x < x1; ++x) {
        slopeX[static_cast<size_t>(x - x0)] = cushionSlope(style, x + 0.5 - rect.m_x0, blockWidth);
        coverX[static_cast<size_t>(x - x0)] =
            std::min(rect.m_x1, x + 1.0) - std::max(rect.m_x0, static_cast<double>(x));
    }
    for (int y = y0; y < y1; ++y) {
        const double slopeY = cushionSlope(style, y + 0.5 - rect.m_y0, blockHeight);
        const double coverY = std::min(rect.m_y1, y + 1.0) - std::max(rect.m_y0, static_cast<double>(y));
        float* row = &shade[static_cast<size_t>(y) * static_cast<size_t>(width)];
        for (int x = x0; x < x1; ++x) {
            const size_t i = static_cast<size_t>(x - x0);
            const double f = coverX[i] * coverY;
            const double weight = power(f);
            row[x] += static_cast<float>(weight * (cushionLuminance(slopeX[i], slopeY) - 1));
        }
    }
}

namespace {

// One band of rows [top, top + rows) of the view.
void drawBand(const timeline::BlockModel& model, const ViewSpec& spec, const BlockColouring& colouring,
              PixelBuffer target, int top, int rows) {
    const int width = target.m_width;
    const bool categorical = colouring.categorical();
    CoverageAccumulator accumulator(width, rows, spec.m_alpha, categorical ? 3 : 1);
    std::vector<float> shade;  // allocated with the first cushioned block
    const XScale scale(spec.m_window, width);
    model.forEachMeeting(spec.m_axis, spec.m_window, [&](const Block& block) {
        if (spec.m_bins && spec.m_bins->binOf(block) != spec.m_bin) return;
        PixelRect rect;
        if (!blockRect(block, spec, scale, rect)) return;
        // Rows relative to the band; the accumulator clips, and a clip at whole rows keeps every
        // row's coverage as it was.
        rect.m_y0 -= top;
        rect.m_y1 -= top;
        if (rect.m_y1 <= 0 || rect.m_y0 >= rows) return;
        if (categorical) {
            const Rgb colour = colouring.colour(block);
            const double channels[3] = {colour.m_r, colour.m_g, colour.m_b};
            accumulator.add(rect, channels);
        } else {
            rect.m_attribute = colouring.scalar(block);
            accumulator.add(rect);
        }
        if (spec.m_cushion != CushionStyle::None && rect.m_x1 - rect.m_x0 >= kMinCushionPixels &&
            rect.m_y1 - rect.m_y0 >= kMinCushionPixels) {
            if (shade.empty()) shade.assign(static_cast<size_t>(width) * static_cast<size_t>(rows), 0.0f);
            addCushion(rect, spec.m_cushion, accumulator.power(), width, rows, shade);
        }
    });

    const PowerTable& power = accumulator.power();
    accumulator.resolveRows([&](int y, const PixelSums* sums) {
        uint32_t* out = target.row(top + y);
        const float* shadeRow = shade.empty() ? nullptr : &shade[static_cast<size_t>(y) * static_cast<size_t>(width)];
        for (int x = 0; x < width; ++x)
            out[x] = pixelColour(sums[x], categorical, power, shadeRow ? shadeRow + x : nullptr);
    });
}

}  // namespace

void drawBlocks(const timeline::BlockModel& model, const ViewSpec& spec, const BlockColouring& colouring,
                PixelBuffer target) {
    // The difference arrays of a whole view are 24 to 40 bytes a pixel. Bands of rows keep
    // them under 4 bytes a block (at least 4 MiB): a small log is drawn in a few passes over
    // its blocks with little memory, a big one in one pass, its arrays small beside the model.
    const size_t channels = colouring.categorical() ? 5 : 3;
    const size_t rowBytes = static_cast<size_t>(target.m_width + 1) * channels * sizeof(uint64_t);
    const size_t budget = std::max<size_t>(size_t{4} << 20, model.size() * 4);
    const int band =
        static_cast<int>(std::clamp<size_t>(budget / rowBytes, 16, static_cast<size_t>(std::max(target.m_height, 1))));
    for (int top = 0; top < target.m_height; top += band)
        drawBand(model, spec, colouring, target, top, std::min(band, target.m_height - top));
}

}  // namespace memlog::render

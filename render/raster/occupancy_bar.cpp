// Occupancy bar and cushion cursors: per-pixel post-passes, O(width x height).
#include "render/raster/occupancy_bar.hpp"

#include <algorithm>
#include <cmath>

#include "render/raster/colour_map.hpp"

namespace memlog::render {

void drawOccupancyBar(const std::vector<timeline::OccupancyColumn>& columns, double fullBytes, CushionStyle style,
                      PixelBuffer target) {
    const int width = std::min(target.m_width, static_cast<int>(columns.size()));
    const int height = target.m_height;
    std::vector<double> slopeX(static_cast<size_t>(width), 0.0);
    std::vector<bool> quiet(static_cast<size_t>(width), false);
    // Quiet runs: cushions across each, from its first column to its last.
    for (int x = 0; x < width;) {
        int end = x;
        while (end < width && columns[static_cast<size_t>(end)].m_events == 0) ++end;
        if (end - x >= kMinQuietColumns && style != CushionStyle::None)
            for (int i = x; i < end; ++i) {
                quiet[static_cast<size_t>(i)] = true;
                slopeX[static_cast<size_t>(i)] = cushionSlope(style, i + 0.5 - x, end - x);
            }
        x = std::max(end, x + 1);
    }
    for (int y = 0; y < height; ++y) {
        const double slopeY = cushionSlope(style, y + 0.5, height);
        uint32_t* row = target.row(y);
        for (int x = 0; x < width; ++x) {
            const double level = fullBytes > 0 ? columns[static_cast<size_t>(x)].m_liveBytes / fullBytes : 0;
            Rgb colour = ordinalColour(level);
            if (quiet[static_cast<size_t>(x)])
                colour = scaled(colour, cushionLuminance(slopeX[static_cast<size_t>(x)], slopeY));
            row[x] = toArgb(colour);
        }
    }
}

void drawCushionCursor(PixelBuffer target, double x) {
    constexpr Rgb kCursorColour{0.10, 0.12, 0.30};
    const double edgeLuminance = cushionLuminance(4 * kCushionHeight, 0);
    const int from = std::max(0, static_cast<int>(std::floor(x - kCursorHalfWidth)));
    const int to = std::min(target.m_width, static_cast<int>(std::ceil(x + kCursorHalfWidth)));
    for (int column = from; column < to; ++column) {
        const double position = column + 0.5 - (x - kCursorHalfWidth);
        const double luminance =
            cushionLuminance(cushionSlope(CushionStyle::Parabolic, position, 2 * kCursorHalfWidth), 0);
        // 0.12 everywhere in the band, up to 0.6 at its edges.
        const double opacity = 0.12 + 0.48 * (1 - luminance) / (1 - edgeLuminance);
        for (int y = 0; y < target.m_height; ++y) {
            uint32_t& pixel = target.at(column, y);
            pixel = toArgb(mixed(fromArgb(pixel), kCursorColour, opacity));
        }
    }
}

}  // namespace memlog::render

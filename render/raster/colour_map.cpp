// Colour maps: piecewise linear between a few chosen stops.
#include "render/raster/colour_map.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace memlog::render {

namespace {

constexpr Rgb kOrdinalStops[] = {
    {0.16, 0.25, 0.70}, {0.15, 0.58, 0.85}, {0.33, 0.74, 0.40}, {0.96, 0.75, 0.18}, {0.84, 0.17, 0.14}};

// Whole levels of 255, so a pixel of one category is exactly its legend swatch.
constexpr Rgb hex(uint32_t rgb) {
    return {static_cast<double>(rgb >> 16 & 0xff) / 255.0, static_cast<double>(rgb >> 8 & 0xff) / 255.0,
            static_cast<double>(rgb & 0xff) / 255.0};
}

constexpr Rgb kPalette[kPaletteSize] = {hex(0x4578b3), hex(0xf28c26), hex(0x54a64d), hex(0xdb4747), hex(0x8f6bc2),
                                        hex(0x996b4d), hex(0x61c2cc), hex(0xe0c738), hex(0xf59eb8), hex(0x8cb22e)};

}  // namespace

Rgb rampColour(std::span<const Rgb> stops, double t) {
    t = std::isfinite(t) ? std::clamp(t, 0.0, 1.0) : 0.0;
    const double position = t * static_cast<double>(stops.size() - 1);
    const size_t stop = std::min(static_cast<size_t>(position), stops.size() - 2);
    return mixed(stops[stop], stops[stop + 1], position - static_cast<double>(stop));
}

Rgb ordinalColour(double t) { return rampColour(kOrdinalStops, t); }

Rgb categoryColour(size_t index) { return index < kPaletteSize ? kPalette[index] : kOtherColour; }

Rgb fromArgb(uint32_t pixel) {
    return {static_cast<double>(pixel >> 16 & 0xff) / 255.0, static_cast<double>(pixel >> 8 & 0xff) / 255.0,
            static_cast<double>(pixel & 0xff) / 255.0};
}

}  // namespace memlog::render

// Colours of the picture: the ordinal map (blue for low through green to red for high, as
// MemoView's views and occupancy bars), the categorical palette for threads and sites, the
// background. Colours are linear 0..1 triples until they
// are packed into Cairo's ARGB32 pixels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace memlog::render {

struct Rgb {
    double m_r = 0, m_g = 0, m_b = 0;
};

// t in [0, 1], clamped: dark blue, sky blue, green, amber, red.
Rgb ordinalColour(double t);
// The colour at t in [0, 1] of a ramp through `stops` (at least two, evenly spaced), linear
// between them; t outside [0, 1] or not finite is clamped (NaN to 0).
Rgb rampColour(std::span<const Rgb> stops, double t);

// Ten colours easy to tell apart, then grey for everything else ("other").
inline constexpr size_t kPaletteSize = 10;
Rgb categoryColour(size_t index);
inline constexpr Rgb kOtherColour{136 / 255.0, 136 / 255.0, 136 / 255.0};  // dark enough to show when thin

inline constexpr Rgb kBackground{1.0, 1.0, 1.0};  // free memory

// Inline: every pixel of every frame goes through these (and lround, a libm call, was a tenth
// of a frame: a clamped value + 0.5, truncated, rounds the same way).
inline double clampedChannel(double value) { return value < 0 ? 0 : value > 1 ? 1 : value; }

// Opaque CAIRO_FORMAT_ARGB32 (and SDL_PIXELFORMAT_ARGB8888): 0xAARRGGBB in native order.
inline uint32_t toArgb(const Rgb& colour) {
    auto byte = [](double value) { return static_cast<uint32_t>(clampedChannel(value) * 255.0 + 0.5); };
    return 0xff00'0000u | byte(colour.m_r) << 16 | byte(colour.m_g) << 8 | byte(colour.m_b);
}
Rgb fromArgb(uint32_t pixel);

// Clamped to [0, 1].
inline Rgb scaled(const Rgb& colour, double factor) {
    return {clampedChannel(colour.m_r * factor), clampedChannel(colour.m_g * factor),
            clampedChannel(colour.m_b * factor)};
}
// a at t = 0, b at t = 1.
inline Rgb mixed(const Rgb& a, const Rgb& b, double t) {
    return {a.m_r + (b.m_r - a.m_r) * t, a.m_g + (b.m_g - a.m_g) * t, a.m_b + (b.m_b - a.m_b) * t};
}

}  // namespace memlog::render

#include "render/raster/access_layer.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <span>

#include "render/raster/x_scale.hpp"
#include "timeline/base/seeded_hash.hpp"

namespace memlog::render {

namespace {

// Adds `amount` to the pixels a 2x2 square centred on (cx, cy) overlaps, each by the area it
// covers (a pixel [x, x+1) x [y, y+1)).
void splat(std::vector<float>& plane, int width, int height, double cx, double cy, float amount) {
    const double left = cx - 1, top = cy - 1;
    const int x0 = static_cast<int>(std::floor(left)), y0 = static_cast<int>(std::floor(top));
    for (int y = std::max(y0, 0); y <= std::min(y0 + 2, height - 1); ++y) {
        const double coverY = std::min<double>(y + 1, top + 2) - std::max<double>(y, top);
        if (coverY <= 0) continue;
        for (int x = std::max(x0, 0); x <= std::min(x0 + 2, width - 1); ++x) {
            const double coverX = std::min<double>(x + 1, left + 2) - std::max<double>(x, left);
            if (coverX > 0)
                plane[static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)] +=
                    amount * static_cast<float>(coverX * coverY);
        }
    }
}

// Opacity for a pixel of density d in a view whose densest pixel has `most`.
double opacityOf(double d, double most) {
    if (d <= 0) return 0;
    if (d < 1 || most <= 1) return kOneSampleOpacity * std::min(d, 1.0);
    return kOneSampleOpacity + (1 - kOneSampleOpacity) * std::log(d) / std::log(most);
}

// Blends `colour` at `opacity` times `coverage` into the pixel (x, y), if it is in the buffer.
void blend(PixelBuffer target, int x, int y, const Rgb& colour, double opacity) {
    if (x < 0 || y < 0 || x >= target.m_width || y >= target.m_height || opacity <= 0) return;
    uint32_t& pixel = target.at(x, y);
    pixel = toArgb(mixed(fromArgb(pixel), colour, std::min(opacity, 1.0)));
}

// An antialiased line one pixel wide (Xiaolin Wu's): each step along the major axis shares its
// ink between the two pixels the line passes between.
void drawLine(PixelBuffer target, double x0, double y0, double x1, double y1, const Rgb& colour, double opacity) {
    const bool steep = std::fabs(y1 - y0) > std::fabs(x1 - x0);
    if (steep) {
        std::swap(x0, y0);
        std::swap(x1, y1);
    }
    if (x0 > x1) {
        std::swap(x0, x1);
        std::swap(y0, y1);
    }
    const double gradient = x1 - x0 > 0 ? (y1 - y0) / (x1 - x0) : 0;
    // Pixel centres are at +0.5: a line along y = 10.5 inks row 10 alone.
    const int limit = steep ? target.m_height : target.m_width;
    const int from = std::max(static_cast<int>(std::floor(x0)), 0),
              to = std::min(static_cast<int>(std::floor(x1)), limit - 1);
    for (int major = from; major <= to; ++major) {
        const double minor = y0 + gradient * (major + 0.5 - x0) - 0.5;
        const int low = static_cast<int>(std::floor(minor));
        const double share = minor - low;
        if (steep) {
            blend(target, low, major, colour, opacity * (1 - share));
            blend(target, low + 1, major, colour, opacity * share);
        } else {
            blend(target, major, low, colour, opacity * (1 - share));
            blend(target, major, low + 1, colour, opacity * share);
        }
    }
}

}  // namespace

std::optional<std::pair<double, double>> placeOf(const timeline::AccessMark& mark, const ViewSpec& spec,
                                                 const XScale& scale) {
    size_t band = 0;
    return placeOf(mark, spec, scale, band);
}

std::optional<std::pair<double, double>> placeOf(const timeline::AccessMark& mark, const ViewSpec& spec,
                                                 const XScale& scale, size_t& band) {
    const uint64_t at = timeline::markX(mark, spec.m_axis);
    if (at < spec.m_window.m_from || at >= spec.m_window.m_to) return std::nullopt;
    const auto row = spec.m_scale->y(mark.m_addr, band);
    if (!row) return std::nullopt;
    return std::pair{scale.x(static_cast<double>(at)), *row};
}

AccessDensity accessDensity(std::span<const timeline::AccessMark> marks, const ViewSpec& spec, int width, int height,
                            const std::vector<int>* binOfMark, const std::vector<uint8_t>* missOfMark,
                            uint8_t inOrder) {
    AccessDensity density;
    density.m_width = std::max(width, 0);
    density.m_height = std::max(height, 0);
    const size_t pixels = static_cast<size_t>(density.m_width) * static_cast<size_t>(density.m_height);
    density.m_reads.assign(pixels, 0.0f);
    density.m_writes.assign(pixels, 0.0f);
    if (pixels == 0) return density;
    const XScale scale(spec.m_window, width);
    size_t band = 0;  // the band of the mark before: most often this one's too
    size_t from = 0, to = marks.size();
    if (inOrder & timeline::axisBit(spec.m_axis)) {  // the marks inside the window: placeOf's test
        const auto before = [&](const timeline::AccessMark& mark, uint64_t x) {
            return timeline::markX(mark, spec.m_axis) < x;
        };
        from = static_cast<size_t>(std::lower_bound(marks.begin(), marks.end(), spec.m_window.m_from, before) -
                                   marks.begin());
        to = static_cast<size_t>(std::lower_bound(marks.begin() + static_cast<std::ptrdiff_t>(from), marks.end(),
                                                  spec.m_window.m_to, before) -
                                 marks.begin());
    }
    for (size_t i = from; i < to; ++i) {
        const timeline::AccessMark& mark = marks[i];
        if (binOfMark && (*binOfMark)[i] != spec.m_bin) continue;
        const auto place = placeOf(mark, spec, scale, band);
        if (!place) continue;
        const bool second = missOfMark ? (*missOfMark)[i] != 0 : mark.m_write;
        splat(second ? density.m_writes : density.m_reads, width, height, place->first, place->second, 1.0f);
        ++density.m_samples;
    }
    return density;
}

void drawAccessDensity(const AccessDensity& density, PixelBuffer target, const Rgb& readColour,
                       const Rgb& writeColour) {
    if (density.m_samples == 0) return;
    float most = 0;
    for (size_t i = 0; i < density.m_reads.size(); ++i) most = std::max(most, density.m_reads[i] + density.m_writes[i]);
    const Rgb white{1, 1, 1};
    for (int y = 0; y < std::min(target.m_height, density.m_height); ++y) {
        uint32_t* row = target.row(y);
        for (int x = 0; x < std::min(target.m_width, density.m_width); ++x) {
            const size_t i = static_cast<size_t>(y) * static_cast<size_t>(density.m_width) + static_cast<size_t>(x);
            const double reads = density.m_reads[i], writes = density.m_writes[i];
            const double alpha = opacityOf(reads + writes, most);
            if (alpha <= 0) continue;  // no sample here: the block keeps its colour
            // Washed as much as a sample covers the pixel, so that a square's edge fades out.
            const Rgb washed = mixed(fromArgb(row[x]), white, kWashUnderSamples * std::min(reads + writes, 1.0));
            const Rgb sample = mixed(readColour, writeColour, writes / (reads + writes));
            row[x] = toArgb(mixed(washed, sample, alpha));
        }
    }
}

NotableMarks notableMarks(std::span<const timeline::AccessMark> marks) {
    NotableMarks notable;
    std::vector<size_t> traps;
    for (size_t i = 0; i < marks.size(); ++i) {
        if (marks[i].m_armedBy) traps.push_back(i);
        if (marks[i].m_useAfterFree) notable.m_usesAfterFree.push_back(i);
    }
    if (traps.empty()) return notable;
    timeline::NumberMap<uint64_t, size_t> bySeq;  // the arming samples' places, by their m_seq
    for (const size_t trap : traps) bySeq.emplace(marks[trap].m_armedBy, SIZE_MAX);
    for (size_t i = 0; i < marks.size(); ++i)
        if (auto it = bySeq.find(marks[i].m_seq); it != bySeq.end()) it->second = i;
    for (const size_t trap : traps)
        if (const size_t armed = bySeq[marks[trap].m_armedBy]; armed != SIZE_MAX)  // else not in the log (torn)
            notable.m_links.emplace_back(armed, trap);
    return notable;
}

void drawWatchLinks(std::span<const timeline::AccessMark> marks, const NotableMarks& notable, const ViewSpec& spec,
                    PixelBuffer target, const std::vector<int>* binOfMark) {
    const XScale scale(spec.m_window, target.m_width);
    // Both ends placed even outside the window, so that a link crossing the view is drawn.
    ViewSpec everywhere = spec;
    everywhere.m_window = {0, UINT64_MAX};
    for (const auto& [armed, trap] : notable.m_links) {
        if (binOfMark && (*binOfMark)[trap] != spec.m_bin) continue;
        const auto from = placeOf(marks[armed], everywhere, scale), to = placeOf(marks[trap], everywhere, scale);
        if (!from || !to) continue;
        // Through the middle of the pixel rows of the two words: a link along one word is one
        // crisp row, not two half-inked ones.
        drawLine(target, from->first, std::floor(from->second) + 0.5, to->first, std::floor(to->second) + 0.5,
                 kWatchLinkColour, kWatchLinkOpacity);
    }
}

void drawUsesAfterFree(std::span<const timeline::AccessMark> marks, const NotableMarks& notable, const ViewSpec& spec,
                       PixelBuffer target, const std::vector<int>* binOfMark) {
    const XScale scale(spec.m_window, target.m_width);
    const double reach = kUseAfterFreeReach;
    for (const size_t i : notable.m_usesAfterFree) {
        if (binOfMark && (*binOfMark)[i] != spec.m_bin) continue;
        const auto place = placeOf(marks[i], spec, scale);
        if (!place) continue;
        const double x = place->first, y = std::floor(place->second) + 0.5;
        for (const double offset : {-0.5, 0.5}) {  // two pixels thick
            drawLine(target, x - reach + offset, y - reach, x + reach + offset, y + reach, kUseAfterFreeColour, 1);
            drawLine(target, x - reach + offset, y + reach, x + reach + offset, y - reach, kUseAfterFreeColour, 1);
        }
    }
}

}  // namespace memlog::render

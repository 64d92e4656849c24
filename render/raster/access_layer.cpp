#include "render/raster/access_layer.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <optional>
#include <span>

#include "render/raster/x_scale.hpp"
#include "timeline/base/other_core.hpp"

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

// Spreads `mass` over the box [left, right) x [top, bottom) by area: a sample's 2x2 square of
// splat() is a box of mass 4.
void splatBox(std::vector<float>& plane, int width, int height, double left, double top, double right, double bottom,
              float mass) {
    const double perArea = mass / ((right - left) * (bottom - top));
    const int x0 = std::max(static_cast<int>(std::floor(left)), 0),
              x1 = std::min(static_cast<int>(std::ceil(right)), width);
    const int y0 = std::max(static_cast<int>(std::floor(top)), 0),
              y1 = std::min(static_cast<int>(std::ceil(bottom)), height);
    for (int y = y0; y < y1; ++y) {
        const double coverY = std::min<double>(y + 1, bottom) - std::max<double>(y, top);
        float* row = &plane[static_cast<size_t>(y) * static_cast<size_t>(width)];
        for (int x = x0; x < x1; ++x) {
            const double coverX = std::min<double>(x + 1, right) - std::max<double>(x, left);
            row[x] += static_cast<float>(perArea * coverX * coverY);
        }
    }
}

// A width x height density with no sample yet.
AccessDensity noDensity(int width, int height) {
    AccessDensity density;
    density.m_width = std::max(width, 0);
    density.m_height = std::max(height, 0);
    const size_t pixels = static_cast<size_t>(density.m_width) * static_cast<size_t>(density.m_height);
    density.m_reads.assign(pixels, 0.0f);
    density.m_writes.assign(pixels, 0.0f);
    return density;
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

std::optional<std::pair<size_t, size_t>> marksInWindow(std::span<const timeline::AccessMark> marks,
                                                       const ViewSpec& spec, uint8_t inOrder) {
    if (!(inOrder & timeline::axisBit(spec.m_axis))) return std::nullopt;
    const auto before = [&](const timeline::AccessMark& mark, uint64_t x) {  // placeOf's test
        return timeline::markX(mark, spec.m_axis) < x;
    };
    const auto from = std::lower_bound(marks.begin(), marks.end(), spec.m_window.m_from, before);
    const auto to = std::lower_bound(from, marks.end(), spec.m_window.m_to, before);
    return std::pair{static_cast<size_t>(from - marks.begin()), static_cast<size_t>(to - marks.begin())};
}

namespace {

// The samples [from, to) of `marks` added to `density`; every kGiveWayEvery of them, `stop()` is
// asked, and true ends it there (false is returned).
template <typename Stop>
bool addSamples(std::span<const timeline::AccessMark> marks, size_t from, size_t to, const ViewSpec& spec,
                const std::vector<int>* binOfMark, const std::vector<uint8_t>* missOfMark, AccessDensity& density,
                const Stop& stop) {
    const XScale scale(spec.m_window, density.m_width);
    size_t band = 0;  // the band of the mark before: most often this one's too
    for (size_t i = from; i < to; ++i) {
        if ((i - from) % kGiveWayEvery == kGiveWayEvery - 1 && stop()) return false;
        const timeline::AccessMark& mark = marks[i];
        if (binOfMark && (*binOfMark)[i] != spec.m_bin) continue;
        const auto place = placeOf(mark, spec, scale, band);
        if (!place) continue;
        const bool second = missOfMark ? (*missOfMark)[i] != 0 : mark.m_write;
        splat(second ? density.m_writes : density.m_reads, density.m_width, density.m_height, place->first,
              place->second, 1.0f);
        ++density.m_samples;
    }
    return true;
}

}  // namespace

AccessDensity accessDensity(std::span<const timeline::AccessMark> marks, const ViewSpec& spec, int width, int height,
                            const std::vector<int>* binOfMark, const std::vector<uint8_t>* missOfMark, uint8_t inOrder,
                            const std::function<bool()>* giveWay) {
    AccessDensity density = noDensity(width, height);
    if (density.m_reads.empty()) return density;
    const auto [from, to] = marksInWindow(marks, spec, inOrder).value_or(std::pair<size_t, size_t>{0, marks.size()});
    // Only this thread may ask `giveWay` (the window's asks SDL); the other is told by a flag.
    std::atomic<bool> stopped = false;
    const auto askHere = [&] {
        if (giveWay && *giveWay && (*giveWay)()) stopped = true;
        return stopped.load();
    };
    if (to - from < kDensityOnTwoCoresFrom) {
        density.m_gaveWay = !addSamples(marks, from, to, spec, binOfMark, missOfMark, density, askHere);
        return density;
    }
    // Many: the second half on the other core, into planes of its own, added after.
    const size_t middle = from + (to - from) / 2;
    AccessDensity second = noDensity(width, height);
    {
        const std::jthread other = timeline::startOnOtherCore([&] {
            addSamples(marks, middle, to, spec, binOfMark, missOfMark, second, [&] { return stopped.load(); });
        });
        density.m_gaveWay = !addSamples(marks, from, middle, spec, binOfMark, missOfMark, density, askHere);
    }
    if (density.m_gaveWay) return density;
    for (size_t i = 0; i < density.m_reads.size(); ++i) {
        density.m_reads[i] += second.m_reads[i];
        density.m_writes[i] += second.m_writes[i];
    }
    density.m_samples += second.m_samples;
    return density;
}

namespace {

// accessDensityDraft's walk down the summary's levels.
class DraftWalk {
public:
    DraftWalk(std::span<const timeline::AccessMark> marks, const timeline::AccessSummary& summary, const ViewSpec& spec,
              AccessDensity& density, std::pair<size_t, size_t> inWindow)
        : m_marks(marks),
          m_summary(summary),
          m_spec(spec),
          m_scale(spec.m_window, density.m_width),
          m_density(density),
          m_from(inWindow.first),
          m_to(inWindow.second) {}

    void group(size_t level, size_t index) {
        const auto [first, last] = m_summary.marksOf(level, index);
        if (last <= m_from || first >= m_to || first == last) return;
        const bool whole = first >= m_from && last <= m_to;
        if (whole) {
            const double left = m_scale.x(static_cast<double>(timeline::markX(m_marks[first], m_spec.m_axis)));
            const double right = m_scale.x(static_cast<double>(timeline::markX(m_marks[last - 1], m_spec.m_axis)));
            if (right - left <= 1) return points(level, index, left, right);
        }
        if (level == 0) return samples(std::max(first, m_from), std::min(last, m_to));
        const size_t children = m_summary.groups(level - 1);
        for (size_t child = index * timeline::AccessSummary::kFanout;
             child < std::min((index + 1) * timeline::AccessSummary::kFanout, children); ++child)
            group(level - 1, child);
    }

private:
    // A group that spans [left, right] in x: each run spread over its rows, the box a sample's
    // square would reach from any of its places.
    void points(size_t level, size_t index, double left, double right) {
        for (const timeline::AccessPoint& point : m_summary.points(level, index)) {
            double top = 0, bottom = 0;
            bool oneBand = false;
            if (point.weight() == 0 || !m_spec.m_scale->rowsOf(point.m_lo, point.m_hi + 1, top, bottom, oneBand))
                continue;
            const double middle = (top + bottom) / 2;  // a run of one address: its row's centre, as placeOf
            if (point.m_lo == point.m_hi) top = bottom = m_spec.m_scale->y(point.m_lo).value_or(middle);
            for (const auto& [count, plane] :
                 {std::pair{point.m_reads, &m_density.m_reads}, std::pair{point.m_writes, &m_density.m_writes}})
                if (count)
                    splatBox(*plane, m_density.m_width, m_density.m_height, left - 1, top - 1, right + 1, bottom + 1,
                             4.0f * static_cast<float>(count));
            m_density.m_samples += point.weight();
        }
    }

    void samples(size_t first, size_t last) {
        addSamples(m_marks, first, last, m_spec, nullptr, nullptr, m_density, [] { return false; });
    }

    std::span<const timeline::AccessMark> m_marks;
    const timeline::AccessSummary& m_summary;
    const ViewSpec& m_spec;
    XScale m_scale;
    AccessDensity& m_density;
    size_t m_from, m_to;
};

}  // namespace

AccessDensity accessDensityDraft(std::span<const timeline::AccessMark> marks, const timeline::AccessSummary& summary,
                                 const ViewSpec& spec, int width, int height) {
    AccessDensity density = noDensity(width, height);
    const size_t pixels = density.m_reads.size();
    const auto inWindow = marksInWindow(marks, spec, timeline::kEveryAxis);
    if (pixels == 0 || summary.empty() || summary.marks() != marks.size()) return density;
    DraftWalk walk(marks, summary, spec, density, *inWindow);
    const size_t top = summary.levels() - 1;
    for (size_t group = 0; group < summary.groups(top); ++group) walk.group(top, group);
    return density;
}

bool AccessLayer::drawGivingWay(const ViewSpec& spec, PixelBuffer target, const std::function<bool()>& giveWay) const {
    const AccessDensity density = drawsDraft(spec)
                                      ? accessDensityDraft(m_marks, m_summary, spec, target.m_width, target.m_height)
                                      : accessDensity(m_marks, spec, target.m_width, target.m_height, m_binOfMark,
                                                      m_missOfMark, m_inOrder, &giveWay);
    if (density.m_gaveWay) return false;
    if (m_missOfMark)
        drawAccessDensity(density, target, kHitColour, kMissColour);
    else
        drawAccessDensity(density, target);
    drawWatchLinks(m_marks, m_notable, spec, target, m_binOfMark);
    drawUsesAfterFree(m_marks, m_notable, spec, target, m_binOfMark);
    return true;
}

bool AccessLayer::drawsDraft(const ViewSpec& spec) const {
    if (m_summary.empty() || m_binOfMark || m_missOfMark || m_summary.marks() != m_marks.size()) return false;
    const auto inWindow = marksInWindow(m_marks, spec, m_inOrder);
    if (!inWindow || inWindow->second - inWindow->first <= m_draftAbove) return false;
    m_drafted = true;
    return true;
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

void drawWatchLinks(std::span<const timeline::AccessMark> marks, const timeline::AccessTally& notable,
                    const ViewSpec& spec, PixelBuffer target, const std::vector<int>* binOfMark) {
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

void drawUsesAfterFree(std::span<const timeline::AccessMark> marks, const timeline::AccessTally& notable,
                       const ViewSpec& spec, PixelBuffer target, const std::vector<int>* binOfMark) {
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

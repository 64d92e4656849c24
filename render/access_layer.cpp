#include "render/access_layer.hpp"

#include <algorithm>
#include <cmath>

#include "render/x_scale.hpp"

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
            if (coverX > 0) plane[static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)] += amount * static_cast<float>(coverX * coverY);
        }
    }
}

// Opacity for a pixel of density d in a view whose densest pixel has `most`.
double opacityOf(double d, double most) {
    if (d <= 0) return 0;
    if (d < 1 || most <= 1) return kOneSampleOpacity * std::min(d, 1.0);
    return kOneSampleOpacity + (1 - kOneSampleOpacity) * std::log(d) / std::log(most);
}

}  // namespace

AccessDensity accessDensity(const std::vector<timeline::AccessMark>& marks, const ViewSpec& spec, int width, int height,
                            const std::vector<int>* binOfMark) {
    AccessDensity density;
    density.m_width = std::max(width, 0);
    density.m_height = std::max(height, 0);
    const size_t pixels = static_cast<size_t>(density.m_width) * static_cast<size_t>(density.m_height);
    density.m_reads.assign(pixels, 0.0f);
    density.m_writes.assign(pixels, 0.0f);
    if (pixels == 0) return density;
    const XScale scale(spec.m_window, width);
    for (size_t i = 0; i < marks.size(); ++i) {
        const timeline::AccessMark& mark = marks[i];
        if (binOfMark && (*binOfMark)[i] != spec.m_bin) continue;
        const uint64_t at = spec.m_axis == timeline::XAxis::Time ? mark.m_timeNs : mark.m_seq;
        if (at < spec.m_window.m_from || at >= spec.m_window.m_to) continue;
        const auto row = spec.m_scale->y(mark.m_addr);
        if (!row) continue;
        splat(mark.m_write ? density.m_writes : density.m_reads, width, height, scale.x(static_cast<double>(at)),
              *row, 1.0f);
        ++density.m_samples;
    }
    return density;
}

void drawAccessDensity(const AccessDensity& density, PixelBuffer target) {
    if (density.m_samples == 0) return;
    float most = 0;
    for (size_t i = 0; i < density.m_reads.size(); ++i) most = std::max(most, density.m_reads[i] + density.m_writes[i]);
    const Rgb white{1, 1, 1};
    for (int y = 0; y < std::min(target.m_height, density.m_height); ++y) {
        uint32_t* row = target.row(y);
        for (int x = 0; x < std::min(target.m_width, density.m_width); ++x) {
            const size_t i = static_cast<size_t>(y) * static_cast<size_t>(density.m_width) + static_cast<size_t>(x);
            const double reads = density.m_reads[i], writes = density.m_writes[i];
            const Rgb washed = mixed(fromArgb(row[x]), white, kWashUnderSamples);
            const double alpha = opacityOf(reads + writes, most);
            if (alpha <= 0) {
                row[x] = toArgb(washed);
                continue;
            }
            const Rgb sample = mixed(kReadColour, kWriteColour, writes / (reads + writes));
            row[x] = toArgb(mixed(washed, sample, alpha));
        }
    }
}

}  // namespace memlog::render

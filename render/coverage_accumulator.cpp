// Difference-array rasterisation. A rectangle's coverage is separable, f(x, y) = fx(x) * fy(y),
// and each 1-D profile is piecewise constant with at most three runs, so the rectangle is the
// outer product of two short step functions: at most 4 x 4 corner updates. Both axes are
// quantised before the product, so the corners cancel exactly outside the rectangle.
#include "render/coverage_accumulator.hpp"

#include <algorithm>
#include <cmath>

namespace memlog::render {

CoverageAccumulator::CoverageAccumulator(int width, int height, double alpha, int attributes)
    : m_width(std::max(width, 0)), m_height(std::max(height, 0)), m_alpha(alpha), m_power(alpha),
      m_channels(2 + std::clamp(attributes, 1, kMaxAttributes)),
      m_deltas(static_cast<size_t>(m_width + 1) * static_cast<size_t>(m_height + 1) * static_cast<size_t>(m_channels), 0) {}

int64_t CoverageAccumulator::quantise(double covered, bool boosted) const {
    const double value = boosted ? m_power(covered) : covered;
    return static_cast<int64_t>(value * kAxisOne + 0.5);  // value >= 0: rounds as llround, without the call
}

int CoverageAccumulator::profile(double lo, double hi, int limit, bool boosted, Run* runs, int* end) const {
    lo = std::max(lo, 0.0);
    hi = std::min(hi, static_cast<double>(limit));
    if (!(hi > lo)) return 0;
    const int first = static_cast<int>(std::floor(lo));
    const int last = std::min(static_cast<int>(std::ceil(hi)) - 1, limit - 1);
    int count = 0;
    if (first == last) {
        runs[count++] = {first, quantise(hi - lo, boosted)};
    } else {
        runs[count++] = {first, quantise(first + 1 - lo, boosted)};
        if (last > first + 1) runs[count++] = {first + 1, kAxisOne};
        runs[count++] = {last, quantise(hi - last, boosted)};
    }
    *end = last + 1;
    return count;
}

void CoverageAccumulator::add(const PixelRect& rect) { add(rect, &rect.m_attribute); }

void CoverageAccumulator::add(const PixelRect& rect, const double* attributes) {
    Run xf[3], xa[3], yf[3], ya[3];
    int xEnd, yEnd;
    const int nx = profile(rect.m_x0, rect.m_x1, m_width, false, xf, &xEnd);
    const int ny = profile(rect.m_y0, rect.m_y1, m_height, false, yf, &yEnd);
    if (nx == 0 || ny == 0) return;
    profile(rect.m_x0, rect.m_x1, m_width, true, xa, &xEnd);
    profile(rect.m_y0, rect.m_y1, m_height, true, ya, &yEnd);
    const int attributeCount = m_channels - 2;
    uint64_t attribute[kMaxAttributes];
    for (int c = 0; c < attributeCount; ++c)
        attribute[c] = static_cast<uint64_t>(
            std::llround(std::clamp(attributes[c], 0.0, 1.0) * static_cast<double>(kAttributeOne)));

    // Step changes of each profile: run starts carry (value - previous value), the end -value.
    auto steps = [](const Run* runs, int count, int end, int* at, int64_t* delta) {
        int64_t previous = 0;
        for (int i = 0; i < count; ++i) {
            at[i] = runs[i].m_from;
            delta[i] = runs[i].m_value - previous;
            previous = runs[i].m_value;
        }
        at[count] = end;
        delta[count] = -previous;
        return count + 1;
    };
    int xAt[4], yAt[4];
    int64_t xfD[4], xaD[4], yfD[4], yaD[4];
    const int sx = steps(xf, nx, xEnd, xAt, xfD);
    steps(xa, nx, xEnd, xAt, xaD);
    const int sy = steps(yf, ny, yEnd, yAt, yfD);
    steps(ya, ny, yEnd, yAt, yaD);
    const size_t stride = static_cast<size_t>(m_width + 1);
    const size_t channels = static_cast<size_t>(m_channels);
    for (int j = 0; j < sy; ++j)
        for (int i = 0; i < sx; ++i) {
            uint64_t* cell = &m_deltas[(static_cast<size_t>(yAt[j]) * stride + static_cast<size_t>(xAt[i])) * channels];
            const uint64_t weight = static_cast<uint64_t>(xaD[i] * yaD[j]);
            cell[0] += static_cast<uint64_t>(xfD[i] * yfD[j]);
            cell[1] += weight;
            for (int c = 0; c < attributeCount; ++c) cell[2 + c] += weight * attribute[c];
        }
}

void CoverageAccumulator::resolveRows(const std::function<void(int y, const PixelSums* row)>& onRow) const {
    const size_t stride = static_cast<size_t>(m_width + 1);
    const size_t channels = static_cast<size_t>(m_channels);
    // Running column sums of the rows above, then a running sum along the row.
    std::vector<uint64_t> column(stride * channels, 0);
    std::vector<PixelSums> row(static_cast<size_t>(m_width));
    constexpr double kOne = static_cast<double>(kAxisOne) * static_cast<double>(kAxisOne);
    constexpr double kAttributeScale = kOne * static_cast<double>(kAttributeOne);
    for (int y = 0; y < m_height; ++y) {
        uint64_t sum[2 + kMaxAttributes] = {};
        const uint64_t* delta = &m_deltas[static_cast<size_t>(y) * stride * channels];
        for (int x = 0; x < m_width; ++x) {
            uint64_t* running = &column[static_cast<size_t>(x) * channels];
            for (size_t c = 0; c < channels; ++c) {
                running[c] += delta[static_cast<size_t>(x) * channels + c];
                sum[c] += running[c];
            }
            PixelSums& pixel = row[static_cast<size_t>(x)];
            pixel.m_coverage = static_cast<double>(static_cast<int64_t>(sum[0])) / kOne;
            pixel.m_weight = static_cast<double>(static_cast<int64_t>(sum[1])) / kOne;
            for (size_t c = 0; c < static_cast<size_t>(kMaxAttributes); ++c)
                pixel.m_attribute[c] = c + 2 < channels ? static_cast<double>(static_cast<int64_t>(sum[2 + c])) / kAttributeScale : 0.0;
        }
        onRow(y, row.data());
    }
}

std::vector<PixelSums> CoverageAccumulator::resolve() const {
    std::vector<PixelSums> pixels(static_cast<size_t>(m_width) * static_cast<size_t>(m_height));
    resolveRows([&](int y, const PixelSums* row) {
        std::copy(row, row + m_width, pixels.begin() + static_cast<long>(y) * m_width);
    });
    return pixels;
}

}  // namespace memlog::render

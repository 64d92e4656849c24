// Difference-array rasterisation. A rectangle's coverage is separable, f(x, y) = fx(x) * fy(y),
// and each 1-D profile is piecewise constant with at most three runs, so the rectangle is the
// outer product of two short step functions: at most 4 x 4 corner updates. Both axes are
// quantised before the product, so the corners cancel exactly outside the rectangle.
#include "render/raster/coverage_accumulator.hpp"

#include <algorithm>
#include <cmath>

namespace memlog::render {

CoverageAccumulator::CoverageAccumulator(int width, int height, double alpha, int attributes)
    : m_width(0), m_height(0), m_alpha(-1), m_power(alpha), m_channels(0) {
    reset(width, height, alpha, attributes);
}

void CoverageAccumulator::reset(int width, int height, double alpha, int attributes) {
    width = std::max(width, 0);
    height = std::max(height, 0);
    const int channels = 2 + std::clamp(attributes, 1, kMaxAttributes);
    if (alpha != m_alpha) {
        m_power = PowerTable(alpha);
        m_fixedPower.resize(kAxisOne + 1);
        for (int64_t i = 0; i <= kAxisOne; ++i)
            m_fixedPower[static_cast<size_t>(i)] =
                static_cast<uint16_t>(m_power(static_cast<double>(i) / kAxisOne) * kAxisOne + 0.5);
    }
    m_alpha = alpha;
    const size_t size =
        static_cast<size_t>(width + 1) * static_cast<size_t>(height + 1) * static_cast<size_t>(channels);
    // Clean arrays are zero whatever their shape was: a tile of another shape only resizes them.
    if (m_clean) {
        m_deltas.resize(size, 0);
        m_pixels.resize(size, 0);
    } else {
        m_deltas.assign(size, 0);
        m_pixels.assign(size, 0);
    }
    m_width = width;
    m_height = height;
    m_channels = channels;
    // From here on the arrays count as written: add() does not say so itself, because a flag
    // written with every block would share its cache line with the other band's thread.
    m_clean = false;
}

uint64_t CoverageAccumulator::quantiseAttribute(double value) {
    return static_cast<uint64_t>(std::llround(std::clamp(value, 0.0, 1.0) * static_cast<double>(kAttributeOne)));
}

// The runs of [lo, hi) on a pixel axis: one partial pixel, or a partial one, full ones and a
// partial one; `coverage` and `weight` turn the fraction of a pixel a run covers into its
// fixed-point values. This and addCorners are the cost of a block (about 40 ns), so both are
// written for the compiler to unroll: no calls, no loops of unknown length over channels.
template <typename Coverage, typename Weight>
bool CoverageAccumulator::steps(double lo, double hi, int limit, Coverage&& coverage, Weight&& weight, Steps& s) {
    lo = std::max(lo, 0.0);
    hi = std::min(hi, static_cast<double>(limit));
    if (!(hi > lo)) return false;
    const int first = static_cast<int>(lo);  // lo >= 0: truncation is floor
    int last = static_cast<int>(hi);
    if (static_cast<double>(last) == hi) --last;  // ceil(hi) - 1
    last = std::min(last, limit - 1);
    if (first == last) {
        const int64_t f = coverage(hi - lo), w = weight(hi - lo);
        s.set(0, first, f, w);
        s.set(1, first + 1, -f, -w);
        s.m_count = 2;
        return true;
    }
    const double head = first + 1 - lo, tail = hi - last;
    const int64_t f1 = coverage(head), w1 = weight(head), f2 = coverage(tail), w2 = weight(tail);
    if (last == first + 1) {
        s.set(0, first, f1, w1);
        s.set(1, last, f2 - f1, w2 - w1);
        s.set(2, last + 1, -f2, -w2);
        s.m_count = 3;
    } else {
        const int64_t f = coverage(1.0), w = weight(1.0);
        s.set(0, first, f1, w1);
        s.set(1, first + 1, f - f1, w - w1);
        s.set(2, last, f2 - f, w2 - w);
        s.set(3, last + 1, -f2, -w2);
        s.m_count = 4;
    }
    return true;
}

template <int kAttributes>
void CoverageAccumulator::addCorners(const Steps& x, const Steps& y, const uint64_t* attributes) {
    constexpr size_t channels = 2 + kAttributes;
    const size_t stride = static_cast<size_t>(m_width + 1) * channels;
    uint64_t attribute[kAttributes];
    for (int c = 0; c < kAttributes; ++c) attribute[c] = attributes[c];
    for (int j = 0; j < y.m_count; ++j) {
        uint64_t* row = &m_deltas[static_cast<size_t>(y.m_at[j]) * stride];
        // Unsigned products: they wrap as the sums do, and a spread node's may be large.
        const uint64_t yf = static_cast<uint64_t>(y.m_coverage[j]), yw = static_cast<uint64_t>(y.m_weight[j]);
        for (int i = 0; i < x.m_count; ++i) {
            uint64_t* cell = row + static_cast<size_t>(x.m_at[i]) * channels;
            const uint64_t weight = static_cast<uint64_t>(x.m_weight[i]) * yw;
            cell[0] += static_cast<uint64_t>(x.m_coverage[i]) * yf;
            cell[1] += weight;
            for (int c = 0; c < kAttributes; ++c) cell[2 + c] += weight * attribute[c];
        }
    }
}

void CoverageAccumulator::addCorners(const Steps& x, const Steps& y, const uint64_t* attributes) {
    if (m_channels == 5)
        addCorners<3>(x, y, attributes);
    else
        addCorners<1>(x, y, attributes);
}

void CoverageAccumulator::add(const PixelRect& rect) { add(rect, &rect.m_attribute); }

void CoverageAccumulator::add(const PixelRect& rect, const double* attributes) {
    uint64_t quantised[kMaxAttributes];
    for (int c = 0; c < m_channels - 2; ++c) quantised[c] = quantiseAttribute(attributes[c]);
    add(rect, quantised);
}

void CoverageAccumulator::addLarger(const PixelRect& rect, const uint64_t* attributes) {
    auto weight = [this](double covered) { return fixedWeight(covered); };
    Steps x, y;
    if (!steps(rect.m_x0, rect.m_x1, m_width, fixedCoverage, weight, x)) return;
    if (!steps(rect.m_y0, rect.m_y1, m_height, fixedCoverage, weight, y)) return;
    addCorners(x, y, attributes);
}

void CoverageAccumulator::addSpread(const PixelRect& rect, double coverage, double weight, const uint64_t* attributes) {
    // Each axis as the share of the rectangle in each pixel (summing to 1 over the whole of
    // it); the totals ride on x. A share is never rounded to nothing before the product, as
    // coverage 1e-6 of a pixel would be.
    const double width = rect.m_x1 - rect.m_x0, height = rect.m_y1 - rect.m_y0;
    auto spread = [](double total, double extent) {
        return
            [scale = total / extent * kAxisOne](double covered) { return static_cast<int64_t>(covered * scale + 0.5); };
    };
    const auto share = spread(1.0, height);
    Steps x, y;
    if (!steps(rect.m_x0, rect.m_x1, m_width, spread(coverage, width), spread(weight, width), x)) return;
    if (!steps(rect.m_y0, rect.m_y1, m_height, share, share, y)) return;
    addCorners(x, y, attributes);
}

PixelSums CoverageAccumulator::toPixelSums(const uint64_t* sums, int channels) {
    constexpr double kOne = static_cast<double>(kAxisOne) * static_cast<double>(kAxisOne);
    constexpr double kAttributeScale = kOne * static_cast<double>(kAttributeOne);
    PixelSums pixel;
    pixel.m_coverage = static_cast<double>(static_cast<int64_t>(sums[0])) / kOne;
    pixel.m_weight = static_cast<double>(static_cast<int64_t>(sums[1])) / kOne;
    for (int c = 0; c < kMaxAttributes; ++c)
        pixel.m_attribute[c] =
            c + 2 < channels ? static_cast<double>(static_cast<int64_t>(sums[2 + c])) / kAttributeScale : 0.0;
    return pixel;
}

void CoverageAccumulator::resolveRows(const std::function<void(int y, const PixelSums* row)>& onRow) const {
    // Integration never writes when it does not clear.
    std::vector<PixelSums> row(static_cast<size_t>(m_width));
    integrate(const_cast<uint64_t*>(m_deltas.data()), const_cast<uint64_t*>(m_pixels.data()), false,
              [&](int y, const uint64_t* sums) {
                  for (int x = 0; x < m_width; ++x)
                      row[static_cast<size_t>(x)] =
                          toPixelSums(sums + static_cast<size_t>(x) * static_cast<size_t>(m_channels), m_channels);
                  onRow(y, row.data());
              });
}

std::vector<PixelSums> CoverageAccumulator::resolve() const {
    std::vector<PixelSums> pixels(static_cast<size_t>(m_width) * static_cast<size_t>(m_height));
    resolveRows([&](int y, const PixelSums* row) {
        std::copy(row, row + m_width, pixels.begin() + static_cast<long>(y) * m_width);
    });
    return pixels;
}

}  // namespace memlog::render

// Difference-array rasterisation. A rectangle's coverage is separable, f(x, y) = fx(x) * fy(y),
// and each 1-D profile is piecewise constant with at most three runs, so the rectangle is the
// outer product of two short step functions: at most 4 x 4 corner updates. Both axes are
// quantised before the product, so the corners cancel exactly outside the rectangle.
#include "render/coverage_accumulator.hpp"

#include <algorithm>
#include <cmath>

namespace memlog::render {

CoverageAccumulator::CoverageAccumulator(int width, int height, double alpha)
    : m_width(width), m_height(height), m_alpha(alpha),
      m_deltas(static_cast<size_t>(width + 1) * static_cast<size_t>(height + 1) * 3, 0) {}

int CoverageAccumulator::profile(double lo, double hi, int limit, double exponent, Run* runs, int* end) const {
    lo = std::max(lo, 0.0);
    hi = std::min(hi, static_cast<double>(limit));
    if (!(hi > lo)) return 0;
    auto quantise = [&](double covered) {
        return static_cast<int64_t>(std::llround(std::pow(covered, exponent) * kAxisOne));
    };
    const int first = static_cast<int>(std::floor(lo));
    const int last = std::min(static_cast<int>(std::ceil(hi)) - 1, limit - 1);
    int count = 0;
    if (first == last) {
        runs[count++] = {first, quantise(hi - lo)};
    } else {
        runs[count++] = {first, quantise(first + 1 - lo)};
        if (last > first + 1) runs[count++] = {first + 1, kAxisOne};
        runs[count++] = {last, quantise(hi - last)};
    }
    *end = last + 1;
    return count;
}

void CoverageAccumulator::add(const PixelRect& rect) {
    Run xf[3], xa[3], yf[3], ya[3];
    int xEnd, yEnd;
    const int nx = profile(rect.m_x0, rect.m_x1, m_width, 1.0, xf, &xEnd);
    const int ny = profile(rect.m_y0, rect.m_y1, m_height, 1.0, yf, &yEnd);
    if (nx == 0 || ny == 0) return;
    profile(rect.m_x0, rect.m_x1, m_width, m_alpha, xa, &xEnd);
    profile(rect.m_y0, rect.m_y1, m_height, m_alpha, ya, &yEnd);
    const int64_t attribute =
        std::llround(std::clamp(rect.m_attribute, 0.0, 1.0) * static_cast<double>(kAttributeOne));

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
    for (int j = 0; j < sy; ++j)
        for (int i = 0; i < sx; ++i) {
            int64_t* cell = &m_deltas[(static_cast<size_t>(yAt[j]) * stride + static_cast<size_t>(xAt[i])) * 3];
            const int64_t weight = xaD[i] * yaD[j];
            cell[0] += xfD[i] * yfD[j];
            cell[1] += weight;
            cell[2] += weight * attribute;
        }
}

std::vector<PixelSums> CoverageAccumulator::resolve() const {
    std::vector<PixelSums> pixels(static_cast<size_t>(m_width) * static_cast<size_t>(m_height));
    const size_t stride = static_cast<size_t>(m_width + 1);
    // Running column sums of the rows above, then a running sum along the row.
    std::vector<int64_t> column(stride * 3, 0);
    constexpr double kOne = static_cast<double>(kAxisOne) * static_cast<double>(kAxisOne);
    for (int y = 0; y < m_height; ++y) {
        int64_t row[3] = {0, 0, 0};
        for (int x = 0; x < m_width; ++x) {
            const int64_t* delta = &m_deltas[(static_cast<size_t>(y) * stride + static_cast<size_t>(x)) * 3];
            for (int c = 0; c < 3; ++c) {
                column[static_cast<size_t>(x) * 3 + static_cast<size_t>(c)] += delta[c];
                row[c] += column[static_cast<size_t>(x) * 3 + static_cast<size_t>(c)];
            }
            PixelSums& pixel = pixels[static_cast<size_t>(y) * static_cast<size_t>(m_width) + static_cast<size_t>(x)];
            pixel.m_coverage = static_cast<double>(row[0]) / kOne;
            pixel.m_weight = static_cast<double>(row[1]) / kOne;
            pixel.m_attribute = static_cast<double>(row[2]) / (kOne * static_cast<double>(kAttributeOne));
        }
    }
    return pixels;
}

}  // namespace memlog::render

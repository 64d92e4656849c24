// The subpixel-true rasteriser of the picture (equation 1 of Moreta & Telea): every block adds
// its exact pixel coverage f, its boosted weight f^alpha and f^alpha times its attribute to
// per-pixel sums, in O(blocks + pixels) whatever the blocks' sizes. A block thinner or shorter
// than a pixel still changes that pixel; with alpha < 1 it counts for more.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "render/power_table.hpp"

namespace memlog::render {

// A rectangle in pixel units: x in [m_x0, m_x1), y in [m_y0, m_y1); m_attribute in [0, 1]
// (what the colour map shows: size, lifetime...).
struct PixelRect {
    double m_x0, m_x1, m_y0, m_y1;
    double m_attribute;
};

// What one pixel received.
struct PixelSums {
    double m_coverage;      // sum of f: the fraction of the pixel covered (at most 1 for disjoint blocks)
    double m_weight;        // sum of f^alpha
    double m_attribute[3];  // sum of f^alpha * attribute, per attribute channel
};

class CoverageAccumulator {
public:
    static constexpr int kMaxAttributes = 3;

    // `attributes`: 1 for a scalar mapped to colour after averaging (equation 1 as printed), 3
    // for colours averaged channel by channel (categories: thread, site), where averaging the
    // category numbers would show a third category that is not there.
    CoverageAccumulator(int width, int height, double alpha, int attributes = 1);

    // At most 16 point updates into the difference arrays; clipped to the image.
    void add(const PixelRect& rect);                            // channel 0 = m_attribute
    void add(const PixelRect& rect, const double* attributes);  // one value per channel, each in [0, 1]

    // Integrates the difference arrays (one 2-D prefix sum) row by row, top row first.
    void resolveRows(const std::function<void(int y, const PixelSums* row)>& onRow) const;
    std::vector<PixelSums> resolve() const;  // all rows, row-major

    int width() const { return m_width; }
    int height() const { return m_height; }
    double alpha() const { return m_alpha; }
    const PowerTable& power() const { return m_power; }  // x^alpha

private:
    struct Run {
        int m_from;       // first pixel of the run
        int64_t m_value;  // per-pixel value, fixed point
    };
    // The 1-D coverage profile of [lo, hi) on the pixel axis as at most three runs (partial,
    // full, partial), for f (exponent 1) and for f^alpha, in fixed point.
    int profile(double lo, double hi, int limit, bool boosted, Run* runs, int* end) const;
    int64_t quantise(double covered, bool boosted) const;

    int m_width, m_height;
    double m_alpha;
    PowerTable m_power;
    int m_channels;  // 2 + attributes
    // (width + 1) x (height + 1) difference arrays, channels interleaved. Unsigned so that the
    // running sums may wrap: only the final per-pixel values need to fit.
    std::vector<uint64_t> m_deltas;
};

// Fixed point of one axis: coverage 1 is kAxisOne; products of two axes are exact in int64.
inline constexpr int64_t kAxisOne = 1 << 15;
inline constexpr int64_t kAttributeOne = 1 << 12;

}  // namespace memlog::render

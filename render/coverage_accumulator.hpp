// The subpixel-true rasteriser of the picture (equation 1 of Moreta & Telea): every block adds
// its exact pixel coverage f, its boosted weight f^alpha and f^alpha times its attribute to
// three per-pixel sums, in O(blocks + pixels) whatever the blocks' sizes. A block thinner or
// shorter than a pixel still changes that pixel; with alpha < 1 it counts for more.
#pragma once

#include <cstdint>
#include <vector>

namespace memlog::render {

// A rectangle in pixel units: x in [m_x0, m_x1), y in [m_y0, m_y1); m_attribute in [0, 1]
// (what the colour map shows: thread, site, size, lifetime...).
struct PixelRect {
    double m_x0, m_x1, m_y0, m_y1;
    double m_attribute;
};

// What one pixel received.
struct PixelSums {
    double m_coverage;   // sum of f: the fraction of the pixel covered (at most 1 for disjoint blocks)
    double m_weight;     // sum of f^alpha
    double m_attribute;  // sum of f^alpha * attribute
};

class CoverageAccumulator {
public:
    CoverageAccumulator(int width, int height, double alpha);

    // At most 16 point updates into the difference arrays; clipped to the image.
    void add(const PixelRect& rect);

    // Integrates the difference arrays (one 2-D prefix sum) and returns row-major sums.
    std::vector<PixelSums> resolve() const;

    int width() const { return m_width; }
    int height() const { return m_height; }

private:
    struct Run {
        int m_from;       // first pixel of the run
        int64_t m_value;  // per-pixel value, fixed point
    };
    // The 1-D coverage profile of [lo, hi) on the pixel axis as at most three runs (partial,
    // full, partial), for f (exponent 1) and for f^alpha, in fixed point.
    int profile(double lo, double hi, int limit, double exponent, Run* runs, int* end) const;

    int m_width, m_height;
    double m_alpha;
    // (width + 1) x (height + 1) difference arrays, three channels interleaved.
    std::vector<int64_t> m_deltas;
};

// Fixed point of one axis: coverage 1 is kAxisOne; products of two axes are exact in int64.
inline constexpr int64_t kAxisOne = 1 << 15;
inline constexpr int64_t kAttributeOne = 1 << 12;

}  // namespace memlog::render

// The subpixel-true rasteriser of the picture (equation 1 of Moreta & Telea): every block adds
// its exact pixel coverage f, its boosted weight f^alpha and f^alpha times its attribute to
// per-pixel sums, in O(blocks + pixels) whatever the blocks' sizes. A block thinner or shorter
// than a pixel still changes that pixel; with alpha < 1 it counts for more.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "render/raster/power_table.hpp"
#include "timeline/base/huge_pages.hpp"

namespace memlog::render {

// A rectangle in pixel units: x in [m_x0, m_x1), y in [m_y0, m_y1); m_attribute in [0, 1]
// (what the colour map shows: size, lifetime...).
struct PixelRect {
    double m_x0, m_x1, m_y0, m_y1;
    double m_attribute;
};

// What one pixel received.
struct PixelSums {
    double m_coverage;  // sum of f: the fraction of the pixel covered (at most 1 for disjoint blocks)
    double m_weight;  // sum of f^alpha
    double m_attribute[3];  // sum of f^alpha * attribute, per attribute channel
};

// Fixed point of one axis: coverage 1 is kAxisOne; products of two axes are exact in int64.
inline constexpr int64_t kAxisOne = 1 << 15;
inline constexpr int64_t kAttributeOne = 1 << 12;

class CoverageAccumulator {
public:
    static constexpr int kMaxAttributes = 3;

    // `attributes`: 1 for a scalar mapped to colour after averaging (equation 1 as printed), 3
    // for colours averaged channel by channel (categories: thread, site), where averaging the
    // category numbers would show a third category that is not there.
    CoverageAccumulator(int width, int height, double alpha, int attributes = 1);

    // Makes it a zeroed accumulator of that shape, keeping its memory: a window redraws with
    // the same arrays. After resolveAndClear() the arrays are zero already and cost nothing here.
    void reset(int width, int height, double alpha, int attributes);

    // At most 16 point updates into the difference arrays; clipped to the image.
    void add(const PixelRect& rect);  // channel 0 = m_attribute
    void add(const PixelRect& rect, const double* attributes);  // one value per channel, each in [0, 1]
    // The same with attributes already in fixed point (quantiseAttribute): no rounding per block.
    // Inline for blocks of at most 2 x 2 pixels, nine in ten of a view with a million blocks:
    // their coverage and weight go straight to those pixels (m_pixels), one cell a pixel where
    // the corners of the difference arrays would be four to nine, which were a third of such a
    // frame. The sums come out the same to the bit. Larger ones go to addLarger, out of line.
    // Always inline: GCC made it a call, which cost a frame 5 % (docs/BENCHMARKS.md).
    // False when none of the rectangle is on the image.
    [[gnu::always_inline]] bool add(const PixelRect& rect, const uint64_t* attributes) {
        const double x0 = std::max(rect.m_x0, 0.0), x1 = std::min(rect.m_x1, static_cast<double>(m_width));
        const double y0 = std::max(rect.m_y0, 0.0), y1 = std::min(rect.m_y1, static_cast<double>(m_height));
        if (!(x1 > x0) || !(y1 > y0)) return false;
        const int column = static_cast<int>(x0), row = static_cast<int>(y0);  // >= 0: truncation is floor
        if (x1 > column + 2 || y1 > row + 2) {
            addLarger(rect, attributes);
            return true;
        }
        // Each way, the part in the first pixel and the part in the second (0 when none: the
        // arrays have a spare row and column for it).
        const double xSplit = column + 1, ySplit = row + 1;
        const double xa = std::min(x1, xSplit) - x0, xb = std::max(x1 - xSplit, 0.0);
        const double ya = std::min(y1, ySplit) - y0, yb = std::max(y1 - ySplit, 0.0);
        const uint64_t fx[2] = {fixedCoverage(xa), fixedCoverage(xb)}, wx[2] = {fixedWeight(xa), fixedWeight(xb)};
        const uint64_t fy[2] = {fixedCoverage(ya), fixedCoverage(yb)}, wy[2] = {fixedWeight(ya), fixedWeight(yb)};
        if (m_channels == 5)
            addFour<3>(column, row, fx, wx, fy, wy, attributes);
        else
            addFour<1>(column, row, fx, wx, fy, wy, attributes);
        return true;
    }
    static uint64_t quantiseAttribute(double value);

    // Many blocks summarised as one (a folded index node): `coverage` (their sum of f) and
    // `weight` (their sum of f^alpha, estimated) spread evenly over `rect`, with the mean
    // attributes `attributes`. The sums of the image grow by exactly coverage and weight (but
    // for what falls outside it), so nothing inside disappears.
    void addSpread(const PixelRect& rect, double coverage, double weight, const uint64_t* attributes);

    // Integrates the difference arrays (one 2-D prefix sum) row by row, top row first.
    void resolveRows(const std::function<void(int y, const PixelSums* row)>& onRow) const;
    std::vector<PixelSums> resolve() const;  // all rows, row-major

    // The same integration for a frame: `onRow(y, sums)` receives each row as raw fixed-point
    // sums, channels() per pixel (toPixelSums reads one), and the arrays are zeroed as they are
    // read, so the next frame starts without clearing them.
    template <typename OnRow>
    void resolveAndClear(OnRow&& onRow) {
        integrate(m_deltas.data(), m_pixels.data(), true, onRow);
        m_clean = true;
    }
    static PixelSums toPixelSums(const uint64_t* sums, int channels);

    int width() const { return m_width; }
    int height() const { return m_height; }
    int channels() const { return m_channels; }
    double alpha() const { return m_alpha; }
    const PowerTable& power() const { return m_power; }  // x^alpha

private:
    // One axis of a rectangle as the steps of a step function: where its value changes and by
    // how much, for f and for f^alpha (at most three runs of pixels, so four steps).
    struct Steps {
        int m_count;  // no initialisers: filling all of it for every block showed in profiles
        int m_at[4];
        int64_t m_coverage[4], m_weight[4];
        void set(int i, int at, int64_t coverage, int64_t weight) {
            m_at[i] = at;
            m_coverage[i] = coverage;
            m_weight[i] = weight;
        }
    };
    template <typename Coverage, typename Weight>
    static bool steps(double lo, double hi, int limit, Coverage&& coverage, Weight&& weight, Steps& steps);
    // Adds the outer product of the x and y steps to channels 0 (coverage) and 1.. (weight,
    // then weight times each attribute).
    template <int kAttributes>
    void addCorners(const Steps& x, const Steps& y, const uint64_t* attributes);
    void addCorners(const Steps& x, const Steps& y, const uint64_t* attributes);
    void addLarger(const PixelRect& rect, const uint64_t* attributes);
    // A fraction of a pixel one way, in fixed point: as coverage (covered >= 0: + 0.5 and
    // truncation round as llround, without the call), and as weight, covered^alpha.
    // Through int64_t: a conversion to uint64_t is a branch and four instructions more.
    static uint64_t fixedCoverage(double covered) {
        return static_cast<uint64_t>(static_cast<int64_t>(covered * kAxisOne + 0.5));
    }
    uint64_t fixedWeight(double covered) const {
        if (covered >= kTableFrom)
            return m_fixedPower[static_cast<size_t>(static_cast<int64_t>(covered * kAxisOne + 0.5))];
        return static_cast<uint64_t>(static_cast<int64_t>(m_power(covered) * kAxisOne + 0.5));
    }
    // The four pixels from (column, row): the outer product of the two ways' parts.
    template <int kAttributes>
    void addFour(int column, int row, const uint64_t* fx, const uint64_t* wx, const uint64_t* fy, const uint64_t* wy,
                 const uint64_t* attributes) {
        constexpr size_t channels = 2 + kAttributes;
        const size_t stride = static_cast<size_t>(m_width + 1) * channels;
        uint64_t* base = &m_pixels[static_cast<size_t>(row) * stride + static_cast<size_t>(column) * channels];
        // Written out: as loops they were compiled as loops, a third of this block's cost.
        auto addPixel = [&](uint64_t* cell, int i, int j) {
            const uint64_t weight = wx[i] * wy[j];
            cell[0] += fx[i] * fy[j];
            cell[1] += weight;
            for (int c = 0; c < kAttributes; ++c) cell[2 + c] += weight * attributes[c];
        };
        addPixel(base, 0, 0);
        addPixel(base + channels, 1, 0);
        addPixel(base + stride, 0, 1);
        addPixel(base + stride + channels, 1, 1);
    }

    template <typename OnRow>
    void integrate(uint64_t* deltas, uint64_t* pixels, bool clear, OnRow&& onRow) const {
        // Channels and clearing as constants: this loop reads every cell of every frame.
        if (m_channels == 5)
            clear ? integrate<5, true>(deltas, pixels, onRow) : integrate<5, false>(deltas, pixels, onRow);
        else
            clear ? integrate<3, true>(deltas, pixels, onRow) : integrate<3, false>(deltas, pixels, onRow);
    }
    template <size_t kChannels, bool kClear, typename OnRow>
    void integrate(uint64_t* deltas, uint64_t* pixels, OnRow& onRow) const {
        const size_t stride = static_cast<size_t>(m_width + 1);
        // Running column sums of the rows above, then a running sum along the row, then what
        // small blocks added to the pixel itself.
        m_column.assign(stride * kChannels, 0);
        m_row.resize(static_cast<size_t>(m_width) * kChannels);
        for (int y = 0; y < m_height; ++y) {
            uint64_t sum[kChannels] = {};
            uint64_t* delta = &deltas[static_cast<size_t>(y) * stride * kChannels];
            uint64_t* pixel = &pixels[static_cast<size_t>(y) * stride * kChannels];
            uint64_t* out = m_row.data();
            uint64_t* running = m_column.data();
            for (int x = 0; x < m_width;
                 ++x, delta += kChannels, pixel += kChannels, out += kChannels, running += kChannels)
                for (size_t c = 0; c < kChannels; ++c) {
                    running[c] += delta[c];
                    sum[c] += running[c];
                    out[c] = sum[c] + pixel[c];
                    if (kClear) delta[c] = pixel[c] = 0;
                }
            if (kClear)  // the last column's deltas only ever cancel, but are written all the same
                for (size_t c = 0; c < kChannels; ++c) delta[c] = 0;
            onRow(y, static_cast<const uint64_t*>(m_row.data()));
        }
        if (kClear)
            std::fill(deltas + static_cast<size_t>(m_height) * stride * kChannels,
                      deltas + static_cast<size_t>(m_height + 1) * stride * kChannels, 0);
    }

    int m_width, m_height;
    double m_alpha;
    PowerTable m_power;
    // f^alpha in fixed point for f on the fixed-point grid, read for f >= 1/64 (below, where a
    // step of the grid is a larger share of f, from m_power): a load instead of a computation,
    // four of which a block needs. Off by at most 3 units of 2^-15 from m_power's value. 16
    // bits (at most 2^15): 64 KiB, of which more stays in the core's first cache than of 128.
    std::vector<uint16_t> m_fixedPower;
    static constexpr double kTableFrom = 1.0 / 64;
    int m_channels;  // 2 + attributes
    // (width + 1) x (height + 1) difference arrays, channels interleaved. Unsigned so that the
    // running sums may wrap: only the final per-pixel values need to fit. In huge pages when
    // large (a whole view's: 64 MiB at 1600x1000), so that a sweep up the rows does not miss
    // the TLB on every row (4 KiB pages, rows 40 KiB apart).
    timeline::HugeVector<uint64_t> m_deltas;
    // Sums of small blocks per pixel, added to the integrated differences; shaped as m_deltas.
    timeline::HugeVector<uint64_t> m_pixels;
    bool m_clean = false;  // both arrays are all zero and nothing has been added since
    mutable std::vector<uint64_t> m_column, m_row;  // integration scratch, kept between frames
};

}  // namespace memlog::render

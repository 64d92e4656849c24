// A value over time kept in a bounded number of intervals, whatever the number of changes: each
// interval holds its lowest, highest and last value with their times, so that a peak or a trough
// survives the thinning. Intervals start 1 us wide and double (neighbours merged) whenever more
// than the bound would be needed: O(1) amortised a change, memory O(bound).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace memlog::timeline {

struct SeriesPoint {
    uint64_t m_timeNs = 0;
    uint64_t m_value = 0;
};

class ThinnedSeries {
public:
    explicit ThinnedSeries(size_t intervals);

    // The value from `timeNs` on; times must not decrease.
    void set(uint64_t timeNs, uint64_t value);

    // In time order, at most three a kept interval: where it was lowest, where it was highest
    // (the first time each was reached) and its last value, each once. The highest of the points
    // is the highest value ever set, the lowest the lowest.
    std::vector<SeriesPoint> points() const;
    uint64_t highest() const { return m_highest; }
    size_t intervals() const { return m_intervals.size(); }
    uint64_t intervalNs() const { return m_widthNs; }

private:
    struct Interval {
        uint64_t m_index = 0;  // its start over the width
        SeriesPoint m_low, m_high, m_last;
    };
    void merge();  // double the width: neighbours become one

    size_t m_bound;
    uint64_t m_widthNs = 1000;
    std::vector<Interval> m_intervals;  // only those with a change, in time order
    uint64_t m_highest = 0;
};

}  // namespace memlog::timeline

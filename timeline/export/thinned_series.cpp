// Thinning by doubling intervals: a change lands in the last interval or opens one; past the
// bound every pair of neighbours merges, keeping the lower low, the higher high (the earlier on
// ties, as the first time reached) and the later last.
#include "timeline/export/thinned_series.hpp"

#include <algorithm>

namespace memlog::timeline {

ThinnedSeries::ThinnedSeries(size_t intervals) : m_bound(std::max<size_t>(intervals, 2)) {}

void ThinnedSeries::set(uint64_t timeNs, uint64_t value) {
    const SeriesPoint point{timeNs, value};
    m_highest = std::max(m_highest, value);
    const uint64_t index = timeNs / m_widthNs;
    if (!m_intervals.empty() && m_intervals.back().m_index == index) {
        Interval& last = m_intervals.back();
        if (value < last.m_low.m_value) last.m_low = point;
        if (value > last.m_high.m_value) last.m_high = point;
        last.m_last = point;
        return;
    }
    m_intervals.push_back({index, point, point, point});
    if (m_intervals.size() > m_bound) merge();
}

void ThinnedSeries::merge() {
    while (m_intervals.size() > m_bound) {
        m_widthNs *= 2;
        size_t kept = 0;
        for (size_t i = 0; i < m_intervals.size(); ++i) {
            Interval interval = m_intervals[i];
            interval.m_index /= 2;
            if (kept > 0 && m_intervals[kept - 1].m_index == interval.m_index) {
                Interval& into = m_intervals[kept - 1];
                if (interval.m_low.m_value < into.m_low.m_value) into.m_low = interval.m_low;
                if (interval.m_high.m_value > into.m_high.m_value) into.m_high = interval.m_high;
                into.m_last = interval.m_last;
            } else {
                m_intervals[kept++] = interval;
            }
        }
        m_intervals.resize(kept);
    }
}

std::vector<SeriesPoint> ThinnedSeries::points() const {
    std::vector<SeriesPoint> points;
    points.reserve(m_intervals.size() * 3);
    for (const Interval& interval : m_intervals) {
        SeriesPoint three[3] = {interval.m_low, interval.m_high, interval.m_last};
        std::stable_sort(std::begin(three), std::end(three),
                         [](const SeriesPoint& a, const SeriesPoint& b) { return a.m_timeNs < b.m_timeNs; });
        for (const SeriesPoint& point : three)
            if (points.empty() || points.back().m_timeNs != point.m_timeNs || points.back().m_value != point.m_value)
                points.push_back(point);
    }
    return points;
}

}  // namespace memlog::timeline

// ThinnedSeries: a value over time in a bounded number of intervals that keep each one's highest,
// lowest and last value, so that the peak and the troughs survive any number of changes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "timeline/export/thinned_series.hpp"

using memlog::timeline::SeriesPoint;
using memlog::timeline::ThinnedSeries;

TEST_CASE("thinned series: changes further apart than an interval are all kept, in order") {
    ThinnedSeries series(100);
    const uint64_t values[] = {5, 9, 2, 7, 0};
    for (uint64_t i = 0; i < 5; ++i) series.set(i * 10'000, values[i]);
    const auto points = series.points();
    REQUIRE(points.size() == 5);
    for (size_t i = 0; i < 5; ++i) {
        CHECK(points[i].m_timeNs == i * 10'000);
        CHECK(points[i].m_value == values[i]);
    }
    CHECK(series.highest() == 9);
}

TEST_CASE("thinned series: an interval keeps its lowest, highest and last value at their times") {
    ThinnedSeries series(100);
    // One interval (1 us wide): 4, 8 (its high), 1 (its low), 3 (its last).
    series.set(100, 4);
    series.set(200, 8);
    series.set(300, 1);
    series.set(400, 3);
    const auto points = series.points();
    REQUIRE(points.size() == 3);
    CHECK((points[0].m_timeNs == 200 && points[0].m_value == 8));
    CHECK((points[1].m_timeNs == 300 && points[1].m_value == 1));
    CHECK((points[2].m_timeNs == 400 && points[2].m_value == 3));
}

TEST_CASE("thinned series: a million changes stay within the bound, the peak, the trough and the end survive") {
    constexpr size_t kBound = 500;
    ThinnedSeries series(kBound);
    std::mt19937_64 random(7);
    uint64_t value = 10'000'000, highest = 0, lowest = UINT64_MAX, highestAt = 0, lowestAt = 0;
    for (uint64_t i = 0; i < 1'000'000; ++i) {
        value = value + random() % 2001 - 1000;  // about 600,000 either way over the run: never near 0
        if (i == 400'000) value += 50'000'000;  // a spike one change long
        if (i == 400'001) value -= 50'000'000;
        if (i == 700'000) value = 3;  // a trough one change long
        if (i == 700'001) value = 900'000;
        const uint64_t timeNs = i * 1'000 + random() % 1'000;
        if (value > highest) highest = value, highestAt = timeNs;
        if (value < lowest) lowest = value, lowestAt = timeNs;
        series.set(timeNs, value);
    }
    CHECK(series.intervals() <= kBound);
    const auto points = series.points();
    CHECK(points.size() <= 3 * kBound);
    CHECK(std::is_sorted(points.begin(), points.end(),
                         [](const SeriesPoint& a, const SeriesPoint& b) { return a.m_timeNs < b.m_timeNs; }));
    const auto top = std::max_element(points.begin(), points.end(),
                                      [](const SeriesPoint& a, const SeriesPoint& b) { return a.m_value < b.m_value; });
    const auto bottom = std::min_element(
        points.begin(), points.end(), [](const SeriesPoint& a, const SeriesPoint& b) { return a.m_value < b.m_value; });
    CHECK(top->m_value == highest);
    CHECK(top->m_timeNs == highestAt);
    CHECK(bottom->m_value == lowest);
    CHECK(bottom->m_timeNs == lowestAt);
    CHECK(lowest == 3);
    CHECK(points.back().m_value == value);  // where it ends
    CHECK(series.highest() == highest);
}

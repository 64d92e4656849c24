#include "timeline/model/access_summary.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <utility>
#include <thread>
#include <vector>

#include "timeline/base/other_core.hpp"

namespace memlog::timeline {

namespace {

// Groups of each level over `marks` samples, level 0 first, up to the level of one group.
std::vector<size_t> groupsPerLevel(size_t marks) {
    std::vector<size_t> counts;
    if (marks < AccessSummary::kWorthFrom) return counts;
    size_t groups = (marks + AccessSummary::kLeafMarks - 1) / AccessSummary::kLeafMarks;
    for (;;) {
        counts.push_back(groups);
        if (groups == 1) return counts;
        groups = (groups + AccessSummary::kFanout - 1) / AccessSummary::kFanout;
    }
}

// A sample's address, or a run of addresses, with its reads and writes.
struct Weighted {
    uint64_t m_lo, m_hi;
    uint32_t m_reads, m_writes;
};
bool lowestFirst(const Weighted& a, const Weighted& b) { return a.m_lo < b.m_lo; }

// `items` (sorted by their lowest address) cut into at most kPoints runs at the widest gaps
// between them: each run's weight then lies in its address span, not beside it, wherever the
// group's samples crowd (a slice of equal weight spans the gaps between crowds, and spreading
// its weight over them would paint addresses nobody touched).
// `gaps` and `starts`: room kept from one group to the next (65,000 groups in sqlite3's trace).
void cluster(std::span<const Weighted> items, AccessPoint* out, std::vector<std::pair<uint64_t, size_t>>& gaps,
             std::vector<size_t>& starts) {
    // gaps[i]: the bytes between item i + 1 and everything before it (0 where they overlap).
    gaps.clear();
    uint64_t highest = 0;
    for (size_t i = 0; i + 1 < items.size(); ++i) {
        highest = std::max(highest, items[i].m_hi);
        if (items[i + 1].m_lo > highest) gaps.emplace_back(items[i + 1].m_lo - highest, i + 1);
    }
    const size_t cuts = std::min(gaps.size(), AccessSummary::kPoints - 1);
    std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(cuts), gaps.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    starts.clear();  // where each run after the first begins
    for (size_t i = 0; i < cuts; ++i) starts.push_back(gaps[i].second);
    std::sort(starts.begin(), starts.end());
    size_t run = 0;
    for (size_t i = 0; i < items.size(); ++i) {
        if (run < starts.size() && i == starts[run]) ++run;
        AccessPoint& point = out[run];
        const Weighted& item = items[i];
        if (point.weight() == 0) {
            point.m_lo = item.m_lo;
            point.m_hi = item.m_hi;
        } else {
            point.m_lo = std::min(point.m_lo, item.m_lo);
            point.m_hi = std::max(point.m_hi, item.m_hi);
        }
        point.m_reads += item.m_reads;
        point.m_writes += item.m_writes;
    }
}

// `keys` in ascending order, through `scratch`: a radix sort, a byte of the keys' spread a pass
// (a group's addresses span a few megabytes, three passes, more where it reaches the stack).
// std::sort mispredicted about half its comparisons here: 9 % of indexing sqlite3's trace.
void sortKeys(std::vector<uint64_t>& keys, std::vector<uint64_t>& scratch) {
    if (keys.empty()) return;
    const auto [lowest, highest] = std::minmax_element(keys.begin(), keys.end());
    const uint64_t base = *lowest;
    const unsigned bits = static_cast<unsigned>(std::bit_width(*highest - base));
    scratch.resize(keys.size());
    for (unsigned shift = 0; shift < bits; shift += 8) {
        std::array<uint32_t, 256> starts{};
        for (const uint64_t key : keys) ++starts[((key - base) >> shift) & 0xff];
        uint32_t at = 0;
        for (uint32_t& start : starts) at += std::exchange(start, at);
        for (const uint64_t key : keys) scratch[starts[((key - base) >> shift) & 0xff]++] = key;
        keys.swap(scratch);
    }
}

// Leaves [first, last): each group's samples by address, one item an address.
void summariseLeaves(std::span<const AccessMark> marks, size_t first, size_t last, AccessPoint* points) {
    std::vector<Weighted> items;
    std::vector<std::pair<uint64_t, size_t>> gaps;
    std::vector<size_t> starts;
    std::vector<uint64_t> keys, scratch;  // a sample's address and whether it writes, in one word to sort
    for (size_t group = first; group < last; ++group) {
        keys.clear();
        items.clear();
        const size_t end = std::min((group + 1) * AccessSummary::kLeafMarks, marks.size());
        bool high = false;  // an address of 2^63 or more (a kernel's) has no room for the flag
        for (size_t i = group * AccessSummary::kLeafMarks; i < end; ++i) {
            keys.push_back(marks[i].m_addr << 1 | uint64_t{marks[i].m_write});
            high = high || marks[i].m_addr >> 63;
        }
        if (high) {
            for (size_t i = group * AccessSummary::kLeafMarks; i < end; ++i)
                items.push_back({marks[i].m_addr, marks[i].m_addr, !marks[i].m_write, marks[i].m_write});
            std::sort(items.begin(), items.end(), lowestFirst);
        } else {
            sortKeys(keys, scratch);
            for (const uint64_t key : keys) {
                const uint64_t addr = key >> 1;
                if (items.empty() || items.back().m_lo != addr) items.push_back({addr, addr, 0, 0});
                (key & 1 ? items.back().m_writes : items.back().m_reads) += 1;
            }
        }
        cluster(items, points + group * AccessSummary::kPoints, gaps, starts);
    }
}

}  // namespace

AccessSummary::AccessSummary(std::span<const AccessPoint> points, size_t marks) : m_points(points), m_marks(marks) {
    const std::vector<size_t> counts = groupsPerLevel(marks);
    assert(points.size() == pointsFor(marks) && counts.size() <= std::size(m_levelStart));
    m_levels = counts.size();
    size_t start = 0;
    for (size_t level = 0; level < m_levels; ++level) {
        m_levelStart[level] = start;
        start += counts[level];
    }
}

size_t AccessSummary::pointsFor(size_t marks) {
    size_t groups = 0;
    for (const size_t count : groupsPerLevel(marks)) groups += count;
    return groups * kPoints;
}

size_t AccessSummary::groups(size_t level) const {
    const size_t end = level + 1 < m_levels ? m_levelStart[level + 1] : m_points.size() / kPoints;
    return end - m_levelStart[level];
}

size_t AccessSummary::marksPerGroup(size_t level) const {
    size_t marks = kLeafMarks;
    for (size_t i = 0; i < level; ++i) marks *= kFanout;
    return marks;
}

std::pair<size_t, size_t> AccessSummary::marksOf(size_t level, size_t group) const {
    const size_t per = marksPerGroup(level);
    return {std::min(group * per, m_marks), std::min((group + 1) * per, m_marks)};
}

std::span<const AccessPoint> AccessSummary::points(size_t level, size_t group) const {
    return m_points.subspan((m_levelStart[level] + group) * kPoints, kPoints);
}

HugeVector<AccessPoint> summariseAccesses(std::span<const AccessMark> marks) {
    const std::vector<size_t> counts = groupsPerLevel(marks.size());
    HugeVector<AccessPoint> points(AccessSummary::pointsFor(marks.size()));
    if (points.empty()) return points;
    // Level 0, the most of the work, on two cores: each half of the leaves apart.
    const size_t half = counts[0] / 2;
    {
        std::jthread second = startOnOtherCore([&] { summariseLeaves(marks, half, counts[0], points.data()); });
        summariseLeaves(marks, 0, half, points.data());
    }
    std::vector<Weighted> items;
    std::vector<std::pair<uint64_t, size_t>> gaps;
    std::vector<size_t> starts;
    // Each level above: its children's points by address, cut again.
    size_t childStart = 0;
    for (size_t level = 1; level < counts.size(); ++level) {
        const size_t start = childStart + counts[level - 1];
        for (size_t group = 0; group < counts[level]; ++group) {
            items.clear();
            const size_t lastChild = std::min((group + 1) * AccessSummary::kFanout, counts[level - 1]);
            for (size_t child = group * AccessSummary::kFanout; child < lastChild; ++child)
                for (size_t p = 0; p < AccessSummary::kPoints; ++p)
                    if (const AccessPoint& point = points[(childStart + child) * AccessSummary::kPoints + p];
                        point.weight() > 0)
                        items.push_back({point.m_lo, point.m_hi, point.m_reads, point.m_writes});
            std::sort(items.begin(), items.end(), lowestFirst);
            cluster(items, &points[(start + group) * AccessSummary::kPoints], gaps, starts);
        }
        childStart = start;
    }
    return points;
}

}  // namespace memlog::timeline

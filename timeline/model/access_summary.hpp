// Coarse levels of a long list of access samples, from which a view holding millions of them is
// drafted by reading a few hundred thousand points (a full trace has one sample for every access).
//
// The samples, in the order the model keeps them, are cut into groups of kLeafMarks; each level
// above groups kFanout groups of the one below, up to a single group. A group is described by at
// most kPoints points: its samples sorted by address and cut at the kPoints - 1 widest gaps
// between them, each run's lowest and highest address and its reads and writes. A group's place
// in x is its first and last sample's, read from the samples themselves, so that one summary
// serves every axis on which the samples are in order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "timeline/base/huge_pages.hpp"
#include "timeline/model/access_marks.hpp"

namespace memlog::timeline {

struct AccessPoint {
    uint64_t m_lo = 0, m_hi = 0;  // the run's lowest and highest address
    uint32_t m_reads = 0, m_writes = 0;  // 0 and 0: no run (a group of fewer runs than kPoints)
    uint64_t weight() const { return uint64_t{m_reads} + m_writes; }
};
// An index file keeps them byte for byte (model_file.cpp): another layout is another version of it.
static_assert(sizeof(AccessPoint) == 24);

class AccessSummary {
public:
    static constexpr size_t kLeafMarks = 1024;  // samples in a group of level 0
    static constexpr size_t kFanout = 16;  // groups of one level in a group of the next
    static constexpr size_t kPoints = 16;  // points describing a group
    // Fewer samples are drawn one by one in any view: no summary is made.
    static constexpr size_t kWorthFrom = size_t{1} << 20;

    AccessSummary() = default;
    // `points`: summariseAccesses' of `marks` samples (pointsFor(marks) of them).
    AccessSummary(std::span<const AccessPoint> points, size_t marks);

    // Points a summary of `marks` samples has: none below kWorthFrom.
    static size_t pointsFor(size_t marks);

    bool empty() const { return m_points.empty(); }
    std::span<const AccessPoint> points() const { return m_points; }  // every level's
    size_t marks() const { return m_marks; }
    size_t levels() const { return m_levels; }
    size_t groups(size_t level) const;  // level 0 is the leaves'
    size_t marksPerGroup(size_t level) const;
    // The samples group `group` of `level` covers: [first, last).
    std::pair<size_t, size_t> marksOf(size_t level, size_t group) const;
    std::span<const AccessPoint> points(size_t level, size_t group) const;

private:
    std::span<const AccessPoint> m_points;  // level 0's groups, then level 1's, ...: kPoints each
    size_t m_marks = 0, m_levels = 0;
    size_t m_levelStart[16] = {};  // the first group of each level in m_points, in groups
};

// The points of every level for `marks` (pointsFor(marks.size()) of them; none below kWorthFrom).
HugeVector<AccessPoint> summariseAccesses(std::span<const AccessMark> marks);

}  // namespace memlog::timeline

// A sampled log's occupancy (MEMLOG_SAMPLE): per column, the live bytes estimated from the
// sampled blocks (each weighted by 1/p) with its 95 % interval, for the occupancy bar's band.
// One pass over the blocks into difference arrays, as occupancy() but in doubles, at each
// column's middle.
#pragma once

#include <cstdint>
#include <vector>

#include "timeline/model/block_model.hpp"
#include "timeline/model/occupancy.hpp"

namespace memlog::timeline {

struct EstimatedColumn {
    double m_liveBytes = 0;  // the estimate
    double m_low = 0, m_high = 0;  // its 95 % interval (normal: the live samples are many where it matters)
};

// `meanBytes`: the log's mean gap (Summary::m_sampling). Bins are not asked: the whole heap.
std::vector<EstimatedColumn> sampledOccupancy(const BlockModel& model, const OccupancyQuery& query,
                                              uint64_t meanBytes);

}  // namespace memlog::timeline

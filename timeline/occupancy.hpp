// Occupancy over time, per column of a picture: the live bytes averaged over each column, and
// how many blocks began or ended in it (the bar under a view; columns without events are the
// quiet intervals it cushions). One pass over the blocks plus one over the columns.
#pragma once

#include <cstdint>
#include <vector>

#include "timeline/bins.hpp"
#include "timeline/block_model.hpp"

namespace memlog::timeline {

struct OccupancyColumn {
    double m_liveBytes = 0;  // mean over the column
    uint32_t m_events = 0;   // blocks that began or ended inside the column
};

struct OccupancyQuery {
    XAxis m_axis = XAxis::Time;
    XWindow m_window;
    size_t m_columns = 0;
    uint64_t m_addrLo = 0, m_addrHi = UINT64_MAX;  // bytes outside this window do not count
    const Bins* m_bins = nullptr;                  // with m_bin: only that bin's blocks
    int m_bin = 0;
};

std::vector<OccupancyColumn> occupancy(const BlockModel& model, const OccupancyQuery& query);

}  // namespace memlog::timeline

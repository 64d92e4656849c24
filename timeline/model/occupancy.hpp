// Occupancy over time, per column of a picture: the live bytes averaged over each column, and
// how many blocks began or ended in it (the bar under a view; columns without events are the
// quiet intervals it cushions). One pass over the blocks plus one over the columns; the window's
// frames ask ModelIndex::occupancy instead, which answers the same without the pass.
#pragma once

#include <cstdint>
#include <vector>

#include "timeline/model/bins.hpp"
#include "timeline/model/block_model.hpp"

namespace memlog::timeline {

struct OccupancyColumn {
    double m_liveBytes = 0;  // mean over the column
    uint32_t m_events = 0;  // blocks that began or ended inside the column
};

struct OccupancyQuery {
    XAxis m_axis = XAxis::Time;
    XWindow m_window;
    size_t m_columns = 0;
    uint64_t m_addrLo = 0, m_addrHi = UINT64_MAX;  // bytes outside this window do not count
    const Bins* m_bins = nullptr;  // with m_bin: only that bin's blocks
    int m_bin = 0;
};

std::vector<OccupancyColumn> occupancy(const BlockModel& model, const OccupancyQuery& query);

// The columns of one query as difference arrays in 64-bit fixed point: a block adds its bytes
// times its coverage of each column, constant but for its two end columns, so at most four
// updates; a column that nothing changes in reads exactly the live bytes.
class OccupancyColumns {
public:
    explicit OccupancyColumns(const OccupancyQuery& query);

    // Where x falls, in columns: column k is [k, k + 1).
    // (Through int64_t: x is below 2^48, and the signed conversion is one instruction.)
    double position(uint64_t x) const { return (static_cast<double>(static_cast<int64_t>(x)) - m_from) / m_perColumn; }
    size_t columns() const { return m_result.size(); }

    // A block of the query (its bin already chosen): its bytes inside the address window.
    void add(const Block& block);
    // Blocks that all begin and end inside `column` and inside the address window, with
    // `byteTime` bytes times axis units between them and `events` beginnings and ends.
    void addInside(size_t column, double byteTime, uint32_t events);

    // Adds what `other`, made for the same query, was given: one query split over threads.
    void merge(const OccupancyColumns& other);

    std::vector<OccupancyColumn> finish();

private:
    static constexpr int64_t kOne = int64_t{1} << 20;  // coverage of a whole column
    void count(double position) {
        if (position >= 0 && position < m_limit) ++m_result[static_cast<int64_t>(position)].m_events;
    }
    XAxis m_axis;
    uint64_t m_addrLo, m_addrHi;
    double m_from, m_perColumn;
    std::vector<OccupancyColumn> m_result;
    // Differences of live bytes x kOne, unsigned so that they may wrap: only a column's own
    // value needs to fit, which it does below 8 TiB live (a 64-bit product a block, not the
    // 128-bit ones it was; correlated views add every block in view once for each frame).
    std::vector<uint64_t> m_deltas;
    double m_limit;  // the number of columns, as a position
};

}  // namespace memlog::timeline

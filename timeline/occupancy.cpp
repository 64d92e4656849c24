// Occupancy by difference arrays: a block adds its bytes times its coverage of each column,
// which is constant but for the two end columns, so at most four updates; exact in 128-bit
// fixed point, so a column that nothing changes in reads exactly the live bytes.
#include "timeline/occupancy.hpp"

#include <algorithm>
#include <cmath>

namespace memlog::timeline {

std::vector<OccupancyColumn> occupancy(const BlockModel& model, const OccupancyQuery& query) {
    const size_t columns = query.m_columns;
    std::vector<OccupancyColumn> result(columns);
    if (columns == 0 || query.m_window.width() == 0) return result;
    constexpr int64_t kOne = int64_t{1} << 20;  // coverage of a whole column
    std::vector<__int128> deltas(columns + 1, 0);
    const double from = static_cast<double>(query.m_window.m_from);
    const double perColumn = static_cast<double>(query.m_window.width()) / static_cast<double>(columns);
    const double limit = static_cast<double>(columns);
    auto column = [&](uint64_t x) { return (static_cast<double>(x) - from) / perColumn; };
    auto count = [&](double position) {
        if (position >= 0 && position < limit) ++result[static_cast<size_t>(position)].m_events;
    };
    model.forEach([&](const Block& block) {
        if (query.m_bins && query.m_bins->binOf(block) != query.m_bin) return;
        const uint64_t lo = std::max(block.addr(), query.m_addrLo), hi = std::min(block.endAddr(), query.m_addrHi);
        if (lo >= hi && !(block.size() == 0 && block.addr() >= query.m_addrLo && block.addr() < query.m_addrHi))
            return;
        const double x0 = column(block.from(query.m_axis)), x1 = column(block.to(query.m_axis));
        count(x0);
        if (!block.liveAtEnd()) count(x1);
        const double a = std::max(x0, 0.0), b = std::min(x1, limit);
        if (!(b > a)) return;
        const __int128 bytes = hi > lo ? hi - lo : 0;
        const size_t first = static_cast<size_t>(a), last = std::min(static_cast<size_t>(std::ceil(b)) - 1, columns - 1);
        auto add = [&](size_t at, int64_t coverage) {
            deltas[at] += bytes * coverage;
            deltas[at + 1] -= bytes * coverage;
        };
        auto fixed = [&](double covered) { return static_cast<int64_t>(std::llround(covered * kOne)); };
        if (first == last) {
            add(first, fixed(b - a));
        } else {
            add(first, fixed(static_cast<double>(first + 1) - a));
            add(last, fixed(b - static_cast<double>(last)));
            if (last > first + 1) {  // the full columns between: one run
                deltas[first + 1] += bytes * kOne;
                deltas[last] -= bytes * kOne;
            }
        }
    });
    __int128 running = 0;
    for (size_t i = 0; i < columns; ++i) {
        running += deltas[i];
        result[i].m_liveBytes = static_cast<double>(running) / static_cast<double>(kOne);
    }
    return result;
}

}  // namespace memlog::timeline

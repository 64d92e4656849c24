// The estimated live bytes per column of a sampled log, and their intervals.
#include "timeline/model/sampled_occupancy.hpp"

#include <algorithm>
#include <cmath>

#include "memlog/format.hpp"
#include "timeline/replay/sample_estimates.hpp"

namespace memlog::timeline {

std::vector<EstimatedColumn> sampledOccupancy(const BlockModel& model, const OccupancyQuery& query,
                                              uint64_t meanBytes) {
    const size_t columns = query.m_columns;
    std::vector<EstimatedColumn> result(columns);
    if (columns == 0 || query.m_window.m_to <= query.m_window.m_from) return result;
    const double from = static_cast<double>(query.m_window.m_from);
    const double perColumn = static_cast<double>(query.m_window.m_to - query.m_window.m_from) / columns;
    // A block counts in the columns whose middle it is live at: [first, last).
    auto columnAt = [&](uint64_t x) {
        const double position = std::ceil((static_cast<double>(x) - from) / perColumn - 0.5);
        return static_cast<int64_t>(std::clamp(position, 0.0, static_cast<double>(columns)));
    };
    std::vector<double> value(columns + 1), variance(columns + 1);
    for (size_t i = 0; i < model.size(); ++i) {
        const Block& block = model[i];
        if (block.endAddr() <= query.m_addrLo || block.addr() >= query.m_addrHi) continue;
        const int64_t first = columnAt(block.from(query.m_axis)), last = columnAt(block.to(query.m_axis));
        if (first >= last) continue;
        const double size = static_cast<double>(block.size());
        const double p = block.mapping() ? 1.0 : format::sampleProbability(meanBytes, format::Kind::Malloc, block.size());
        if (p <= 0) continue;
        value[first] += size / p, value[last] -= size / p;
        const double spread = (1 - p) * size * size / (p * p);
        variance[first] += spread, variance[last] -= spread;
    }
    double live = 0, spread = 0;
    for (size_t column = 0; column < columns; ++column) {
        live += value[column];
        spread += variance[column];
        const double half = normalHalfWidth95(spread);
        result[column] = {std::max(live, 0.0), std::max(live - half, 0.0), live + half};
    }
    return result;
}

}  // namespace memlog::timeline

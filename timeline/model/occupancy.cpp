// Occupancy by difference arrays, exact in 64-bit fixed point below 8 TiB live.
#include "timeline/model/occupancy.hpp"

#include <algorithm>
#include <cmath>

namespace memlog::timeline {

OccupancyColumns::OccupancyColumns(const OccupancyQuery& query)
    : m_axis(query.m_axis),
      m_addrLo(query.m_addrLo),
      m_addrHi(query.m_addrHi),
      m_from(static_cast<double>(query.m_window.m_from)),
      m_perColumn(static_cast<double>(std::max<uint64_t>(query.m_window.width(), 1)) /
                  static_cast<double>(std::max<size_t>(query.m_columns, 1))),
      m_result(query.m_window.width() ? query.m_columns : 0),
      m_deltas(m_result.size() + 1, 0),
      m_limit(static_cast<double>(m_result.size())) {}

void OccupancyColumns::add(const Block& block) {
    const size_t columns = m_result.size();
    if (columns == 0) return;
    const uint64_t lo = std::max(block.addr(), m_addrLo), hi = std::min(block.endAddr(), m_addrHi);
    if (lo >= hi && !(block.size() == 0 && block.addr() >= m_addrLo && block.addr() < m_addrHi)) return;
    const double x0 = position(block.from(m_axis)), x1 = position(block.to(m_axis));
    count(x0);
    if (!block.liveAtEnd()) count(x1);
    const double a = std::max(x0, 0.0), b = std::min(x1, m_limit);
    if (!(b > a)) return;
    const uint64_t bytes = hi > lo ? hi - lo : 0;
    // Signed conversions (one instruction each; 0 <= a < b <= columns) and ceil(b) - 1 without
    // a libm call: the block's first and last columns.
    const auto first = static_cast<size_t>(static_cast<int64_t>(a));
    const auto below = static_cast<int64_t>(b);
    const auto last = static_cast<size_t>(static_cast<double>(below) == b ? below - 1 : below);
    auto add = [&](size_t at, int64_t coverage) {
        m_deltas[at] += bytes * static_cast<uint64_t>(coverage);
        m_deltas[at + 1] -= bytes * static_cast<uint64_t>(coverage);
    };
    // covered >= 0: + 0.5 and truncation round as llround does, without a libm call per block.
    auto fixed = [&](double covered) { return static_cast<int64_t>(covered * kOne + 0.5); };
    if (first == last) {
        add(first, fixed(b - a));
    } else {
        add(first, fixed(static_cast<double>(first + 1) - a));
        add(last, fixed(b - static_cast<double>(last)));
        if (last > first + 1) {  // the full columns between: one run
            m_deltas[first + 1] += bytes * static_cast<uint64_t>(kOne);
            m_deltas[last] -= bytes * static_cast<uint64_t>(kOne);
        }
    }
}

void OccupancyColumns::addInside(size_t column, double byteTime, uint32_t events) {
    const auto amount =
        static_cast<uint64_t>(static_cast<int64_t>(std::round(byteTime / m_perColumn * static_cast<double>(kOne))));
    m_deltas[column] += amount;
    m_deltas[column + 1] -= amount;
    m_result[column].m_events += events;
}

void OccupancyColumns::merge(const OccupancyColumns& other) {
    for (size_t i = 0; i < m_deltas.size() && i < other.m_deltas.size(); ++i) m_deltas[i] += other.m_deltas[i];
    for (size_t i = 0; i < m_result.size() && i < other.m_result.size(); ++i)
        m_result[i].m_events += other.m_result[i].m_events;
}

std::vector<OccupancyColumn> OccupancyColumns::finish() {
    uint64_t running = 0;
    for (size_t i = 0; i < m_result.size(); ++i) {
        running += m_deltas[i];
        m_result[i].m_liveBytes = static_cast<double>(static_cast<int64_t>(running)) / static_cast<double>(kOne);
    }
    return std::move(m_result);
}

std::vector<OccupancyColumn> occupancy(const BlockModel& model, const OccupancyQuery& query) {
    OccupancyColumns columns(query);
    if (columns.columns() == 0) return std::vector<OccupancyColumn>(query.m_columns);
    model.forEachMeeting(query.m_axis, query.m_window, [&](const Block& block) {
        if (!query.m_bins || query.m_bins->binOf(block) == query.m_bin) columns.add(block);
    });
    return columns.finish();
}

}  // namespace memlog::timeline

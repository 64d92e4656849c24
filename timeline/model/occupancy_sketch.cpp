// The loading screen's coarse picture (occupancy_sketch.hpp): counted as the walk goes, merged in
// pairs when it outgrows its bounds, published as live bytes per region and column.
#include "timeline/model/occupancy_sketch.hpp"

#include <algorithm>
#include <numeric>

namespace memlog::timeline {

void OccupancySketch::add(uint64_t addr, uint64_t size, uint64_t x, size_t which) {
    tick();
    if (size == 0) return;
    if (m_counts.empty()) m_counts.assign(kColumns * kRows * 2, 0);
    m_lastX = std::max(m_lastX, x);
    if ((x >> m_columnShift) >= kColumns) widenColumns(x);
    uint64_t* const column = m_counts.data() + (x >> m_columnShift) * kRows * 2 + which;
    const uint64_t end = size > UINT64_MAX - addr ? UINT64_MAX : addr + size;
    // A block over several regions gives each the bytes it covers of it.
    for (uint64_t at = addr; at < end;) {
        const size_t row = rowOf(at);
        const uint64_t regionEnd = ((at >> m_regionShift) + 1) << m_regionShift;  // 0 past the top
        const uint64_t upTo = regionEnd == 0 || regionEnd > end ? end : regionEnd;
        column[row * 2] += upTo - at;
        at = upTo;
    }
}

// The slot of `region`, or the empty one where it would go.
size_t OccupancySketch::slotOf(uint64_t region) const {
    size_t slot = static_cast<size_t>((region * 0x9e37'79b9'7f4a'7c15ull) >> 40) & (kSlots - 1);
    while (m_slots[slot].m_region != region && m_slots[slot].m_region != UINT64_MAX) slot = (slot + 1) & (kSlots - 1);
    return slot;
}

// The row of the region holding `addr`, made when new: regions are merged first when the rows
// are all taken (the region's number then changes with their size).
size_t OccupancySketch::rowOf(uint64_t addr) {
    if (addr >> m_regionShift == m_lastRegion) return m_lastRow;
    size_t slot = slotOf(addr >> m_regionShift);
    if (m_slots[slot].m_region == UINT64_MAX) {
        if (m_regions.size() >= kRows) {
            while (m_regions.size() >= kRows) mergeRegions();
            slot = slotOf(addr >> m_regionShift);
        }
        if (m_slots[slot].m_region == UINT64_MAX) addRow(slot, addr >> m_regionShift);
    }
    m_lastRegion = m_slots[slot].m_region;
    return m_lastRow = m_slots[slot].m_row;
}

void OccupancySketch::addRow(size_t slot, uint64_t region) {
    m_slots[slot] = {region, static_cast<uint32_t>(m_regions.size())};
    m_regions.push_back(region);
}

// Columns twice as wide: each the sum of two.
void OccupancySketch::widenColumns(uint64_t x) {
    constexpr size_t kCells = kRows * 2;  // a column's counts
    while ((x >> m_columnShift) >= kColumns) {
        ++m_columnShift;
        for (size_t column = 0; column < kColumns / 2; ++column) {
            uint64_t* const into = m_counts.data() + column * kCells;
            const uint64_t* const first = m_counts.data() + 2 * column * kCells;
            for (size_t cell = 0; cell < kCells; ++cell) into[cell] = first[cell] + first[kCells + cell];
        }
        std::fill(m_counts.begin() + kColumns / 2 * kCells, m_counts.end(), 0);
    }
}

// Regions twice as large: neighbours share a row, their counts added.
void OccupancySketch::mergeRegions() {
    ++m_regionShift;
    const std::vector<uint64_t> regions = std::move(m_regions);
    m_regions.clear();
    std::fill(m_slots.begin(), m_slots.end(), Slot{});
    std::vector<uint32_t> into(regions.size());
    for (size_t row = 0; row < regions.size(); ++row) {
        const size_t slot = slotOf(regions[row] >> 1);
        if (m_slots[slot].m_region == UINT64_MAX) addRow(slot, regions[row] >> 1);
        into[row] = m_slots[slot].m_row;
    }
    // A row merges only into one before it or itself (rows are numbered as first met).
    for (size_t column = 0; column < kColumns; ++column) {
        uint64_t* const counts = m_counts.data() + column * kRows * 2;
        for (size_t row = 0; row < regions.size(); ++row) {
            if (into[row] == row) continue;
            counts[into[row] * 2] += counts[row * 2];
            counts[into[row] * 2 + 1] += counts[row * 2 + 1];
            counts[row * 2] = counts[row * 2 + 1] = 0;
        }
    }
    m_lastRegion = UINT64_MAX;
}

void OccupancySketch::finish() {
    m_read.store(1);
    publish();
}

void OccupancySketch::publishIfDue() {
    const auto now = std::chrono::steady_clock::now();
    if (now - m_publishedAt < std::chrono::milliseconds(250)) return;
    publish();
    m_publishedAt = now;
}

// Each row's bytes at a column's end: those begun up to it, less those ended up to it.
void OccupancySketch::publish() {
    auto picture = std::make_shared<Picture>();
    std::vector<size_t> order(m_regions.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return m_regions[a] < m_regions[b]; });
    picture->m_regionBytes = uint64_t{1} << m_regionShift;
    picture->m_columnWidth = uint64_t{1} << m_columnShift;
    picture->m_columns = m_regions.empty() ? 0 : (m_lastX >> m_columnShift) + 1;
    picture->m_lastX = m_lastX;
    picture->m_read = m_read.load();
    picture->m_bytes.resize(order.size() * picture->m_columns);
    for (size_t shown = 0; shown < order.size(); ++shown) {
        const size_t row = order[shown];
        picture->m_regions.push_back(m_regions[row] << m_regionShift);
        uint64_t live = 0;
        for (size_t column = 0; column < picture->m_columns; ++column) {
            const uint64_t* const counts = m_counts.data() + (column * kRows + row) * 2;
            live += counts[0] - counts[1];
            picture->m_bytes[shown * picture->m_columns + column] = live;
        }
    }
    std::lock_guard<std::mutex> lock(m_lock);
    m_picture = std::move(picture);
}

std::shared_ptr<const OccupancySketch::Picture> OccupancySketch::picture() const {
    std::lock_guard<std::mutex> lock(m_lock);
    return m_picture;
}

}  // namespace memlog::timeline

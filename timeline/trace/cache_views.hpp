// What the cache views draw, as plain data (render/ turns it into pixels): which access hit or
// missed, the CS348C main memory display's counts (per line, per set, per row of memory, and
// both over time) and ExpertMemer's working set of cache lines. All of them walk the model's
// access marks, which for a full trace are every access of the run in the log's order.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>
#include <span>

#include "timeline/model/access_marks.hpp"
#include "timeline/trace/cache_model.hpp"

namespace memlog::timeline {

// The largest line the views take (the working set counts the bytes used of each line).
inline constexpr uint32_t kLargestViewLine = 4096;

// Per mark: 1 when it missed, 0 when it hit. An access over two lines is a miss if either
// line missed (CacheModel is asked once per line, as memlog cache does).
std::vector<uint8_t> missesOfAccesses(std::span<const AccessMark> marks, const CacheGeometry& geometry);

struct HitsMisses {
    uint64_t m_hits = 0, m_misses = 0;
    uint64_t total() const { return m_hits + m_misses; }
    void add(bool miss) { ++(miss ? m_misses : m_hits); }
    bool operator==(const HitsMisses&) const = default;
};

// A row-major grid of counts: the main display (rows of memory x sets), the strip charts.
struct CountGrid {
    size_t m_rows = 0, m_columns = 0;
    std::vector<HitsMisses> m_cells;
    const HitsMisses& at(size_t row, size_t column) const { return m_cells[row * m_columns + column]; }
    HitsMisses& at(size_t row, size_t column) { return m_cells[row * m_columns + column]; }
};

// The touched memory compacted to the 64 KiB pieces that held an access, laid out in rows of
// one way of the cache (sets x line bytes), so that column s of every row is the lines of set
// s. (With one way, a row is the cache's size: CS348C's direct-mapped layout.)
struct MemoryDisplay {
    static constexpr uint64_t kPieceBytes = 64 * 1024;
    CacheGeometry m_geometry;
    uint64_t m_rowBytes = 0;
    std::vector<uint64_t> m_pieces;  // first address of each touched piece, ascending
    CountGrid m_lines;  // rows x sets: each cell one line of memory
    std::vector<HitsMisses> m_sets;  // per set (a column summed): the cache summary bar graph
    std::vector<HitsMisses> m_rows;  // per row summed: the memory summary bar graph
    uint64_t m_fromNs = 0, m_toNs = 1;  // the time the strip charts cover
    CountGrid m_setsOverTime;  // slices x sets: the cache summary strip chart (time goes down)
    CountGrid m_rowsOverTime;  // rows x slices: the memory summary strip chart (time goes right)
    HitsMisses m_total;  // line accesses
    // The first address of a row; the cell (row, set) of an address, if its piece was touched.
    uint64_t rowAddress(size_t row) const;
    std::optional<std::pair<size_t, size_t>> cellOf(uint64_t addr) const;
};

// The display of every access in `marks` through a cache of `geometry`, its strip charts cut
// into equal stretches of [fromNs, toNs), `setSlices` for the sets' and `rowSlices` for the
// rows' (one a pixel each; marks outside count in the nearest stretch).
MemoryDisplay memoryDisplay(std::span<const AccessMark> marks, const CacheGeometry& geometry, uint64_t fromNs,
                            uint64_t toNs, size_t setSlices, size_t rowSlices);

// ExpertMemer's working set: a line joins it when accessed and leaves after `idleNs` without
// an access. Time is cut into columns; a column lists every line that was in the set at some
// moment of its stretch [start, end), that is, accessed in [start - idle, end).
struct WorkingLine {
    uint64_t m_line = 0;  // the line's number (address / line bytes)
    double m_idle = 0;  // (end - its last access) / idle, at most 1: 0 fresh, 1 leaving
    uint32_t m_bytesUsed = 0;  // distinct bytes of it accessed since it (last) joined the set
    bool operator==(const WorkingLine&) const = default;
};
struct WorkingSet {
    uint32_t m_lineBytes = 64;
    uint64_t m_idleNs = 0;
    uint64_t m_fromNs = 0, m_toNs = 1;
    std::vector<std::vector<WorkingLine>> m_columns;  // each by address
    size_t m_largest = 0;  // the most lines in one column
    uint64_t m_distinct = 0;  // lines that were ever in the set
};

WorkingSet workingSet(std::span<const AccessMark> marks, uint32_t lineBytes, uint64_t idleNs, uint64_t fromNs,
                      uint64_t toNs, size_t columns);

}  // namespace memlog::timeline

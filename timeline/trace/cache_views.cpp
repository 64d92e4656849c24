#include "timeline/trace/cache_views.hpp"

#include <algorithm>
#include <bitset>
#include <span>

#include "timeline/base/seeded_hash.hpp"

namespace memlog::timeline {

namespace {

// Calls `visit(lineNumber)` for each line an access touches (at least one: a size of 0 is a byte).
template <typename Visit>
void forEachLine(const AccessMark& mark, uint64_t lineBytes, Visit&& visit) {
    const uint64_t first = mark.m_addr / lineBytes;
    const uint64_t last = (mark.m_addr + std::max<uint64_t>(mark.m_size, 1) - 1) / lineBytes;
    for (uint64_t line = first; line <= last; ++line) visit(line);
}

// The stretch of [from, to) cut in `count` that holds `at` (the nearest one outside).
size_t sliceOf(uint64_t at, uint64_t from, uint64_t to, size_t count) {
    if (at <= from || to <= from) return 0;
    if (at >= to) return count - 1;
    const auto slice = static_cast<size_t>(static_cast<long double>(at - from) * count / (to - from));
    return std::min(slice, count - 1);
}

}  // namespace

std::vector<uint8_t> missesOfAccesses(std::span<const AccessMark> marks, const CacheGeometry& geometry) {
    CacheModel cache(geometry);
    std::vector<uint8_t> missed(marks.size(), 0);
    for (size_t i = 0; i < marks.size(); ++i)
        forEachLine(marks[i], geometry.m_line, [&](uint64_t line) {
            if (cache.access(line * geometry.m_line) != CacheOutcome::Hit) missed[i] = 1;
        });
    return missed;
}

uint64_t MemoryDisplay::rowAddress(size_t row) const {
    const uint64_t compacted = row * m_rowBytes;
    const size_t piece = static_cast<size_t>(compacted / kPieceBytes);
    if (piece >= m_pieces.size()) return 0;
    return m_pieces[piece] + compacted % kPieceBytes;
}

std::optional<std::pair<size_t, size_t>> MemoryDisplay::cellOf(uint64_t addr) const {
    const uint64_t pieceStart = addr - addr % kPieceBytes;
    const auto it = std::lower_bound(m_pieces.begin(), m_pieces.end(), pieceStart);
    if (it == m_pieces.end() || *it != pieceStart) return std::nullopt;
    const uint64_t compacted = static_cast<uint64_t>(it - m_pieces.begin()) * kPieceBytes + addr % kPieceBytes;
    return std::pair{static_cast<size_t>(compacted / m_rowBytes),
                     static_cast<size_t>(addr / m_geometry.m_line % m_geometry.sets())};
}

MemoryDisplay memoryDisplay(std::span<const AccessMark> marks, const CacheGeometry& geometry, uint64_t fromNs,
                            uint64_t toNs, size_t setSlices, size_t rowSlices) {
    MemoryDisplay display;
    display.m_geometry = geometry;
    display.m_rowBytes = geometry.sets() * geometry.m_line;
    display.m_fromNs = fromNs;
    display.m_toNs = std::max(toNs, fromNs + 1);
    setSlices = std::max<size_t>(setSlices, 1);
    rowSlices = std::max<size_t>(rowSlices, 1);
    const uint64_t line = geometry.m_line;
    // A line never straddles two pieces: lines are at most a piece (64 KiB) and powers of two.
    for (const AccessMark& mark : marks)
        forEachLine(mark, line,
                    [&](uint64_t at) { display.m_pieces.push_back(at * line / MemoryDisplay::kPieceBytes); });
    std::sort(display.m_pieces.begin(), display.m_pieces.end());
    display.m_pieces.erase(std::unique(display.m_pieces.begin(), display.m_pieces.end()), display.m_pieces.end());
    const uint64_t compactedBytes = display.m_pieces.size() * MemoryDisplay::kPieceBytes;
    const size_t sets = static_cast<size_t>(geometry.sets());
    const size_t rows = static_cast<size_t>((compactedBytes + display.m_rowBytes - 1) / display.m_rowBytes);
    display.m_lines = {rows, sets, std::vector<HitsMisses>(rows * sets)};
    display.m_sets.assign(sets, {});
    display.m_rows.assign(rows, {});
    display.m_setsOverTime = {setSlices, sets, std::vector<HitsMisses>(setSlices * sets)};
    display.m_rowsOverTime = {rows, rowSlices, std::vector<HitsMisses>(rows * rowSlices)};
    for (uint64_t& piece : display.m_pieces) piece *= MemoryDisplay::kPieceBytes;
    CacheModel cache(geometry);
    for (const AccessMark& mark : marks) {
        const size_t setSlice = sliceOf(mark.m_timeNs, display.m_fromNs, display.m_toNs, setSlices);
        const size_t rowSlice = sliceOf(mark.m_timeNs, display.m_fromNs, display.m_toNs, rowSlices);
        forEachLine(mark, line, [&](uint64_t at) {
            const uint64_t addr = at * line;
            const bool miss = cache.access(addr) != CacheOutcome::Hit;
            const uint64_t pieceStart = addr - addr % MemoryDisplay::kPieceBytes;
            const auto piece =
                static_cast<uint64_t>(std::lower_bound(display.m_pieces.begin(), display.m_pieces.end(), pieceStart) -
                                      display.m_pieces.begin());
            const uint64_t compacted = piece * MemoryDisplay::kPieceBytes + addr % MemoryDisplay::kPieceBytes;
            const auto row = static_cast<size_t>(compacted / display.m_rowBytes);
            const auto set = static_cast<size_t>(cache.setOf(addr));
            display.m_lines.at(row, set).add(miss);
            display.m_sets[set].add(miss);
            display.m_rows[row].add(miss);
            display.m_setsOverTime.at(setSlice, set).add(miss);
            display.m_rowsOverTime.at(row, rowSlice).add(miss);
            display.m_total.add(miss);
        });
    }
    return display;
}

namespace {

// A line's stay in the working set: its last access and the bytes used since it joined.
struct Stay {
    uint64_t m_lastNs = 0;
    std::bitset<kLargestViewLine> m_used;
};

}  // namespace

WorkingSet workingSet(std::span<const AccessMark> marks, uint32_t lineBytes, uint64_t idleNs, uint64_t fromNs,
                      uint64_t toNs, size_t columns) {
    WorkingSet set;
    set.m_lineBytes = std::max<uint32_t>(lineBytes, 1);
    set.m_idleNs = std::clamp<uint64_t>(idleNs, 1, uint64_t{1} << 60);  // no overflow adding it to a time
    set.m_fromNs = fromNs;
    set.m_toNs = std::max(toNs, fromNs + 1);
    columns = std::max<size_t>(columns, 1);
    set.m_columns.resize(columns);
    NumberMap<uint64_t, Stay> stays;
    NumberSet<uint64_t> ever;
    size_t next = 0;
    uint64_t clock = 0;  // marks of several threads may step back a little: time never does
    const long double span = static_cast<long double>(set.m_toNs - set.m_fromNs);
    for (size_t column = 0; column < columns; ++column) {
        const uint64_t start = set.m_fromNs + static_cast<uint64_t>(span * column / columns);
        const uint64_t end =
            column + 1 == columns ? UINT64_MAX : set.m_fromNs + static_cast<uint64_t>(span * (column + 1) / columns);
        for (; next < marks.size() && std::max(clock, marks[next].m_timeNs) < end; ++next) {
            const AccessMark& mark = marks[next];
            clock = std::max(clock, mark.m_timeNs);
            forEachLine(mark, set.m_lineBytes, [&](uint64_t line) {
                auto [it, joined] = stays.try_emplace(line);
                Stay& stay = it->second;
                if (!joined && clock - stay.m_lastNs > set.m_idleNs) stay.m_used.reset();  // it had left
                stay.m_lastNs = clock;
                const uint64_t lineStart = line * set.m_lineBytes;
                const uint64_t from = std::max(mark.m_addr, lineStart);
                const uint64_t to =
                    std::min(mark.m_addr + std::max<uint64_t>(mark.m_size, 1), lineStart + set.m_lineBytes);
                for (uint64_t byte = from - lineStart; byte < to - lineStart && byte < stay.m_used.size(); ++byte)
                    stay.m_used.set(static_cast<size_t>(byte));
                ever.insert(line);
            });
        }
        // The last column also takes the accesses after `toNs`, if any: its end is then the last.
        const uint64_t shownEnd = column + 1 == columns ? std::max(set.m_toNs, clock) : end;
        std::vector<WorkingLine>& members = set.m_columns[column];
        for (const auto& [line, stay] : stays) {
            if (stay.m_lastNs + set.m_idleNs < start) continue;
            const double idle =
                static_cast<double>(shownEnd - std::min(stay.m_lastNs, shownEnd)) / static_cast<double>(set.m_idleNs);
            members.push_back({line, std::min(idle, 1.0), static_cast<uint32_t>(stay.m_used.count())});
        }
        std::sort(members.begin(), members.end(),
                  [](const WorkingLine& a, const WorkingLine& b) { return a.m_line < b.m_line; });
        set.m_largest = std::max(set.m_largest, members.size());
        // Lines idle for longer than the idle time by the next column's start cannot be in it.
        std::erase_if(stays, [&](const auto& entry) { return entry.second.m_lastNs + set.m_idleNs < end; });
    }
    set.m_distinct = ever.size();
    return set;
}

}  // namespace memlog::timeline

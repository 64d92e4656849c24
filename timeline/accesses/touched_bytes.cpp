// A line's 64 bytes as one word of bits: the union of a row's accesses is exact whatever their
// order or overlap, and an access costs a lookup of its line (the last row's lines are kept at
// hand). A table of lines stays at most half full: 32 bytes a line touched.
#include "timeline/accesses/touched_bytes.hpp"

#include <bit>

namespace memlog::timeline {

namespace {
constexpr uint64_t kLineBytes = 64;
}

uint64_t& TouchedBytes::Lines::mask(uint64_t line) {
    if ((m_used + 1) * 2 > m_keys.size()) grow();
    const size_t slots = m_keys.size() - 1;
    for (size_t i = m_hash(line) & slots;; i = (i + 1) & slots) {
        if (m_keys[i] == line + 1) return m_masks[i];
        if (m_keys[i] == 0) {
            m_keys[i] = line + 1;
            ++m_used;
            return m_masks[i];
        }
    }
}

void TouchedBytes::Lines::grow() {
    std::vector<uint64_t> keys(std::max<size_t>(16, m_keys.size() * 2), 0), masks(keys.size(), 0);
    const size_t slots = keys.size() - 1;
    for (size_t from = 0; from < m_keys.size(); ++from) {
        if (m_keys[from] == 0) continue;
        size_t i = m_hash(m_keys[from] - 1) & slots;
        while (keys[i] != 0) i = (i + 1) & slots;
        keys[i] = m_keys[from];
        masks[i] = m_masks[from];
    }
    m_keys.swap(keys);
    m_masks.swap(masks);
}

uint64_t TouchedBytes::Lines::bytes() const {
    uint64_t total = 0;
    for (const uint64_t mask : m_masks) total += static_cast<uint64_t>(std::popcount(mask));
    return total;
}

TouchedBytes::Lines& TouchedBytes::linesOf(uint32_t row, uint64_t space) {
    if (row == m_lastRow && space == m_lastSpace && m_last) return *m_last;
    Lines* lines = nullptr;
    if (space == 0) {
        if (m_absolute.size() <= row) m_absolute.resize(row + 1);
        lines = &m_absolute[row];
    } else {
        std::vector<Pair>& pairs = m_blocks[space];
        for (Pair& pair : pairs)
            if (pair.m_row == row) lines = &pair.m_lines;
        if (!lines) lines = &pairs.emplace_back(Pair{row, {}}).m_lines;
    }
    m_lastRow = row;
    m_lastSpace = space;
    m_last = lines;
    return *lines;
}

void TouchedBytes::touch(uint32_t row, uint64_t space, uint64_t from, uint64_t size) {
    if (size == 0) return;
    Lines& lines = linesOf(row, space);
    const uint64_t to = from + size < from ? UINT64_MAX : from + size;
    for (uint64_t line = from / kLineBytes; line <= (to - 1) / kLineBytes; ++line) {
        const uint64_t start = line * kLineBytes;
        const uint64_t first = std::max(from, start) - start, last = std::min(to - start, kLineBytes);  // [first, last)
        const uint64_t bits = last - first == 64 ? ~uint64_t{0} : ((uint64_t{1} << (last - first)) - 1) << first;
        lines.mask(line) |= bits;
        if (line == UINT64_MAX / kLineBytes) break;
    }
}

void TouchedBytes::count(uint32_t row, const Lines& lines) {
    if (m_counted.size() <= row) m_counted.resize(row + 1, 0);
    m_counted[row] += lines.bytes();
}

void TouchedBytes::close(uint64_t space) {
    const auto it = m_blocks.find(space);
    if (it == m_blocks.end()) return;
    for (const Pair& pair : it->second) count(pair.m_row, pair.m_lines);
    m_blocks.erase(it);
    m_last = nullptr;
}

std::vector<uint64_t> TouchedBytes::finish(size_t rows) {
    for (const auto& [space, pairs] : m_blocks)
        for (const Pair& pair : pairs) count(pair.m_row, pair.m_lines);
    for (uint32_t row = 0; row < m_absolute.size(); ++row) count(row, m_absolute[row]);
    m_blocks.clear();
    m_absolute.clear();
    m_last = nullptr;
    std::vector<uint64_t> counts = std::move(m_counted);
    counts.resize(std::max(counts.size(), rows), 0);
    m_counted.clear();
    return counts;
}

}  // namespace memlog::timeline

// Address compaction: an interval union kept in an ordered map, merged into ranges at the end.
#include "timeline/model/address_ranges.hpp"

#include <algorithm>
#include <numeric>

namespace memlog::timeline {

void AddressRanges::Builder::add(uint64_t lo, uint64_t hi, uint64_t blocks) {
    lo &= m_mask;
    hi = (std::max(hi, lo + 1) + ~m_mask) & m_mask;
    if (m_last != m_union.end() && m_last->first <= lo && hi <= m_last->second.m_hi) {  // the common case
        m_last->second.m_blocks += blocks;
        return;
    }
    auto it = m_union.upper_bound(lo);
    if (it != m_union.begin() && std::prev(it)->second.m_hi >= lo) --it;
    while (it != m_union.end() && it->first <= hi) {
        lo = std::min(lo, it->first);
        hi = std::max(hi, it->second.m_hi);
        blocks += it->second.m_blocks;
        it = m_union.erase(it);
    }
    m_last = m_union.emplace_hint(it, lo, Span{hi, blocks});
}

void AddressRanges::Builder::add(const Builder& other) {
    for (const auto& [lo, span] : other.m_union) add(lo, span.m_hi, span.m_blocks);
}

AddressRanges AddressRanges::Builder::finish(uint64_t keepGapsBelow, size_t maxRanges) const {
    std::vector<AddressRange> ranges;
    for (const auto& [lo, span] : m_union) {
        if (!ranges.empty() && lo - ranges.back().m_hi < keepGapsBelow) {
            ranges.back().m_hi = span.m_hi;
            ranges.back().m_blocks += span.m_blocks;
        } else {
            ranges.push_back({lo, span.m_hi, span.m_blocks});
        }
    }
    if (maxRanges > 0 && ranges.size() > maxRanges) {
        // Close the smallest gaps until few enough ranges remain.
        std::vector<size_t> gaps(ranges.size() - 1);  // gap i lies after range i
        std::iota(gaps.begin(), gaps.end(), size_t{0});
        auto gapBytes = [&](size_t i) { return ranges[i + 1].m_lo - ranges[i].m_hi; };
        std::stable_sort(gaps.begin(), gaps.end(), [&](size_t a, size_t b) { return gapBytes(a) < gapBytes(b); });
        std::vector<bool> close(gaps.size(), false);
        for (size_t i = 0; i < ranges.size() - maxRanges; ++i) close[gaps[i]] = true;
        std::vector<AddressRange> merged{ranges.front()};
        for (size_t i = 1; i < ranges.size(); ++i) {
            if (close[i - 1]) {
                merged.back().m_hi = ranges[i].m_hi;
                merged.back().m_blocks += ranges[i].m_blocks;
            } else
                merged.push_back(ranges[i]);
        }
        ranges.swap(merged);
    }
    return AddressRanges(std::move(ranges));
}

AddressRanges::AddressRanges(std::vector<AddressRange> ranges) : m_ranges(std::move(ranges)) {
    for (const AddressRange& range : m_ranges) {
        m_bytes += range.bytes();
        m_blocks += range.m_blocks;
    }
}

std::optional<size_t> AddressRanges::rangeOf(uint64_t addr) const {
    auto it = std::upper_bound(m_ranges.begin(), m_ranges.end(), addr,
                               [](uint64_t a, const AddressRange& range) { return a < range.m_lo; });
    if (it == m_ranges.begin()) return std::nullopt;
    --it;
    if (addr >= it->m_hi) return std::nullopt;
    return static_cast<size_t>(it - m_ranges.begin());
}

AddressRanges AddressRanges::clip(uint64_t lo, uint64_t hi) const {
    std::vector<AddressRange> clipped;
    for (const AddressRange& range : m_ranges) {
        const uint64_t from = std::max(range.m_lo, lo), to = std::min(range.m_hi, hi);
        // The blocks of a range cut by the window: their share of its bytes, as if spread evenly.
        if (from < to)
            clipped.push_back(
                {from, to,
                 static_cast<uint64_t>(static_cast<double>(range.m_blocks) * static_cast<double>(to - from) /
                                       static_cast<double>(range.bytes()))});
    }
    return AddressRanges(std::move(clipped));
}

}  // namespace memlog::timeline

// Address compaction: the address space is huge and sparse, so a picture shows only the ranges
// that ever held a block, each rounded out to pages, and draws the gaps between them as thin
// separators. Gaps smaller than a threshold stay inside a range as empty space (honest free
// memory); a picture with room for only so many ranges merges the smallest gaps first.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace memlog::timeline {

struct AddressRange {
    uint64_t m_lo = 0;  // [m_lo, m_hi)
    uint64_t m_hi = 0;
    // The blocks that made it (an index node's gives its blocks at once): what a picture's fair
    // share of height counts beside the bytes. 0 when nobody counted.
    uint64_t m_blocks = 0;
    uint64_t bytes() const { return m_hi - m_lo; }
    bool operator==(const AddressRange&) const = default;
};

class AddressRanges {
public:
    static constexpr uint64_t kPage = 4096;
    static constexpr uint64_t kKeepGapsBelow = 64 * 1024;  // as the CS348C report compacts

    // Collects [lo, hi) intervals in any order; consecutive blocks in one range cost O(1).
    class Builder {
    public:
        // `granularity`: a power of two; every range is rounded out to its multiples.
        explicit Builder(uint64_t granularity = kPage) : m_mask(~(granularity - 1)) {}
        Builder(const Builder&) = delete;  // m_last points into m_union
        Builder& operator=(const Builder&) = delete;
        void add(uint64_t lo, uint64_t hi, uint64_t blocks = 1);
        void add(const Builder& other);  // everything `other` was given (of the same granularity)
        // The union; gaps below `keepGapsBelow` kept inside ranges; at most `maxRanges` ranges
        // (the smallest gaps merged first; 0: no limit).
        AddressRanges finish(uint64_t keepGapsBelow = kKeepGapsBelow, size_t maxRanges = 0) const;

    private:
        uint64_t m_mask;  // clears the bits below the granularity
        struct Span {
            uint64_t m_hi = 0;
            uint64_t m_blocks = 0;
        };
        std::map<uint64_t, Span> m_union;  // lo -> (hi, blocks), disjoint and not touching
        std::map<uint64_t, Span>::iterator m_last = m_union.end();
    };

    AddressRanges() = default;
    explicit AddressRanges(std::vector<AddressRange> ranges);

    const std::vector<AddressRange>& ranges() const { return m_ranges; }
    bool empty() const { return m_ranges.empty(); }
    uint64_t bytes() const { return m_bytes; }  // all ranges together
    uint64_t blocks() const { return m_blocks; }
    // The range holding `addr`, or nullopt for an address in a gap.
    std::optional<size_t> rangeOf(uint64_t addr) const;
    // The parts of the ranges inside [lo, hi).
    AddressRanges clip(uint64_t lo, uint64_t hi) const;

private:
    std::vector<AddressRange> m_ranges;
    uint64_t m_bytes = 0, m_blocks = 0;
};

}  // namespace memlog::timeline

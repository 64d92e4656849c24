// A cache simulated over every access of a run: set-associative, least recently used, write
// allocate (a write that misses brings its line in, as a read does). Each miss is classified by
// the three-C model: compulsory (the line was never touched before), capacity (a fully
// associative cache of the same size would have missed too) or conflict (only the mapping of
// lines to sets made it miss).
#pragma once

#include <cstdint>
#include <list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "timeline/base/seeded_hash.hpp"

namespace memlog::timeline {

struct CacheGeometry {
    uint64_t m_size = 32 * 1024;  // bytes
    uint32_t m_ways = 8;
    uint32_t m_line = 64;  // bytes
    uint64_t sets() const { return m_size / (static_cast<uint64_t>(m_ways) * m_line); }
    uint64_t lines() const { return m_size / m_line; }
    bool operator==(const CacheGeometry&) const = default;
};

// "" when the geometry is one a cache can have: line a power of two, size a multiple of
// ways x line, a power-of-two number of sets; else why not.
std::string_view geometryProblem(const CacheGeometry& geometry);

// A geometry as `memlog cache --cache` and memtimeline's --cache take it, SIZE:WAYS:LINE (SIZE in
// bytes, K, M or G allowed; LINE in bytes): "32K:8:64". Nothing when `text` is not one a cache
// can have, and `problem` (when given) says why.
std::optional<CacheGeometry> parseCacheGeometry(const std::string& text, std::string_view* problem = nullptr);
// The same as an option row's check: what is wrong with `text`, nullptr when it is a geometry.
const char* cacheGeometryMistake(const char* text);

enum class CacheOutcome : uint8_t { Hit, Compulsory, Capacity, Conflict };
const char* cacheOutcomeName(CacheOutcome outcome);

class CacheModel {
public:
    explicit CacheModel(const CacheGeometry& geometry);

    // One access to the line holding `addr`; an access that spans lines is one access per line
    // (the caller splits it: lineOf, firstLine/lastLine).
    CacheOutcome access(uint64_t addr);
    uint64_t setOf(uint64_t addr) const { return (addr / m_geometry.m_line) & (m_sets - 1); }
    const CacheGeometry& geometry() const { return m_geometry; }

private:
    bool touchSet(uint64_t line);  // true: hit in the set-associative cache
    bool touchFullyAssociative(uint64_t line);

    CacheGeometry m_geometry;
    uint64_t m_sets;
    // Per set, its lines from most to least recently used (at most m_ways each).
    std::vector<std::vector<uint64_t>> m_setLines;
    // The fully associative cache of the same size, for capacity against conflict.
    std::list<uint64_t> m_recency;  // most recent first
    NumberMap<uint64_t, std::list<uint64_t>::iterator> m_resident;
    NumberSet<uint64_t> m_seen;
};

}  // namespace memlog::timeline

// A cache simulated over every access of a full-trace log (CacheModel), counted per heap block
// (with its allocation site), per global, per region and per set: what `memlog cache` prints.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "timeline/trace/cache_model.hpp"
#include "timeline/read/log_reader.hpp"

namespace memlog::timeline {

class StackNames;

struct CacheCounts {
    uint64_t m_accesses = 0;  // line accesses: an access spanning two lines counts twice
    uint64_t m_hits = 0, m_compulsory = 0, m_capacity = 0, m_conflict = 0;
    uint64_t misses() const { return m_compulsory + m_capacity + m_conflict; }
    void add(CacheOutcome outcome);
    void add(const CacheCounts& other);
};

struct CacheBlockRow {
    uint64_t m_blockSeq = 0;
    uint64_t m_addr = 0;
    uint64_t m_size = 0;
    uint32_t m_stack = 0;  // its allocation
    CacheCounts m_counts;
};

struct CacheGlobalRow {
    std::string m_name;
    uint64_t m_addr = 0;  // where the symbol starts
    uint64_t m_size = 0;
    CacheCounts m_counts;
};

struct CacheReport {
    CacheGeometry m_geometry;
    // The program's accesses, each once: what `memlog stat` and `compare` count (the counts
    // below are line accesses).
    uint64_t m_memoryAccesses = 0;
    CacheCounts m_total;
    CacheCounts m_heap, m_global, m_stack, m_other, m_freed, m_allocator;
    std::vector<CacheBlockRow> m_blocks;  // most misses first
    std::vector<CacheGlobalRow> m_globals;  // most misses first
    std::vector<CacheCounts> m_sets;  // by set index
};

// "" when `reader`'s log holds every access (a full trace); else why a cache cannot be simulated.
std::string cacheRefusal(LogReader& reader);

// Walks the log once, in its order. Throws LogError on bad input.
CacheReport simulateCache(LogReader& reader, StackNames& names, const CacheGeometry& geometry);

}  // namespace memlog::timeline

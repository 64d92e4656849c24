#include "timeline/trace/cache_report.hpp"

#include <algorithm>
#include <map>

#include "timeline/replay/access_attribution.hpp"
#include "timeline/base/seeded_hash.hpp"
#include "timeline/names/stack_names.hpp"
#include "timeline/replay/block_observer.hpp"

namespace memlog::timeline {

void CacheCounts::add(CacheOutcome outcome) {
    ++m_accesses;
    switch (outcome) {
        case CacheOutcome::Hit:
            ++m_hits;
            break;
        case CacheOutcome::Compulsory:
            ++m_compulsory;
            break;
        case CacheOutcome::Capacity:
            ++m_capacity;
            break;
        case CacheOutcome::Conflict:
            ++m_conflict;
            break;
    }
}

void CacheCounts::add(const CacheCounts& other) {
    m_accesses += other.m_accesses;
    m_hits += other.m_hits;
    m_compulsory += other.m_compulsory;
    m_capacity += other.m_capacity;
    m_conflict += other.m_conflict;
}

std::string cacheRefusal(LogReader& reader) {
    const format::FileHeader& header = reader.header();
    if (header.m_accessSampler == format::AccessSampler::FullTrace) return "";
    if (header.m_accessSampler == format::AccessSampler::Off ||
        header.m_accessSampler == format::AccessSampler::Unavailable)
        return "it holds no accesses; a cache needs every access (memlog run --full-trace, or memlog import)";
    return "its accesses are samples; a cache needs every access (memlog run --full-trace, or memlog import)";
}

namespace {

// Simulates each access as the walk meets it and counts it where it fell.
class Simulation final : public BlockObserver {
public:
    explicit Simulation(const CacheGeometry& geometry) : m_cache(geometry) { m_report.m_geometry = geometry; }

    void begin(const BlockChange&) override {}
    void end(const BlockChange&) override {}
    void access(const AccessSample& sample, const Attribution& where) override {
        ++m_report.m_memoryAccesses;
        const uint64_t line = m_cache.geometry().m_line;
        const uint64_t first = sample.m_addr / line,
                       last = (sample.m_addr + std::max<uint64_t>(sample.m_size, 1) - 1) / line;
        for (uint64_t at = first; at <= last; ++at) {
            const CacheOutcome outcome = m_cache.access(at * line);
            if (m_report.m_sets.empty()) m_report.m_sets.resize(m_cache.geometry().sets());
            m_report.m_sets[m_cache.setOf(at * line)].add(outcome);
            m_report.m_total.add(outcome);
            switch (where.m_region) {
                case Region::Heap: {
                    m_report.m_heap.add(outcome);
                    auto [it, added] = m_blockIndex.try_emplace(where.m_blockSeq, m_report.m_blocks.size());
                    if (added)
                        m_report.m_blocks.push_back(
                            {where.m_blockSeq, where.m_blockAddr, where.m_blockSize, where.m_blockStack, {}});
                    m_report.m_blocks[it->second].m_counts.add(outcome);
                    break;
                }
                case Region::Global:
                    m_report.m_global.add(outcome);
                    m_globalWords[sample.m_addr].add(outcome);
                    break;
                case Region::Stack:
                    m_report.m_stack.add(outcome);
                    break;
                case Region::Other:
                    m_report.m_other.add(outcome);
                    break;
                case Region::Freed:
                    m_report.m_freed.add(outcome);
                    break;
                case Region::Allocator:
                    m_report.m_allocator.add(outcome);
                    break;
            }
        }
    }

    CacheReport m_report;
    NumberMap<uint64_t, CacheCounts> m_globalWords;  // by address, named after the walk

private:
    CacheModel m_cache;
    NumberMap<uint64_t, size_t> m_blockIndex;
};

bool moreMisses(const CacheCounts& a, const CacheCounts& b) {
    return a.misses() != b.misses() ? a.misses() > b.misses() : a.m_accesses > b.m_accesses;
}

}  // namespace

CacheReport simulateCache(LogReader& reader, StackNames& names, const CacheGeometry& geometry) {
    Simulation simulation(geometry);
    summarize(reader, {}, &simulation);
    CacheReport report = std::move(simulation.m_report);
    if (report.m_sets.empty()) report.m_sets.resize(geometry.sets());
    std::map<uint64_t, CacheGlobalRow> globals;  // by the symbol's start
    for (const auto& [addr, counts] : simulation.m_globalWords) {
        const auto symbol = names.dataSymbolAt(addr);
        CacheGlobalRow& row = globals[symbol ? symbol->m_start : addr];
        if (row.m_name.empty()) {
            row.m_name = symbol ? symbol->m_name : "(unnamed data)";
            row.m_addr = symbol ? symbol->m_start : addr;
            row.m_size = symbol ? symbol->m_size : 0;
        }
        row.m_counts.add(counts);
    }
    for (auto& [start, row] : globals) report.m_globals.push_back(std::move(row));
    std::stable_sort(report.m_blocks.begin(), report.m_blocks.end(),
                     [](const CacheBlockRow& a, const CacheBlockRow& b) { return moreMisses(a.m_counts, b.m_counts); });
    std::stable_sort(
        report.m_globals.begin(), report.m_globals.end(),
        [](const CacheGlobalRow& a, const CacheGlobalRow& b) { return moreMisses(a.m_counts, b.m_counts); });
    return report;
}

}  // namespace memlog::timeline

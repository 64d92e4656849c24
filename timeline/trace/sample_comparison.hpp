// Samples checked against the truth (`memlog compare`): two runs of the same deterministic
// program, one sampled and one fully traced, grouped alike (per site, accessing function or heap
// block; a block is matched by its site and its place among that site's blocks, since addresses
// differ between runs). Per row: its share of all accesses and its share of writes, in the
// samples and in the trace, and the differences in percentage points.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "timeline/accesses/access_table.hpp"

namespace memlog::timeline {

class LogReader;

struct SampleCheckRow {
    std::string m_name;  // site, function, or "site #K" for the K-th block of a site
    std::string m_location;
    uint64_t m_sampled = 0, m_sampledWrites = 0;
    uint64_t m_exact = 0, m_exactWrites = 0;
    double sampledShare(uint64_t total) const {
        return total ? 100.0 * static_cast<double>(m_sampled) / static_cast<double>(total) : 0;
    }
    double exactShare(uint64_t total) const {
        return total ? 100.0 * static_cast<double>(m_exact) / static_cast<double>(total) : 0;
    }
    double sampledWriteShare() const {
        return m_sampled ? 100.0 * static_cast<double>(m_sampledWrites) / static_cast<double>(m_sampled) : 0;
    }
    double exactWriteShare() const {
        return m_exact ? 100.0 * static_cast<double>(m_exactWrites) / static_cast<double>(m_exact) : 0;
    }
};

struct SampleCheck {
    std::vector<SampleCheckRow> m_rows;  // most exact accesses first
    uint64_t m_sampledTotal = 0, m_exactTotal = 0;
};

// Walks each log (twice, by block). Throws LogError on a bad log.
SampleCheck checkSamples(LogReader& sampledLog, LogReader& fullLog, AccessGrouping by);

}  // namespace memlog::timeline

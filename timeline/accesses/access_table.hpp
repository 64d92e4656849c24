// Access samples grouped for `memlog accesses`: per allocation site, heap block, accessing
// function or global, how often each was read and written, how many distinct bytes the samples
// touched, and when; per site, the blocks that no sample touched at all.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace memlog::timeline {

class LogReader;
class StackNames;

enum class AccessGrouping { Site, Block, Function, Global };
bool parseAccessGrouping(const std::string& text, AccessGrouping& grouping);

struct AccessRow {
    std::string m_name;  // site or accessing function; a global's symbol; "(stack)", "(other)"
    std::string m_location;  // file:line, or the module
    uint64_t m_samples = 0;
    uint64_t m_reads = 0;  // a read-write counts as both
    uint64_t m_writes = 0;
    uint64_t m_bytesTouched = 0;  // distinct bytes the samples covered (per block, for heap rows)
    uint64_t m_firstNs = 0;  // the first and last sample, since the recording started
    uint64_t m_lastNs = 0;
    // By block: the block.
    uint64_t m_blockSeq = 0;
    uint64_t m_blockAddr = 0;
    uint64_t m_blockSize = 0;
    // By site (heap sites only): the blocks it allocated, how many got a sample, and the blocks
    // and bytes that got none.
    uint64_t m_blocks = 0;
    uint64_t m_blocksSampled = 0;
    uint64_t m_unsampledBlocks = 0;
    uint64_t m_unsampledBytes = 0;
};

// A block of kLargeBlock bytes or more that no sample touched: a candidate for memory allocated
// and never used (or used too briefly for the sampling rate to see).
struct UnsampledBlock {
    uint64_t m_seq = 0;
    uint64_t m_addr = 0;
    uint64_t m_size = 0;
    std::string m_site;
};
inline constexpr uint64_t kLargeBlock = 4096;

struct AccessTable {
    std::vector<AccessRow> m_rows;  // most samples first; at most `top` (0: all)
    std::vector<UnsampledBlock> m_largestUnsampled;  // by site only: largest first, at most `top`
    uint64_t m_samples = 0;  // in the whole log
};

// Reads the log once (then names what it found). Throws LogError on bad input.
AccessTable accessTable(LogReader& reader, AccessGrouping by, size_t top,
                        const std::function<void(double)>& progress = {},
                        const std::function<void(const std::string&)>& warn = {});

}  // namespace memlog::timeline

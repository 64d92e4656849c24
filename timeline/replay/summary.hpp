// The numbers `memlog stat` prints: calls per entry point, blocks begun and ended, peak and leaks,
// anomalies, what the samplers caught. The replay fills them in one pass over the log in sequence
// order (summarize(), block_observer.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "memlog/format.hpp"
#include "timeline/replay/sample_estimates.hpp"

namespace memlog::timeline {

struct Anomalies {
    uint64_t m_unknownFree = 0;  // free/delete/munmap of an address never allocated in this log
                                 // (never allocated, or allocated before recording started)
    uint64_t m_doubleFree = 0;  // free of an address that was allocated and already freed
    uint64_t m_unknownRealloc = 0;  // realloc of an address that is not live
    uint64_t m_mismatchedFree = 0;  // e.g. new[] released by free or delete
    uint64_t m_accessOutsideBlock = 0;  // version 2: a sample not inside the live block it names
    uint64_t m_useAfterFree = 0;  // an access by the program (not the allocator) to a freed block
    uint64_t total() const {
        return m_unknownFree + m_doubleFree + m_unknownRealloc + m_mismatchedFree + m_accessOutsideBlock +
               m_useAfterFree;
    }
};

struct Summary {
    uint32_t m_formatVersion = 0;
    bool m_complete = false;
    uint32_t m_pid = 0;
    uint32_t m_parentPid = 0;
    std::string m_exe;
    uint64_t m_durationNs = 0;  // first to last record
    uint32_t m_threads = 0;
    uint64_t m_events = 0;  // heap events read
    // calls[k]: calls of kind k that allocated, resized or freed something (index: format::Kind).
    std::array<uint64_t, format::kHeapKindCount> m_calls{};
    uint64_t m_allocations = 0;  // blocks begun (a resize begins one and ends one)
    uint64_t m_frees = 0;  // blocks ended
    uint64_t m_peakBytes = 0;  // live requested bytes at their maximum, heap blocks and mappings
    uint64_t m_peakSeq = 0;  // the sequence number of the block that first reached the peak
    uint64_t m_blocksAtPeak = 0;  // blocks live at that moment (when the byte peak was first reached)
    uint64_t m_peakBlocks = 0;  // the most blocks live at once: another moment, as a rule
    uint64_t m_peakHeapBytes = 0;  // heap blocks' live bytes at their own maximum
    uint64_t m_peakMappedBytes = 0;  // mappings' live bytes at their own maximum
    uint64_t m_leakedBytes = 0;  // heap blocks live at the end of the log (never freed)
    uint64_t m_leakedBlocks = 0;
    // Anonymous mappings live at the end (never unmapped): the process's exit returns them, and
    // a program that maps its own heap (a garbage collector's) keeps them to the end by design.
    uint64_t m_mappedAtExitBytes = 0;
    uint64_t m_mappedAtExitRegions = 0;
    uint64_t m_suppressedBytes = 0;  // of those live at the end, matched by a suppression and
    uint64_t m_suppressedBlocks = 0;  // taken out of m_leaked* (applySuppressions; else zero)
    uint64_t m_stacks = 0;  // distinct stacks
    Anomalies m_anomalies;
    uint64_t m_lostEvents = 0;  // the program's events the recorder had no room for
    uint64_t m_lostMetaRecords = 0;  // its stacks, module maps, thread ends it had no room for
    // MEMLOG_UNWIND_CHECK=1 runs: incremental stacks compared with a full walk, those that
    // differed, and the stacks left to the full walk (all zero without the check).
    uint64_t m_unwindChecked = 0;
    uint64_t m_unwindMismatches = 0;
    uint64_t m_unwindFullWalks = 0;
    // Access sampling: whether it ran (and why not), and what it caught.
    format::AccessSampler m_accessSampler = format::AccessSampler::Off;
    std::string m_accessStatus;  // the reason when Unavailable
    uint32_t m_accessRate = 0;  // ticks per CPU-second per thread it ran with
    uint64_t m_accessSamples = 0;
    uint64_t m_accessReads = 0;  // samples that read (a read-write counts here and as a write)
    uint64_t m_accessWrites = 0;
    uint64_t m_accessHeap = 0;  // samples by where they fell (access_attribution.hpp)
    uint64_t m_accessGlobal = 0;
    uint64_t m_accessStack = 0;
    uint64_t m_accessOther = 0;
    uint64_t m_accessFreed = 0;  // in a block freed and not handed out again, by the program
    uint64_t m_accessAllocator = 0;  // by the allocator's own code, wherever they fell
    uint64_t m_blocksSampled = 0;  // distinct blocks with at least one sample
    format::AccessCounters m_accessCounters{};  // the sampler's own counts, from the header
    // Watchpoints on sampled words: whether they ran (and why not), and what they caught.
    format::WatchSampler m_watchSampler = format::WatchSampler::Off;
    std::string m_watchStatus;
    uint32_t m_watchRate = 0;
    format::WatchCounters m_watchCounters{};
    uint64_t m_watchTraps = 0;  // watchpoint records
    uint64_t m_watchOtherThread = 0;  // ... by a thread other than the one whose sample armed it
    uint64_t m_watchReuseMedianNs = 0;  // from the arming sample to the trap, the median
    uint64_t m_blocksUsedAfterFree = 0;  // distinct blocks with a use after free
    // A sampled log (MEMLOG_SAMPLE): the mean gap and the estimates (measureStacks). The counts
    // above are then the samples': what the log holds.
    SampleEstimates m_sampling;
};

// "off", "unavailable: <reason>", or "process-wide (four debug registers)".
std::string watchSamplerText(const Summary& summary);

// "off", "unavailable: <reason>", or the mechanism: what `memlog stat` calls access_sampler.
std::string accessSamplerText(const Summary& summary);

}  // namespace memlog::timeline

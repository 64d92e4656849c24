// The replay's API: a block beginning or ending as the replay applies it, the observer told of
// each change (and of each access sample, in its place), and summarize(), which runs the replay
// over a whole log. The block model, the per-stack metrics and the accesses' analyses are
// observers; the replay itself is heap_replay.hpp's.
#pragma once

#include <cstdint>
#include <functional>

#include "timeline/replay/summary.hpp"

namespace memlog::timeline {

class LogReader;
struct AccessSample;
struct Attribution;

// A block beginning or ending, as the replay applies it: where, when, who.
struct BlockChange {
    uint64_t m_addr = 0;
    uint64_t m_size = 0;
    uint64_t m_seq = 0;  // the moment (the new block of a resize: its second sequence number)
    uint64_t m_timeNs = 0;
    uint32_t m_stack = 0;  // the stack that allocated the block
    uint32_t m_tid = 0;  // the thread whose call made the change
    bool m_mapping = false;  // an anonymous mapping rather than a heap block
    bool m_piece = false;  // begin: what munmap left of a mapping it cut (the same allocation)
    uint32_t m_callStack = 0;  // the stack of the call that made the change (an end: the free's)
};

// The anomalies of summary.hpp's Anomalies, one at a time.
enum class AnomalyKind : uint8_t { UnknownFree, DoubleFree, UnknownRealloc, MismatchedFree, AccessOutsideBlock, UseAfterFree };
const char* anomalyName(AnomalyKind kind);  // "double free", as `memlog stat` lists them

// An anomaly where the replay met it: the call's (or the access sample's) moment and thread, and
// the address it named.
struct AnomalyAt {
    AnomalyKind m_kind = AnomalyKind::UnknownFree;
    uint64_t m_seq = 0;
    uint64_t m_timeNs = 0;
    uint32_t m_tid = 0;
    uint64_t m_addr = 0;
};

// Told of every block as it begins and ends. A munmap that cuts a mapping ends the whole
// mapping and begins the pieces that remain (m_piece), at the same moment.
class BlockObserver {
public:
    virtual ~BlockObserver() = default;
    virtual void begin(const BlockChange& change) = 0;
    virtual void end(const BlockChange& change) = 0;
    // A sampled access, in its place between the changes, and where it fell.
    virtual void access(const AccessSample& sample, const Attribution& where) {
        (void)sample;
        (void)where;
    }
    // Each anomaly as summarize() counts it (rare: a virtual call costs nothing here).
    virtual void anomaly(const AnomalyAt& anomaly) { (void)anomaly; }
};

// Reads the whole log. Throws LogError on bad input. `progress` as in LogReader::forEachEvent.
Summary summarize(LogReader& reader, const std::function<void(double)>& progress = {},
                  BlockObserver* observer = nullptr);

}  // namespace memlog::timeline

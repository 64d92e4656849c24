// The one pass of `memlog stat`'s numbers: each heap event and access sample applied in sequence
// order to the live blocks, every block's beginning and end told to an observer. A template on
// the observer's type so that a final observer (the per-stack metrics) is called directly, not
// through a virtual call per change; summarize() instantiates it for any BlockObserver.
#pragma once

#include <algorithm>
#include <map>
#include <queue>
#include <vector>

#include "timeline/replay/access_attribution.hpp"
#include "timeline/replay/address_table.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/base/seeded_hash.hpp"
#include "timeline/replay/block_observer.hpp"
#include "timeline/replay/summary.hpp"

namespace memlog::timeline::tally {

using format::Family;
using format::Kind;

// Which release kinds may end a block allocated by which kinds.
enum class Allocator : uint8_t { Malloc, New, NewArray };

inline Allocator allocatorOf(Kind kind) {
    if (kind == Kind::New) return Allocator::New;
    if (kind == Kind::NewArray) return Allocator::NewArray;
    return Allocator::Malloc;
}

inline Allocator releaserOf(Kind kind) {
    if (kind == Kind::Delete) return Allocator::New;
    if (kind == Kind::DeleteArray) return Allocator::NewArray;
    return Allocator::Malloc;
}

// A set of block sequence numbers that remembers the last few it was given: a full trace comes
// back to the same few blocks between two others, and a hash table's insertion for each of
// its accesses cost `memlog stat` an eighth of its time.
class RecentlyAddedSet {
public:
    void insert(uint64_t seq) {
        uint64_t& recent = m_recent[seq % kRecent];
        if (recent == seq + 1) return;
        recent = seq + 1;
        m_set.insert(seq);
    }
    size_t size() const { return m_set.size(); }

private:
    static constexpr size_t kRecent = 16;
    uint64_t m_recent[kRecent] = {};  // seq + 1, 0: none
    NumberSet<uint64_t> m_set;
};

template <typename Observer>
class Tally {
public:
    // `attribution`, when the log has samples, is told of every change (through `observer`).
    Tally(Summary& summary, Observer* observer, AccessAttribution* attribution, BlockObserver* caller)
        : m_summary(summary), m_observer(observer), m_attribution(attribution), m_caller(caller) {}

    void event(const Event& event) {
        // Called only when a resize's new block waits (rare): a call for every event to find
        // none cost memlog stat 6 % of its time.
        if (!m_pending.empty()) [[unlikely]]
            releasePendingBefore(event.m_seq);
        m_seq = event.m_seq;
        m_timeNs = event.m_timeNs;
        m_tid = event.m_tid;
        m_callStack = event.m_stack;
        const auto kindIndex = static_cast<size_t>(event.m_kind);
        switch (format::kindInfo(event.m_kind).m_family) {
            case Family::Allocate:
                if (event.m_kind == Kind::Mmap)
                    beginMapping(event.m_addr, event.m_size, event.m_stack);
                else
                    beginBlock(event.m_addr, event.m_size, allocatorOf(event.m_kind), event.m_stack);
                ++m_summary.m_calls[kindIndex];
                break;
            case Family::Release:
                if (event.m_kind == Kind::Munmap) {
                    if (unmap(event.m_addr, event.m_size)) ++m_summary.m_calls[kindIndex];
                } else if (endBlock(event.m_addr, releaserOf(event.m_kind))) {
                    ++m_summary.m_calls[kindIndex];
                }
                break;
            case Family::Resize:
                resize(event);
                break;
            case Family::None:
                break;
        }
    }

    // The table slots `event` will look up, asked for ahead (AddressTable::prefetch): a pass
    // calls this some events before it applies the event.
    [[gnu::always_inline]] void prefetch(const Event& event) const {
        if (event.m_kind == Kind::Mmap || event.m_kind == Kind::Munmap || event.m_kind == Kind::Mremap) return;
        m_blocks.prefetch(event.m_addr);
        if (event.m_oldAddr) m_blocks.prefetch(event.m_oldAddr);
    }

    // Each sample counted by kind and by where it fell; a version 2 sample must fall inside the
    // live block it names.
    void access(const AccessSample& sample) {
        releasePendingBefore(sample.m_seq);
        ++m_summary.m_accessSamples;
        if (sample.reads()) ++m_summary.m_accessReads;
        if (sample.writes()) ++m_summary.m_accessWrites;
        const Attribution where = m_attribution ? m_attribution->attribute(sample) : Attribution{};
        switch (where.m_region) {
            case Region::Heap:
                ++m_summary.m_accessHeap;
                break;
            case Region::Global:
                ++m_summary.m_accessGlobal;
                break;
            case Region::Stack:
                ++m_summary.m_accessStack;
                break;
            case Region::Other:
                ++m_summary.m_accessOther;
                break;
            case Region::Freed:
                ++m_summary.m_accessFreed;
                break;
            case Region::Allocator:
                ++m_summary.m_accessAllocator;
                break;
        }
        if (where.m_region == Region::Heap) m_sampledBlocks.insert(where.m_blockSeq);
        // Freed: the program's access (the allocator's own, its links in freed blocks, are apart).
        if (where.m_region == Region::Freed) {
            ++m_summary.m_anomalies.m_useAfterFree;
            m_usedAfterFree.insert(where.m_blockSeq);
            tell({AnomalyKind::UseAfterFree, sample.m_seq, sample.m_timeNs, sample.m_tid, sample.m_addr});
        }
        noteWatch(sample);
        if (sample.m_blockSeq != 0 && (where.m_region != Region::Heap || where.m_offset != sample.m_offset ||
                                       where.m_offset + sample.m_size > where.m_blockSize)) {
            ++m_summary.m_anomalies.m_accessOutsideBlock;
            tell({AnomalyKind::AccessOutsideBlock, sample.m_seq, sample.m_timeNs, sample.m_tid, sample.m_addr});
        }
        if (m_caller) m_caller->access(sample, where);
    }

    void finish() {
        releasePendingBefore(UINT64_MAX);
        finishInto(m_summary);
    }
    // What finish() adds to the summary, into a copy of it, the replay left as it is to go on
    // (ReplayInSteps): a resize whose new block still waits for an event before it is not in it.
    void finishInto(Summary& summary) const {
        summary.m_blocksSampled = m_sampledBlocks.size();
        summary.m_blocksUsedAfterFree = m_usedAfterFree.size();
        if (!m_reuseNs.empty()) {
            std::vector<uint64_t> reuse = m_reuseNs;
            std::nth_element(reuse.begin(), reuse.begin() + reuse.size() / 2, reuse.end());
            summary.m_watchReuseMedianNs = reuse[reuse.size() / 2];
        }
        summary.m_leakedBytes = m_liveBytes - m_mappedBytes;
        summary.m_leakedBlocks = m_liveBlocks - m_mappedRegions;
        summary.m_mappedAtExitBytes = m_mappedBytes;
        summary.m_mappedAtExitRegions = m_mappedRegions;
    }

private:
    // A watchpoint's trap against the sample that armed it: how long the word waited for its
    // next access, and whether another thread made it.
    void noteWatch(const AccessSample& sample) {
        if (sample.m_source == format::AccessSource::Tick) {
            if (m_keepTicks) m_ticks[sample.m_seq] = {sample.m_timeNs, sample.m_tid};
            return;
        }
        if (sample.m_source != format::AccessSource::Watchpoint) return;
        ++m_summary.m_watchTraps;
        const auto armed = m_ticks.find(sample.m_armedBy);
        if (armed == m_ticks.end()) return;
        m_reuseNs.push_back(sample.m_timeNs - std::min(sample.m_timeNs, armed->second.first));
        if (armed->second.second != sample.m_tid) ++m_summary.m_watchOtherThread;
        m_ticks.erase(armed);  // a watch traps once
    }

public:
    bool m_keepTicks = false;  // the log has watchpoint traps to link to their samples

private:
    struct Pending {
        uint64_t m_seq;
        uint64_t m_timeNs;
        uint64_t m_addr;
        uint64_t m_size;
        uint32_t m_stack;
        uint32_t m_tid;
        bool m_mapping;
        bool operator>(const Pending& other) const { return m_seq > other.m_seq; }
    };

    // An anomaly of the event being applied (or of a sample: `anomaly` names its own moment).
    void tell(const AnomalyAt& anomaly) const {
        if (m_caller) m_caller->anomaly(anomaly);
    }
    void tell(AnomalyKind kind, uint64_t addr) const { tell({kind, m_seq, m_timeNs, m_tid, addr}); }

    // The change at the moment being applied.
    BlockChange change(uint64_t addr, uint64_t size, uint32_t stack, bool mapping) const {
        return {addr, size, m_seq, m_timeNs, stack, m_tid, mapping, false, m_callStack};
    }

    void grow(const BlockChange& change) {
        m_liveBytes += change.m_size;
        ++m_liveBlocks;
        ++m_summary.m_allocations;
        if (m_liveBytes > m_summary.m_peakBytes) {
            m_summary.m_peakBytes = m_liveBytes;
            m_summary.m_peakSeq = m_seq;
            m_summary.m_blocksAtPeak = m_liveBlocks;
        }
        // The heap's own peak and the mappings' (beginMapping counts them before this call).
        m_summary.m_peakHeapBytes = std::max(m_summary.m_peakHeapBytes, m_liveBytes - m_mappedBytes);
        m_summary.m_peakMappedBytes = std::max(m_summary.m_peakMappedBytes, m_mappedBytes);
        if (m_liveBlocks > m_summary.m_peakBlocks) m_summary.m_peakBlocks = m_liveBlocks;
        if (m_observer) m_observer->begin(change);
    }

    void shrink(const BlockChange& change) {
        m_liveBytes -= change.m_size;
        --m_liveBlocks;
        ++m_summary.m_frees;
        if (m_observer) m_observer->end(change);
    }

    void beginBlock(uint64_t addr, uint64_t size, Allocator allocator, uint32_t stack) {
        AddressTable::Entry& entry = m_blocks.findOrInsert(addr);
        if (entry.m_live) shrink(change(addr, entry.m_size, entry.m_stack, false));  // an address handed out twice
        entry.m_live = true;
        entry.m_size = size;
        entry.m_allocator = static_cast<uint8_t>(allocator);
        entry.m_stack = stack;
        grow(change(addr, size, stack, false));
    }

    // False (and an anomaly counted) when nothing live was at `addr`.
    bool endBlock(uint64_t addr, Allocator releaser) {
        AddressTable::Entry* entry = m_blocks.find(addr);
        if (!entry || !entry->m_live) {
            if (entry || m_blocks.endedBefore(addr)) {
                ++m_summary.m_anomalies.m_doubleFree;
                tell(AnomalyKind::DoubleFree, addr);
            } else {
                ++m_summary.m_anomalies.m_unknownFree;
                tell(AnomalyKind::UnknownFree, addr);
            }
            return false;
        }
        if (static_cast<Allocator>(entry->m_allocator) != releaser) {
            ++m_summary.m_anomalies.m_mismatchedFree;
            tell(AnomalyKind::MismatchedFree, addr);
        }
        entry->m_live = false;
        shrink(change(addr, entry->m_size, entry->m_stack, false));
        return true;
    }

    void beginMapping(uint64_t addr, uint64_t size, uint32_t stack) {
        unmapRange(addr, size);  // MAP_FIXED over an older mapping replaces it
        m_mappings[addr] = {size, stack};
        m_mappedBytes += size;
        ++m_mappedRegions;
        grow(change(addr, size, stack, true));
    }

    // munmap: only recorded anonymous mappings count; a mapping cut in the middle lives on in
    // its remaining pieces. Returns whether anything recorded was unmapped.
    bool unmap(uint64_t addr, uint64_t length) { return unmapRange(addr, length) > 0; }

    uint64_t unmapRange(uint64_t addr, uint64_t length) {
        const uint64_t end = addr + length;
        uint64_t touched = 0;
        auto it = m_mappings.upper_bound(addr);
        if (it != m_mappings.begin()) --it;
        while (it != m_mappings.end() && it->first < end) {
            const uint64_t start = it->first, stop = it->first + it->second.m_size;
            const uint32_t stack = it->second.m_stack;
            if (stop <= addr) {
                ++it;
                continue;
            }
            ++touched;
            const uint64_t cutFrom = std::max(start, addr), cutTo = std::min(stop, end);
            it = m_mappings.erase(it);
            const bool left = start < cutFrom, right = cutTo < stop;
            if (left) m_mappings[start] = {cutFrom - start, stack};
            if (right) m_mappings[cutTo] = {stop - cutTo, stack};
            m_liveBytes -= cutTo - cutFrom;
            m_mappedBytes -= cutTo - cutFrom;
            if (!left && !right) {
                --m_liveBlocks;
                --m_mappedRegions;
                ++m_summary.m_frees;
            } else if (left && right) {  // one mapping became two pieces: the second counts as begun
                ++m_liveBlocks;
                ++m_mappedRegions;
                ++m_summary.m_allocations;
                m_summary.m_peakBlocks = std::max(m_summary.m_peakBlocks, m_liveBlocks);
            }
            if (m_observer) {
                m_observer->end(change(start, stop - start, stack, true));
                BlockChange piece = change(start, cutFrom - start, stack, true);
                piece.m_piece = true;
                if (left) m_observer->begin(piece);
                piece.m_addr = cutTo;
                piece.m_size = stop - cutTo;
                if (right) m_observer->begin(piece);
            }
            if (left || right) it = m_mappings.upper_bound(cutTo - 1);
        }
        return touched;
    }

    void resize(const Event& event) {
        const auto kindIndex = static_cast<size_t>(event.m_kind);
        if (event.m_kind == Kind::Mremap) {
            // Only mappings the log knows of; mremap of a file mapping is not heap.
            auto it = m_mappings.find(event.m_oldAddr);
            if (it == m_mappings.end()) return;
            ++m_summary.m_calls[kindIndex];
            const Mapping old = it->second;
            m_mappings.erase(it);
            m_mappedBytes -= old.m_size;
            --m_mappedRegions;
            shrink(change(event.m_oldAddr, old.m_size, old.m_stack, true));
            m_pending.push(
                {event.m_seqAfter, event.m_timeNs, event.m_addr, event.m_size, event.m_stack, event.m_tid, true});
            return;
        }
        ++m_summary.m_calls[kindIndex];
        if (event.m_oldAddr) {
            AddressTable::Entry* entry = m_blocks.find(event.m_oldAddr);
            if (entry && entry->m_live) {
                entry->m_live = false;
                shrink(change(event.m_oldAddr, entry->m_size, entry->m_stack, false));
            } else {
                ++m_summary.m_anomalies.m_unknownRealloc;
                tell(AnomalyKind::UnknownRealloc, event.m_oldAddr);
            }
        }
        if (event.m_addr)
            m_pending.push(
                {event.m_seqAfter, event.m_timeNs, event.m_addr, event.m_size, event.m_stack, event.m_tid, false});
    }

    // The new half of a resize begins at its second sequence number (format.hpp).
    void releasePendingBefore(uint64_t seq) {
        while (!m_pending.empty() && m_pending.top().m_seq < seq) {
            const Pending begin = m_pending.top();
            m_pending.pop();
            m_seq = begin.m_seq;
            m_timeNs = begin.m_timeNs;
            m_tid = begin.m_tid;
            m_callStack = begin.m_stack;
            if (begin.m_mapping)
                beginMapping(begin.m_addr, begin.m_size, begin.m_stack);
            else
                beginBlock(begin.m_addr, begin.m_size, Allocator::Malloc, begin.m_stack);
        }
    }

    struct Mapping {
        uint64_t m_size;
        uint32_t m_stack;
    };

    Summary& m_summary;
    Observer* m_observer;  // every change: the attribution and the caller's observer
    AccessAttribution* m_attribution;  // null for a log without samples
    BlockObserver* m_caller;  // the caller's, for the samples and the anomalies
    uint64_t m_seq = 0;  // of the event being applied
    uint64_t m_timeNs = 0;
    uint32_t m_tid = 0;
    uint32_t m_callStack = 0;
    AddressTable m_blocks;
    std::map<uint64_t, Mapping> m_mappings;
    std::priority_queue<Pending, std::vector<Pending>, std::greater<>> m_pending;
    uint64_t m_liveBytes = 0;  // heap blocks and mappings
    uint64_t m_liveBlocks = 0;
    uint64_t m_mappedBytes = 0;  // of those, the mappings'
    uint64_t m_mappedRegions = 0;
    RecentlyAddedSet m_sampledBlocks;  // a block a sample touched: one entry a block
    RecentlyAddedSet m_usedAfterFree;
    NumberMap<uint64_t, std::pair<uint64_t, uint32_t>> m_ticks;  // seq: time, thread
    std::vector<uint64_t> m_reuseNs;
};

// What summarize() takes from the header before the pass and from the reader after it.
Summary startSummary(const LogReader& reader);
void finishSummary(Summary& summary, const LogReader& reader);

// Whether the log's access samples need placing among the blocks (its sampler ran).
bool sampled(const LogReader& reader);

}  // namespace memlog::timeline::tally

namespace memlog::timeline {

// summarize() in steps, over a log read on as it grows (LogReader::followGrowth, before the first
// step): each step reads on from where the last one stopped (the first from the log's start)
// and tells `observer` of the blocks that began and ended; summaryNow() is what summarize()
// would say of the records read so far. Owned by one thread at a time.
class ReplayInSteps {
public:
    ReplayInSteps(LogReader& reader, BlockObserver* observer);
    ~ReplayInSteps();
    ReplayInSteps(const ReplayInSteps&) = delete;
    ReplayInSteps& operator=(const ReplayInSteps&) = delete;

    // False, with nothing told, when the log cannot be read on (LogReader::readOn): start anew.
    // A step cut short by an exception (a LogError, a progress that gave up) leaves the replay
    // unfit to go on: each step after it is false.
    bool step(const std::function<void(double)>& progress = {});
    Summary summaryNow() const;

private:
    struct State;
    std::unique_ptr<State> m_state;
};

}  // namespace memlog::timeline

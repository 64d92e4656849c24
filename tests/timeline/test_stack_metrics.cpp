// measureStacks(): what `memlog stat` and `memlog sites` print. Its pass over a log without
// samples takes the events in batches (decoded on a second thread when a core is idle: the
// decoding itself is test_record_batches.cpp's) and calls the per-stack metrics
// directly; it must count exactly what summarize() counts one event at a time, and per stack
// what a plain observer of summarize() counts.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "heap_records.hpp"
#include "log_builder.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/replay/stack_metrics.hpp"
#include "timeline/replay/block_observer.hpp"
#include "timeline/replay/summary.hpp"

using memlog::format::Kind;
using memlog::test::LogBuilder;
using memlog::test::record;
using memlog::test::resize;
using memlog::timeline::BlockChange;
using memlog::timeline::Summary;

namespace {

// Per stack, by the definitions: blocks and bytes begun (pieces munmap leaves are not new
// calls), bytes live at the first moment of the byte peak, and live at the end (heap blocks and
// mappings apart); for the whole log, the peaks of heap blocks and of mappings, each its own.
class ReferencePerStack final : public memlog::timeline::BlockObserver {
public:
    void begin(const BlockChange& change) override {
        grow(change.m_stack);
        if (!change.m_piece) {
            ++m_calls[change.m_stack];
            m_bytes[change.m_stack] += change.m_size;
        }
        m_live[change.m_stack] += change.m_size;
        ++m_liveBlocks[change.m_stack];
        if (change.m_mapping) {
            m_liveMapped[change.m_stack] += change.m_size;
            ++m_liveRegions[change.m_stack];
        }
        (change.m_mapping ? m_mapped : m_heap) += change.m_size;
        m_heapPeak = std::max(m_heapPeak, m_heap);
        m_mappedPeak = std::max(m_mappedPeak, m_mapped);
        m_total += change.m_size;
        if (m_total > m_peak) {
            m_peak = m_total;
            m_atPeak = m_live;
        }
    }
    void end(const BlockChange& change) override {
        grow(change.m_stack);
        m_live[change.m_stack] -= change.m_size;
        --m_liveBlocks[change.m_stack];
        if (change.m_mapping) {
            m_liveMapped[change.m_stack] -= change.m_size;
            --m_liveRegions[change.m_stack];
        }
        (change.m_mapping ? m_mapped : m_heap) -= change.m_size;
        m_total -= change.m_size;
    }
    void grow(uint32_t stack) {
        if (stack < m_live.size()) return;
        for (auto* values : {&m_calls, &m_bytes, &m_live, &m_liveBlocks, &m_liveMapped, &m_liveRegions})
            values->resize(stack + 1);
    }
    std::vector<uint64_t> m_calls, m_bytes, m_live, m_liveBlocks, m_liveMapped, m_liveRegions, m_atPeak;
    uint64_t m_total = 0, m_peak = 0, m_heap = 0, m_mapped = 0, m_heapPeak = 0, m_mappedPeak = 0;
};

// Three threads: mallocs, news, frees of live, ended and unknown addresses, mismatched
// releases, reallocs (of dead pointers too), mappings cut by munmap, 200 stacks.
LogBuilder mixedLog(uint64_t seed) {
    LogBuilder log;
    std::mt19937_64 random(seed);
    LogBuilder::Thread* threads[] = {&log.thread(1), &log.thread(2), &log.thread(3)};
    std::vector<uint64_t> recent(3'000, 0);
    const Kind allocators[] = {Kind::Malloc, Kind::New, Kind::NewArray, Kind::Calloc};
    const Kind releasers[] = {Kind::Free, Kind::Delete, Kind::DeleteArray};
    for (uint64_t seq = 1; seq <= 120'000; ++seq) {
        LogBuilder::Thread& t = *threads[random() % 3];
        const uint64_t stack = 1 + random() % 200;
        const unsigned what = random() % 100;
        const uint64_t addr = 0x5612'0000'0000ull + (random() % 20'000) * 32;
        if (what < 50) {
            t.heap(record(allocators[random() % 4], seq, addr, 1 + random() % 5000, stack));
            recent[random() % recent.size()] = addr;
        } else if (what < 90) {
            const uint64_t freed = random() % 6 ? recent[random() % recent.size()] : addr;
            t.heap(record(releasers[random() % 10 ? 0 : random() % 3], seq, freed, 0, stack));
        } else if (what < 96) {
            const uint64_t oldAddr = random() % 8 ? recent[random() % recent.size()] : 0;
            const uint64_t newAddr = random() % 16 ? addr : 0;
            memlog::format::HeapRecord r = resize(Kind::Realloc, seq, seq + 1, oldAddr, newAddr, newAddr ? 1 + random() % 5000 : 0);
            r.m_stack = stack;
            t.heap(r);
            if (newAddr) recent[random() % recent.size()] = newAddr;
            ++seq;
        } else {
            const uint64_t map = 0x7f00'0000'0000ull + (random() % 64) * 0x10'0000;
            if (random() % 2)
                t.heap(record(Kind::Mmap, seq, map, 0x10'0000, stack));
            else
                t.heap(record(Kind::Munmap, seq, map + (random() % 4) * 0x4'0000, 0x4'0000 * (1 + random() % 3), stack));
        }
    }
    for (uint64_t id = 1; id <= 200; ++id) threads[id % 3]->stack(id, {0x401000 + id * 16, 0x402000});
    return log;
}

}  // namespace

TEST_CASE("measureStacks in batches counts what summarize counts one event at a time") {
    for (const uint64_t seed : {1u, 2u, 3u}) {
        const std::string path = "/tmp/memlog-stack-metrics-" + std::to_string(getpid()) + ".memlog";
        mixedLog(seed).write(path);
        memlog::timeline::LogReader one(path), batched(path);
        ReferencePerStack reference;
        const Summary s = memlog::timeline::summarize(one, {}, &reference);
        const memlog::timeline::MeasuredLog measured = memlog::timeline::measureStacks(batched);
        unlink(path.c_str());
        const Summary& m = measured.m_summary;
        CHECK(s.m_events > 100'000);
        CHECK(s.m_anomalies.m_doubleFree > 100);
        CHECK(s.m_anomalies.m_unknownFree > 100);
        CHECK(s.m_anomalies.m_mismatchedFree > 100);
        CHECK(s.m_anomalies.m_unknownRealloc > 100);
        CHECK(s.m_calls[static_cast<size_t>(Kind::Munmap)] > 100);
        CHECK(m.m_events == s.m_events);
        CHECK(m.m_calls == s.m_calls);
        CHECK(m.m_allocations == s.m_allocations);
        CHECK(m.m_frees == s.m_frees);
        CHECK(m.m_peakBytes == s.m_peakBytes);
        CHECK(m.m_peakSeq == s.m_peakSeq);
        CHECK(m.m_blocksAtPeak == s.m_blocksAtPeak);
        CHECK(m.m_peakBlocks == s.m_peakBlocks);
        CHECK(m.m_leakedBytes == s.m_leakedBytes);
        CHECK(m.m_leakedBlocks == s.m_leakedBlocks);
        CHECK(m.m_mappedAtExitBytes == s.m_mappedAtExitBytes);
        CHECK(m.m_mappedAtExitRegions == s.m_mappedAtExitRegions);
        CHECK(m.m_peakHeapBytes == s.m_peakHeapBytes);
        CHECK(m.m_peakMappedBytes == s.m_peakMappedBytes);
        // The split by the definitions: the heap's and the mappings' peaks, each at its moment.
        CHECK(s.m_peakHeapBytes == reference.m_heapPeak);
        CHECK(s.m_peakMappedBytes == reference.m_mappedPeak);
        CHECK(s.m_peakMappedBytes > 0);
        CHECK(s.m_peakHeapBytes < s.m_peakBytes);
        CHECK(s.m_leakedBytes + s.m_mappedAtExitBytes == reference.m_total);
        CHECK(s.m_mappedAtExitBytes == reference.m_mapped);
        CHECK(m.m_stacks == s.m_stacks);
        CHECK(m.m_durationNs == s.m_durationNs);
        CHECK(m.m_threads == s.m_threads);
        CHECK(m.m_anomalies.total() == s.m_anomalies.total());
        CHECK(m.m_anomalies.m_doubleFree == s.m_anomalies.m_doubleFree);
        CHECK(m.m_anomalies.m_unknownFree == s.m_anomalies.m_unknownFree);
        CHECK(m.m_anomalies.m_unknownRealloc == s.m_anomalies.m_unknownRealloc);
        CHECK(m.m_anomalies.m_mismatchedFree == s.m_anomalies.m_mismatchedFree);
        REQUIRE(measured.m_stacks.size() >= reference.m_live.size());
        size_t differing = 0;
        for (size_t id = 0; id < reference.m_live.size(); ++id) {
            const memlog::timeline::StackMetrics& got = measured.m_stacks[id];
            const uint64_t atPeak = id < reference.m_atPeak.size() ? reference.m_atPeak[id] : 0;
            if (got.m_calls != reference.m_calls[id] || got.m_bytes != reference.m_bytes[id] ||
                got.m_peakBytes != atPeak || got.m_leakedBytes != reference.m_live[id] - reference.m_liveMapped[id] ||
                got.m_leakedBlocks != reference.m_liveBlocks[id] - reference.m_liveRegions[id] ||
                got.m_mappedAtExitBytes != reference.m_liveMapped[id] ||
                got.m_mappedAtExitRegions != reference.m_liveRegions[id])
                ++differing;
        }
        CHECK(differing == 0);
    }
}

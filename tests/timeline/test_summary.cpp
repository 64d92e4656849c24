// summarize(): the numbers of `memlog stat`, from hand-made logs with known answers.
#include <catch2/catch.hpp>

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "heap_records.hpp"
#include "log_builder.hpp"
#include "this_c_library.hpp"
#include "timeline/replay/access_attribution.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/replay/block_observer.hpp"
#include "timeline/replay/summary.hpp"
#include "timeline/base/text_format.hpp"

using memlog::format::Kind;
using memlog::test::LogBuilder;
using memlog::test::record;
using memlog::test::resize;
using memlog::timeline::Summary;

namespace {

Summary summarise(const LogBuilder& log, memlog::timeline::BlockObserver* observer = nullptr) {
    const std::string path = "/tmp/memlog-summary-" + std::to_string(getpid()) + ".memlog";
    log.write(path);
    memlog::timeline::LogReader reader(path);
    Summary summary = memlog::timeline::summarize(reader, {}, observer);
    unlink(path.c_str());
    return summary;
}

uint64_t calls(const Summary& s, Kind kind) { return s.m_calls[static_cast<size_t>(kind)]; }

// Where each sample of the log fell, in order.
Summary summarise(const LogBuilder& log, std::vector<memlog::timeline::Attribution>* where) {
    struct Places final : memlog::timeline::BlockObserver {
        std::vector<memlog::timeline::Attribution>* m_where;
        void begin(const memlog::timeline::BlockChange&) override {}
        void end(const memlog::timeline::BlockChange&) override {}
        void access(const memlog::timeline::AccessSample&, const memlog::timeline::Attribution& at) override {
            m_where->push_back(at);
        }
    } places;
    places.m_where = where;
    return summarise(log, &places);
}

}  // namespace

TEST_CASE("calls, peak, leaks and duration of a simple log") {
    LogBuilder log;
    log.thread(1).malloc(1, 0x1000, 100).malloc(2, 0x2000, 200).free(3, 0x1000).malloc(4, 0x3000, 50);
    const Summary s = summarise(log);
    CHECK(calls(s, Kind::Malloc) == 3);
    CHECK(calls(s, Kind::Free) == 1);
    CHECK(s.m_allocations == 3);
    CHECK(s.m_frees == 1);
    CHECK(s.m_peakBytes == 300);
    CHECK(s.m_blocksAtPeak == 2);
    CHECK(s.m_peakBlocks == 2);
    CHECK(s.m_leakedBytes == 250);
    CHECK(s.m_leakedBlocks == 2);
    CHECK(s.m_durationNs == 3 * LogBuilder::kTicksPerSeq);
    CHECK(s.m_threads == 1);
    CHECK(s.m_complete);
    CHECK(s.m_anomalies.total() == 0);
}

TEST_CASE("the byte peak keeps the blocks live at its moment, and the most blocks live at once is its own figure") {
    // The heap peaks at 125 bytes in 2 blocks, then holds 3 one-byte blocks: two maximums, two moments.
    LogBuilder log;
    log.thread(1).malloc(1, 0x1000, 100).malloc(2, 0x2000, 25).free(3, 0x1000).free(4, 0x2000);
    log.thread(1).malloc(5, 0x3000, 1).malloc(6, 0x3010, 1).malloc(7, 0x3020, 1);
    const Summary s = summarise(log);
    CHECK(s.m_peakBytes == 125);
    CHECK(s.m_peakSeq == 2);
    CHECK(s.m_blocksAtPeak == 2);
    CHECK(s.m_peakBlocks == 3);
    CHECK(memlog::timeline::peakText(s.m_peakBytes, s.m_blocksAtPeak, s.m_peakBlocks) ==
          "peak 125 B in 2 blocks \u00b7 at most 3 blocks live");
    CHECK(memlog::timeline::peakText(1 << 20, 1, 1) == "peak 1 MiB in 1 block \u00b7 at most 1 block live");
}

TEST_CASE("a realloc's old block ends before another thread reuses its address") {
    // Thread 1: realloc(0x1000 -> 0x5000) took seq 2 before the call and 4 after it.
    // Thread 2: between them, malloc returned the freed 0x1000 (seq 3).
    LogBuilder log;
    log.thread(1).malloc(1, 0x1000, 100).heap(resize(Kind::Realloc, 2, 4, 0x1000, 0x5000, 300));
    log.thread(2).malloc(3, 0x1000, 80);
    const Summary s = summarise(log);
    CHECK(s.m_anomalies.total() == 0);
    CHECK(calls(s, Kind::Realloc) == 1);
    CHECK(s.m_allocations == 3);
    CHECK(s.m_frees == 1);
    CHECK(s.m_peakBytes == 380);
    CHECK(s.m_leakedBytes == 380);
}

TEST_CASE("realloc from null only allocates, realloc to size zero only frees") {
    LogBuilder log;
    log.thread(1)
        .heap(resize(Kind::Realloc, 1, 2, 0, 0x1000, 64))
        .heap(resize(Kind::Realloc, 3, 4, 0x1000, 0, 0));
    const Summary s = summarise(log);
    CHECK(calls(s, Kind::Realloc) == 2);
    CHECK(s.m_allocations == 1);
    CHECK(s.m_frees == 1);
    CHECK(s.m_leakedBlocks == 0);
    CHECK(s.m_anomalies.total() == 0);
}

TEST_CASE("double, unknown and mismatched frees are anomalies, not calls") {
    LogBuilder log;
    auto& t = log.thread(1);
    t.malloc(1, 0x1000, 10).free(2, 0x1000).free(3, 0x1000);  // double free
    t.free(4, 0x9999);                                         // never allocated
    t.heap(record(Kind::NewArray, 5, 0x2000, 40)).heap(record(Kind::Delete, 6, 0x2000, 0));  // new[] / delete
    t.heap(resize(Kind::Realloc, 7, 8, 0x7777, 0x3000, 5));    // realloc of a dead pointer
    const Summary s = summarise(log);
    CHECK(s.m_anomalies.m_doubleFree == 1);
    CHECK(s.m_anomalies.m_unknownFree == 1);
    CHECK(s.m_anomalies.m_mismatchedFree == 1);
    CHECK(s.m_anomalies.m_unknownRealloc == 1);
    CHECK(calls(s, Kind::Free) == 1);
    CHECK(calls(s, Kind::Delete) == 1);  // it did free the block
    CHECK(s.m_leakedBytes == 5);
}

TEST_CASE("an observer is told each anomaly with its kind, moment, thread and address, as they are counted") {
    using memlog::timeline::AnomalyAt;
    using memlog::timeline::AnomalyKind;
    LogBuilder log;
    log.header().m_accessSampler = memlog::format::AccessSampler::TickThreadTimers;
    auto& t = log.thread(1);
    t.malloc(1, 0x1000, 10).free(2, 0x1000).free(3, 0x1000);  // double free at 3
    t.free(4, 0x9999);                                         // unknown free at 4
    t.heap(record(Kind::NewArray, 5, 0x2000, 40)).heap(record(Kind::Delete, 6, 0x2000, 0));  // mismatched at 6
    t.heap(resize(Kind::Realloc, 7, 8, 0x7777, 0x3000, 5));    // unknown realloc at 7
    log.thread(2).read(9, 0x1000);                             // use after free at 9, by thread 2
    struct Told final : memlog::timeline::BlockObserver {
        std::vector<AnomalyAt> m_told;
        void begin(const memlog::timeline::BlockChange&) override {}
        void end(const memlog::timeline::BlockChange&) override {}
        void anomaly(const AnomalyAt& anomaly) override { m_told.push_back(anomaly); }
    } told;
    const Summary s = summarise(log, &told);
    REQUIRE(told.m_told.size() == s.m_anomalies.total());
    REQUIRE(told.m_told.size() == 5);
    const std::vector<std::tuple<AnomalyKind, uint64_t, uint32_t, uint64_t>> expected = {
        {AnomalyKind::DoubleFree, 3, 1, 0x1000},     {AnomalyKind::UnknownFree, 4, 1, 0x9999},
        {AnomalyKind::MismatchedFree, 6, 1, 0x2000}, {AnomalyKind::UnknownRealloc, 7, 1, 0x7777},
        {AnomalyKind::UseAfterFree, 9, 2, 0x1000}};
    for (size_t i = 0; i < expected.size(); ++i) {
        const auto& [kind, seq, tid, addr] = expected[i];
        INFO(i);
        CHECK(told.m_told[i].m_kind == kind);
        CHECK(told.m_told[i].m_seq == seq);
        CHECK(told.m_told[i].m_timeNs == seq * LogBuilder::kTicksPerSeq);  // one tick a ns, from 0
        CHECK(told.m_told[i].m_tid == tid);
        CHECK(told.m_told[i].m_addr == addr);
    }
    CHECK(std::string(memlog::timeline::anomalyName(AnomalyKind::DoubleFree)) == "double free");
}

TEST_CASE("munmap cuts recorded mappings, other munmaps are ignored") {
    LogBuilder log;
    auto& t = log.thread(1);
    t.heap(record(Kind::Mmap, 1, 0x100000, 0x10000));
    t.heap(record(Kind::Munmap, 2, 0x104000, 0x1000));  // the middle: two pieces
    t.heap(record(Kind::Munmap, 3, 0x900000, 0x1000));  // a file mapping: not ours
    t.heap(resize(Kind::Mremap, 4, 5, 0x105000, 0x200000, 0x20000, 0xb000));  // second piece grows
    t.heap(record(Kind::Munmap, 6, 0x100000, 0x4000));  // first piece
    const Summary s = summarise(log);
    CHECK(calls(s, Kind::Mmap) == 1);
    CHECK(calls(s, Kind::Munmap) == 2);
    CHECK(calls(s, Kind::Mremap) == 1);
    CHECK(s.m_peakBytes == 0x4000 + 0x20000);
    CHECK(s.m_peakMappedBytes == 0x4000 + 0x20000);
    CHECK(s.m_peakHeapBytes == 0);
    CHECK(s.m_peakBlocks == 2);
    // A mapping alive at the end is not a leak: it is counted apart.
    CHECK(s.m_leakedBytes == 0);
    CHECK(s.m_leakedBlocks == 0);
    CHECK(s.m_mappedAtExitBytes == 0x20000);
    CHECK(s.m_mappedAtExitRegions == 1);
    CHECK(s.m_allocations == 3);
    CHECK(s.m_frees == 2);
    CHECK(s.m_anomalies.total() == 0);
}

TEST_CASE("lost events and stacks are counted") {
    LogBuilder log;
    log.header().m_lostEvents = 5;
    log.thread(1).stack(1, {0x1}).stack(2, {0x2, 0x3}).malloc(1, 0x1000, 8, 1).lost(7);
    const Summary s = summarise(log);
    CHECK(s.m_lostEvents == 12);
    CHECK(s.m_stacks == 2);
}

TEST_CASE("access samples: reads, writes, where they fell and blocks sampled are counted") {
    LogBuilder log;
    log.header().m_accessSampler = memlog::format::AccessSampler::TickThreadTimers;
    log.header().m_accessRate = 500;
    log.thread(1).malloc(1, 0x1000, 64).malloc(2, 0x2000, 4096).free(9, 0x1000);
    log.thread(2).threadStack(0x7000'0000, 0x7001'0000);
    log.thread(2).read(3, 0x1000).write(4, 0x2ff8).read(5, 0x2010).read(6, 0x2018);
    log.thread(2).read(7, 0x7000'8000).write(8, 0x5000);  // its own stack; nothing there
    log.thread(2).read(10, 0x1000);                        // the first block, after its free: a use after free
    const Summary s = summarise(log);
    CHECK(s.m_accessSamples == 7);
    CHECK(s.m_accessReads == 5);
    CHECK(s.m_accessWrites == 2);
    CHECK(s.m_accessHeap == 4);
    CHECK(s.m_accessStack == 1);
    CHECK(s.m_accessGlobal == 0);
    CHECK(s.m_accessOther == 1);
    CHECK(s.m_accessFreed == 1);
    CHECK(s.m_blocksSampled == 2);
    CHECK(s.m_blocksUsedAfterFree == 1);
    CHECK(s.m_accessRate == 500);
    CHECK(memlog::timeline::accessSamplerText(s) == "ticks (thread CPU timers)");
    CHECK(s.m_anomalies.m_useAfterFree == 1);
    CHECK(s.m_anomalies.total() == 1);  // a tick's sample names no block: it cannot miss one
    CHECK(s.m_events == 3);             // samples are not heap events
}

TEST_CASE("the allocator's own accesses get a region of their own: never in a block, never a use after free") {
    const memlog::test::CLibrary libc = memlog::test::thisCLibrary();
    const auto mallocHere = memlog::test::cLibraryFunction("malloc");
    const auto strlenHere = memlog::test::cLibraryFunction("strlen");
    REQUIRE(!libc.m_path.empty());
    REQUIRE(mallocHere >= libc.m_lo);
    REQUIRE(mallocHere < libc.m_hi);
    // The recorded process had its C library elsewhere: the reader finds malloc by the library's
    // symbols at the recorded bias.
    const uint64_t recordedBias = 0x7f00'0000'0000;
    const auto recorded = [&](uint64_t here) { return here - libc.m_bias + recordedBias; };
    LogBuilder log;
    log.header().m_accessSampler = memlog::format::AccessSampler::TickPerfClock;
    auto& t = log.thread(1);
    t.module(libc.m_path, recordedBias, recorded(libc.m_lo), recorded(libc.m_hi));
    t.malloc(1, 0x1000, 64).malloc(2, 0x2000, 64).free(3, 0x1000);
    auto sample = [](uint64_t seq, uint64_t addr, uint64_t ip, bool inAllocator) {
        memlog::format::AccessRecord record;
        record.m_seq = seq;
        record.m_addr = addr;
        record.m_size = 8;
        record.m_ip = ip;
        record.m_inAllocator = inAllocator;
        return record;
    };
    t.access(sample(4, 0x1000, 0x401000, true));  // a hook's real free writing its links into the freed block
    t.access(sample(5, 0x2008, 0x401000, true));  // ... or its header beside a live one
    t.access(sample(6, 0x1008, recorded(mallocHere) + 4, false));  // malloc reached without a hook
    t.access(sample(7, 0x1010, recorded(strlenHere) + 4, false));  // the C library, not its allocator
    t.access(sample(8, 0x2010, 0x401000, false));  // the program in its live block
    std::vector<memlog::timeline::Attribution> where;
    const Summary s = summarise(log, &where);
    using memlog::timeline::Region;
    REQUIRE(where.size() == 5);
    CHECK(where[0].m_region == Region::Allocator);
    CHECK(where[0].m_blockSeq == 0);
    CHECK(where[1].m_region == Region::Allocator);
    CHECK(where[1].m_blockSeq == 0);
    CHECK(where[2].m_region == Region::Allocator);
    CHECK(where[3].m_region == Region::Freed);  // strlen on a freed block: the program's use after free
    CHECK(where[4].m_region == Region::Heap);
    CHECK(s.m_accessAllocator == 3);
    CHECK(s.m_accessFreed == 1);
    CHECK(s.m_accessHeap == 1);
    CHECK(s.m_blocksSampled == 1);
    CHECK(s.m_anomalies.m_useAfterFree == 1);
    CHECK(s.m_blocksUsedAfterFree == 1);
    CHECK(std::string(memlog::timeline::regionName(Region::Allocator)) == "allocator");
}

TEST_CASE("a realloc's sample lands in the new block once the call returned, by its second sequence number") {
    LogBuilder log;
    log.header().m_accessSampler = memlog::format::AccessSampler::TickPerfClock;
    memlog::format::HeapRecord grow;
    grow.m_kind = memlog::format::Kind::Realloc;
    grow.m_seq = 3;
    grow.m_seqAfter = 5;
    grow.m_tsc = 3 * LogBuilder::kTicksPerSeq;
    grow.m_addr = 0x9000;
    grow.m_size = 256;
    grow.m_oldAddr = 0x1000;
    log.thread(1).malloc(1, 0x1000, 64).heap(grow);
    log.thread(2).read(2, 0x1008).read(4, 0x9008).read(6, 0x9008);
    std::vector<memlog::timeline::Attribution> where;
    summarise(log, &where);
    REQUIRE(where.size() == 3);
    CHECK(where[0].m_region == memlog::timeline::Region::Heap);
    CHECK(where[0].m_blockSeq == 1);
    CHECK(where[1].m_region == memlog::timeline::Region::Other);  // between the two halves of the call
    CHECK(where[2].m_region == memlog::timeline::Region::Heap);
    CHECK(where[2].m_blockSeq == 5);
    CHECK(where[2].m_offset == 8);
}

TEST_CASE("version 2 logs: a watchpoint sample outside the live block it names is an anomaly") {
    LogBuilder log;
    log.header().m_version = 2;
    log.header().m_accessSampler = memlog::format::AccessSampler::ProcessWide;
    log.thread(1).malloc(1, 0x1000, 64).free(3, 0x1000).malloc(5, 0x3000, 32);
    auto& t = log.thread(2);
    t.readVersion2(2, 1, 0x1000, 56);   // inside, while live: fine
    t.readVersion2(4, 1, 0x1000, 0);    // after the block's free
    t.writeVersion2(6, 5, 0x3000, 32);  // past the block's end
    t.writeVersion2(7, 5, 0x3008, 0);   // names a start where no block is
    const Summary s = summarise(log);
    CHECK(s.m_formatVersion == 2);
    CHECK(s.m_accessSamples == 4);
    CHECK(s.m_accessHeap == 2);  // 0x1038 in block 1; 0x3008 inside block 5 by its address
    CHECK(s.m_anomalies.m_accessOutsideBlock == 3);
    CHECK(memlog::timeline::accessSamplerText(s) == "process-wide watchpoints");
}

TEST_CASE("a sampler that could not run says why") {
    LogBuilder log;
    log.header().m_accessSampler = memlog::format::AccessSampler::Unavailable;
    std::strcpy(log.header().m_accessStatus, "perf_event_open refused (EACCES)");
    log.thread(1).malloc(1, 0x1000, 64);
    const Summary s = summarise(log);
    CHECK(memlog::timeline::accessSamplerText(s) == "unavailable: perf_event_open refused (EACCES)");
    CHECK(memlog::timeline::accessSamplerText(summarise(LogBuilder())) == "off");
}

namespace {

// What `memlog stat` counts, told by a map that keeps every address the log ever allocated: the
// reader's table forgets the ended ones in its sweeps, and must count the same.
struct ReferenceTally {
    struct Block {
        uint64_t m_size;
        Kind m_kind;
    };
    std::unordered_map<uint64_t, Block> m_live;
    std::unordered_set<uint64_t> m_ended;
    Summary m_summary;
    uint64_t m_liveBytes = 0;

    static int family(Kind kind) { return kind == Kind::New || kind == Kind::Delete ? 1 : kind == Kind::NewArray || kind == Kind::DeleteArray ? 2 : 0; }

    void begin(uint64_t seq, uint64_t addr, uint64_t size, Kind kind) {
        const auto old = m_live.find(addr);
        if (old != m_live.end()) {  // handed out twice: the old block ends
            m_liveBytes -= old->second.m_size;
            ++m_summary.m_frees;
            m_live.erase(old);
        }
        m_live[addr] = {size, kind};
        m_ended.erase(addr);
        m_liveBytes += size;
        ++m_summary.m_allocations;
        if (m_liveBytes > m_summary.m_peakBytes) {
            m_summary.m_peakBytes = m_liveBytes;
            m_summary.m_peakSeq = seq;
            m_summary.m_blocksAtPeak = m_live.size();
        }
        m_summary.m_peakBlocks = std::max<uint64_t>(m_summary.m_peakBlocks, m_live.size());
    }
    bool end(uint64_t addr) {
        const auto block = m_live.find(addr);
        if (block == m_live.end()) return false;
        m_liveBytes -= block->second.m_size;
        ++m_summary.m_frees;
        m_live.erase(block);
        m_ended.insert(addr);
        return true;
    }
    void allocate(uint64_t seq, Kind kind, uint64_t addr, uint64_t size) {
        ++m_summary.m_calls[static_cast<size_t>(kind)];
        begin(seq, addr, size, kind);
    }
    void release(Kind kind, uint64_t addr) {
        const auto block = m_live.find(addr);
        if (block == m_live.end()) {
            ++(m_ended.count(addr) ? m_summary.m_anomalies.m_doubleFree : m_summary.m_anomalies.m_unknownFree);
            return;
        }
        if (family(block->second.m_kind) != family(kind)) ++m_summary.m_anomalies.m_mismatchedFree;
        end(addr);
        ++m_summary.m_calls[static_cast<size_t>(kind)];
    }
    void reallocate(uint64_t seqAfter, uint64_t oldAddr, uint64_t addr, uint64_t size) {
        ++m_summary.m_calls[static_cast<size_t>(Kind::Realloc)];
        if (oldAddr && !end(oldAddr)) ++m_summary.m_anomalies.m_unknownRealloc;
        if (addr) begin(seqAfter, addr, size, Kind::Malloc);
    }
};

}  // namespace

TEST_CASE("a log of 20,000 live blocks, reused addresses and every kind of bad free counts as a map of every address does") {
    LogBuilder log;
    auto& t = log.thread(1, 1 << 16);
    ReferenceTally reference;
    std::mt19937_64 random(11);
    const uint64_t base = 0x5612'0000'0000ull;
    auto poolAddress = [&] { return base + (random() % 40'000) * 32; };  // 1.25 MiB of heap
    std::vector<uint64_t> recent(20'000, 0);  // addresses allocated lately: frees mostly hit them
    const Kind allocators[] = {Kind::Malloc, Kind::New, Kind::NewArray};
    const Kind releasers[] = {Kind::Free, Kind::Delete, Kind::DeleteArray};
    uint64_t seq = 1;
    for (int i = 0; i < 300'000; ++i, ++seq) {
        const unsigned what = random() % 100;
        const bool growing = i < 60'000;
        if (what < (growing ? 70u : 50u)) {
            const int family = static_cast<int>(random() % 3);
            const uint64_t addr = poolAddress(), size = 1 + random() % 4096;
            t.heap(record(allocators[family], seq, addr, size));
            reference.allocate(seq, allocators[family], addr, size);
            recent[random() % recent.size()] = addr;
        } else if (what < 92) {
            // A recent address (live, or ended: a double free), else any (perhaps never allocated).
            const uint64_t addr = random() % 5 ? recent[random() % recent.size()] : poolAddress();
            if (addr == 0) continue;
            const auto block = reference.m_live.find(addr);
            const int family = block != reference.m_live.end() && random() % 10 ? ReferenceTally::family(block->second.m_kind)
                                                                               : static_cast<int>(random() % 3);
            t.heap(record(releasers[family], seq, addr, 0));
            reference.release(releasers[family], addr);
        } else if (what < 94) {
            const uint64_t addr = 0x9000'0000ull + random() % 1000 * 16;  // never a block
            t.free(seq, addr);
            reference.release(Kind::Free, addr);
        } else {
            const uint64_t oldAddr = random() % 8 ? recent[random() % recent.size()] : 0;
            const uint64_t addr = random() % 16 ? poolAddress() : 0, size = addr ? 1 + random() % 4096 : 0;
            t.heap(resize(Kind::Realloc, seq, seq + 1, oldAddr, addr, size));
            reference.reallocate(seq + 1, oldAddr, addr, size);
            ++seq;
        }
    }
    const Summary s = summarise(log);
    const Summary& r = reference.m_summary;
    CHECK(r.m_peakBlocks > 20'000);  // the table swept and grew
    CHECK(r.m_anomalies.m_doubleFree > 1'000);
    CHECK(r.m_anomalies.m_unknownFree > 1'000);
    CHECK(r.m_anomalies.m_mismatchedFree > 1'000);
    CHECK(r.m_anomalies.m_unknownRealloc > 100);
    CHECK(s.m_calls == r.m_calls);
    CHECK(s.m_allocations == r.m_allocations);
    CHECK(s.m_frees == r.m_frees);
    CHECK(s.m_peakBytes == r.m_peakBytes);
    CHECK(s.m_peakSeq == r.m_peakSeq);
    CHECK(s.m_blocksAtPeak == r.m_blocksAtPeak);
    CHECK(s.m_peakBlocks == r.m_peakBlocks);
    CHECK(s.m_leakedBytes == reference.m_liveBytes);
    CHECK(s.m_leakedBlocks == reference.m_live.size());
    CHECK(s.m_anomalies.m_doubleFree == r.m_anomalies.m_doubleFree);
    CHECK(s.m_anomalies.m_unknownFree == r.m_anomalies.m_unknownFree);
    CHECK(s.m_anomalies.m_mismatchedFree == r.m_anomalies.m_mismatchedFree);
    CHECK(s.m_anomalies.m_unknownRealloc == r.m_anomalies.m_unknownRealloc);
}

TEST_CASE("an address's place follows the blocks: in a gap, a block, freed, handed out again smaller") {
    // The attribution keeps the places it found until a block begins or ends: each change here
    // must move the same address to its new place.
    LogBuilder log;
    log.header().m_accessSampler = memlog::format::AccessSampler::TickPerfClock;
    log.thread(1).read(1, 0x1010).malloc(2, 0x1000, 64).read(3, 0x1010).read(4, 0x1030).free(5, 0x1000);
    log.thread(1).read(6, 0x1010).malloc(7, 0x1000, 8).read(8, 0x1010).read(9, 0x1004).read(10, 0x1010);
    std::vector<memlog::timeline::Attribution> where;
    summarise(log, &where);
    using memlog::timeline::Region;
    REQUIRE(where.size() == 7);
    CHECK(where[0].m_region == Region::Other);  // no block yet
    CHECK(where[1].m_region == Region::Heap);
    CHECK(where[1].m_blockSeq == 2);
    CHECK(where[1].m_offset == 0x10);
    CHECK(where[2].m_offset == 0x30);  // the same block, its own offset
    CHECK(where[3].m_region == Region::Freed);
    CHECK(where[3].m_blockSeq == 2);
    CHECK(where[4].m_region == Region::Other);  // handed out again, 8 bytes: the freed block forgotten
    CHECK(where[5].m_region == Region::Heap);
    CHECK(where[5].m_blockSeq == 7);
    CHECK(where[5].m_offset == 4);
    CHECK(where[6].m_region == Region::Other);
}

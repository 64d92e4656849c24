// summarize(): the numbers of `memlog stat`, from hand-made logs with known answers.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstring>

#include "heap_records.hpp"
#include "log_builder.hpp"
#include "timeline/log_reader.hpp"
#include "timeline/summary.hpp"

using memlog::format::Kind;
using memlog::test::LogBuilder;
using memlog::test::record;
using memlog::test::resize;
using memlog::timeline::Summary;

namespace {

Summary summarise(const LogBuilder& log) {
    const std::string path = "/tmp/memlog-summary-" + std::to_string(getpid()) + ".memlog";
    log.write(path);
    memlog::timeline::LogReader reader(path);
    Summary summary = memlog::timeline::summarize(reader);
    unlink(path.c_str());
    return summary;
}

uint64_t calls(const Summary& s, Kind kind) { return s.m_calls[static_cast<size_t>(kind)]; }

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
    CHECK(s.m_peakBlocks == 2);
    CHECK(s.m_leakedBytes == 250);
    CHECK(s.m_leakedBlocks == 2);
    CHECK(s.m_durationNs == 3 * LogBuilder::kTicksPerSeq);
    CHECK(s.m_threads == 1);
    CHECK(s.m_complete);
    CHECK(s.m_anomalies.total() == 0);
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
    CHECK(s.m_peakBlocks == 2);
    CHECK(s.m_leakedBytes == 0x20000);
    CHECK(s.m_leakedBlocks == 1);
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

TEST_CASE("access samples: reads, writes and blocks sampled are counted") {
    LogBuilder log;
    log.header().m_accessSampler = memlog::format::AccessSampler::ProcessWide;
    log.header().m_accessRate = 500;
    log.thread(1).malloc(1, 0x1000, 64).malloc(2, 0x2000, 4096).free(9, 0x1000);
    log.thread(2).read(3, 1, 0x1000, 0).write(4, 2, 0x2000, 4088).read(5, 2, 0x2000, 16).read(6, 2, 0x2000, 24);
    const Summary s = summarise(log);
    CHECK(s.m_accessSamples == 4);
    CHECK(s.m_accessReads == 3);
    CHECK(s.m_accessWrites == 1);
    CHECK(s.m_blocksSampled == 2);
    CHECK(s.m_accessRate == 500);
    CHECK(memlog::timeline::accessSamplerText(s) == "process-wide watchpoints");
    CHECK(s.m_anomalies.total() == 0);
    CHECK(s.m_events == 3);  // samples are not heap events
}

TEST_CASE("a sample outside a block live at its moment is an anomaly") {
    LogBuilder log;
    log.thread(1).malloc(1, 0x1000, 64).free(3, 0x1000).malloc(5, 0x3000, 32);
    auto& t = log.thread(2);
    t.read(2, 1, 0x1000, 56);   // inside, while live: fine
    t.read(4, 1, 0x1000, 0);    // after the block's free
    t.write(6, 5, 0x3000, 32);  // past the block's end
    t.write(7, 5, 0x3008, 0);   // names a start where no block is
    const Summary s = summarise(log);
    CHECK(s.m_accessSamples == 4);
    CHECK(s.m_anomalies.m_accessOutsideBlock == 3);
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

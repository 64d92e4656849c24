// LogReader: merge order across threads, stacks read from their records, pages let go of,
// access samples in their place, the format versions it reads. Damaged input: test_log_damage.cpp.
#include <catch2/catch.hpp>

#include <fstream>
#include <numeric>

#include "reader_files.hpp"

using memlog::timeline::Event;
using memlog::timeline::LogError;
using memlog::timeline::LogReader;
using memlog::timeline::StackRecords;
using namespace memlog::test;

TEST_CASE("events of all threads come back in global sequence order with their fields") {
    const std::string path = tempPath("order");
    twoThreads().write(path);
    LogReader reader(path);
    std::vector<Event> events;
    reader.forEachEvent([&](const Event& e) { events.push_back(e); });
    REQUIRE(events.size() == 1200);
    for (size_t i = 0; i < events.size(); ++i) {
        CHECK(events[i].m_seq == i + 1);
        CHECK(events[i].m_tid == (i % 2 == 0 ? 100u : 200u));
        CHECK(events[i].m_timeNs == (i + 1) * LogBuilder::kTicksPerSeq);
    }
    CHECK(events[2].m_addr == 0x10040);
    CHECK(events[3].m_size == 32);
    CHECK(reader.threadCount() == 2);
    REQUIRE(reader.stacks().size() == 3);
    CHECK(reader.stacks()[1].toVector() == std::vector<uint64_t>{0x401000, 0x402000});
    CHECK(reader.stacks()[2].toVector() == std::vector<uint64_t>{0x403000});
    unlink(path.c_str());
}

TEST_CASE("stacks are read from their records when asked with the last record of an id kept") {
    // The reader keeps where each stack's frames are in the file, not a copy: the frames must
    // come back exactly, after the walk has dropped the pages it read, and after a second walk.
    const std::string path = tempPath("stacks");
    LogBuilder log;
    std::vector<uint64_t> deep;
    for (uint64_t i = 0; i < memlog::format::kMaxStackDepth; ++i) deep.push_back(i % 2 ? 0x7fff'0000'0000 + i : 0x40'0000 + i * 4096);
    log.thread(1).stack(1, {0x401000}).stack(4, deep).malloc(1, 0x1000, 16).stack(1, {0x405000, 0x406000});
    for (uint64_t i = 0; i < 5000; ++i) log.thread(1).malloc(2 + 2 * i, 0x20000 + i * 64, 48).free(3 + 2 * i, 0x20000 + i * 64);
    log.write(path);
    LogReader reader(path);
    for (int walk = 0; walk < 2; ++walk) {
        reader.forEachEvent([](const Event&) {});
        const StackRecords& stacks = reader.stacks();
        REQUIRE(stacks.size() == 5);
        CHECK(stacks.nonEmpty() == 2);
        CHECK(stacks[0].empty());
        CHECK(stacks[2].empty());  // ids without a record
        CHECK(stacks[3].toVector().empty());
        CHECK(stacks[1].toVector() == std::vector<uint64_t>{0x405000, 0x406000});  // the later record
        CHECK(stacks[4].size() == 256);
        CHECK(stacks[4].toVector() == deep);
        CHECK(stacks[4].front() == deep.front());
        CHECK(stacks[4].at(255) == deep.back());
        CHECK_THROWS_AS(stacks[4].at(256), std::out_of_range);
        CHECK_THROWS_AS(stacks.at(5), std::out_of_range);
        uint64_t sum = 0, count = 0;
        for (uint64_t frame : stacks[4]) sum += frame, ++count;
        CHECK(count == 256);
        CHECK(sum == std::accumulate(deep.begin(), deep.end(), uint64_t{0}));
    }
    unlink(path.c_str());
}

namespace {

// Resident kilobytes of this process's mappings of `path` (/proc/self/smaps).
uint64_t residentKiB(const std::string& path) {
    std::ifstream smaps("/proc/self/smaps");
    uint64_t kib = 0;
    bool inside = false;
    for (std::string line; std::getline(smaps, line);) {
        const std::string first = line.substr(0, line.find(' '));
        if (!first.empty() && first.back() != ':') {  // a mapping's line, not one of its fields
            inside = line.size() >= path.size() && line.compare(line.size() - path.size(), path.size(), path) == 0;
        } else if (inside && first == "Rss:") {
            kib += std::stoull(line.substr(4));
        }
    }
    return kib;
}

}  // namespace

TEST_CASE("a walk lets go of every page it has read by its end") {
    // Chunks read leave the process several megabytes at a time (dropRead): the last ones too.
    const std::string path = tempPath("pages");
    LogBuilder log;
    LogBuilder::Thread& thread = log.thread(1, 65536);
    for (uint64_t i = 0; i < 2'000'000; ++i)
        thread.malloc(2 * i + 1, 0x10000 + i % 4096 * 64, 48 + i % 200).free(2 * i + 2, 0x10000 + i % 4096 * 64);
    log.write(path);
    LogReader reader(path);
    REQUIRE(reader.fileBytes() > (20u << 20));
    // The opening finds the chunks by reading their headers, not through the mapping: at most
    // the header's page (and the large folio it lies in) is mapped.
    CHECK(residentKiB(path) <= 4 * 1024);
    uint64_t events = 0, walking = 0;
    reader.forEachEvent([&](const Event&) {
        if (++events % 500'000 == 0) walking = std::max(walking, residentKiB(path));
    });
    CHECK(events == 4'000'000);
    CHECK(walking > 1024);  // the walk maps what it reads...
    CHECK(residentKiB(path) <= 64);  // ...and lets go of all of it by its end
    unlink(path.c_str());
}

TEST_CASE("access samples come back in their place in the sequence, between heap events") {
    const std::string path = tempPath("accesses");
    LogBuilder log;
    // Thread 1 allocates; thread 2 reads and writes the block; thread 1 frees it.
    log.thread(1).malloc(1, 0x5000, 256).free(6, 0x5000);
    log.thread(2).threadStack(0x7f00'0000, 0x7f01'0000).read(2, 0x5000).write(4, 0x5080, 9).read(5, 0x50f8);
    log.thread(3).malloc(3, 0x9000, 64);
    log.write(path);
    LogReader reader(path);
    std::vector<std::string> order;
    std::vector<memlog::timeline::AccessSample> samples;
    reader.forEachRecord([&](const Event& e) { order.push_back("e" + std::to_string(e.m_seq)); },
                         [&](const memlog::timeline::AccessSample& a) {
                             order.push_back("a" + std::to_string(a.m_seq));
                             samples.push_back(a);
                         });
    CHECK(order == std::vector<std::string>{"e1", "a2", "e3", "a4", "a5", "e6"});
    REQUIRE(samples.size() == 3);
    CHECK(samples[1].m_tid == 2);
    CHECK(samples[1].writes());
    CHECK(samples[1].m_kind == memlog::format::AccessKind::Write);
    CHECK_FALSE(samples[0].writes());
    CHECK(samples[0].reads());
    CHECK(samples[1].m_addr == 0x5080);
    CHECK(samples[1].m_size == 8);
    CHECK(samples[1].m_stack == 9);
    CHECK(samples[1].m_source == memlog::format::AccessSource::Tick);
    CHECK_FALSE(samples[1].m_ipAfter);
    CHECK(samples[1].m_blockSeq == 0);  // the reader's attribution places it, not the record
    CHECK(samples[1].m_timeNs == 4 * LogBuilder::kTicksPerSeq);
    CHECK(samples[2].m_ip == 0x401000 + 0xf8);
    REQUIRE(reader.threadStacks().size() == 1);
    CHECK(reader.threadStacks()[0].m_tid == 2);
    CHECK(reader.threadStacks()[0].m_lo == 0x7f00'0000);
    CHECK(reader.threadStacks()[0].m_hi == 0x7f01'0000);
    // The heap-only walk skips them.
    CHECK(readAll(path).size() == 3);
    unlink(path.c_str());
}

TEST_CASE("version 2 logs are still read: their watchpoint samples name a block and the instruction after") {
    const std::string path = tempPath("version2");
    LogBuilder log;
    log.header().m_version = 2;
    log.thread(1).malloc(1, 0x5000, 256).free(4, 0x5000);
    log.thread(2).readVersion2(2, 1, 0x5000, 0x10).writeVersion2(3, 1, 0x5000, 0x80);
    log.write(path);
    LogReader reader(path);
    std::vector<memlog::timeline::AccessSample> samples;
    reader.forEachRecord({}, [&](const memlog::timeline::AccessSample& a) { samples.push_back(a); });
    REQUIRE(samples.size() == 2);
    CHECK(samples[0].m_blockSeq == 1);
    CHECK(samples[0].m_offset == 0x10);
    CHECK(samples[1].m_addr == 0x5080);
    CHECK(samples[1].writes());
    CHECK(samples[1].m_source == memlog::format::AccessSource::Watchpoint);
    CHECK(samples[1].m_ipAfter);
    CHECK(samples[1].m_size == 8);
    unlink(path.c_str());
}

TEST_CASE("a version this reader does not know is refused, naming the versions it reads") {
    const std::string path = tempPath("version9");
    LogBuilder log;
    log.header().m_version = 9;
    log.thread(1).malloc(1, 0x5000, 256);
    log.write(path);
    try {
        LogReader reader(path);
        FAIL("version 9 was accepted");
    } catch (const memlog::timeline::LogError& error) {
        CHECK(std::string(error.what()).find("unsupported format version 9 (this memlog reads 2 to 5)") !=
              std::string::npos);
    }
    unlink(path.c_str());
}

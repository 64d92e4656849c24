// LogReader::forEachBatch: the log decoded on a thread of its own, events handed on in batches
// through a ring (event_ring.hpp): the same records in the same order as forEachRecord, errors
// after the events before them, and a sink that gives up stops the decoding.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstring>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "log_builder.hpp"
#include "timeline/read/event_ring.hpp"
#include "timeline/read/log_reader.hpp"

using memlog::test::LogBuilder;
using memlog::timeline::AccessSample;
using memlog::timeline::Event;
using memlog::timeline::LogError;
using memlog::timeline::LogReader;

namespace {

std::string tempPath(const std::string& name) {
    return "/tmp/memlog-batches-" + std::to_string(getpid()) + "-" + name + ".memlog";
}

// One line per record with every field the reader fills: equal lines, equal records.
std::string eventLine(const Event& e) {
    return "e " + std::to_string(static_cast<int>(e.m_kind)) + " " + std::to_string(e.m_seq) + " " +
           std::to_string(e.m_seqAfter) + " " + std::to_string(e.m_timeNs) + " " + std::to_string(e.m_tid) + " " +
           std::to_string(e.m_addr) + " " + std::to_string(e.m_size) + " " +
           std::to_string(e.m_oldAddr) + " " + std::to_string(e.m_stack);
}

std::string sampleLine(const AccessSample& a) {
    return "a " + std::to_string(a.m_seq) + " " + std::to_string(a.m_timeNs) + " " + std::to_string(a.m_tid) + " " +
           std::to_string(a.m_addr) + " " + std::to_string(a.m_size) + " " + std::to_string(a.writes()) + " " +
           std::to_string(a.m_ip) + " " + std::to_string(a.m_stack);
}

class Lines final : public memlog::timeline::RecordSink {
public:
    explicit Lines(bool accesses, size_t throwAtBatch = 0) : m_accesses(accesses), m_throwAtBatch(throwAtBatch) {}
    void events(const Event* events, size_t count) override {
        if (++m_batches == m_throwAtBatch) throw std::runtime_error("the sink gives up");
        for (size_t i = 0; i < count; ++i) m_lines.push_back(eventLine(events[i]));
    }
    void access(const AccessSample& sample) override { m_lines.push_back(sampleLine(sample)); }
    bool wantsAccesses() const override { return m_accesses; }
    std::vector<std::string> m_lines;
    size_t m_batches = 0;

private:
    bool m_accesses;
    size_t m_throwAtBatch;
};

// Three threads, 40,000 heap events (many batches, the ring filled many times over) of every
// common kind, and samples among them.
LogBuilder busyLog() {
    LogBuilder log;
    std::mt19937_64 random(5);
    LogBuilder::Thread* threads[] = {&log.thread(1), &log.thread(2), &log.thread(3)};
    for (uint64_t seq = 1; seq <= 40'000; ++seq) {
        LogBuilder::Thread& t = *threads[random() % 3];
        const uint64_t addr = 0x5000'0000 + (random() % 4096) * 32;
        switch (random() % 5) {
            case 0:
                t.free(seq, addr, 2);
                break;
            case 1:
                t.read(seq, addr, 3);
                break;
            case 2:
                t.write(seq, addr);
                break;
            default:
                t.malloc(seq, addr, 1 + random() % 1000, static_cast<uint32_t>(1 + random() % 7));
        }
    }
    return log;
}

std::vector<std::string> oneByOne(const std::string& path, bool accesses) {
    LogReader reader(path);
    std::vector<std::string> lines;
    reader.forEachRecord([&](const Event& e) { lines.push_back(eventLine(e)); },
                         accesses ? std::function<void(const AccessSample&)>(
                                        [&](const AccessSample& a) { lines.push_back(sampleLine(a)); })
                                  : nullptr);
    return lines;
}

}  // namespace

TEST_CASE("forEachBatch hands on the same events and samples in the same order as forEachRecord") {
    const std::string path = tempPath("same");
    busyLog().write(path);
    for (const bool accesses : {true, false})
        for (const auto decoding : {LogReader::Decoding::SecondThread, LogReader::Decoding::CallingThread}) {
            const std::vector<std::string> expected = oneByOne(path, accesses);
            LogReader reader(path);
            Lines sink(accesses);
            const bool alongside = reader.forEachBatch(sink, {}, decoding);
            CHECK(alongside == (decoding == LogReader::Decoding::SecondThread));  // what -v tells
            CHECK(expected.size() > (accesses ? 39'000u : 23'000u));
            CHECK(sink.m_lines == expected);
            CHECK(sink.m_batches > 40);
        }
    unlink(path.c_str());
}

TEST_CASE("forEachBatch: a corrupt record is a LogError after the events before it") {
    std::vector<uint8_t> bytes = busyLog().bytes();
    // The first record of the twelfth chunk (chunks of 4096 bytes, round robin over the threads).
    const size_t corrupt = memlog::format::kHeaderBytes + 11 * 4096 + sizeof(memlog::format::ChunkHeader);
    bytes[corrupt] = 0x1f;  // not a kind
    const std::string path = tempPath("corrupt");
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }
    std::vector<std::string> expected;
    uint64_t expectedOffset = 0;
    try {
        LogReader reader(path);
        reader.forEachRecord([&](const Event& e) { expected.push_back(eventLine(e)); },
                             [&](const AccessSample& a) { expected.push_back(sampleLine(a)); });
        FAIL("no error one by one");
    } catch (const LogError& error) {
        expectedOffset = error.offset();
    }
    CHECK(expectedOffset == corrupt);
    CHECK(expected.size() > 1'000);
    for (const auto decoding : {LogReader::Decoding::SecondThread, LogReader::Decoding::CallingThread}) {
        LogReader reader(path);
        Lines sink(true);
        try {
            reader.forEachBatch(sink, {}, decoding);
            FAIL("no error in batches");
        } catch (const LogError& error) {
            CHECK(error.offset() == corrupt);
        }
        CHECK(sink.m_lines == expected);
    }
    unlink(path.c_str());
}

TEST_CASE("forEachBatch: a sink that throws stops the decoding thread and its error comes out") {
    const std::string path = tempPath("gives-up");
    busyLog().write(path);
    LogReader reader(path);
    Lines sink(false, 3);
    CHECK_THROWS_WITH(reader.forEachBatch(sink, {}, LogReader::Decoding::SecondThread), "the sink gives up");
    CHECK(sink.m_lines.size() == 2 * memlog::timeline::EventRing::kBatch);  // two whole batches, then the third threw
    unlink(path.c_str());
}

// LogReader::followGrowth and readOn: a log read in steps as it grows gives every record once, in
// the order one walk of the whole gives them; records held back by the cut come at the next step;
// a record that turns up before one delivered stops the reading on. A real program followed while
// it runs: tests/scenario/test_followed_log.cpp.
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>

#include "reader_files.hpp"

using memlog::timeline::Event;
using memlog::timeline::LogReader;
using memlog::timeline::RecordSink;
using namespace memlog::test;

namespace {

// What a test compares of an event: its place, its thread, its block.
struct Seen {
    uint64_t m_seq, m_addr, m_size;
    uint32_t m_tid;
    bool operator==(const Seen&) const = default;
};

class Collect final : public RecordSink {
public:
    void events(const Event* events, size_t count) override {
        for (size_t i = 0; i < count; ++i)
            m_seen.push_back({events[i].m_seq, events[i].m_addr, events[i].m_size, events[i].m_tid});
    }
    std::vector<Seen> m_seen;
};

std::vector<Seen> wholeWalk(const std::string& path) {
    LogReader reader(path);
    Collect all;
    reader.forEachBatch(all, {}, LogReader::Decoding::CallingThread);
    return all.m_seen;
}

void appendBytes(const std::string& path, const uint8_t* from, size_t bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::app);
    out.write(reinterpret_cast<const char*>(from), static_cast<std::streamsize>(bytes));
}

// Bytes written in place, the file's size unchanged (a recorder's chunks are reserved ahead).
void writeAt(const std::string& path, size_t offset, const uint8_t* from, size_t bytes) {
    std::fstream out(path, std::ios::binary | std::ios::in | std::ios::out);
    out.seekp(static_cast<std::streamoff>(offset));
    out.write(reinterpret_cast<const char*>(from), static_cast<std::streamsize>(bytes));
}

// Where thread `tid`'s chunks are in `bytes`: each chunk's offset and size.
std::vector<std::pair<size_t, size_t>> chunksOf(const std::vector<uint8_t>& bytes, uint32_t tid) {
    std::vector<std::pair<size_t, size_t>> chunks;
    for (size_t at = memlog::format::kHeaderBytes; at + sizeof(memlog::format::ChunkHeader) <= bytes.size();) {
        memlog::format::ChunkHeader header;
        std::memcpy(&header, bytes.data() + at, sizeof header);
        if (header.m_magic != memlog::format::kChunkMagic) {
            at += memlog::format::kPageBytes;
            continue;
        }
        if (header.m_tid == tid) chunks.emplace_back(at, header.m_bytes);
        at += header.m_bytes;
    }
    return chunks;
}

}  // namespace

TEST_CASE("a log that grows by pieces cut anywhere is read on to the same events as one walk of the whole") {
    // One thread, so that no cut is needed: a piece's end cuts records, chunk headers and chunks.
    LogBuilder log;
    auto& thread = log.thread(7);
    for (uint64_t i = 0; i < 3000; ++i) {
        thread.malloc(1 + 2 * i, 0x10000 + 64 * i, 16 + i % 100, static_cast<uint32_t>(1 + i / 1000));
        if (i % 1000 == 0) thread.stack(1 + i / 1000, {0x401000 + i, 0x402000});
        if (i % 3 == 0) thread.free(2 + 2 * i, 0x10000 + 64 * i);
    }
    const std::vector<uint8_t> bytes = log.bytes();
    const std::string whole = tempPath("growth-whole"), path = tempPath("growth");
    writeBytes(whole, bytes);
    const std::vector<Seen> expected = wholeWalk(whole);
    REQUIRE(expected.size() == 4000);

    size_t written = memlog::format::kHeaderBytes + 100;
    writeBytes(path, std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(written)));
    LogReader reader(path);
    reader.followGrowth([] { return UINT64_MAX; });
    Collect followed;
    reader.forEachBatch(followed, {}, LogReader::Decoding::CallingThread);
    size_t steps = 0, stepsThatGave = 0;
    while (written < bytes.size()) {
        const size_t piece = std::min<size_t>(397, bytes.size() - written);  // odd: cuts records anywhere
        appendBytes(path, bytes.data() + written, piece);
        written += piece;
        const size_t before = followed.m_seen.size();
        REQUIRE(reader.readOn(followed));
        ++steps;
        stepsThatGave += followed.m_seen.size() > before;
    }
    CHECK(followed.m_seen == expected);
    CHECK(steps > 60);
    CHECK(stepsThatGave > 50);
    // The stacks read on too, each as its record gave it.
    REQUIRE(reader.stacks().size() == 4);
    CHECK(reader.stacks()[3].toVector() == std::vector<uint64_t>{0x401000 + 2000, 0x402000});
    CHECK(!reader.whereReadingStopped());  // whole now: nothing torn
    unlink(whole.c_str());
    unlink(path.c_str());
}

TEST_CASE("the cut holds back every record from the first one at or after it, and the next step gives them") {
    LogBuilder log;
    auto& a = log.thread(100);
    auto& b = log.thread(200);
    auto& c = log.thread(300);
    for (uint64_t i = 0; i < 900; ++i) {
        (i % 3 == 0 ? a : i % 3 == 1 ? b : c).malloc(1 + i, 0x10000 + 64 * i, 32);
    }
    const std::string path = tempPath("cut");
    log.write(path);
    const std::vector<Seen> expected = wholeWalk(path);
    REQUIRE(expected.size() == 900);

    // Each record's TSC is its sequence number times kTicksPerSeq: cuts between records 250 and
    // 251, 251 and 252 (one record), 252 and 253 (none more: the cut stays), then 700 and 701.
    std::vector<uint64_t> cuts = {251, 252, 252, 701};
    for (uint64_t& cut : cuts) cut *= LogBuilder::kTicksPerSeq;
    size_t step = 0;
    LogReader reader(path);
    reader.followGrowth([&] { return cuts.at(step); });
    Collect followed;
    reader.forEachBatch(followed, {}, LogReader::Decoding::SecondThread);
    CHECK(followed.m_seen.size() == 250);
    std::vector<size_t> counts;
    for (step = 1; step < cuts.size(); ++step) {
        REQUIRE(reader.readOn(followed));
        counts.push_back(followed.m_seen.size());
    }
    CHECK(counts == std::vector<size_t>{251, 251, 700});
    cuts.push_back(UINT64_MAX);  // the program ended: everything
    REQUIRE(reader.readOn(followed));
    CHECK(followed.m_seen == expected);
    unlink(path.c_str());
}

TEST_CASE("chunks that appear in pages that were empty, between chunks and after them, are read on") {
    // Thread 1's chunks first (records 1 to 2000), then thread 2's (2001 to 4000) between them and
    // after: the file at its full size from the start, thread 2's pages all zeros, as a
    // recorder's reserved chunks are before their thread writes its header.
    LogBuilder log;
    auto& first = log.thread(1);
    auto& second = log.thread(2);
    for (uint64_t i = 0; i < 2000; ++i) first.malloc(1 + i, 0x10000 + 64 * i, 48);
    for (uint64_t i = 0; i < 2000; ++i) second.malloc(2001 + i, 0x900000 + 64 * i, 48);
    const std::vector<uint8_t> bytes = log.bytes();
    const auto chunks = chunksOf(bytes, 2);
    REQUIRE(chunks.size() >= 2);
    REQUIRE(chunks.front().first < chunksOf(bytes, 1).back().first);  // one of them between
    std::vector<uint8_t> reserved = bytes;
    for (const auto& [offset, size] : chunks)
        std::fill_n(reserved.begin() + static_cast<std::ptrdiff_t>(offset), size, 0);
    const std::string path = tempPath("reserved");
    writeBytes(path, reserved);
    const std::vector<Seen> expected = [&] {
        writeBytes(path + ".whole", bytes);
        return wholeWalk(path + ".whole");
    }();

    LogReader reader(path);
    reader.followGrowth([] { return UINT64_MAX; });
    Collect followed;
    reader.forEachBatch(followed, {}, LogReader::Decoding::CallingThread);
    CHECK(followed.m_seen.size() == 2000);
    REQUIRE(reader.readOn(followed));  // nothing new
    CHECK(followed.m_seen.size() == 2000);
    for (const auto& [offset, size] : chunks) writeAt(path, offset, bytes.data() + offset, size);
    REQUIRE(reader.readOn(followed));
    CHECK(followed.m_seen == expected);
    CHECK(reader.threadCount() == 2);
    unlink(path.c_str());
    unlink((path + ".whole").c_str());
}

TEST_CASE("a record that turns up before one already delivered stops the reading on, nothing delivered") {
    LogBuilder log;
    auto& early = log.thread(1);
    auto& late = log.thread(2);
    for (uint64_t i = 0; i < 50; ++i) {
        early.malloc(1 + 2 * i, 0x10000 + 64 * i, 48);
        late.malloc(2 + 2 * i, 0x900000 + 64 * i, 48);
    }
    const std::vector<uint8_t> bytes = log.bytes();
    const auto chunks = chunksOf(bytes, 2);
    REQUIRE(chunks.size() == 1);
    const auto [offset, size] = chunks.front();
    std::vector<uint8_t> written = bytes;
    // Thread 2's records not written yet (its header is): with no cut, thread 1's are delivered.
    std::fill_n(written.begin() + static_cast<std::ptrdiff_t>(offset + sizeof(memlog::format::ChunkHeader)),
                size - sizeof(memlog::format::ChunkHeader), 0);
    const std::string path = tempPath("out-of-step");
    writeBytes(path, written);
    LogReader reader(path);
    reader.followGrowth([] { return UINT64_MAX; });
    Collect followed;
    reader.forEachBatch(followed, {}, LogReader::Decoding::CallingThread);
    CHECK(followed.m_seen.size() == 50);
    writeAt(path, offset, bytes.data() + offset, size);
    CHECK(!reader.readOn(followed));
    CHECK(followed.m_seen.size() == 50);
    CHECK(!reader.readOn(followed));  // and stays so: the log is read anew
    unlink(path.c_str());
}

TEST_CASE("a followed log replaced, cut shorter, or never followed is not read on") {
    const std::string path = tempPath("not-on");
    twoThreads().write(path);
    {
        LogReader reader(path);
        Collect all;
        reader.forEachBatch(all, {}, LogReader::Decoding::CallingThread);
        CHECK(!reader.readOn(all));  // no followGrowth
    }
    {
        LogReader reader(path);
        reader.followGrowth();
        Collect all;
        reader.forEachBatch(all, {}, LogReader::Decoding::CallingThread);
        CHECK(all.m_seen.size() == 1200);  // a built log starts at the boot: the cut is long after
        twoThreads().write(path + ".new");
        REQUIRE(rename((path + ".new").c_str(), path.c_str()) == 0);
        CHECK(!reader.readOn(all));
    }
    {
        LogReader reader(path);
        reader.followGrowth();
        Collect all;
        reader.forEachBatch(all, {}, LogReader::Decoding::CallingThread);
        REQUIRE(truncate(path.c_str(), 8192) == 0);
        CHECK(!reader.readOn(all));
    }
    unlink(path.c_str());
}

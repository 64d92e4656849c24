// LogReader on damaged input: torn tails read up to the tear, bad input named with its offset,
// damaged chunk headers skipped and told, a log cut while read, random damage.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "reader_files.hpp"
#include "timeline/base/sigbus_guard.hpp"
#include "timeline/replay/stack_metrics.hpp"

using memlog::timeline::Event;
using memlog::timeline::LogError;
using memlog::timeline::LogReader;
using namespace memlog::test;

TEST_CASE("a log cut at any byte reads up to the tear and never throws") {
    LogBuilder log;
    auto& t = log.thread(7, 8192);
    for (uint64_t i = 1; i <= 300; ++i) t.malloc(i, 0x4000 + i * 32, 24 + i);
    const std::vector<uint8_t> whole = log.bytes();
    const std::string path = tempPath("torn");
    size_t previous = 0;
    for (size_t cut = memlog::format::kHeaderBytes; cut <= whole.size(); cut += 7) {
        writeBytes(path, std::vector<uint8_t>(whole.begin(), whole.begin() + static_cast<long>(cut)));
        std::vector<Event> events;
        REQUIRE_NOTHROW(events = readAll(path));
        // Whatever survived is a prefix of the sequence, and longer cuts keep more.
        for (size_t i = 0; i < events.size(); ++i) REQUIRE(events[i].m_seq == i + 1);
        REQUIRE(events.size() >= previous);
        previous = events.size();
    }
    CHECK(previous == 300);
    unlink(path.c_str());
}

TEST_CASE("a log with access samples cut at any byte reads a prefix of events and samples") {
    LogBuilder log;
    auto& t = log.thread(7, 4096);
    for (uint64_t i = 0; i < 200; ++i) {
        t.malloc(2 * i + 1, 0x4000 + i * 64, 64);
        if (i % 2) t.write(2 * i + 2, 0x4000 + i * 64 + 8);
        else t.read(2 * i + 2, 0x4000 + i * 64 + 56);
    }
    const std::vector<uint8_t> whole = log.bytes();
    const std::string path = tempPath("torn-access");
    size_t previous = 0;
    for (size_t cut = memlog::format::kHeaderBytes; cut <= whole.size(); cut += 5) {
        writeBytes(path, std::vector<uint8_t>(whole.begin(), whole.begin() + static_cast<long>(cut)));
        std::vector<uint64_t> seqs;
        REQUIRE_NOTHROW(seqs = sequenceOfRecords(path));
        for (size_t i = 0; i < seqs.size(); ++i) REQUIRE(seqs[i] == i + 1);
        REQUIRE(seqs.size() >= previous);
        previous = seqs.size();
    }
    CHECK(previous == 400);
    unlink(path.c_str());
}

namespace {

// The file offset of the `index`th (0-based) malloc record of a one-thread log's first chunk.
size_t mallocRecordOffset(const std::vector<uint8_t>& bytes, int index) {
    size_t at = memlog::format::kHeaderBytes + sizeof(memlog::format::ChunkHeader);
    for (int record = 0; record < index; ++record) {
        const uint8_t* cursor = bytes.data() + at + 1;
        memlog::format::HeapRecord r;
        memlog::format::ChunkCursorState scratch;  // the payload's length depends on the tag alone
        REQUIRE(memlog::format::decodeHeapPayload(&cursor, bytes.data() + bytes.size(), bytes[at], r, scratch));
        at = static_cast<size_t>(cursor - bytes.data());
    }
    return at;
}

}  // namespace

TEST_CASE("a torn tail is read up to and the reader says where it stopped") {
    LogBuilder log;
    auto& t = log.thread(7);
    for (uint64_t i = 1; i <= 10; ++i) t.malloc(i, 0x4000 + i * 32, 100);
    const std::vector<uint8_t> whole = log.bytes();
    const size_t tenth = mallocRecordOffset(whole, 9);
    const size_t end = mallocRecordOffset(whole, 10);
    const std::string path = tempPath("stopped");
    auto walk = [&](const std::vector<uint8_t>& bytes, size_t expectedEvents) {
        writeBytes(path, bytes);
        LogReader reader(path);
        size_t events = 0;
        reader.forEachEvent([&](const Event&) { ++events; });
        CHECK(events == expectedEvents);
        return reader.whereReadingStopped();
    };
    SECTION("the whole log: read through, nothing said") { CHECK_FALSE(walk(whole, 10)); }
    SECTION("cut inside the last record: stopped at that record") {
        const auto stopped = walk({whole.begin(), whole.begin() + static_cast<long>(tenth + 3)}, 9);
        REQUIRE(stopped);
        CHECK(*stopped == path + ": offset " + std::to_string(tenth) +
                              ": a record cut by the end of the file or damaged (torn tail); read up to here");
    }
    SECTION("the last record damaged: stopped at that record") {
        std::vector<uint8_t> damaged = whole;
        for (size_t i = tenth + 1; i < damaged.size(); ++i) damaged[i] = 0xff;  // a varint that never ends
        const auto stopped = walk(damaged, 9);
        REQUIRE(stopped);
        CHECK(stopped->find(": offset " + std::to_string(tenth) + ": a record cut") != std::string::npos);
    }
    SECTION("cut between two records: stopped where the file ends, inside its chunk") {
        const auto stopped = walk({whole.begin(), whole.begin() + static_cast<long>(tenth)}, 9);
        REQUIRE(stopped);
        CHECK(*stopped == path + ": offset " + std::to_string(tenth) +
                              ": the file ends inside a chunk (cut short); read up to here");
    }
    SECTION("cut in the chunk's unwritten space: every record read, nothing said") {
        CHECK_FALSE(walk({whole.begin(), whole.begin() + static_cast<long>(end + 5)}, 10));
    }
    unlink(path.c_str());
}

TEST_CASE("a record that was being written (tag still zero) ends its chunk quietly") {
    LogBuilder log;
    auto& t = log.thread(7);
    for (uint64_t i = 1; i <= 10; ++i) t.malloc(i, 0x4000 + i * 32, 100);
    std::vector<uint8_t> bytes = log.bytes();
    // Find the 6th record's tag and clear it, as a crash between payload and tag would leave it.
    size_t at = memlog::format::kHeaderBytes + sizeof(memlog::format::ChunkHeader);
    for (int record = 0; record < 5; ++record) {
        const uint8_t* cursor = bytes.data() + at + 1;
        memlog::format::HeapRecord r;
        // Skip by decoding with a throwaway state: the payload's length depends on the tag alone.
        memlog::format::ChunkCursorState scratch;
        REQUIRE(memlog::format::decodeHeapPayload(&cursor, bytes.data() + bytes.size(), bytes[at], r, scratch));
        at = static_cast<size_t>(cursor - bytes.data());
    }
    bytes[at] = 0;
    const std::string path = tempPath("zero-tag");
    writeBytes(path, bytes);
    CHECK(readAll(path).size() == 5);
    unlink(path.c_str());
}

TEST_CASE("a corrupt record in the middle of the file is an error naming its offset") {
    std::vector<uint8_t> bytes = twoThreads().bytes();
    const size_t firstRecord = memlog::format::kHeaderBytes + sizeof(memlog::format::ChunkHeader);
    bytes[firstRecord] = 0x1f;  // not a kind
    const std::string path = tempPath("corrupt");
    writeBytes(path, bytes);
    try {
        readAll(path);
        FAIL("no error");
    } catch (const LogError& error) {
        CHECK(error.offset() == firstRecord);
        CHECK(std::string(error.what()).find(path) == 0);
        CHECK(std::string(error.what()).find("offset " + std::to_string(firstRecord)) != std::string::npos);
    }
    unlink(path.c_str());
}

TEST_CASE("files that are not memlog logs are refused with the path and an offset") {
    const std::string path = tempPath("foreign");
    SECTION("missing") { CHECK_THROWS_AS(LogReader(tempPath("does-not-exist")), LogError); }
    SECTION("empty") {
        writeBytes(path, {});
        CHECK_THROWS_AS(LogReader(path), LogError);
    }
    SECTION("another format") {
        writeBytes(path, std::vector<uint8_t>(8192, 'x'));
        CHECK_THROWS_WITH(LogReader(path), Catch::Contains("not a memlog log") && Catch::Contains("offset 0"));
    }
    SECTION("a newer version") {
        LogBuilder log;
        log.header().m_version = 99;
        log.write(path);
        CHECK_THROWS_WITH(LogReader(path), Catch::Contains("version 99"));
    }
    SECTION("header cut short") {
        std::vector<uint8_t> bytes = LogBuilder().bytes();
        bytes.resize(100);
        writeBytes(path, bytes);
        CHECK_THROWS_WITH(LogReader(path), Catch::Contains("offset 100"));
    }
    unlink(path.c_str());
}

TEST_CASE("empty pages between chunks are skipped") {
    LogBuilder log;
    log.thread(1).malloc(1, 0x1000, 10);
    std::vector<uint8_t> bytes = log.bytes();
    // Insert a zero page (reserved, never written) before the chunk.
    bytes.insert(bytes.begin() + memlog::format::kHeaderBytes, memlog::format::kPageBytes, 0);
    const std::string path = tempPath("gap");
    writeBytes(path, bytes);
    CHECK(readAll(path).size() == 1);
    unlink(path.c_str());
}

namespace {

// How many heap records the chunk at `chunk` holds (records up to its first zero tag).
size_t recordsInChunk(const std::vector<uint8_t>& bytes, size_t chunk, uint32_t chunkBytes) {
    const uint8_t* at = bytes.data() + chunk + sizeof(memlog::format::ChunkHeader);
    const uint8_t* end = bytes.data() + chunk + chunkBytes;
    size_t records = 0;
    while (at < end && *at != 0) {
        const uint8_t* cursor = at + 1;
        memlog::format::HeapRecord r;
        memlog::format::ChunkCursorState scratch;  // the payload's length depends on the tag alone
        REQUIRE(memlog::format::decodeHeapPayload(&cursor, end, *at, r, scratch));
        at = cursor;
        ++records;
    }
    return records;
}

}  // namespace

TEST_CASE("a damaged chunk header in the middle of a log is skipped, and the reader says where and how much") {
    using memlog::format::kHeaderBytes;
    const uint32_t chunkBytes = GENERATE(4096u, 16384u);
    INFO("chunks of " << chunkBytes << " bytes");
    const size_t events = 14000;
    LogBuilder log;
    auto& t = log.thread(7, chunkBytes);
    for (uint64_t i = 1; i <= events; ++i) t.malloc(i, 0x4000 + i * 32, 24 + i);
    const std::vector<uint8_t> whole = log.bytes();
    REQUIRE(whole.size() >= kHeaderBytes + 5 * chunkBytes);  // five chunks at least: the fourth is not the last
    const size_t second = kHeaderBytes + chunkBytes;  // the second chunk's header
    const size_t fourth = kHeaderBytes + 3 * chunkBytes;
    const size_t firstRecords = recordsInChunk(whole, kHeaderBytes, chunkBytes);
    const size_t secondRecords = recordsInChunk(whole, second, chunkBytes);
    REQUIRE(secondRecords > 0);
    const std::string path = tempPath("damaged-chunk");
    std::vector<uint64_t> seqs;
    auto read = [&](const std::vector<uint8_t>& bytes) {
        writeBytes(path, bytes);
        LogReader reader(path);
        seqs.clear();
        reader.forEachEvent([&](const Event& e) { seqs.push_back(e.m_seq); });
        CHECK_FALSE(reader.whereReadingStopped());  // read to the end: nothing torn
        return reader.whatWasSkipped();
    };
    // Exactly the second chunk's records are missing: the ones before and after it are all read.
    auto secondChunkMissing = [&] {
        REQUIRE(seqs.size() == events - secondRecords);
        for (size_t i = 0; i < seqs.size(); ++i)
            REQUIRE(seqs[i] == (i < firstRecords ? i + 1 : i + 1 + secondRecords));
    };
    const std::string resumed = " bytes skipped, read on from offset " + std::to_string(second + chunkBytes);
    const std::string neither = ": a page that is neither a chunk nor empty (a damaged chunk header?); ";

    SECTION("whole: every record, nothing said") {
        CHECK_FALSE(read(whole));
        CHECK(seqs.size() == events);
    }
    SECTION("its magic damaged: the chunk's pages are skipped together") {
        std::vector<uint8_t> bytes = whole;
        bytes[second] ^= 0x5a;
        const auto skipped = read(bytes);
        REQUIRE(skipped);
        CHECK(*skipped == path + ": offset " + std::to_string(second) + neither + std::to_string(chunkBytes) + resumed);
        secondChunkMissing();
    }
    SECTION("the whole header zeroed, its records behind it") {
        std::vector<uint8_t> bytes = whole;
        std::memset(bytes.data() + second, 0, sizeof(memlog::format::ChunkHeader));
        const auto skipped = read(bytes);
        REQUIRE(skipped);
        CHECK(*skipped == path + ": offset " + std::to_string(second) + neither + std::to_string(chunkBytes) + resumed);
        secondChunkMissing();
    }
    SECTION("a size that is no chunk's: not a power of two, or one bit flipped high (it would swallow the rest)") {
        const uint32_t size = GENERATE(0u, 3u * 4096u, 4096u + 7u, (1u << 24) | 4096u, 1u << 31);
        INFO("size " << size);
        std::vector<uint8_t> bytes = whole;
        std::memcpy(bytes.data() + second + 4, &size, sizeof size);
        const auto skipped = read(bytes);
        REQUIRE(skipped);
        CHECK(*skipped == path + ": offset " + std::to_string(second) + ": a chunk header with an impossible size (" +
                              std::to_string(size) + "); " + std::to_string(chunkBytes) + resumed);
        secondChunkMissing();
    }
    SECTION("two damaged headers: the first named, both counted") {
        std::vector<uint8_t> bytes = whole;
        bytes[second + 1] ^= 0x01;
        bytes[fourth + 2] ^= 0x80;
        const auto skipped = read(bytes);
        REQUIRE(skipped);
        CHECK(*skipped == path + ": offset " + std::to_string(second) + neither + std::to_string(chunkBytes) + resumed +
                              " (and 1 more such place: " + std::to_string(2 * chunkBytes) +
                              " bytes skipped in all)");
    }
    SECTION("the last chunk's header damaged: skipped to the end of the file") {
        std::vector<uint8_t> bytes = whole;
        const size_t last = whole.size() - chunkBytes;
        bytes[last + 3] = 0;
        // The skip ends at the chunk's first unwritten (zero) page, or at the end of the file.
        size_t end = last + memlog::format::kPageBytes;
        while (end < whole.size() && std::any_of(whole.begin() + static_cast<long>(end),
                                                 whole.begin() + static_cast<long>(end + memlog::format::kPageBytes),
                                                 [](uint8_t byte) { return byte != 0; }))
            end += memlog::format::kPageBytes;
        const auto skipped = read(bytes);
        REQUIRE(skipped);
        CHECK(*skipped == path + ": offset " + std::to_string(last) + neither + std::to_string(end - last) +
                              (end == whole.size() ? " bytes skipped, to the end of the file"
                                                   : " bytes skipped, read on from offset " + std::to_string(end)));
    }
    SECTION("a header being written (its fields stored, not yet its magic, no record): quiet") {
        std::vector<uint8_t> bytes = whole;
        std::vector<uint8_t> page(memlog::format::kPageBytes, 0);
        const memlog::format::ChunkHeader header{0, 4096, 7, 0};
        std::memcpy(page.data(), &header, sizeof header);
        bytes.insert(bytes.begin() + static_cast<long>(second), page.begin(), page.end());
        CHECK_FALSE(read(bytes));
        CHECK(seqs.size() == events);
    }
    unlink(path.c_str());
}

TEST_CASE("a log cut short by another program while it is read: the file and the offset, status 2, no crash") {
    using memlog::format::kHeaderBytes;
    LogBuilder log;
    auto& t = log.thread(7, 4096);
    for (uint64_t i = 1; i <= 3000; ++i) t.malloc(i, 0x4000 + i * 32, 24 + i);
    const std::vector<uint8_t> whole = log.bytes();
    REQUIRE(whole.size() > kHeaderBytes + 8192);
    const std::string path = tempPath("cut-while-read");
    writeBytes(path, whole);
    int toParent[2];
    REQUIRE(pipe(toParent) == 0);
    const pid_t child = fork();
    if (child == 0) {
        dup2(toParent[1], STDERR_FILENO);
        memlog::timeline::exitWhenALogIsCutWhileRead("reader");
        LogReader reader(path);  // maps the whole file
        if (truncate(path.c_str(), kHeaderBytes + 4096) != 0) _exit(3);
        reader.forEachEvent([](const Event&) {});
        _exit(0);  // read to the end: the cut went unnoticed
    }
    close(toParent[1]);
    std::string said;
    char buffer[512];
    for (ssize_t n; (n = read(toParent[0], buffer, sizeof buffer)) > 0;) said.append(buffer, static_cast<size_t>(n));
    close(toParent[0]);
    int status = 0;
    waitpid(child, &status, 0);
    INFO(said);
    REQUIRE(WIFEXITED(status));  // not killed by SIGBUS
    CHECK(WEXITSTATUS(status) == 2);
    const std::string named = "reader: " + path + ": offset ";
    REQUIRE(said.rfind(named, 0) == 0);
    const uint64_t offset = std::stoull(said.substr(named.size()));
    CHECK(offset >= kHeaderBytes + 4096);  // where the file no longer reaches
    CHECK(offset < whole.size());
    CHECK(said.find(": the file was cut short while being read (by another program?); the log cannot be read\n") !=
          std::string::npos);
    unlink(path.c_str());
}

TEST_CASE("random damage anywhere in a log gives events or a LogError, never a crash or a hang") {
    LogBuilder log;
    auto& a = log.thread(1, 8192);
    auto& b = log.thread(2, 4096);
    auto& c = log.thread(3, 4096);
    for (uint64_t i = 1; i <= 400; i += 2) {
        a.malloc(i, 0x1000 + i * 16, i, static_cast<uint32_t>(i % 7));
        b.free(i + 1, 0x1000 + (i - 1) * 16);
        if (i % 8 == 1) c.read(1000 + i, 0x1000 + i * 16);
    }
    a.stack(1, {0x400100, 0x400200}).stack(3, {0x400300});
    const std::vector<uint8_t> pristine = log.bytes();
    const std::string path = tempPath("fuzz");
    uint64_t state = 0x12345678abcdefull;
    auto next = [&] {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state;
    };
    int errors = 0;
    for (int trial = 0; trial < 300; ++trial) {
        std::vector<uint8_t> damaged = pristine;
        for (int hit = 0; hit < 1 + trial % 8; ++hit) {
            const size_t at = memlog::format::kHeaderBytes + next() % (damaged.size() - memlog::format::kHeaderBytes);
            damaged[at] = static_cast<uint8_t>(next());
        }
        writeBytes(path, damaged);
        try {
            sequenceOfRecords(path);
        } catch (const LogError& error) {
            ++errors;
            REQUIRE(error.offset() < damaged.size());
        }
    }
    CHECK(errors > 0);  // damage is noticed at least sometimes, and nothing else escaped
    unlink(path.c_str());
}

// Found by scripts/damage-logs: a damaged stack field made `memlog stat` size its per-stack table
// by it (std::bad_alloc, exit 134). The reader now refuses an id far beyond the stacks it read.
TEST_CASE("a stack id far beyond the stacks read is a corrupt record, not gigabytes of tables") {
    const uint64_t firstRecord = memlog::format::kHeaderBytes + sizeof(memlog::format::ChunkHeader);
    const std::string path = tempPath("stack-id");
    SECTION("a heap record's, before more data: an error at its offset") {
        LogBuilder log;
        log.thread(1).malloc(1, 0x1000, 16, 0xffff'fff0u);
        log.thread(2).malloc(2, 0x2000, 16);
        log.write(path);
        LogReader reader(path);
        CHECK_THROWS_WITH(memlog::timeline::measureStacks(reader),
                          Catch::Contains("offset " + std::to_string(firstRecord) + ": corrupt malloc record"));
    }
    SECTION("an access sample's, before more data: an error at its offset") {
        LogBuilder log;
        memlog::format::AccessRecord sample;
        sample.m_seq = 1;
        sample.m_addr = 0x1000;
        sample.m_size = 8;
        sample.m_stack = 1ull << 40;
        log.thread(1).access(sample);
        log.thread(2).malloc(2, 0x2000, 16);
        log.write(path);
        LogReader reader(path);
        CHECK_THROWS_WITH(memlog::timeline::measureStacks(reader),
                          Catch::Contains("offset " + std::to_string(firstRecord) + ": corrupt access record"));
    }
    SECTION("in the last chunk: read up to it, as a torn tail") {
        LogBuilder log;
        log.thread(1).stack(1, {0x401000}).malloc(1, 0x1000, 16, 1).malloc(2, 0x2000, 16, 0xffff'fff0u);
        log.write(path);
        LogReader reader(path);
        const memlog::timeline::MeasuredLog measured = memlog::timeline::measureStacks(reader);
        CHECK(measured.m_summary.m_allocations == 1);
        CHECK(measured.m_stacks.size() == 2);
    }
    unlink(path.c_str());
}

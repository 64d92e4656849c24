// The parts inside an index file (timeline/model/model_file.hpp), as the writer places them and
// the reader finds them: a full trace's access samples first, written once, its blocks after
// them; stretches of more than 2 GiB read whole; the samples' summary kept, mapped and checked;
// what the writer makes while placing the parts made over none of them; and samples out of time
// order known to be.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "index_files.hpp"
#include "timeline/base/huge_pages.hpp"
#include "timeline/model/block_store.hpp"
#include "timeline/model/model_file.hpp"

using namespace memlog::timeline;
using namespace memlog::test::index;

TEST_CASE("log index: a full trace's access samples lead its index, written once, its blocks after them") {
    const Folder folder("trace");
    const std::string path = folder.m_path + "/app.memlog", index = path + ".index";
    memlog::test::writeBytes(path, randomLog(1, 200'000, memlog::format::AccessSampler::FullTrace));
    const Opened built = openThroughIndex(path);
    REQUIRE(built.m_built);
    checkSameModel(built.m_model, path);
    REQUIRE(built.m_model.size() > BlockStore::kChunkBlocks);  // two chunks copied in
    // The file begins with the samples, as the walk wrote them; the trailer's seventh word says
    // where the chunks begin: past them, on a page boundary.
    const std::span<const AccessMark> marks = built.m_model.accessMarks();
    std::vector<AccessMark> leading(2);
    std::ifstream(index, std::ios::binary).read(reinterpret_cast<char*>(leading.data()), 2 * sizeof(AccessMark));
    CHECK(std::memcmp(leading.data(), marks.data(), 2 * sizeof(AccessMark)) == 0);
    uint64_t chunksOffset = 0;
    std::ifstream(index, std::ios::binary)
        .seekg(static_cast<std::streamoff>(fs::file_size(index) - 64 + 48))
        .read(reinterpret_cast<char*>(&chunksOffset), sizeof chunksOffset);
    CHECK(chunksOffset >= marks.size() * sizeof(AccessMark));
    CHECK(chunksOffset % 4096 == 0);
    const Opened read = openThroughIndex(path);
    CHECK_FALSE(read.m_built);
    CHECK(read.m_warnings.empty());
    checkSameModel(read.m_model, path);
    // The blocks are read from there: one changed there is found.
    const uint64_t words[5] = {0x1000, ~0ull, ~0ull, 64, 1};  // stack 0xffffffff
    overwrite(index, chunksOffset + sizeof(Block) * 7, words, sizeof words);
    const Opened damaged = openThroughIndex(path);
    CHECK(told(damaged, "block 7 names a stack the log does not have"));
    checkSameModel(damaged.m_model, path);
}

TEST_CASE("log index: a stretch of more than 2 GiB is read whole (Linux reads at most 2 GiB a call)") {
    // A full trace's rest holds its every access: 6 GB for sqlite3's 62 M, which one pread cut
    // short, and every such index was refused right after it was written.
    constexpr size_t kBytes = (size_t{2} << 30) + 8192;
    const int fd = memfd_create("memlog-test-read", 0);  // tmpfs: its holes read without pages of their own
    REQUIRE(fd >= 0);
    const uint64_t first = 0x1111'2222'3333'4444, last = 0x5555'6666'7777'8888;
    REQUIRE(pwrite(fd, &first, sizeof first, 0) == sizeof first);
    REQUIRE(pwrite(fd, &last, sizeof last, kBytes - sizeof last) == sizeof last);  // the rest a hole
    HugeVector<unsigned char> bytes;  // in huge pages: 4 KiB ones made this test take seconds
    bytes.reserve(kBytes);
    unsigned char* into = bytes.data();
    CHECK(readIndexBytes(fd, 0, into, kBytes));
    uint64_t readFirst = 0, readLast = 0;
    std::memcpy(&readFirst, into, sizeof readFirst);
    std::memcpy(&readLast, into + kBytes - sizeof readLast, sizeof readLast);
    CHECK(readFirst == first);
    CHECK(readLast == last);
    CHECK_FALSE(readIndexBytes(fd, 8, into, kBytes));  // the file ends first
    close(fd);
}

TEST_CASE("log index: a million access samples' summary is kept beside them, mapped, and checked") {
    // Sampled, and a full trace's (its samples lead the index).
    const auto sampler =
        GENERATE(memlog::format::AccessSampler::TickPerfClock, memlog::format::AccessSampler::FullTrace);
    const Folder folder("summary");
    const std::string path = folder.m_path + "/app.memlog", index = path + ".index";
    {
        // One block, and a little over a million reads and writes of it: enough for a summary.
        memlog::test::LogBuilder log;
        log.header().m_accessSampler = sampler;
        auto& thread = log.thread(10, 1 << 16);
        thread.module("/usr/bin/app", 0x400000, 0x400000, 0x500000);
        thread.stack(1, {0x401000});
        const uint64_t block = 0x7f00'0000'0000ull, samples = AccessSummary::kWorthFrom + 5000;
        thread.malloc(1, block, 1 << 16, 1);
        for (uint64_t seq = 2; seq < samples + 2; ++seq)
            (seq % 4 ? thread.read(seq, block + (seq * 40503) % (1 << 16))
                     : thread.write(seq, block + (seq * 7) % (1 << 16)));
        thread.free(samples + 2, block, 1);
        memlog::test::writeBytes(path, log.bytes());
    }
    const Opened built = openThroughIndex(path);
    REQUIRE(built.m_built);
    REQUIRE(built.m_model.accessMarks().size() == AccessSummary::kWorthFrom + 5000);
    {
        // The samples and the block as the log has them: making the summary while the index was
        // written wrote over neither.
        LogReader reader(path);
        const BlockModel memory = buildBlockModel(reader, {}, true);
        REQUIRE(memory.size() == 1);
        CHECK(std::memcmp(&built.m_model[0], &memory[0], sizeof(Block)) == 0);
        const std::span<const AccessMark> a = built.m_model.accessMarks(), b = memory.accessMarks();
        size_t differing = 0;
        for (size_t i = 0; i < b.size(); ++i)
            differing += a[i].m_seq != b[i].m_seq || a[i].m_addr != b[i].m_addr || a[i].m_write != b[i].m_write;
        CHECK(differing == 0);
    }
    const HugeVector<AccessPoint> expected = summariseAccesses(built.m_model.accessMarks());
    REQUIRE(!expected.empty());
    const auto bytesOf = [](std::span<const AccessPoint> points) {
        return std::string(reinterpret_cast<const char*>(points.data()), points.size_bytes());
    };
    {
        const Opened read = openThroughIndex(path);
        REQUIRE_FALSE(read.m_built);
        const AccessSummary summary = read.m_model.accessSummary();
        CHECK(summary.marks() == read.m_model.accessMarks().size());
        CHECK(bytesOf(summary.points()) == bytesOf(expected));
        const std::span<const AccessPoint> points = summary.points();
        const uint64_t size = fs::file_size(index);
        // Mapped from the index, not made again: its points lie in the file's mapping.
        const auto* mapping = reinterpret_cast<const unsigned char*>(read.m_model.accessMarks().data());
        CHECK(reinterpret_cast<const unsigned char*>(points.data()) > mapping);
        CHECK(reinterpret_cast<const unsigned char*>(points.data()) - mapping < static_cast<std::ptrdiff_t>(size));
    }
    SECTION("a changed point is said in one line, and the index built again") {
        // The points end where the rest begins (the trailer's third word); the last one's reads.
        const uint64_t size = fs::file_size(index);
        uint64_t restOffset = 0;
        std::ifstream(index, std::ios::binary)
            .seekg(static_cast<std::streamoff>(size - 64 + 24))
            .read(reinterpret_cast<char*>(&restOffset), sizeof restOffset);
        const uint32_t reads = 999;
        overwrite(index, restOffset - sizeof(AccessPoint) + offsetof(AccessPoint, m_reads), &reads, sizeof reads);
        const Opened opened = openThroughIndex(path);
        CHECK(told(opened, index + ": its summary of the access samples is damaged (checksum)"));
        CHECK(opened.m_built);
        CHECK(bytesOf(opened.m_model.accessSummary().points()) == bytesOf(expected));
    }
}

TEST_CASE("log index: what the writer makes while placing the parts is made in the file's arrays, over none of them") {
    // An index's arrays are made in its file, past its end (ArraysInFiles), and the writer asks
    // for the samples' summary (made when first asked): 2.8 million samples make one of more
    // than a megabyte, which is made there. Placed over a part already written, it would
    // change that part.
    const Folder folder("arrays");
    const std::string path = folder.log(1, 20'000), index = folder.m_path + "/written.index";
    LogReader reader(path);
    BlockModel model = buildBlockModel(reader, {}, true);
    std::vector<AccessMark> marks(2'800'000);
    for (size_t i = 0; i < marks.size(); ++i) {
        marks[i].m_seq = marks[i].m_timeNs = i + 1;
        marks[i].m_addr = 0x7f00'0000'0000ull + (i * 40503) % (1 << 20);
        marks[i].m_write = i % 3 == 0;
    }
    model.setAccessMarks(marks);
    REQUIRE_FALSE(model.accessSummaryMade());
    REQUIRE(AccessSummary::pointsFor(marks.size()) * sizeof(AccessPoint) > kHugeFrom);
    {
        const int fd = open(index.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        REQUIRE(fd >= 0);
        const ArraysInFiles inFile(fd, 0);
        // Neither part at the start: both placed by the writer.
        finishModelFile(fd, index, model, "arrays", {}, nullptr, IndexLead::AccessMarks);
        close(fd);
    }
    ModelFileRead read = readModelFile(index, "arrays");
    REQUIRE(read.m_problem == "");
    REQUIRE(read.m_model);
    const BlockModel& back = *read.m_model;
    REQUIRE(back.size() == model.size());
    size_t differing = 0;
    for (size_t i = 0; i < model.size(); ++i) differing += std::memcmp(&back[i], &model[i], sizeof(Block)) != 0;
    CHECK(differing == 0);
    REQUIRE(back.accessMarks().size() == marks.size());
    CHECK(std::memcmp(back.accessMarks().data(), marks.data(), marks.size() * sizeof(AccessMark)) == 0);
}

TEST_CASE("log index: samples out of time order are known to be, walked in memory or into the index") {
    const Folder folder("order");
    const std::string path = folder.m_path + "/app.memlog";
    {
        memlog::test::LogBuilder log;
        auto& a = log.thread(10, 1 << 16);
        auto& b = log.thread(11, 1 << 16);
        a.malloc(1, 0x7f00'0000'0000ull, 4096, 0);
        memlog::format::AccessRecord record;
        record.m_addr = 0x7f00'0000'0010ull;
        record.m_size = 8;
        record.m_seq = 2, record.m_tsc = 5000;
        a.access(record);
        record.m_seq = 3, record.m_tsc = 4000;  // later in the sequence, earlier in time (another thread's clock)
        b.access(record);
        record.m_seq = 4, record.m_tsc = 6000;
        a.access(record);
        memlog::test::writeBytes(path, log.bytes());
    }
    LogReader reader(path);
    const BlockModel memory = buildBlockModel(reader, {}, true);
    const Opened indexed = openThroughIndex(path);
    REQUIRE(memory.accessMarks().size() == 3);
    for (const BlockModel* model : {&memory, &indexed.m_model}) {
        CHECK((model->accessMarksInOrder() & axisBit(XAxis::Events)) != 0);
        CHECK((model->accessMarksInOrder() & axisBit(XAxis::Time)) == 0);
    }
}

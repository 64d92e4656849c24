// A log's index on disk (timeline/open/log_index.hpp, timeline/model/model_file.hpp): the model
// read back is the model built in memory, block for block; the index is reused while the log
// stays the same, built again when the log changed, when it is damaged or cut short, or when it
// is another log's; it goes to the cache folder when the log's folder takes no file; two
// openings at once each get a whole index; a full trace's samples lead its index.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>
#include <type_traits>

#include "reader_files.hpp"
#include "timeline/base/huge_pages.hpp"
#include "timeline/model/block_store.hpp"
#include "timeline/model/kept_index.hpp"
#include "timeline/model/model_file.hpp"
#include "timeline/model/model_index.hpp"
#include "timeline/model/view_contents.hpp"
#include "timeline/open/opened_log.hpp"
#include "timeline/read/log_reader.hpp"

using namespace memlog::timeline;
namespace fs = std::filesystem;

namespace {

// Two threads allocating and freeing at random over 300 slots (some blocks never freed), with
// stacks for both the allocations and the frees, and access samples in between; `seed` makes
// another log of the same shape. `sampler`: what the header says made the samples.
std::vector<uint8_t> randomLog(uint32_t seed, size_t events,
                               memlog::format::AccessSampler sampler = memlog::format::AccessSampler::TickPerfClock) {
    memlog::test::LogBuilder log;
    log.header().m_pid = 4000 + seed;
    log.header().m_accessSampler = sampler;
    auto& a = log.thread(10, 1 << 16);
    auto& b = log.thread(11, 1 << 16);
    a.module("/usr/bin/app", 0x400000, 0x400000, 0x500000).module("/lib/libc.so.6", 0x7f00, 0x7f00, 0x9f00);
    a.threadStack(0x7ffd'0000'0000ull, 0x7ffd'0010'0000ull);
    for (uint32_t id = 1; id <= 40; ++id) a.stack(id, {0x401000 + 16 * id, 0x402000 + id});
    std::mt19937_64 random(seed);
    std::vector<bool> live(300, false);
    for (uint64_t seq = 1; seq <= events; ++seq) {
        auto& thread = random() % 2 ? a : b;
        const size_t slot = random() % live.size();
        const uint64_t addr = 0x7f00'0000'0000ull + slot * 4096 + (slot / 100) * (uint64_t{1} << 20);  // 3 regions
        if (random() % 5 == 0) {
            (random() % 2 ? thread.read(seq, addr + 8, 3) : thread.write(seq, addr + 16, 4));
        } else if (live[slot]) {
            thread.free(seq, addr, 1 + static_cast<uint32_t>(random() % 40));
            live[slot] = false;
        } else {
            thread.malloc(seq, addr, 16 + random() % 4000, 1 + static_cast<uint32_t>(random() % 40));
            live[slot] = true;
        }
    }
    return log.bytes();
}

// A folder of its own for each case: the log, and the index beside it.
struct Folder {
    std::string m_path;
    explicit Folder(const std::string& name) : m_path("/tmp/memlog-index-" + std::to_string(getpid()) + "-" + name) {
        fs::remove_all(m_path);
        fs::create_directories(m_path);
    }
    ~Folder() { fs::remove_all(m_path); }
    std::string log(uint32_t seed = 1, size_t events = 5000) const {
        const std::string path = m_path + "/app.memlog";
        memlog::test::writeBytes(path, randomLog(seed, events));
        return path;
    }
};

struct Opened {
    BlockModel m_model;
    std::string m_index;
    bool m_built = false;
    std::vector<std::string> m_warnings;
    // What the reader was left with, walked or restored from the index.
    std::vector<std::vector<uint64_t>> m_stacks;
    std::vector<std::string> m_modules;
    size_t m_threadStacks = 0;
    uint64_t m_lastTsc = 0;
    bool m_walked = true;
    bool m_toldIndexing = false;  // the progress heard Step::Index
};

std::vector<std::vector<uint64_t>> stacksOf(const LogReader& reader) {
    std::vector<std::vector<uint64_t>> stacks;
    for (size_t id = 0; id < reader.stacks().size(); ++id) stacks.push_back(reader.stacks()[id].toVector());
    return stacks;
}

std::vector<std::string> modulesOf(const LogReader& reader) {
    std::vector<std::string> modules;
    for (const Module& module : reader.modules())
        modules.push_back(module.m_path + "@" + std::to_string(module.m_base) + "+" +
                          std::to_string(module.m_validFromSeq));
    return modules;
}

Opened openThroughIndex(const std::string& path, IndexUse use = IndexUse::Always) {
    Opened opened;
    OpenedLog log(
        path, {.m_walk = OpenedLog::Walk::Model, .m_freeStacks = true, .m_index = use},
        {.m_progress = [&](OpenedLog::Step step, double) { opened.m_toldIndexing |= step == OpenedLog::Step::Index; },
         .m_warn = [&](const std::string& problem) { opened.m_warnings.push_back(problem); }});
    opened.m_index = log.indexPath();
    opened.m_built = log.indexBuilt();
    opened.m_stacks = stacksOf(log.reader());
    opened.m_modules = modulesOf(log.reader());
    opened.m_threadStacks = log.reader().threadStacks().size();
    opened.m_lastTsc = log.reader().lastTsc();
    opened.m_walked = log.logWalked();
    opened.m_model = log.takeModel();
    return opened;
}

// Every field of a model's index as text-free bytes, arrays element by element (the nodes and
// their sums field by field: their padding is whatever the builder's stack held).
class Flattened {
public:
    template <typename T>
    void operator()(const T& value) {
        add(value);
    }
    template <typename T>
    void operator()(const memlog::timeline::StoredArray<T>& array) {
        add(array.size());
        for (const T& element : array) add(element);
    }
    std::string m_bytes;
    size_t m_fields = 0;

private:
    template <typename T>
    void add(const T& value) {
        static_assert(std::has_unique_object_representations_v<T> || std::is_same_v<T, bool>,
                      "a type with padding: add it field by field");
        m_bytes.append(reinterpret_cast<const char*>(&value), sizeof value);
        ++m_fields;
    }
    void add(const BlockIndex::Node& node) {
        add(node.m_box), add(node.m_first), add(node.m_count), add(node.m_items), add(node.m_leaf);
    }
    void add(const ModelIndex::NodeSums& sums) {
        add(sums.m_boxArea), add(sums.m_byteTime), add(sums.m_events), add(sums.m_blocks), add(sums.m_solid);
    }
    void add(double value) { m_bytes.append(reinterpret_cast<const char*>(&value), sizeof value); }
};

std::string flattened(const ModelIndex& index) {
    Flattened flat;
    ModelIndex::fields(flat, index);
    return flat.m_bytes;
}

// Every word of every block, the freeing stacks and the rest of the model, as built in memory;
// and the model's index for pictures, when the index file keeps it, as built in memory too: the
// tree's order, boxes and nodes, every node's sums, the sorted ends and their checkpoints.
void checkSameModel(const BlockModel& indexed, const std::string& path) {
    LogReader reader(path);
    const BlockModel memory = buildBlockModel(reader, {}, true);
    REQUIRE(indexed.size() == memory.size());
    size_t differing = 0, freed = 0;
    for (size_t i = 0; i < memory.size(); ++i) {
        differing += std::memcmp(&indexed[i], &memory[i], sizeof(Block)) != 0;
        differing += indexed.freeStack(i) != memory.freeStack(i);
        freed += memory.freeStack(i) != 0;
    }
    CHECK(differing == 0);
    CHECK(freed > 100);  // the freeing stacks were compared, not only zeros
    CHECK(indexed.threads() == memory.threads());
    CHECK(indexed.endNs() == memory.endNs());
    CHECK(indexed.stackCount() == memory.stackCount());
    CHECK(indexed.clock() == memory.clock());
    for (XAxis axis : {XAxis::Time, XAxis::Events}) {
        CHECK(indexed.extent(axis).m_from == memory.extent(axis).m_from);
        CHECK(indexed.extent(axis).m_to == memory.extent(axis).m_to);
    }
    const Summary &a = indexed.summary(), &b = memory.summary();
    CHECK(a.m_events == b.m_events);
    CHECK(a.m_calls == b.m_calls);
    CHECK(a.m_peakBytes == b.m_peakBytes);
    CHECK(a.m_peakSeq == b.m_peakSeq);
    CHECK(a.m_leakedBytes == b.m_leakedBytes);
    CHECK(a.m_leakedBlocks > 0);
    CHECK(a.m_leakedBlocks == b.m_leakedBlocks);
    CHECK(a.m_accessSamples == b.m_accessSamples);
    CHECK(a.m_exe == b.m_exe);
    CHECK(a.m_pid == b.m_pid);
    REQUIRE(indexed.accessMarks().size() == memory.accessMarks().size());
    CHECK(indexed.accessMarks().size() > 100);
    size_t marksDiffering = 0;
    for (size_t i = 0; i < memory.accessMarks().size(); ++i) {
        const AccessMark &x = indexed.accessMarks()[i], &y = memory.accessMarks()[i];
        marksDiffering += x.m_seq != y.m_seq || x.m_addr != y.m_addr || x.m_blockSeq != y.m_blockSeq ||
                          x.m_write != y.m_write || x.m_stack != y.m_stack || x.m_timeNs != y.m_timeNs;
    }
    CHECK(marksDiffering == 0);
    CHECK(indexed.accessMarksInOrder() == memory.accessMarksInOrder());
    // Their counts and notable places, kept in the index too.
    CHECK(indexed.accessTally().m_writes == memory.accessTally().m_writes);
    CHECK(memory.accessTally().m_writes > 10);
    CHECK(indexed.accessTally().m_traps == memory.accessTally().m_traps);
    CHECK(indexed.accessTally().m_links == memory.accessTally().m_links);
    CHECK(indexed.accessTally().m_usesAfterFree == memory.accessTally().m_usesAfterFree);
    // Counted as the walk made the samples, as a pass over them counts them.
    const AccessTally counted = tallyAccesses(memory.accessMarks());
    CHECK(memory.accessTally().m_writes == counted.m_writes);
    CHECK(memory.accessTally().m_usesAfterFree == counted.m_usesAfterFree);
    CHECK(memory.accessTally().m_traps == counted.m_traps);
    CHECK_FALSE(counted.m_usesAfterFree.empty());  // reads of slots freed before
    CHECK((memory.accessMarksInOrder() & axisBit(XAxis::Events)) != 0);  // the replay's order is the events'
    // The address compaction, kept in the index or walked, for pictures of any height.
    for (const size_t maxRanges : {0, 1, 3, 40}) {
        INFO("at most " << maxRanges << " ranges");
        CHECK(wholeRanges(indexed, maxRanges).ranges() == wholeRanges(memory, maxRanges).ranges());
    }
    if (const KeptModelIndex* kept = indexed.keptIndex()) {
        const ModelIndex mapped(indexed, *kept), built(memory, memory.clock());
        CHECK(mapped.kept());
        CHECK_FALSE(built.kept());
        CHECK(mapped.index().nodes().size() > memory.size() / 16);
        CHECK(flattened(mapped) == flattened(built));
    }
}

void overwrite(const std::string& path, uint64_t offset, const void* bytes, size_t size) {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(offset));
    file.write(static_cast<const char*>(bytes), static_cast<std::streamsize>(size));
}

bool told(const Opened& opened, const std::string& part) {
    return opened.m_warnings.size() == 1 && opened.m_warnings[0].find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("log index: the model read back is the model built in memory, over more than one chunk") {
    const Folder folder("same");
    const std::string path = folder.log(1, 200'000);  // about 130,000 blocks: three chunks
    const Opened built = openThroughIndex(path);
    CHECK(built.m_built);
    CHECK(built.m_index == path + ".index");
    checkSameModel(built.m_model, path);  // as built into the file
    const Opened read = openThroughIndex(path);
    CHECK_FALSE(read.m_built);
    CHECK(built.m_walked);
    CHECK_FALSE(read.m_walked);
    CHECK(built.m_toldIndexing);  // a window says "indexing", memlog a bar
    CHECK_FALSE(read.m_toldIndexing);
    CHECK(read.m_warnings.empty());
    checkSameModel(read.m_model, path);  // as mapped back
    REQUIRE(built.m_model.keptIndex());
    REQUIRE(read.m_model.keptIndex());  // and the tree with it, not built again
    CHECK(ModelIndex::forModel(read.m_model, XAxis::Time)->kept());
    CHECK_FALSE(ModelIndex::forModel(read.m_model, XAxis::Events)->kept());  // kept on the model's clock only
    REQUIRE(read.m_model.wholeSpans());  // the compaction from the index, not a walk
    CHECK(read.m_model.wholeSpans()->size() == 3);
    // The reader, not walked, has what a walk leaves: the stacks, the modules, the threads' stacks.
    LogReader walked(path);
    walked.forEachEvent([](const Event&) {});
    CHECK(walked.stacks().size() == 41);
    CHECK(read.m_stacks == stacksOf(walked));
    CHECK(modulesOf(walked).size() == 2);
    CHECK(read.m_modules == modulesOf(walked));
    CHECK(read.m_threadStacks == 1);
    CHECK(read.m_lastTsc == walked.lastTsc());
}

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

TEST_CASE("log index: reused while the log stays the same, built again when it changed") {
    const Folder folder("reuse");
    const std::string path = folder.log();
    REQUIRE(openThroughIndex(path).m_built);
    const auto written = fs::last_write_time(path + ".index");
    const Opened again = openThroughIndex(path, IndexUse::Auto);  // a small log: read when there
    CHECK_FALSE(again.m_built);
    CHECK(fs::last_write_time(path + ".index") == written);
    // The log recorded again under its name: another pid, another model.
    memlog::test::writeBytes(path, randomLog(2, 6000));
    const Opened changed = openThroughIndex(path);
    CHECK(changed.m_built);
    CHECK(told(changed, "built from another log, or from this one before it changed; building the index again"));
    checkSameModel(changed.m_model, path);
    // Auto on a small log: an index that will not do is built again (the log had one) ...
    memlog::test::writeBytes(path, randomLog(3, 5000));
    const Opened stale = openThroughIndex(path, IndexUse::Auto);
    CHECK(stale.m_built);
    CHECK(told(stale, "built from another log"));
    checkSameModel(stale.m_model, path);
    // ... and without one, none is made: the model in memory.
    fs::remove(path + ".index");
    const Opened small = openThroughIndex(path, IndexUse::Auto);
    CHECK(small.m_index.empty());
    CHECK_FALSE(fs::exists(path + ".index"));
    checkSameModel(small.m_model, path);
}

TEST_CASE("log index: a damaged, cut or foreign index is built again with the reason, never trusted") {
    const Folder folder("damage");
    const std::string path = folder.log(1, 100'000), index = path + ".index";
    REQUIRE(openThroughIndex(path).m_built);
    const uint64_t size = fs::file_size(index);

    SECTION("cut short") {
        fs::resize_file(index, size - 100);
        const Opened opened = openThroughIndex(path);
        CHECK(told(opened, index + ": no index trailer at its end"));
        CHECK(opened.m_built);
        checkSameModel(opened.m_model, path);
    }
    SECTION("cut to nothing") {
        fs::resize_file(index, 0);
        CHECK(told(openThroughIndex(path), "too short to be an index"));
    }
    SECTION("a byte of the model's summary changed") {
        const uint8_t byte = 0x5a;
        overwrite(index, size - 64 - 40, &byte, 1);
        CHECK(told(openThroughIndex(path), "its model is damaged (checksum)"));
    }
    SECTION("a block naming a stack the log does not have") {
        const uint64_t words[5] = {0x1000, ~0ull, ~0ull, 64, 1};  // stack 0xffffffff
        overwrite(index, 40 * 7, words, sizeof words);
        CHECK(told(openThroughIndex(path), "block 7 names a stack the log does not have"));
    }
    SECTION("an access sample changed") {
        // The samples end where the rest begins (the trailer's third word); the last one's
        // address.
        uint64_t restOffset = 0;
        std::ifstream(index, std::ios::binary)
            .seekg(static_cast<std::streamoff>(size - 64 + 24))
            .read(reinterpret_cast<char*>(&restOffset), sizeof restOffset);
        REQUIRE(restOffset > sizeof(AccessMark));
        const uint64_t address = 0x7777'0000'0000;
        overwrite(index, restOffset - sizeof(AccessMark) + offsetof(AccessMark, m_addr), &address, sizeof address);
        const Opened opened = openThroughIndex(path);
        CHECK(told(opened, index + ": its access samples are damaged (checksum)"));
        checkSameModel(opened.m_model, path);
    }
    // Where the tree's order and nodes lie in the file: their places in its mapping.
    uint64_t order = 0, nodes = 0;
    {
        const Opened opened = openThroughIndex(path);
        REQUIRE(opened.m_model.keptIndex());
        const KeptModelIndex& kept = *opened.m_model.keptIndex();
        const ModelIndex tree(opened.m_model, kept);
        auto offsetOf = [&](const void* data) {
            return static_cast<uint64_t>(static_cast<const unsigned char*>(data) - kept.m_mapping->data());
        };
        order = offsetOf(tree.index().order().data());
        nodes = offsetOf(tree.index().nodes().data());
    }
    SECTION("the tree naming a block the log does not have") {
        const uint32_t item = 0xfffffff0;
        overwrite(index, order + 4 * 5, &item, sizeof item);
        CHECK(told(openThroughIndex(path), "its tree names a block the model does not have"));
    }
    SECTION("a leaf of the tree moved onto another's blocks") {
        const uint32_t first = 0;
        overwrite(index, nodes + 48 * 3 + 32, &first, sizeof first);
        CHECK(told(openThroughIndex(path), "its tree's leaf 3 is out of place"));
    }
    SECTION("a node of the tree neither leaf nor not") {
        const uint8_t flag = 2;  // the byte of Node::m_leaf, after its box and three counts
        overwrite(index, nodes + 48 * 3 + 44, &flag, sizeof flag);
        CHECK(told(openThroughIndex(path), "its tree's node 3 is neither leaf nor not"));
    }
    SECTION("another file altogether") {
        std::ofstream(index, std::ios::trunc) << std::string(5000, 'x');
        CHECK(told(openThroughIndex(path), "no index trailer at its end"));
    }
    SECTION("another log's index under this one's name") {
        const std::string other = folder.m_path + "/other.memlog";
        memlog::test::writeBytes(other, randomLog(7, 5000));
        REQUIRE(openThroughIndex(other).m_built);
        fs::copy_file(other + ".index", index, fs::copy_options::overwrite_existing);
        const Opened opened = openThroughIndex(path);
        CHECK(told(opened, "built from another log"));
        checkSameModel(opened.m_model, path);
    }
    // Whatever was wrong, the index is whole again: the next opening reads it, saying nothing.
    const Opened next = openThroughIndex(path);
    CHECK_FALSE(next.m_built);
    CHECK(next.m_warnings.empty());
}

TEST_CASE("log index: a log whose folder takes no file is indexed in the cache folder") {
    const Folder folder("cache");
    const std::string path = folder.log();
    const std::string cache = folder.m_path + "-cache";
    fs::remove_all(cache);
    const char* before = std::getenv("XDG_CACHE_HOME");
    const std::string saved = before ? before : "";
    setenv("XDG_CACHE_HOME", cache.c_str(), 1);
    // Root writes to any folder whatever its mode: an immutable folder refuses root too.
    const bool root = geteuid() == 0;
    const std::string lock = (root ? "chattr +i " : "chmod 0555 ") + folder.m_path;
    REQUIRE(std::system(lock.c_str()) == 0);
    const Opened built = openThroughIndex(path);
    const Opened again = openThroughIndex(path);
    const std::string cached = cachedIndexPath(path, XAxis::Time);
    const std::string unlock = (root ? "chattr -i " : "chmod 0755 ") + folder.m_path;
    REQUIRE(std::system(unlock.c_str()) == 0);
    if (before)
        setenv("XDG_CACHE_HOME", saved.c_str(), 1);
    else
        unsetenv("XDG_CACHE_HOME");
    CHECK(built.m_built);
    CHECK(built.m_index.rfind(cache + "/memlog/app.memlog.", 0) == 0);
    CHECK(built.m_index == cached);
    CHECK_FALSE(fs::exists(path + ".index"));
    CHECK_FALSE(again.m_built);
    CHECK(again.m_index == built.m_index);
    checkSameModel(again.m_model, path);
    fs::remove_all(cache);
}

TEST_CASE("log index: two openings at once, neither with an index yet, each get a whole one") {
    const Folder folder("together");
    const std::string path = folder.log(1, 100'000);
    Opened first, second;
    std::thread other([&] { second = openThroughIndex(path); });
    first = openThroughIndex(path);
    other.join();
    CHECK(first.m_warnings.empty());
    CHECK(second.m_warnings.empty());
    checkSameModel(first.m_model, path);
    checkSameModel(second.m_model, path);
    // No part file left behind, and the one index in place reads back whole.
    size_t files = 0;
    for (const auto& entry : fs::directory_iterator(folder.m_path)) files += entry.is_regular_file();
    CHECK(files == 2);
    const Opened after = openThroughIndex(path);
    CHECK_FALSE(after.m_built);
    checkSameModel(after.m_model, path);
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

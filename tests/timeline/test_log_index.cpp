// A log's index on disk (timeline/open/log_index.hpp): the model read back is the model built in
// memory, block for block; the index is reused while the log stays the same, built again when the
// log changed, when it is damaged or cut short, or when it is another log's; it goes to the cache
// folder when the log's folder takes no file; two openings at once each get a whole index. The
// parts inside the file: test_index_parts.cpp.
#include <catch2/catch.hpp>

#include <algorithm>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "index_files.hpp"
#include "run_memlog.hpp"

using namespace memlog::timeline;
using namespace memlog::test::index;

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

TEST_CASE("log index: two builds of one log, by two processes, are the same bytes") {
    // No byte of the index is what memory held before (a struct's padding copied whole): the
    // thread's stack range and the summary's estimates had some, and differed between builds.
    const Folder folder("twice");
    const std::string path = folder.log();
    auto build = [&] {
        fs::remove(path + ".index");
        REQUIRE(memlog::test::runMemlog("index " + path).m_status == 0);
        std::ifstream in(path + ".index", std::ios::binary);
        return std::vector<char>(std::istreambuf_iterator<char>(in), {});
    };
    const std::vector<char> first = build(), second = build();
    REQUIRE(first.size() == second.size());
    const auto differ = std::mismatch(first.begin(), first.end(), second.begin());
    INFO("first difference at offset " << (differ.first - first.begin()) << " of " << first.size());
    CHECK(differ.first == first.end());
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

namespace {

// Whether `address` lies in a mapping of a file (its inode in /proc/self/maps), not anonymous
// memory.
bool mappedFromAFile(const void* address) {
    std::ifstream maps("/proc/self/maps");
    const auto at = reinterpret_cast<uintptr_t>(address);
    for (std::string line; std::getline(maps, line);) {
        unsigned long from = 0, to = 0, inode = 0;
        char perms[8], offset[20], device[16];
        if (std::sscanf(line.c_str(), "%lx-%lx %7s %19s %15s %lu", &from, &to, perms, offset, device, &inode) == 6 &&
            at >= from && at < to)
            return inode != 0;
    }
    return false;
}

}  // namespace

TEST_CASE("log index: an index for another axis than the kept one is built in a scratch file beside it") {
    const Folder folder("other-axis");
    const std::string path = folder.log(3, 200'000);
    const Opened indexed = openThroughIndex(path);
    REQUIRE(indexed.m_built);
    REQUIRE(indexed.m_model.keptIndex());
    CHECK(indexed.m_model.scratchFolder() == folder.m_path);
    // The window's events, where the index keeps time: the tree's arrays in the page cache.
    const auto events = ModelIndex::forModel(indexed.m_model, XAxis::Events);
    REQUIRE(events->index().boxes().size() * sizeof(IndexBox) > (size_t{1} << 20));  // not operator new's
    CHECK(mappedFromAFile(events->index().boxes().data()));
    // The same tree as one built in memory, from the model built without an index.
    const Opened inMemory = openThroughIndex(path, IndexUse::Off);
    CHECK(inMemory.m_model.scratchFolder().empty());
    const auto built = ModelIndex::forModel(inMemory.m_model, XAxis::Events);
    CHECK_FALSE(mappedFromAFile(built->index().boxes().data()));
    CHECK(flattened(*events) == flattened(*built));
    // No file is left beside the log: the scratch file has no name.
    size_t files = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(folder.m_path)) ++files;
    CHECK(files == 2);  // the log and its index
}

// What the index's tests share (test_log_index.cpp, test_index_parts.cpp): random logs of two
// threads, a folder of their own for each case, a log opened through its index with what the
// reader was left with, the model read back compared with the one built in memory, and a file
// changed in place.
#pragma once

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "reader_files.hpp"
#include "timeline/model/kept_index.hpp"
#include "timeline/model/model_index.hpp"
#include "timeline/model/view_contents.hpp"
#include "timeline/open/opened_log.hpp"
#include "timeline/read/log_reader.hpp"

namespace memlog::test::index {

using namespace memlog::timeline;
namespace fs = std::filesystem;

// Two threads allocating and freeing at random over 300 slots (some blocks never freed), with
// stacks for both the allocations and the frees, and access samples in between; `seed` makes
// another log of the same shape. `sampler`: what the header says made the samples.
inline std::vector<uint8_t> randomLog(
    uint32_t seed, size_t events,
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

inline std::vector<std::vector<uint64_t>> stacksOf(const LogReader& reader) {
    std::vector<std::vector<uint64_t>> stacks;
    for (size_t id = 0; id < reader.stacks().size(); ++id) stacks.push_back(reader.stacks()[id].toVector());
    return stacks;
}

inline std::vector<std::string> modulesOf(const LogReader& reader) {
    std::vector<std::string> modules;
    for (const Module& module : reader.modules())
        modules.push_back(module.m_path + "@" + std::to_string(module.m_base) + "+" +
                          std::to_string(module.m_validFromSeq));
    return modules;
}

inline Opened openThroughIndex(const std::string& path, IndexUse use = IndexUse::Always) {
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

inline std::string flattened(const ModelIndex& index) {
    Flattened flat;
    ModelIndex::fields(flat, index);
    return flat.m_bytes;
}

// Two models of one log the same: every word of every block, the freeing stacks, the summary's
// counts, the access samples byte for byte, and their counts and notable places.
inline void checkSameModels(const BlockModel& indexed, const BlockModel& memory) {
    REQUIRE(indexed.size() == memory.size());
    size_t differing = 0;
    for (size_t i = 0; i < memory.size(); ++i) {
        differing += std::memcmp(&indexed[i], &memory[i], sizeof(Block)) != 0;
        differing += indexed.freeStack(i) != memory.freeStack(i);
    }
    CHECK(differing == 0);
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
    CHECK(a.m_leakedBlocks == b.m_leakedBlocks);
    CHECK(a.m_accessSamples == b.m_accessSamples);
    CHECK(a.m_accessHeap == b.m_accessHeap);
    CHECK(a.m_blocksSampled == b.m_blocksSampled);
    CHECK(a.m_durationNs == b.m_durationNs);
    CHECK(a.m_stacks == b.m_stacks);
    CHECK(a.m_exe == b.m_exe);
    CHECK(a.m_pid == b.m_pid);
    REQUIRE(indexed.accessMarks().size() == memory.accessMarks().size());
    size_t marksDiffering = 0;
    for (size_t i = 0; i < memory.accessMarks().size(); ++i)
        marksDiffering += std::memcmp(&indexed.accessMarks()[i], &memory.accessMarks()[i], sizeof(AccessMark)) != 0;
    CHECK(marksDiffering == 0);
    CHECK(indexed.accessMarksInOrder() == memory.accessMarksInOrder());
    CHECK(indexed.accessTally().m_writes == memory.accessTally().m_writes);
    CHECK(indexed.accessTally().m_traps == memory.accessTally().m_traps);
    CHECK(indexed.accessTally().m_links == memory.accessTally().m_links);
    CHECK(indexed.accessTally().m_usesAfterFree == memory.accessTally().m_usesAfterFree);
}

// The model read back the model as built in memory (checkSameModels), of a log with enough in it
// for the comparison to mean something; and the model's index for pictures, when the index file
// keeps it, as built in memory too: the tree's order, boxes and nodes, every node's sums, the
// sorted ends and their checkpoints.
inline void checkSameModel(const BlockModel& indexed, const std::string& path) {
    LogReader reader(path);
    const BlockModel memory = buildBlockModel(reader, {}, true);
    checkSameModels(indexed, memory);
    size_t freed = 0;
    for (size_t i = 0; i < memory.size(); ++i) freed += memory.freeStack(i) != 0;
    CHECK(freed > 100);  // the freeing stacks were compared, not only zeros
    CHECK(indexed.summary().m_leakedBlocks > 0);
    CHECK(indexed.accessMarks().size() > 100);
    CHECK(memory.accessTally().m_writes > 10);  // the samples' counts were compared, not only zeros
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

inline void overwrite(const std::string& path, uint64_t offset, const void* bytes, size_t size) {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(offset));
    file.write(static_cast<const char*>(bytes), static_cast<std::streamsize>(size));
}

inline bool told(const Opened& opened, const std::string& part) {
    return opened.m_warnings.size() == 1 && opened.m_warnings[0].find(part) != std::string::npos;
}

}  // namespace memlog::test::index

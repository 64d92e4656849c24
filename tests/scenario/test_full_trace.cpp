// memlog run --full-trace: the program under memlog's Valgrind tool, every access in the log with
// its kind, size, thread and instruction count, exactly as the program's source dictates; and
// what a user is told where Valgrind or the tool is missing.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <tuple>

#include "full_trace_runs.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/replay/access_attribution.hpp"
#include "timeline/replay/block_observer.hpp"
#include "timeline/replay/summary.hpp"

using namespace memlog::test;
using memlog::timeline::Region;
namespace fs = std::filesystem;

namespace {

// Every access that fell in the heap, with its block's size.
class HeapAccesses final : public memlog::timeline::BlockObserver {
public:
    void begin(const memlog::timeline::BlockChange&) override {}
    void end(const memlog::timeline::BlockChange&) override {}
    void access(const memlog::timeline::AccessSample& sample, const memlog::timeline::Attribution& where) override {
        if (where.m_region == Region::Heap) m_found.push_back({sample, where});
    }
    std::vector<std::pair<memlog::timeline::AccessSample, memlog::timeline::Attribution>> m_found;
};

// trace_statements' regions of its block (scenarios/trace_statements.c): the first offset of each.
uint64_t regionOf(uint64_t offset) {
    if (offset >= 3072) return 3072;
    if (offset >= 2048) return 2048;
    if (offset >= 1024) return 1024;
    return offset / 64 * 64;
}

}  // namespace

TEST_CASE("full trace: N writes then N reads of an array are counted exactly, each in its block") {
    requireTraceTool();
    const Outcome outcome = fullTrace({scenarioPath("known_accesses"), "1000"});
    INFO(outcome.m_stderr);
    CHECK(outcome.m_exitStatus == 0);
    CHECK(outcome.m_stdout == "written once, read once\n");
    REQUIRE(outcome.m_logs.size() == 1);
    memlog::timeline::LogReader reader(outcome.m_logs[0]);
    CHECK(reader.header().m_accessSampler == memlog::format::AccessSampler::FullTrace);
    CHECK(reader.header().m_version == memlog::format::kFormatVersion);
    HeapAccesses heap;
    const auto summary = memlog::timeline::summarize(reader, {}, &heap);
    CHECK(summary.m_threads == 1);
    CHECK(summary.m_accessHeap == 2000);  // the array's, and nothing else of the program's is on the heap
    CHECK(summary.m_accessStack > 0);     // the stack told apart from other memory
    // Every access the tool wrote is read back, and the tool's count in the header says so.
    CHECK(summary.m_accessSamples == reader.header().m_accessCounters.m_samples);
    CHECK_FALSE(reader.whereReadingStopped());
    uint64_t writes = 0, reads = 0, lastWrite = 0, firstRead = UINT64_MAX, outside = 0;
    for (const auto& [sample, where] : heap.m_found) {
        if (where.m_blockSize != 8000) continue;
        CHECK(sample.m_source == memlog::format::AccessSource::Trace);
        CHECK(sample.m_size == 8);
        CHECK(sample.m_tid == reader.header().m_pid);
        outside += where.m_offset + sample.m_size > where.m_blockSize;
        if (sample.m_kind == memlog::format::AccessKind::Write) {
            ++writes;
            lastWrite = std::max(lastWrite, sample.m_seq);
        } else if (sample.m_kind == memlog::format::AccessKind::Read) {
            ++reads;
            firstRead = std::min(firstRead, sample.m_seq);
        }
    }
    CHECK(writes == 1000);
    CHECK(reads == 1000);
    CHECK(outside == 0);
    CHECK(lastWrite < firstRead);
    // The same in the CSV a user reads: source "trace", with the thread's instruction count.
    const Outcome dumped = memlogRun({"dump", outcome.m_logs[0], "--accesses", "--csv"});
    CHECK(dumped.m_exitStatus == 0);
    CHECK(dumped.m_stdout.find(",trace,") != std::string::npos);
    CHECK(dumped.m_stdout.find(",trace,\n") == std::string::npos);  // never without its count
    CHECK(dumped.m_stdout.find(",tick,") == std::string::npos);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("full trace: each kind of memory statement counted exactly, by kind and size, in its place") {
    requireTraceTool();
    const int rounds = 20;
    const Outcome outcome = fullTrace({scenarioPath("trace_statements"), std::to_string(rounds)});
    if (outcome.m_exitStatus == 77) {
        std::printf("skipped: %s", outcome.m_stdout.c_str());
        std::fflush(stdout);
        std::_Exit(77);
    }
    INFO(outcome.m_stderr);
    REQUIRE(outcome.m_exitStatus == 0);
    REQUIRE(outcome.m_logs.size() == 1);
    uint64_t blockSeq = 0;
    for (const EventRow& event : dumpedEvents(outcome.m_logs[0]))
        if (event.m_kind == "calloc" && event.m_size == 4000) blockSeq = event.m_seq;
    REQUIRE(blockSeq != 0);
    // (region, kind, size) -> accesses, against the scenario's table.
    std::map<std::tuple<uint64_t, std::string, uint64_t>, uint64_t> found;
    uint64_t reads = 0, writes = 0;
    for (const AccessRow& row : dumpedAccesses(outcome.m_logs[0])) {
        reads += row.m_kind != "write";
        writes += row.m_kind != "read";
        if (row.m_blockSeq == blockSeq) ++found[{regionOf(row.m_offset), row.m_kind, row.m_size}];
    }
    const uint64_t r = rounds;
    const std::map<std::tuple<uint64_t, std::string, uint64_t>, uint64_t> expected = {
        {{0, "read", 1}, r},       {{0, "write", 1}, r},           {{64, "read", 2}, r},
        {{64, "write", 2}, r},     {{128, "read", 4}, r},          {{128, "write", 4}, r},
        {{192, "read", 8}, r},     {{192, "write", 8}, r},         {{256, "read", 16}, r},
        {{256, "write", 16}, r},   {{320, "read", 32}, r},         {{320, "write", 32}, r},
        {{512, "readwrite", 8}, r},  // lock cmpxchg
        {{1024, "read", 1}, 100 * r},  // rep movsb: a byte read and a byte written per step
        {{2048, "write", 1}, 100 * r},
        {{3072, "write", 4}, 3 * r},  // vmaskmovps: the three lanes of the mask, none of the others
    };
    CHECK(found == expected);
    // memlog stat --json counts the same accesses (a read-modify-write is a read and a write).
    const Outcome stat = memlogRun({"stat", outcome.m_logs[0], "--json"});
    CHECK(jsonNumber(stat.m_stdout, "access_reads") == reads);
    CHECK(jsonNumber(stat.m_stdout, "access_writes") == writes);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("full trace: each access carries its thread's instruction count, one more per instruction") {
    requireTraceTool();
    const int rounds = 5;
    const Outcome outcome = fullTrace({scenarioPath("trace_statements"), std::to_string(rounds)});
    if (outcome.m_exitStatus == 77) std::_Exit(77);
    REQUIRE(outcome.m_logs.size() == 1);
    memlog::timeline::LogReader reader(outcome.m_logs[0]);
    // The 1-byte load and store of each round, adjacent instructions of the scenario.
    HeapAccesses heap;
    memlog::timeline::summarize(reader, {}, &heap);
    std::vector<uint64_t> loads, stores;
    uint64_t previous = 0, backwards = 0;
    for (const auto& [sample, where] : heap.m_found) {
        backwards += sample.m_instructions < previous;
        previous = sample.m_instructions;
        if (where.m_blockSize != 4000 || where.m_offset != 0) continue;
        (sample.m_kind == memlog::format::AccessKind::Read ? loads : stores).push_back(sample.m_instructions);
    }
    CHECK(backwards == 0);
    REQUIRE(loads.size() == rounds);
    REQUIRE(stores.size() == rounds);
    for (int i = 0; i < rounds; ++i) CHECK(stores[i] == loads[i] + 1);
    // Each round runs the same instructions: the same distance from one round to the next (the
    // rep movsb's 100 steps among them, each counted as Valgrind runs it: once a step).
    for (int i = 2; i < rounds; ++i) CHECK(loads[i] - loads[i - 1] == loads[1] - loads[0]);
    CHECK(loads[1] - loads[0] > 100);
    // memlog dump --accesses gives each access its count.
    std::vector<uint64_t> dumpedLoads;
    for (const AccessRow& row : dumpedAccesses(outcome.m_logs[0]))
        if (row.m_kind == "read" && row.m_offset == 0 && row.m_size == 1 && row.m_region == "heap")
            dumpedLoads.push_back(row.m_instructions);
    CHECK(dumpedLoads == loads);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("full trace: stat's, cache's and the counting build's totals agree, less the recorder's work") {
    requireTraceTool();
    const std::vector<std::string> program = {scenarioPath("known_accesses"), "1000"};
    const Outcome outcome = fullTrace(program);
    REQUIRE(outcome.m_logs.size() == 1);
    const Outcome stat = memlogRun({"stat", outcome.m_logs[0], "--json"});
    const Outcome cache = memlogRun({"cache", outcome.m_logs[0], "--json"});
    const std::map<int, uint64_t> counted = countedByTool(program);
    INFO(stat.m_stdout.substr(0, 300));
    const uint64_t samples = jsonNumber(stat.m_stdout, "access_samples");
    CHECK(samples == counted.at(1) + counted.at(2) + counted.at(3));
    CHECK(jsonNumber(stat.m_stdout, "access_reads") == counted.at(1) + counted.at(3));
    CHECK(jsonNumber(stat.m_stdout, "access_writes") == counted.at(2) + counted.at(3));
    // The recorder's and the allocator's accesses, left out by both. Not equal from run to run:
    // the recorder reads the clock, and the vDSO's clock retries as the moment falls.
    CHECK(counted.at(0) > 0);
    const uint64_t leftOut = jsonNumber(stat.m_stdout, "in_recorder");
    CHECK(leftOut > 0);
    CHECK(leftOut * 10 > counted.at(0) * 9);
    CHECK(leftOut * 9 < counted.at(0) * 10);
    // The cache simulator looks up each access's lines: one more for each that crosses a line.
    uint64_t crossing = 0;
    for (const AccessRow& row : dumpedAccesses(outcome.m_logs[0])) crossing += row.m_addr % 64 + row.m_size > 64;
    CHECK(jsonNumber(cache.m_stdout, "accesses") == samples + crossing);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("full trace: the column order's strides conflict in the cache, the row order's do not, the tiles miss least") {
    requireTraceTool();
    // 64 x 64 doubles: a column's elements lie 512 bytes apart, so a 32 KiB 8-way cache (64 sets)
    // keeps them in 8 of its sets: misses a fully associative cache of the same size would not
    // have (conflict). The row order steps 8 bytes at a time.
    std::map<std::string, std::string> json;
    for (const std::string order : {"row", "col", "blocked"}) {
        const Outcome outcome = fullTrace({scenarioPath("matrix_multiply"), order, "64"});
        REQUIRE(outcome.m_logs.size() == 1);
        const Outcome printed = memlogRun({"cache", outcome.m_logs[0], "--cache", "32K:8:64", "--json"});
        CHECK(printed.m_exitStatus == 0);
        json[order] = printed.m_stdout;
        fs::remove_all(outcome.m_directory);
    }
    // The heap's three matrices: the blocks list's misses, summed.
    auto heapMisses = [](const std::string& text) {
        uint64_t misses = 0;
        const size_t blocks = text.find("\"blocks\":["), globals = text.find("],\"globals\"");
        for (size_t at = text.find("\"misses\":", blocks); at < globals; at = text.find("\"misses\":", at + 1))
            misses += std::stoull(text.substr(at + 9));
        return misses;
    };
    auto conflicts = [](const std::string& text) {
        const size_t at = text.find("\"conflict\":");
        return at == std::string::npos ? UINT64_MAX : std::stoull(text.substr(at + 11));
    };
    const uint64_t row = heapMisses(json["row"]), col = heapMisses(json["col"]), blocked = heapMisses(json["blocked"]);
    const uint64_t rowConflicts = conflicts(json["row"]), colConflicts = conflicts(json["col"]);
    INFO("misses: row " << row << ", col " << col << ", blocked " << blocked << "; conflicts: row " << rowConflicts
                        << ", col " << colConflicts);
    CHECK(colConflicts > 50 * (rowConflicts + 1));
    CHECK(col > 5 * row);
    CHECK(blocked * 2 < row);  // tiles of 32 x 32 stay in the cache while they are used
}

namespace {

// memlog run --full-trace with `env`: refused before anything runs.
Outcome refused(const std::map<std::string, std::string>& env) {
    Run run;
    run.m_preload = false;
    run.m_env = env;
    run.m_argv = {memlogCli(), "run", "--full-trace", "-o", "trace.memlog", "--", scenarioPath("known_accesses")};
    Outcome outcome = runProgram(run);
    CHECK(outcome.m_exitStatus == 2);
    CHECK(outcome.m_logs.empty());
    fs::remove_all(outcome.m_directory);
    return outcome;
}

}  // namespace

TEST_CASE("full trace: without Valgrind, one line says how to get it, and nothing is written") {
    CHECK(refused({{"PATH", "/nonexistent"}}).m_stderr ==
          "memlog: run: --full-trace runs the program under Valgrind, which is not installed (Debian: apt-get install "
          "valgrind)\n");
}

TEST_CASE("full trace: without memlog's Valgrind tool, one line says what to install, and nothing is written") {
    if (std::system("command -v valgrind >/dev/null 2>&1") != 0) std::_Exit(77);
    CHECK(refused({{"MEMLOG_TRACE_TOOL_DIR", "{dir}/no-tool-here"}}).m_stderr ==
          "memlog: run: --full-trace needs memlog's Valgrind tool, which this memlog was built without: install "
          "Valgrind's tool SDK (Debian: apt-get install valgrind) and build memlog again\n");
}

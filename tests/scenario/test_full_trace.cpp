// memlog run --full-trace: the program under Valgrind's lackey, every access in the log, and
// memlog cache over it. Valgrind is one of the packages scripts/deps installs.
#include <catch2/catch.hpp>

#include <filesystem>

#include "run_program.hpp"
#include "timeline/replay/access_attribution.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/replay/block_observer.hpp"

using namespace memlog::test;
using memlog::timeline::Region;
namespace fs = std::filesystem;

namespace {

Outcome fullTrace(const std::vector<std::string>& program) {
    Run run;
    run.m_preload = false;  // memlog run preloads the recorder itself
    run.m_argv = {memlogCli(), "run", "-q", "--full-trace", "-o", "trace.memlog", "--"};
    run.m_argv.insert(run.m_argv.end(), program.begin(), program.end());
    return runProgram(run);
}

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

}  // namespace

TEST_CASE("full trace: N writes then N reads of an array are counted exactly, each in its block") {
    const Outcome outcome = fullTrace({scenarioPath("known_accesses"), "1000"});
    INFO(outcome.m_stderr);
    CHECK(outcome.m_exitStatus == 0);
    CHECK(outcome.m_stdout == "written once, read once\n");
    REQUIRE(outcome.m_logs.size() == 1);
    memlog::timeline::LogReader reader(outcome.m_logs[0]);
    CHECK(reader.header().m_accessSampler == memlog::format::AccessSampler::FullTrace);
    HeapAccesses heap;
    const auto summary = memlog::timeline::summarize(reader, {}, &heap);
    CHECK(summary.m_threads == 1);
    CHECK(summary.m_accessHeap == 2000);  // the array's, and nothing else of the program's is on the heap
    CHECK(summary.m_accessStack > 0);     // the stack told apart from other memory (the recorder's ThreadStack)
    uint64_t writes = 0, reads = 0, lastWrite = 0, firstRead = UINT64_MAX, outside = 0;
    for (const auto& [sample, where] : heap.m_found) {
        if (where.m_blockSize != 8000) continue;
        CHECK(sample.m_source == memlog::format::AccessSource::Trace);
        CHECK(sample.m_size == 8);
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
    // The same in the CSV a user reads: source "trace".
    Run dump;
    dump.m_preload = false;
    dump.m_argv = {memlogCli(), "dump", outcome.m_logs[0], "--accesses", "--csv"};
    const Outcome dumped = runProgram(dump);
    CHECK(dumped.m_exitStatus == 0);
    CHECK(dumped.m_stdout.find(",trace\n") != std::string::npos);
    CHECK(dumped.m_stdout.find(",tick\n") == std::string::npos);
    fs::remove_all(dumped.m_directory);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("full trace: the column order's strides conflict in the cache, the row order's do not, the tiles miss least") {
    // 64 x 64 doubles: a column's elements lie 512 bytes apart, so a 32 KiB 8-way cache (64 sets)
    // keeps them in 8 of its sets: misses a fully associative cache of the same size would not
    // have (conflict). The row order steps 8 bytes at a time.
    std::map<std::string, std::string> json;
    for (const std::string order : {"row", "col", "blocked"}) {
        const Outcome outcome = fullTrace({scenarioPath("matrix_multiply"), order, "64"});
        REQUIRE(outcome.m_logs.size() == 1);
        Run cache;
        cache.m_preload = false;
        cache.m_argv = {memlogCli(), "cache", outcome.m_logs[0], "--cache", "32K:8:64", "--json"};
        const Outcome printed = runProgram(cache);
        CHECK(printed.m_exitStatus == 0);
        json[order] = printed.m_stdout;
        fs::remove_all(printed.m_directory);
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

TEST_CASE("full trace: without Valgrind, one line says how to get it, and nothing is written") {
    Run run;
    run.m_preload = false;
    run.m_env["PATH"] = "/nonexistent";
    run.m_argv = {memlogCli(), "run", "--full-trace", "-o", "trace.memlog", "--", scenarioPath("known_accesses")};
    const Outcome outcome = runProgram(run);
    CHECK(outcome.m_exitStatus == 2);
    CHECK(outcome.m_stderr ==
          "memlog: run: --full-trace runs the program under Valgrind, which is not installed (Debian: apt-get install "
          "valgrind)\n");
    CHECK(outcome.m_logs.empty());
    fs::remove_all(outcome.m_directory);
}

// The scenarios under the real recorder: exact numbers from the real log. Where the C or C++
// runtime allocates by itself, the test compares with the same program run as `empty`.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "run_program.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/base/text_format.hpp"

using namespace memlog::test;
namespace fs = std::filesystem;

namespace {

// Runs a scenario (quietly) and returns the summary of its single log.
memlog::timeline::Summary record(const std::string& scenario, std::vector<std::string> arguments = {}) {
    Run run;
    run.m_argv = {scenarioPath(scenario)};
    run.m_argv.insert(run.m_argv.end(), arguments.begin(), arguments.end());
    run.m_env["MEMLOG_QUIET"] = "1";
    const Outcome outcome = runProgram(run);
    INFO(scenario << " stderr: " << outcome.m_stderr);
    REQUIRE(outcome.m_exitStatus == 0);
    REQUIRE(outcome.m_logs.size() == 1);
    auto summary = summaryOf(outcome.m_logs[0]);
    fs::remove_all(outcome.m_directory);
    return summary;
}

void requireNoAnomalies(const memlog::timeline::Summary& s) {
    CHECK(s.m_anomalies.total() == 0);
    CHECK(s.m_lostEvents == 0);
    CHECK(s.m_complete);
}

}  // namespace

TEST_CASE("linked list: 1000 nodes built and torn down") {
    const auto s = record("linked_list");
    CHECK(callsOf(s, "malloc") == 1000);
    CHECK(callsOf(s, "free") == 1000);
    CHECK(s.m_allocations == 1000);
    CHECK(s.m_frees == 1000);
    CHECK(s.m_peakBytes == 16000);
    CHECK(s.m_peakBlocks == 1000);
    CHECK(s.m_leakedBytes == 0);
    CHECK(s.m_threads == 1);
    CHECK(s.m_stacks >= 2);  // building and tearing down happen in different functions
    requireNoAnomalies(s);
}

TEST_CASE("realloc growth: 17 doublings end one block and begin the next") {
    const auto s = record("realloc_growth");
    CHECK(callsOf(s, "realloc") == 17);
    CHECK(callsOf(s, "free") == 1);
    CHECK(s.m_allocations == 17);
    CHECK(s.m_frees == 17);
    CHECK(s.m_peakBytes == 1u << 20);
    CHECK(s.m_peakBlocks == 1);
    CHECK(s.m_leakedBlocks == 0);
    requireNoAnomalies(s);
}

TEST_CASE("deliberate leaks are live at the end") {
    const auto s = record("leaks");
    CHECK(callsOf(s, "malloc") == 15);
    CHECK(callsOf(s, "free") == 5);
    CHECK(s.m_peakBytes == 1500);
    CHECK(s.m_peakBlocks == 15);
    CHECK(s.m_leakedBytes == 1000);
    CHECK(s.m_leakedBlocks == 10);
    requireNoAnomalies(s);
}

TEST_CASE("every C allocation call is counted under its own kind, memalign and pvalloc too") {
    const auto s = record("aligned_calls");
    for (const char* kind : {"posix_memalign", "aligned_alloc", "memalign", "valloc", "pvalloc", "calloc",
                             "reallocarray", "malloc"}) {
        INFO(kind);
        CHECK(callsOf(s, kind) == 1);
    }
    CHECK(callsOf(s, "free") == 8);
    CHECK(callsOf(s, "realloc") == 0);  // reallocarray is not counted twice
    CHECK(s.m_peakBytes == 1000 + 1024 + 1001 + 1002 + 1003 + 1000 + 500 + 1004);
    CHECK(s.m_leakedBlocks == 0);
    requireNoAnomalies(s);
}

TEST_CASE("anonymous mappings: mmap, a munmap that splits, mremap, but file mappings do not count") {
    const auto s = record("mapped_region");
    CHECK(callsOf(s, "mmap") == 1);
    CHECK(callsOf(s, "munmap") == 3);
    CHECK(callsOf(s, "mremap") == 1);
    CHECK(s.m_allocations == 3);
    CHECK(s.m_frees == 3);
    CHECK(s.m_peakBytes == 524288 + 917504);
    CHECK(s.m_peakBlocks == 2);
    CHECK(s.m_leakedBytes == 0);
    requireNoAnomalies(s);
}

TEST_CASE("mappings alive at exit beside a real leak: mapped at exit, not leaked, in stat and sites") {
    Run run;
    run.m_argv = {scenarioPath("mapped_at_exit")};
    run.m_env["MEMLOG_QUIET"] = "1";
    const Outcome outcome = runProgram(run);
    REQUIRE(outcome.m_exitStatus == 0);
    REQUIRE(outcome.m_logs.size() == 1);
    const auto s = summaryOf(outcome.m_logs[0]);
    CHECK(callsOf(s, "malloc") == 4);
    CHECK(callsOf(s, "mmap") == 2);
    CHECK(callsOf(s, "munmap") == 1);
    CHECK(s.m_leakedBytes == 12'000);
    CHECK(s.m_leakedBlocks == 3);
    CHECK(s.m_mappedAtExitBytes == 3 * 1048576 + 1048576 - 65536);
    CHECK(s.m_mappedAtExitRegions == 3);
    CHECK(s.m_peakBytes == 12'000 + 4 * 1048576);
    CHECK(s.m_peakHeapBytes == 12'500);
    CHECK(s.m_peakMappedBytes == 4 * 1048576);
    requireNoAnomalies(s);
    const std::string& log = outcome.m_logs[0];
    const std::string text = memlogSays({"stat", log});
    CHECK(text.find("\nleaked       11.7 KiB (12,000 bytes) in 3 blocks\n"
                    "mapped       3.9 MiB (4,128,768 bytes) in 3 regions at exit (never unmapped; not counted as "
                    "leaked)\n") != std::string::npos);
    CHECK(text.find("\npeak heap    12.2 KiB (12,500 bytes) (heap blocks alone, at their own peak)\n"
                    "peak mapped  4.0 MiB (4,194,304 bytes) (mappings alone, at their own peak)\n") != std::string::npos);
    REQUIRE(text.find("top sites by leaked") != std::string::npos);
    CHECK(text.substr(text.find("top sites by leaked")).find("map_arena") == std::string::npos);
    const std::string json = memlogSays({"stat", log, "--json"});
    CHECK(json.find("\"peak_bytes\":4206304,\"blocks_at_peak\":5,\"peak_blocks\":6,\"peak_heap_bytes\":12500,"
                    "\"peak_mapped_bytes\":4194304,\"leaked_bytes\":12000,\"leaked_blocks\":3,\"suppressed_bytes\":0,"
                    "\"suppressed_blocks\":0,\"mapped_at_exit_bytes\":4128768,\"mapped_at_exit_regions\":3,") !=
          std::string::npos);
    const std::string csv = memlogSays({"sites", log, "--csv"});
    CHECK(csv.find("\nmap_arena,mapped_at_exit.c:20,mapped_at_exit,2,4194304,4194304,0,0,0,0,,4128768,3\n") !=
          std::string::npos);
    CHECK(csv.find("\nleak_blocks,mapped_at_exit.c:15,mapped_at_exit,3,12000,12000,12000,3,0,0,,0,0\n") !=
          std::string::npos);
    const std::string leaked = memlogSays({"sites", log, "--by", "leaked", "--top", "1"});
    CHECK(leaked.find("leak_blocks") != std::string::npos);
    CHECK(leaked.find("map_arena") == std::string::npos);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("random churn matches the program's own accounts exactly") {
    Run run;
    run.m_argv = {scenarioPath("random_churn")};
    run.m_env["MEMLOG_QUIET"] = "1";
    const Outcome outcome = runProgram(run);
    REQUIRE(outcome.m_exitStatus == 0);
    REQUIRE(outcome.m_logs.size() == 1);
    unsigned long mallocs = 0, frees = 0, peakBlocks = 0, blocksAtPeak = 0;
    size_t peakBytes = 0;
    REQUIRE(std::sscanf(outcome.m_stdout.c_str(), "malloc=%lu free=%lu peak_bytes=%zu peak_blocks=%lu blocks_at_peak=%lu",
                        &mallocs, &frees, &peakBytes, &peakBlocks, &blocksAtPeak) == 5);
    // The seed is fixed: the same program unrecorded prints the same accounts.
    Run bare = run;
    bare.m_preload = false;
    const Outcome unrecorded = runProgram(bare);
    CHECK(unrecorded.m_stdout == outcome.m_stdout);
    CHECK(unrecorded.m_logs.empty());
    fs::remove_all(unrecorded.m_directory);
    const auto s = summaryOf(outcome.m_logs[0]);
    CHECK(callsOf(s, "malloc") == mallocs);
    CHECK(callsOf(s, "free") == frees);
    CHECK(s.m_peakBytes == peakBytes);
    CHECK(s.m_peakBlocks == peakBlocks);
    CHECK(s.m_blocksAtPeak == blocksAtPeak);
    CHECK(s.m_leakedBlocks == 0);
    requireNoAnomalies(s);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("every operator new and delete form counts as new, new[], delete, delete[]") {
    const auto full = record("new_delete_forms");
    const auto empty = record("new_delete_forms", {"empty"});
    // 8 new forms and 12 delete forms: each family of three is counted under its kind.
    CHECK(callsOf(full, "new") - callsOf(empty, "new") == 6);
    CHECK(callsOf(full, "new[]") - callsOf(empty, "new[]") == 6);
    CHECK(callsOf(full, "delete") - callsOf(empty, "delete") == 6);
    CHECK(callsOf(full, "delete[]") - callsOf(empty, "delete[]") == 6);
    CHECK(callsOf(full, "malloc") == callsOf(empty, "malloc"));  // new is not also counted as malloc
    CHECK(callsOf(full, "free") == callsOf(empty, "free"));
    CHECK(full.m_allocations - empty.m_allocations == 12);
    CHECK(full.m_frees - empty.m_frees == 12);
    CHECK(full.m_leakedBytes == empty.m_leakedBytes);
    // At most three of ours live at once; the largest three are the aligned arrays'.
    CHECK(full.m_peakBytes - empty.m_peakBytes == 110 + 111 + 112);
    requireNoAnomalies(full);
}

TEST_CASE("C++ containers: vector growth, map nodes and strings") {
    const auto full = record("cxx_containers");
    const auto empty = record("cxx_containers", {"empty"});
    CHECK(callsOf(full, "new") - callsOf(empty, "new") == 162);
    CHECK(callsOf(full, "delete") - callsOf(empty, "delete") == 162);
    CHECK(full.m_leakedBlocks == empty.m_leakedBlocks);
    requireNoAnomalies(full);
}

TEST_CASE("matrix multiply: three matrices in every loop order") {
    for (const char* order : {"row", "col", "blocked"}) {
        INFO(order);
        const auto s = record("matrix_multiply", {order, "64"});
        CHECK(callsOf(s, "malloc") == 3);
        CHECK(callsOf(s, "free") == 3);
        CHECK(s.m_peakBytes == 3 * 64 * 64 * 8);
        CHECK(s.m_peakBlocks == 3);
        requireNoAnomalies(s);
    }
}

TEST_CASE("producer and consumer threads free each other's blocks") {
    const auto full = record("producer_consumer");
    const auto empty = record("producer_consumer", {"empty"});
    CHECK(callsOf(full, "malloc") - callsOf(empty, "malloc") == 1000);
    CHECK(callsOf(full, "free") - callsOf(empty, "free") == 1000);
    CHECK(full.m_leakedBlocks == empty.m_leakedBlocks);
    CHECK(full.m_threads == empty.m_threads + 2);
    CHECK(full.m_peakBytes >= empty.m_peakBytes + 64);
    requireNoAnomalies(full);
}

TEST_CASE("thousands of short threads each leave their records") {
    const auto full = record("many_threads");
    const auto empty = record("many_threads", {"empty"});
    CHECK(callsOf(full, "malloc") - callsOf(empty, "malloc") == 2000);
    CHECK(callsOf(full, "free") - callsOf(empty, "free") == 2000);
    CHECK(full.m_threads - empty.m_threads == 2000);
    requireNoAnomalies(full);
}

TEST_CASE("allocations before main and after exit has begun are recorded") {
    const auto s = record("early_late");
    CHECK(callsOf(s, "malloc") == 2);
    CHECK(callsOf(s, "free") == 1);
    CHECK(s.m_leakedBytes == 222);
    CHECK(s.m_leakedBlocks == 1);
    requireNoAnomalies(s);
}

TEST_CASE("code loaded with dlopen: the module map names it and its allocation's stack starts in it") {
    for (const char* unwind : {"fp", "libunwind"}) {
        INFO(unwind);
        Run run;
        run.m_argv = {scenarioPath("dlopen_plugin")};
        run.m_env["MEMLOG_QUIET"] = "1";
        run.m_env["MEMLOG_UNWIND"] = unwind;
        const Outcome outcome = runProgram(run);
        REQUIRE(outcome.m_exitStatus == 0);
        REQUIRE(outcome.m_logs.size() == 1);
        memlog::timeline::LogReader reader(outcome.m_logs[0]);
        uint32_t pluginStack = 0;
        reader.forEachEvent([&](const memlog::timeline::Event& e) {
            if (e.m_kind == memlog::format::Kind::Malloc && e.m_size == 4242) pluginStack = e.m_stack;
        });
        REQUIRE(pluginStack != 0);
        const memlog::timeline::Module* plugin = nullptr;
        for (const auto& module : reader.modules())
            if (module.m_path.find("libscenario_plugin.so") != std::string::npos) plugin = &module;
        REQUIRE(plugin != nullptr);
        const uint64_t innermost = reader.stacks().at(pluginStack).at(0);
        CHECK(innermost >= plugin->m_lo);
        CHECK(innermost < plugin->m_hi);
        fs::remove_all(outcome.m_directory);
    }
}

TEST_CASE("peaks apart: the byte peak with its blocks and the most blocks live, in text, header and JSON") {
    Run run;
    run.m_argv = {scenarioPath("peaks_apart")};
    run.m_env["MEMLOG_QUIET"] = "1";
    const Outcome outcome = runProgram(run);
    REQUIRE(outcome.m_exitStatus == 0);
    CHECK(outcome.m_stdout == "peaks apart\n");
    REQUIRE(outcome.m_logs.size() == 1);
    const auto s = summaryOf(outcome.m_logs[0]);
    CHECK(callsOf(s, "malloc") == 5);
    CHECK(callsOf(s, "free") == 5);
    CHECK(s.m_peakBytes == 125);
    CHECK(s.m_blocksAtPeak == 2);
    CHECK(s.m_peakBlocks == 3);
    requireNoAnomalies(s);
    // The report's header line says it with the same figures.
    CHECK(memlog::timeline::peakText(s.m_peakBytes, s.m_blocksAtPeak, s.m_peakBlocks) ==
          "peak 125 B in 2 blocks \u00b7 at most 3 blocks live");
    Run stat;
    stat.m_preload = false;
    stat.m_argv = {memlogCli(), "stat", outcome.m_logs[0]};
    const Outcome text = runProgram(stat);
    CHECK(text.m_stdout.find("\npeak         125 B in 2 blocks (live at that moment)\n"
                             "peak blocks  3 (the most live at once)\n") != std::string::npos);
    stat.m_argv.push_back("--json");
    const Outcome json = runProgram(stat);
    CHECK(json.m_stdout.find("\"peak_bytes\":125,\"blocks_at_peak\":2,\"peak_blocks\":3,") != std::string::npos);
    for (const Outcome* printed : {&text, &json}) fs::remove_all(printed->m_directory);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("`empty` runs: every scenario starts and exits cleanly, and the recorder's own work is not logged") {
    // A C program that uses no stdio allocates nothing by itself on glibc, so what its `empty`
    // run logs could only be the recorder's own start-up and exit. The others log what their
    // runtime allocates (threads' TLS, libstdc++'s emergency pool; early_late's constructor runs
    // in both modes), which the tests above cancel.
    const std::vector<std::string> noisy = {"cxx_containers", "early_late", "many_threads", "new_delete_forms",
                                            "producer_consumer"};
    for (const char* scenario :
         {"abort_halfway", "aligned_calls", "allocation_sites", "allocator_at_work", "bench_alloc", "bench_dlopen",
          "crash", "cxx_containers", "deepbind_plugin", "dlopen_plugin", "early_late", "fork_exec", "forever", "leaks",
          "linked_list", "many_threads", "mapped_at_exit", "mapped_region", "matrix_multiply", "matrix_walk",
          "new_delete_forms", "peaks_apart", "producer_consumer", "random_churn", "realloc_growth", "replaced_malloc",
          "trickle"}) {
        INFO(scenario);
        const auto s = record(scenario, {"empty"});  // exit status 0 and one log
        CHECK(s.m_complete);
        CHECK(s.m_anomalies.total() == 0);
        if (std::find(noisy.begin(), noisy.end(), scenario) == noisy.end()) CHECK(s.m_events == 0);
    }
}

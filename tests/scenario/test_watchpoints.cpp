// Watchpoints on sampled words under the real LD_PRELOAD (MEMLOG_WATCH=1). The debug registers
// fire on some machines of this kind and not on others: where the probe says they do not, the
// tests that need them exit with 77, which ctest reports as skipped, with the reason on stdout.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "watch/watch_probe.hpp"
#include "run_program.hpp"
#include "render/report/report.hpp"
#include "timeline/block_model.hpp"
#include "timeline/log_reader.hpp"
#include "timeline/text_format.hpp"
#include "timeline/use_after_free.hpp"

using namespace memlog::test;
namespace fs = std::filesystem;

namespace {

// The recorder's own probe (it watches a word of its own and counts its writes); its reason is
// what a skipped test reports.
void skipUnlessWatchpointsFire() {
    char reason[256];
    if (memlog::preload::probeWatchpoints(reason, sizeof reason)) return;
    std::printf("skipped: %s\n", reason);
    std::fflush(stdout);
    std::_Exit(77);
}

Outcome watch(const std::string& scenario, const std::string& watchRate = "500") {
    Run run;
    run.m_argv = {scenarioPath(scenario)};
    run.m_env["MEMLOG_QUIET"] = "1";
    run.m_env["MEMLOG_WATCH"] = "1";  // implies MEMLOG_ACCESS=1
    run.m_env["MEMLOG_ACCESS_RATE"] = "5000";
    run.m_env["MEMLOG_WATCH_RATE"] = watchRate;
    return runProgram(run);
}

}  // namespace

TEST_CASE("watchpoints: a producer's writes are next read by the consumer, in the other thread") {
    skipUnlessWatchpointsFire();
    const Outcome outcome = watch("handoff");
    CHECK(outcome.m_stdout == "handed over\n");
    CHECK(outcome.m_stderr.empty());
    REQUIRE(outcome.m_logs.size() == 1);
    const auto summary = summaryOf(outcome.m_logs[0]);
    CHECK(summary.m_watchSampler == memlog::format::WatchSampler::ProcessWide);
    CHECK(summary.m_watchRate == 500);
    CHECK(summary.m_watchTraps >= 10);
    CHECK(summary.m_watchTraps == summary.m_watchCounters.m_traps);
    // The two threads take turns over the buffer: most words sampled in one are next touched
    // by the other.
    CHECK(summary.m_watchOtherThread * 2 >= summary.m_watchTraps);
    CHECK(summary.m_watchReuseMedianNs > 0);
    CHECK(summary.m_anomalies.total() == 0);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("watchpoints: reading freed memory is a use after free, told with its three stacks and drawn") {
    skipUnlessWatchpointsFire();
    const Outcome outcome = watch("use_after_free", "100000");
    CHECK(outcome.m_stdout == "read freed memory\n");
    REQUIRE(outcome.m_logs.size() == 1);
    const auto summary = summaryOf(outcome.m_logs[0]);
    CHECK(summary.m_anomalies.m_useAfterFree > 0);
    CHECK(summary.m_watchCounters.m_freedWhileWatched > 0);  // watches that outlived their block's free
    memlog::timeline::LogReader reader(outcome.m_logs[0]);
    const auto uses = memlog::timeline::findUsesAfterFree(reader);
    uint64_t byWatchpoint = 0;
    for (const auto& use : uses) byWatchpoint += use.m_byWatchpoint;
    CHECK(byWatchpoint > 0);
    Run uaf;
    uaf.m_preload = false;
    uaf.m_argv = {memlogCli(), "uaf", outcome.m_logs[0], "--top", "3"};
    const Outcome printed = runProgram(uaf);
    CHECK(printed.m_exitStatus == 0);
    for (const char* line : {"  allocated    make_block  use_after_free.c:", "  freed        release_block  use_after_free.c:",
                             "  used         read_after_free  use_after_free.c:"}) {
        INFO(line);
        CHECK(printed.m_stdout.find(line) != std::string::npos);
    }
    fs::remove_all(printed.m_directory);
    // The picture: a cross for each access to a freed block, a line from each trap to its sample.
    memlog::timeline::LogReader again(outcome.m_logs[0]);
    const auto model = memlog::timeline::buildBlockModel(again);
    uint64_t crosses = 0, linked = 0;
    std::set<uint64_t> sampleSeqs;
    for (const auto& mark : model.accessMarks()) sampleSeqs.insert(mark.m_seq);
    for (const auto& mark : model.accessMarks()) {
        crosses += mark.m_useAfterFree;
        linked += mark.m_armedBy != 0 && sampleSeqs.count(mark.m_armedBy);
    }
    CHECK(crosses == summary.m_anomalies.m_useAfterFree);
    CHECK(linked == summary.m_watchTraps);
    const memlog::render::Report report(model, nullptr, memlog::render::ReportOptions{});
    auto lists = [&](const std::string& text) {
        for (const auto& item : report.legend())
            if (item.m_label == text) return true;
        return false;
    };
    CHECK(lists("cross: use after free (" + memlog::timeline::countText(crosses) + ")"));
    CHECK(lists("line: a sample to the word's next access (" + memlog::timeline::countText(linked) + ")"));
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("watchpoints: a block freed and handed out again, never used after its free, is no use after free") {
    skipUnlessWatchpointsFire();
    const Outcome outcome = watch("reuse_without_uaf", "100000");
    CHECK(outcome.m_stdout == "reused, never after free\n");
    REQUIRE(outcome.m_logs.size() == 1);
    const auto summary = summaryOf(outcome.m_logs[0]);
    CHECK(summary.m_watchTraps > 0);
    CHECK(summary.m_anomalies.m_useAfterFree == 0);
    CHECK(summary.m_blocksUsedAfterFree == 0);
    CHECK(summary.m_anomalies.total() == 0);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("watchpoints where perf events are refused: one line says why, and the ticks go on") {
    Run run;
    run.m_preload = false;
    run.m_argv = {MEMLOG_TEST_DENY_PERF_EVENTS, "env", "LD_PRELOAD=" + recorderLibrary(), scenarioPath("access_phases"),
                  "20"};
    run.m_env["MEMLOG_QUIET"] = "1";
    run.m_env["MEMLOG_WATCH"] = "1";
    const Outcome outcome = runProgram(run);
    CHECK(outcome.m_exitStatus == 0);
    CHECK(outcome.m_stderr.starts_with("memlog: watchpoints unavailable: perf_event_open refused (EACCES"));
    CHECK(std::count(outcome.m_stderr.begin(), outcome.m_stderr.end(), '\n') == 1);
    REQUIRE(outcome.m_logs.size() == 1);
    const auto summary = summaryOf(outcome.m_logs[0]);
    CHECK(summary.m_watchSampler == memlog::format::WatchSampler::Unavailable);
    CHECK(summary.m_watchStatus.starts_with("perf_event_open refused (EACCES"));
    CHECK(summary.m_accessSampler == memlog::format::AccessSampler::TickThreadTimers);
    CHECK(summary.m_accessSamples > 0);
    fs::remove_all(outcome.m_directory);
}

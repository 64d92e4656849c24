// The records' clock as a user chooses it (MEMLOG_CLOCK, memlog run --clock): the TSC by default,
// the kernel's tick clock on request, each named by the log and by memlog stat.
#include <catch2/catch.hpp>

#include <time.h>

#include <filesystem>
#include <vector>

#include "run_program.hpp"
#include "timeline/log_reader.hpp"
#include "timeline/text_format.hpp"

using namespace memlog::test;
namespace format = memlog::format;
namespace fs = std::filesystem;

namespace {

// trickle, one second: each of its 100 turns frees the block of ten turns ago and mallocs a new
// one, microseconds apart, then sleeps 10 ms.
struct TrickleTimes {
    format::FileHeader m_header{};
    std::vector<uint64_t> m_mallocNs;  // the 64-byte mallocs' times, in order
    int m_pairsSharingATime = 0;       // a free and the malloc right after it with one time
    int m_pairs = 0;
};

TrickleTimes readTrickle(const std::string& path) {
    TrickleTimes times;
    memlog::timeline::LogReader reader(path);
    times.m_header = reader.header();
    memlog::timeline::Event previous;
    reader.forEachEvent([&](const memlog::timeline::Event& event) {
        if (event.m_kind == format::Kind::Malloc && event.m_size == 64) {
            times.m_mallocNs.push_back(event.m_timeNs);
            if (previous.m_kind == format::Kind::Free && previous.m_addr != 0) {
                ++times.m_pairs;
                if (previous.m_timeNs == event.m_timeNs) ++times.m_pairsSharingATime;
            }
        }
        previous = event;
    });
    return times;
}

uint64_t coarseResolutionNs() {
    timespec resolution{};
    clock_getres(CLOCK_MONOTONIC_COARSE, &resolution);
    return static_cast<uint64_t>(resolution.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(resolution.tv_nsec);
}

// Every 64-byte malloc follows the one before by the 10 ms sleep at least, less what a clock of
// that resolution can lose at each end.
void checkSleepsAreSeen(const TrickleTimes& times, uint64_t resolutionNs) {
    REQUIRE(times.m_mallocNs.size() == 100);
    for (size_t i = 1; i < times.m_mallocNs.size(); ++i)
        CHECK(times.m_mallocNs[i] - times.m_mallocNs[i - 1] + resolutionNs >= 10'000'000);
}

}  // namespace

TEST_CASE("by default the records carry TSC times: no two events share one") {
    Run run;
    run.m_argv = {scenarioPath("trickle"), "1"};
    run.m_env["MEMLOG_QUIET"] = "1";
    const Outcome outcome = runProgram(run);
    REQUIRE(outcome.m_exitStatus == 0);
    REQUIRE(outcome.m_logs.size() == 1);
    const TrickleTimes times = readTrickle(outcome.m_logs[0]);
    CHECK((times.m_header.m_flags & format::kFlagCoarseClock) == 0);
    CHECK(times.m_header.m_clockResolutionNs == 0);
    CHECK(times.m_pairs == 90);
    CHECK(times.m_pairsSharingATime == 0);
    checkSleepsAreSeen(times, 0);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("MEMLOG_CLOCK=coarse: the kernel's tick clock, its resolution in the header, close events share a time") {
    Run run;
    run.m_argv = {scenarioPath("trickle"), "1"};
    run.m_env["MEMLOG_QUIET"] = "1";
    run.m_env["MEMLOG_CLOCK"] = "coarse";
    const Outcome outcome = runProgram(run);
    REQUIRE(outcome.m_exitStatus == 0);
    CHECK(outcome.m_stderr.empty());
    REQUIRE(outcome.m_logs.size() == 1);
    const TrickleTimes times = readTrickle(outcome.m_logs[0]);
    const uint64_t resolution = coarseResolutionNs();
    CHECK((times.m_header.m_flags & format::kFlagCoarseClock) != 0);
    CHECK(times.m_header.m_clockResolutionNs == resolution);
    // The timestamps are nanoseconds of CLOCK_MONOTONIC_COARSE: one tick per ns, pairs equal.
    CHECK(times.m_header.m_tscPerNsQ32 == 1ull << 32);
    CHECK(times.m_header.m_startTsc == times.m_header.m_startNs);
    CHECK(times.m_header.m_endTsc == times.m_header.m_endNs);
    // A free and the next malloc are microseconds apart: within one tick, but for the few pairs
    // a tick boundary falls between (resolution of 1 ms and more: under one in a hundred).
    CHECK(times.m_pairs == 90);
    CHECK(times.m_pairsSharingATime >= 85);
    checkSleepsAreSeen(times, resolution);
    const memlog::timeline::Summary summary = summaryOf(outcome.m_logs[0]);
    CHECK(summary.m_coarseClock);
    CHECK(summary.m_clockResolutionNs == resolution);
    CHECK(summary.m_durationNs >= 1'000'000'000 - resolution);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("memlog run --clock coarse records with the tick clock, and memlog stat names it") {
    Run run;
    run.m_preload = false;
    run.m_argv = {memlogCli(), "run", "-q", "--clock", "coarse", "-o", "out.memlog", "--", scenarioPath("trickle"), "1"};
    const Outcome outcome = runProgram(run);
    REQUIRE(outcome.m_exitStatus == 0);
    REQUIRE(outcome.m_logs.size() == 1);
    const std::string resolutionText = memlog::timeline::durationText(static_cast<double>(coarseResolutionNs()));
    auto stat = [&](std::vector<std::string> options) {
        Run command;
        command.m_preload = false;
        command.m_argv = {memlogCli(), "stat", outcome.m_logs[0]};
        command.m_argv.insert(command.m_argv.end(), options.begin(), options.end());
        const Outcome printed = runProgram(command);
        CHECK(printed.m_exitStatus == 0);
        fs::remove_all(printed.m_directory);
        return printed.m_stdout;
    };
    CHECK(stat({}).find("(the kernel's tick clock, MEMLOG_CLOCK=coarse: times to " + resolutionText + ")") !=
          std::string::npos);
    CHECK(stat({"--json"}).find("\"clock\":\"coarse\",\"clock_resolution_ns\":" + std::to_string(coarseResolutionNs())) !=
          std::string::npos);

    Run bad = run;
    bad.m_argv = {memlogCli(), "run", "--clock", "sundial", "--", scenarioPath("trickle"), "1"};
    const Outcome refused = runProgram(bad);
    CHECK(refused.m_exitStatus == 2);
    CHECK(refused.m_stderr.find("--clock takes tsc or coarse") != std::string::npos);
    CHECK(refused.m_logs.empty());
    fs::remove_all(refused.m_directory);
    fs::remove_all(outcome.m_directory);
}

// What happens to the log when the process forks, execs, aborts, crashes or is killed.
#include <catch2/catch.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>

#include "run_program.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/replay/block_observer.hpp"

using namespace memlog::test;
namespace fs = std::filesystem;

TEST_CASE("fork and exec: every process image writes a complete log of its own") {
    Run run;
    run.m_argv = {scenarioPath("fork_exec")};
    run.m_env["MEMLOG_QUIET"] = "1";
    const Outcome outcome = runProgram(run);
    REQUIRE(outcome.m_exitStatus == 0);
    REQUIRE(outcome.m_logs.size() == 3);

    const memlog::format::FileHeader* parent = nullptr;
    std::vector<std::pair<memlog::format::FileHeader, memlog::timeline::Summary>> logs;
    for (const std::string& path : outcome.m_logs) {
        memlog::timeline::LogReader reader(path);
        logs.emplace_back(reader.header(), memlog::timeline::summarize(reader));
    }
    for (auto& [header, summary] : logs)
        if (header.m_parentPid == 0 && callsOf(summary, "malloc") == 8) parent = &header;
    REQUIRE(parent != nullptr);
    int found = 0;
    for (auto& [header, summary] : logs) {
        INFO("pid " << header.m_pid << " parent " << header.m_parentPid);
        CHECK(summary.m_complete);
        if (&header == parent) {
            CHECK(summary.m_anomalies.total() == 0);
            CHECK(header.m_endReason == memlog::format::EndReason::Exit);
            ++found;
        } else if (header.m_parentPid == parent->m_pid) {  // the fork child, up to its exec
            CHECK((header.m_flags & memlog::format::kFlagForkChild) != 0);
            CHECK(callsOf(summary, "malloc") == 7);
            CHECK(callsOf(summary, "free") == 0);  // the block it freed was the parent's...
            CHECK(summary.m_anomalies.m_unknownFree == 1);  // ...so its log counts an anomaly
            CHECK(header.m_endReason == memlog::format::EndReason::Exec);
            ++found;
        } else {  // the exec'd image: same pid as the fork child, a new log
            CHECK(callsOf(summary, "malloc") == 11);
            CHECK(summary.m_anomalies.total() == 0);
            CHECK(header.m_endReason == memlog::format::EndReason::Exit);
            ++found;
        }
    }
    CHECK(found == 3);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("abort or crash half way: the program dies by its signal, its log reads up to the end") {
    struct Case {
        const char* m_scenario;
        int m_signal;
        uint64_t m_leakedBytes;  // 100 blocks of 80 or 90 bytes
    };
    for (const Case& c : {Case{"abort_halfway", SIGABRT, 8000}, Case{"crash", SIGSEGV, 9000}}) {
        INFO(c.m_scenario);
        Run run;
        run.m_argv = {scenarioPath(c.m_scenario)};
        run.m_env["MEMLOG_QUIET"] = "1";
        const Outcome outcome = runProgram(run);
        CHECK(outcome.m_signal == c.m_signal);
        REQUIRE(outcome.m_logs.size() == 1);
        const auto s = summaryOf(outcome.m_logs[0]);
        CHECK_FALSE(s.m_complete);
        CHECK(callsOf(s, "malloc") == 100);
        CHECK(s.m_leakedBytes == c.m_leakedBytes);
        fs::remove_all(outcome.m_directory);
    }
}

TEST_CASE("kill -9: everything recorded well before the kill is in the file") {
    Run run;
    run.m_argv = {scenarioPath("forever"), "progress"};
    run.m_env["MEMLOG_QUIET"] = "1";
    run.m_killWhenFile = "progress";
    run.m_killAfterSeconds = 0.3;
    // A log that is still being written reads like a torn one: everything up to now.
    uint64_t liveMallocs = 0;
    bool liveComplete = true;
    run.m_whileRunning = [&](const std::string& directory) {
        for (const auto& entry : fs::directory_iterator(directory))
            if (entry.path().extension() == ".memlog") {
                const auto live = summaryOf(entry.path().string());
                liveMallocs = callsOf(live, "malloc");
                liveComplete = live.m_complete;
            }
    };
    const Outcome outcome = runProgram(run);
    CHECK(liveMallocs >= 100000);
    CHECK_FALSE(liveComplete);
    CHECK(outcome.m_signal == SIGKILL);
    REQUIRE(outcome.m_logs.size() == 1);
    // The progress file was written when at least this many pairs were done; more followed
    // during the 300 ms before the kill.
    std::ifstream progressFile(fs::path(outcome.m_directory) / "progress");
    unsigned long pairsBefore = 0;
    progressFile >> pairsBefore;
    REQUIRE(pairsBefore >= 100000);
    const auto s = summaryOf(outcome.m_logs[0]);
    CHECK_FALSE(s.m_complete);
    CHECK(callsOf(s, "malloc") >= pairsBefore);
    CHECK(callsOf(s, "malloc") >= liveMallocs);
    CHECK(callsOf(s, "free") >= pairsBefore);
    CHECK(s.m_anomalies.total() == 0);
    fs::remove_all(outcome.m_directory);
}

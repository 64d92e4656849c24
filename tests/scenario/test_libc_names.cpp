// glibc's __libc_malloc and the rest, under the real recorder: recorded when a malloc of the
// program's or of a library preloaded in front of the recorder forwards to them (the recorder's
// own hooks never run then), passed through when the recorder's malloc is the one in front.
#include <catch2/catch.hpp>

#include <filesystem>

#include "run_program.hpp"

using namespace memlog::test;
namespace fs = std::filesystem;

namespace {

std::string forwardingLibrary() { return scenarioPath("libscenario_forwarding_malloc.so"); }

memlog::timeline::Summary recordLinkedList(const std::string& preload) {
    Run run;
    run.m_argv = {scenarioPath("linked_list")};
    run.m_env["MEMLOG_QUIET"] = "1";
    run.m_env["LD_PRELOAD"] = preload;
    const Outcome outcome = runProgram(run);
    INFO("stderr: " << outcome.m_stderr);
    REQUIRE(outcome.m_exitStatus == 0);
    REQUIRE(outcome.m_logs.size() == 1);
    auto summary = summaryOf(outcome.m_logs[0]);
    fs::remove_all(outcome.m_directory);
    return summary;
}

}  // namespace

TEST_CASE("a program with a malloc of its own that calls __libc_malloc: recorded through those") {
    Run run;
    run.m_argv = {scenarioPath("replaced_malloc")};
    run.m_env["MEMLOG_QUIET"] = "1";
    const Outcome outcome = runProgram(run);
    REQUIRE(outcome.m_exitStatus == 0);
    CHECK(outcome.m_stdout == "own calls: 9\n");
    REQUIRE(outcome.m_logs.size() == 1);
    const auto s = summaryOf(outcome.m_logs[0]);
    CHECK(callsOf(s, "malloc") == 3);
    CHECK(callsOf(s, "calloc") == 1);
    CHECK(callsOf(s, "realloc") == 1);
    CHECK(callsOf(s, "free") == 4);
    CHECK(s.m_peakBytes == 100 + 200 + 3000 + 100);
    CHECK(s.m_leakedBlocks == 0);
    CHECK(s.m_anomalies.total() == 0);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("a forwarding malloc preloaded in front of the recorder is recorded through __libc_malloc") {
    const auto s = recordLinkedList(forwardingLibrary() + " " + recorderLibrary());
    CHECK(callsOf(s, "malloc") == 1000);
    CHECK(callsOf(s, "free") == 1000);
    CHECK(s.m_peakBlocks == 1000);
    CHECK(s.m_anomalies.total() == 0);
}

TEST_CASE("a forwarding malloc preloaded behind the recorder: each block recorded once, not twice") {
    // The recorder's malloc forwards to it, and it to __libc_malloc: that call passes through.
    const auto s = recordLinkedList(recorderLibrary() + " " + forwardingLibrary());
    CHECK(callsOf(s, "malloc") == 1000);
    CHECK(callsOf(s, "free") == 1000);
    CHECK(s.m_peakBlocks == 1000);
    CHECK(s.m_anomalies.total() == 0);
}

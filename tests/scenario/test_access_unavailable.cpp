// MEMLOG_ACCESS=1 where watchpoints cannot sample: one line on stderr says why, the header keeps
// the reason for `memlog stat`, and the program and its allocations are as without sampling.
// (This machine's debug registers never fire, so these are the paths a user here meets.)
#include <catch2/catch.hpp>

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "run_program.hpp"
#include "timeline/log_reader.hpp"

using namespace memlog::test;
namespace fs = std::filesystem;

namespace {

// Asked independently of the recorder: does a write watchpoint on a word count writes here?
bool watchpointsFireHere() {
    static volatile uint64_t word;
    perf_event_attr attr{};
    attr.type = PERF_TYPE_BREAKPOINT;
    attr.size = sizeof attr;
    attr.bp_type = HW_BREAKPOINT_W;
    attr.bp_addr = reinterpret_cast<uintptr_t>(&word);
    attr.bp_len = HW_BREAKPOINT_LEN_8;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    const int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
    if (fd < 0) return false;
    for (int i = 0; i < 10; ++i) word = i;
    uint64_t count = 0;
    const bool read = ::read(fd, &count, sizeof count) == sizeof count;
    close(fd);
    return read && count == 10;
}

std::string paranoia() {
    std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
    std::string value;
    in >> value;
    return value;
}

int countLines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

struct Recorded {
    Outcome m_outcome;
    memlog::format::FileHeader m_header{};
    memlog::timeline::Summary m_summary;
};

Recorded recordOne(Run run) {
    Recorded recorded;
    recorded.m_outcome = runProgram(run);
    REQUIRE(recorded.m_outcome.m_logs.size() == 1);
    memlog::timeline::LogReader reader(recorded.m_outcome.m_logs[0]);
    recorded.m_header = reader.header();
    recorded.m_summary = memlog::timeline::summarize(reader);
    return recorded;
}

}  // namespace

TEST_CASE("MEMLOG_ACCESS=1 here: one line says why sampling cannot run, and allocations are recorded as without it") {
    Run plain;
    plain.m_argv = {scenarioPath("random_churn")};
    plain.m_env["MEMLOG_QUIET"] = "1";
    Run sampled = plain;
    sampled.m_env["MEMLOG_ACCESS"] = "1";
    sampled.m_env["MEMLOG_ACCESS_RATE"] = "250";
    const Recorded without = recordOne(plain);
    const Recorded with = recordOne(sampled);

    const std::string expected = watchpointsFireHere()
                                     ? "watchpoints work here, but this build of memlog cannot sample with them yet"
                                     : "hardware watchpoints do not fire on this machine (a watchpoint counted 0 of 4 "
                                       "writes to its word";
    CHECK(with.m_outcome.m_exitStatus == 0);
    CHECK(with.m_outcome.m_stdout == without.m_outcome.m_stdout);
    CHECK(countLines(with.m_outcome.m_stderr) == 1);  // even with MEMLOG_QUIET: the user asked for it
    CHECK(with.m_outcome.m_stderr.starts_with("memlog: access sampling unavailable: " + expected));
    CHECK(with.m_outcome.m_stderr.ends_with("; recording allocations only\n"));
    CHECK(without.m_outcome.m_stderr.empty());

    CHECK(with.m_header.m_accessSampler == memlog::format::AccessSampler::Unavailable);
    CHECK(with.m_header.m_accessRate == 250);
    CHECK(std::string(with.m_header.m_accessStatus).starts_with(expected));
    CHECK(without.m_header.m_accessSampler == memlog::format::AccessSampler::Off);
    CHECK(without.m_header.m_accessRate == 0);

    // The same heap, event for event (random_churn's seed is fixed), and no samples.
    CHECK(with.m_summary.m_calls == without.m_summary.m_calls);
    CHECK(with.m_summary.m_peakBytes == without.m_summary.m_peakBytes);
    CHECK(with.m_summary.m_accessSamples == 0);
    CHECK(with.m_summary.m_anomalies.total() == 0);
    fs::remove_all(with.m_outcome.m_directory);
    fs::remove_all(without.m_outcome.m_directory);
}

TEST_CASE("perf_event_open refused, as in a container: the reason names it and the paranoia level") {
    Run run;
    // The launcher installs the filter, then env starts the scenario with the recorder loaded.
    run.m_preload = false;
    run.m_argv = {MEMLOG_TEST_DENY_PERF_EVENTS, "env", "LD_PRELOAD=" + recorderLibrary(), scenarioPath("leaks")};
    run.m_env["MEMLOG_QUIET"] = "1";
    run.m_env["MEMLOG_ACCESS"] = "1";
    const Recorded recorded = recordOne(run);
    CHECK(recorded.m_outcome.m_exitStatus == 0);
    const std::string reason = "perf_event_open refused (EACCES, kernel.perf_event_paranoid = " + paranoia() + ")";
    CHECK(recorded.m_outcome.m_stderr.starts_with("memlog: access sampling unavailable: " + reason));
    CHECK(countLines(recorded.m_outcome.m_stderr) == 1);
    CHECK(std::string(recorded.m_header.m_accessStatus).starts_with(reason));
    CHECK(recorded.m_summary.m_leakedBlocks == 10);  // leaks' own numbers, recorded all the same

    // memlog stat tells the same.
    Run stat;
    stat.m_preload = false;
    stat.m_argv = {memlogCli(), "stat", recorded.m_outcome.m_logs[0], "--json"};
    const Outcome printed = runProgram(stat);
    CHECK(printed.m_stdout.find("\"access_sampler\":\"unavailable: " + reason) != std::string::npos);
    fs::remove_all(printed.m_directory);
    fs::remove_all(recorded.m_outcome.m_directory);
}

TEST_CASE("under a debugger: sampling stands aside and the debugger's breakpoints work") {
    Run run;
    run.m_preload = false;  // gdb itself is not recorded; its inferior is
    run.m_argv = {"gdb", "-q", "-nx", "-batch",
                  "-ex", "set startup-with-shell off",
                  "-ex", "set environment LD_PRELOAD=" + recorderLibrary(),
                  "-ex", "set environment MEMLOG_ACCESS=1",
                  "-ex", "set environment MEMLOG_QUIET=1",
                  "-ex", "break leak_one",
                  "-ex", "run",
                  "-ex", "delete",
                  "-ex", "continue",
                  "--args", scenarioPath("leaks")};
    const Recorded recorded = recordOne(run);
    CHECK(recorded.m_outcome.m_exitStatus == 0);
    CHECK(recorded.m_outcome.m_stdout.find("Breakpoint 1, leak_one") != std::string::npos);
    CHECK(recorded.m_outcome.m_stdout.find("exited normally") != std::string::npos);
    CHECK(std::string(recorded.m_header.m_accessStatus).starts_with("the process is traced by pid "));
    CHECK(recorded.m_summary.m_leakedBlocks == 10);
    CHECK(recorded.m_summary.m_complete);
    fs::remove_all(recorded.m_outcome.m_directory);
}

TEST_CASE("memlog run --access-rate asks for sampling with that budget") {
    Run run;
    run.m_preload = false;
    run.m_argv = {memlogCli(), "run", "-q", "--access-rate", "4000", "-o", "out.memlog", "--", scenarioPath("leaks")};
    const Recorded recorded = recordOne(run);
    CHECK(recorded.m_outcome.m_exitStatus == 0);
    CHECK(recorded.m_header.m_accessSampler == memlog::format::AccessSampler::Unavailable);
    CHECK(recorded.m_header.m_accessRate == 4000);
    CHECK(countLines(recorded.m_outcome.m_stderr) == 1);
    fs::remove_all(recorded.m_outcome.m_directory);
}

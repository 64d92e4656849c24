// Real programs under the recorder: output and exit status exactly as without it, and a complete
// log with allocations in it; with MEMLOG_ACCESS=1 as well, with access samples in the logs; and
// with MEMLOG_UNWIND_CHECK=1, every incremental stack the same as a full walk's.
#include <catch2/catch.hpp>

#include <filesystem>

#include "run_program.hpp"

using namespace memlog::test;
namespace fs = std::filesystem;

namespace {

enum class Mode { Plain, Sampling, UnwindCheck };

void compareWithAndWithout(const std::vector<std::string>& argv, Mode mode) {
    const bool sampling = mode == Mode::Sampling;
    Run bare;
    bare.m_argv = argv;
    bare.m_preload = false;
    Run recorded = bare;
    recorded.m_preload = true;
    recorded.m_env["MEMLOG_QUIET"] = "1";
    if (sampling) {
        recorded.m_env["MEMLOG_ACCESS"] = "1";
        recorded.m_env["MEMLOG_ACCESS_RATE"] = "20000";  // short programs: enough ticks to see
    }
    if (mode == Mode::UnwindCheck) recorded.m_env["MEMLOG_UNWIND_CHECK"] = "1";
    // Absolute: programs that change directory (git into its repository) log beside the others.
    recorded.m_env["MEMLOG_OUT"] = "{dir}/%e.%p.memlog";
    const Outcome expected = runProgram(bare);
    const Outcome actual = runProgram(recorded);
    INFO(argv[0] << (sampling ? " with access samples" : mode == Mode::UnwindCheck ? " with the unwind check" : ""));
    CHECK(actual.m_exitStatus == expected.m_exitStatus);
    CHECK(actual.m_signal == expected.m_signal);
    CHECK(actual.m_stdout == expected.m_stdout);
    CHECK(actual.m_stderr == expected.m_stderr);
    REQUIRE(!actual.m_logs.empty());
    uint64_t samples = 0;
    uint64_t checked = 0;
    for (const std::string& log : actual.m_logs) {
        INFO(log);
        const auto summary = summaryOf(log);
        CHECK(summary.m_complete);
        CHECK(summary.m_lostEvents == 0);
        // Every program image allocates; a fork child may exec before it allocates anything.
        if (summary.m_parentPid == 0) CHECK(summary.m_allocations > 0);
        samples += summary.m_accessSamples;
        checked += summary.m_unwindChecked;
        CHECK(summary.m_unwindMismatches == 0);
        CHECK(summary.m_accessSamples == summary.m_accessCounters.m_samples);
    }
    if (sampling) CHECK(samples > 0);
    if (mode == Mode::UnwindCheck) CHECK(checked > 0);
    else CHECK(checked == 0);
    fs::remove_all(expected.m_directory);
    fs::remove_all(actual.m_directory);
}

void compareWithAndWithout(const std::vector<std::string>& argv) {
    compareWithAndWithout(argv, Mode::Plain);
    compareWithAndWithout(argv, Mode::Sampling);
    compareWithAndWithout(argv, Mode::UnwindCheck);
}

}  // namespace

TEST_CASE("python3 builds a dict and a list") {
    compareWithAndWithout({"python3", "-c",
                           "d = {i: str(i) * 3 for i in range(20000)}\n"
                           "l = sorted(d.values())\n"
                           "print(len(d), l[0], l[-1])\n"
                           "import sys; sys.exit(3)"});
}

TEST_CASE("sqlite3 runs statements on an in-memory database") {
    compareWithAndWithout({"sqlite3", ":memory:",
                           "create table t(x integer, y text);"
                           "insert into t select value, hex(randomblob(20)) from generate_series(1, 2000);"
                           "select count(*), sum(x) from t; select nosuchcolumn from t;"});
}

TEST_CASE("perl builds a hash") {
    compareWithAndWithout({"perl", "-e", "my %h = map { $_ => $_ x 3 } 1..20000; print scalar(keys %h), qq(\\n);"});
}

TEST_CASE("git runs in a fresh repository") {
    compareWithAndWithout({"sh", "-c",
                           "git init -q repo && cd repo && git -c user.name=t -c user.email=t@t commit -q "
                           "--allow-empty -m first && git log --format=%s && git status --short"});
}

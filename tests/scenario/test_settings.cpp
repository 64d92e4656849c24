// The recorder's settings as a user gives them: output names, quiet, bad values.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "run_program.hpp"
#include "timeline/log_reader.hpp"

using namespace memlog::test;
namespace fs = std::filesystem;

namespace {

int countLines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

}  // namespace

TEST_CASE("the default log name is <program>.<pid>.memlog with mode 0600, announced on stderr") {
    Run run;
    run.m_argv = {scenarioPath("leaks")};
    const Outcome outcome = runProgram(run);
    REQUIRE(outcome.m_exitStatus == 0);
    REQUIRE(outcome.m_logs.size() == 1);
    const std::string name = fs::path(outcome.m_logs[0]).filename();
    memlog::timeline::LogReader reader(outcome.m_logs[0]);
    CHECK(name == "leaks." + std::to_string(reader.header().m_pid) + ".memlog");
    struct stat info {};
    REQUIRE(stat(outcome.m_logs[0].c_str(), &info) == 0);
    CHECK((info.st_mode & 0777) == 0600);
    CHECK(outcome.m_stderr == "memlog: recording leaks (pid " + std::to_string(reader.header().m_pid) + ") to " +
                                  name + "\n");
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("MEMLOG_QUIET=1 silences the recorder") {
    Run run;
    run.m_argv = {scenarioPath("leaks")};
    run.m_env["MEMLOG_QUIET"] = "1";
    const Outcome outcome = runProgram(run);
    CHECK(outcome.m_stderr.empty());
    CHECK(outcome.m_logs.size() == 1);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("MEMLOG_OUT with %p and %e names the log") {
    Run run;
    run.m_argv = {scenarioPath("leaks")};
    run.m_env["MEMLOG_QUIET"] = "1";
    run.m_env["MEMLOG_OUT"] = "run-%e-%p.memlog";
    const Outcome outcome = runProgram(run);
    REQUIRE(outcome.m_logs.size() == 1);
    memlog::timeline::LogReader reader(outcome.m_logs[0]);
    CHECK(fs::path(outcome.m_logs[0]).filename() ==
          "run-leaks-" + std::to_string(reader.header().m_pid) + ".memlog");
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("an existing file or symlink at MEMLOG_OUT is never written through") {
    Run run;
    run.m_argv = {scenarioPath("leaks")};
    run.m_env["MEMLOG_QUIET"] = "1";
    // A symlink planted at the name: the recorder must pick a numbered neighbour instead.
    const fs::path dir = fs::temp_directory_path() / ("memlog-symlink-" + std::to_string(getpid()));
    fs::create_directories(dir);
    const fs::path victim = dir / "victim";
    std::ofstream(victim) << "precious";
    fs::create_symlink(victim, dir / "out.memlog");
    run.m_env["MEMLOG_OUT"] = (dir / "out.memlog").string();
    const Outcome outcome = runProgram(run);
    CHECK(outcome.m_exitStatus == 0);
    CHECK(fs::file_size(victim) == 8);
    CHECK(fs::exists(dir / "out.1.memlog"));
    CHECK(summaryOf((dir / "out.1.memlog").string()).m_leakedBlocks == 10);
    fs::remove_all(dir);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("bad settings give one line on stderr each and fall back to the defaults") {
    Run run;
    run.m_argv = {scenarioPath("leaks")};
    run.m_env["MEMLOG_QUIET"] = "1";
    run.m_env["MEMLOG_UNWIND"] = "magic";
    run.m_env["MEMLOG_STACK_DEPTH"] = "0";
    run.m_env["MEMLOG_FREE_STACKS"] = "maybe";
    const Outcome outcome = runProgram(run);
    CHECK(outcome.m_exitStatus == 0);
    CHECK(countLines(outcome.m_stderr) == 3);
    CHECK(outcome.m_stderr.find("MEMLOG_UNWIND=magic") != std::string::npos);
    CHECK(outcome.m_stderr.find("MEMLOG_STACK_DEPTH=0") != std::string::npos);
    CHECK(outcome.m_stderr.find("MEMLOG_FREE_STACKS=maybe") != std::string::npos);
    REQUIRE(outcome.m_logs.size() == 1);
    memlog::timeline::LogReader reader(outcome.m_logs[0]);
    CHECK(reader.header().m_unwindMode == memlog::format::UnwindMode::Libunwind);
    CHECK(reader.header().m_stackDepth == 64);
    CHECK((reader.header().m_flags & memlog::format::kFlagFreeStacks) != 0);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("an output path that cannot be created: one line, and the program runs unrecorded") {
    Run run;
    run.m_argv = {scenarioPath("random_churn")};
    run.m_env["MEMLOG_OUT"] = "/nonexistent-directory/x.memlog";
    const Outcome outcome = runProgram(run);
    CHECK(outcome.m_exitStatus == 0);
    CHECK(countLines(outcome.m_stderr) == 1);
    CHECK(outcome.m_stderr.find("/nonexistent-directory/x.memlog") != std::string::npos);
    CHECK(outcome.m_stdout.rfind("malloc=", 0) == 0);  // the program's own output is intact
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("stack settings: none records no stacks, fp and libunwind both name the allocating code") {
    for (const char* mode : {"none", "fp", "libunwind"}) {
        INFO(mode);
        Run run;
        run.m_argv = {scenarioPath("linked_list")};
        run.m_env["MEMLOG_QUIET"] = "1";
        run.m_env["MEMLOG_UNWIND"] = mode;
        run.m_env["MEMLOG_STACK_DEPTH"] = "4";
        const Outcome outcome = runProgram(run);
        REQUIRE(outcome.m_logs.size() == 1);
        memlog::timeline::LogReader reader(outcome.m_logs[0]);
        const auto summary = memlog::timeline::summarize(reader);
        if (std::string(mode) == "none") {
            CHECK(summary.m_stacks == 0);
        } else {
            CHECK(summary.m_stacks >= 2);
            // The innermost frame is the program's own call site, never the recorder's code.
            const memlog::timeline::Module* program = nullptr;
            for (const auto& module : reader.modules())
                if (module.m_path == reader.header().m_exe) program = &module;
            REQUIRE(program != nullptr);
            CHECK(program->m_buildId.size() == 40);
            int fromProgram = 0;
            for (const auto& stack : reader.stacks()) {
                CHECK(stack.size() <= 4);
                if (!stack.empty() && stack[0] >= program->m_lo && stack[0] < program->m_hi) ++fromProgram;
            }
            CHECK(fromProgram >= 2);  // build_list's malloc and tear_down's free
        }
        fs::remove_all(outcome.m_directory);
    }
}

// The recorder's settings as a user gives them: output names, quiet, bad values.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "run_program.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/replay/block_observer.hpp"

using namespace memlog::test;
namespace fs = std::filesystem;

namespace {

int countLines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

// The line of `text` that contains `needle`, without its newline; empty when there is none.
std::string lineWith(const std::string& text, const std::string& needle) {
    const size_t at = text.find(needle);
    if (at == std::string::npos) return {};
    const size_t newline = text.rfind('\n', at);
    const size_t begin = newline == std::string::npos ? 0 : newline + 1;
    return text.substr(begin, text.find('\n', at) - begin);
}

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
    // Whatever is planted at the name, the recorder creates a numbered neighbour instead.
    const fs::path dir = fs::temp_directory_path() / ("memlog-taken-" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path victim = dir / "victim";
    std::ofstream(victim) << "precious";
    fs::path out = dir / "out.memlog", expected = dir / "out.1.memlog";
    SECTION("a symlink to a file: the file keeps its content") { fs::create_symlink(victim, out); }
    SECTION("a dangling symlink: its target is not created") { fs::create_symlink(dir / "target", out); }
    SECTION("a regular file, and its first neighbour too: the log is <stem>.2.memlog") {
        std::ofstream(out) << "precious";
        std::ofstream(dir / "out.1.memlog") << "precious";
        expected = dir / "out.2.memlog";
    }
    SECTION("a name without the .memlog suffix: the log is <name>.1") {
        out = dir / "plain";
        std::ofstream(out) << "precious";
        expected = dir / "plain.1";
    }
    Run run;
    run.m_argv = {scenarioPath("leaks")};
    run.m_env["MEMLOG_QUIET"] = "1";
    run.m_env["MEMLOG_OUT"] = out.string();
    const Outcome outcome = runProgram(run);
    CHECK(outcome.m_exitStatus == 0);
    CHECK(fs::file_size(victim) == 8);
    CHECK_FALSE(fs::exists(dir / "target"));
    for (const auto& entry : fs::directory_iterator(dir))
        if (entry.path() != expected && !entry.is_symlink()) CHECK(fs::file_size(entry.path()) == 8);
    REQUIRE(fs::exists(expected));
    CHECK(summaryOf(expected.string()).m_leakedBlocks == 10);
    fs::remove_all(dir);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("a fixed MEMLOG_OUT: the fork child and the exec'd image take numbered neighbours") {
    Run run;
    run.m_argv = {scenarioPath("fork_exec")};
    run.m_env["MEMLOG_QUIET"] = "1";
    run.m_env["MEMLOG_OUT"] = "out.memlog";
    const Outcome outcome = runProgram(run);
    REQUIRE(outcome.m_exitStatus == 0);
    REQUIRE(outcome.m_logs.size() == 3);
    // Sorted names; the parent opens its log first, the fork child next, the exec'd image last.
    const fs::path dir = outcome.m_directory;
    CHECK(outcome.m_logs == std::vector<std::string>{dir / "out.1.memlog", dir / "out.2.memlog", dir / "out.memlog"});
    const auto parent = summaryOf((dir / "out.memlog").string());
    const auto child = summaryOf((dir / "out.1.memlog").string());
    const auto image = summaryOf((dir / "out.2.memlog").string());
    CHECK(callsOf(parent, "malloc") == 8);
    CHECK(callsOf(child, "malloc") == 7);
    CHECK(child.m_parentPid == parent.m_pid);
    CHECK(callsOf(image, "malloc") == 11);
    CHECK(image.m_pid == child.m_pid);
    for (const auto* s : {&parent, &child, &image}) CHECK(s->m_complete);
    for (const std::string& log : outcome.m_logs) {
        struct stat info {};
        REQUIRE(stat(log.c_str(), &info) == 0);
        CHECK((info.st_mode & 0777) == 0600);
    }
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
    // Each line names the variable with its bad value and ends with the default used.
    CHECK(lineWith(outcome.m_stderr, "MEMLOG_UNWIND=magic").ends_with("libunwind"));
    CHECK(lineWith(outcome.m_stderr, "MEMLOG_STACK_DEPTH=0").ends_with("64"));
    CHECK(lineWith(outcome.m_stderr, "MEMLOG_FREE_STACKS=maybe").ends_with("1"));
    REQUIRE(outcome.m_logs.size() == 1);
    memlog::timeline::LogReader reader(outcome.m_logs[0]);
    CHECK(reader.header().m_unwindMode == memlog::format::UnwindMode::Libunwind);
    CHECK(reader.header().m_stackDepth == 64);
    CHECK((reader.header().m_flags & memlog::format::kFlagFreeStacks) != 0);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("a misspelt setting is named on stderr, and the program runs as before") {
    Run run;
    run.m_argv = {scenarioPath("leaks")};
    run.m_env["MEMLOG_QUIET"] = "1";
    run.m_env["MEMLOG_OUTPUT"] = "{dir}/meant.memlog";  // MEMLOG_OUT was meant
    run.m_env["MEMLOG_LOG_LEVEL"] = "debug";             // the command line tools': known, no line
    const Outcome outcome = runProgram(run);
    Run bare = run;
    bare.m_preload = false;
    const Outcome expected = runProgram(bare);
    CHECK(outcome.m_exitStatus == expected.m_exitStatus);
    CHECK(outcome.m_stdout == expected.m_stdout);
    CHECK(outcome.m_stderr == "memlog: MEMLOG_OUTPUT is not a memlog setting; ignored (memlog run --help lists them)\n");
    REQUIRE(outcome.m_logs.size() == 1);
    CHECK(outcome.m_logs[0].find("/leaks.") != std::string::npos);  // the default name
    fs::remove_all(outcome.m_directory);
    fs::remove_all(expected.m_directory);
}

TEST_CASE("MEMLOG_STACK_DEPTH: 1 and 256 are taken silently, anything else falls back to 64") {
    struct Case {
        const char* m_value;
        uint32_t m_depth;
        int m_lines;
    };
    for (const Case& c : {Case{"1", 1, 0}, Case{"256", 256, 0}, Case{"257", 64, 1}, Case{"-1", 64, 1},
                          Case{"8x", 64, 1}}) {
        INFO("MEMLOG_STACK_DEPTH=" << c.m_value);
        Run run;
        run.m_argv = {scenarioPath("leaks")};
        run.m_env["MEMLOG_QUIET"] = "1";
        run.m_env["MEMLOG_STACK_DEPTH"] = c.m_value;
        const Outcome outcome = runProgram(run);
        CHECK(outcome.m_exitStatus == 0);
        CHECK(countLines(outcome.m_stderr) == c.m_lines);
        REQUIRE(outcome.m_logs.size() == 1);
        memlog::timeline::LogReader reader(outcome.m_logs[0]);
        CHECK(reader.header().m_stackDepth == c.m_depth);
        fs::remove_all(outcome.m_directory);
    }
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
            for (size_t id = 0; id < reader.stacks().size(); ++id) {
                const memlog::timeline::StackFrames stack = reader.stacks()[id];
                CHECK(stack.size() <= 4);
                if (!stack.empty() && stack.front() >= program->m_lo && stack.front() < program->m_hi) ++fromProgram;
            }
            CHECK(fromProgram >= 2);  // build_list's malloc and tear_down's free
        }
        fs::remove_all(outcome.m_directory);
    }
}

TEST_CASE("a caller with garbage in its frame pointer runs unchanged under every unwind mode") {
    for (const char* mode : {"none", "fp", "libunwind"}) {
        INFO(mode);
        Run run;
        run.m_argv = {scenarioPath("garbage_frame_pointer")};
        run.m_env["MEMLOG_QUIET"] = "1";
        run.m_env["MEMLOG_UNWIND"] = mode;
        const Outcome outcome = runProgram(run);
        CHECK(outcome.m_signal == 0);
        REQUIRE(outcome.m_exitStatus == 0);
        CHECK(outcome.m_stdout == "5 blocks of 100 to 104 bytes\n");
        CHECK(outcome.m_stderr.empty());
        REQUIRE(outcome.m_logs.size() == 1);
        memlog::timeline::LogReader reader(outcome.m_logs[0]);
        std::vector<uint64_t> sizes;
        std::set<uint32_t> stacks;
        reader.forEachEvent([&](const memlog::timeline::Event& event) {
            if (event.m_kind == memlog::format::Kind::Malloc && event.m_size >= 100 && event.m_size <= 104) {
                sizes.push_back(event.m_size);
                stacks.insert(event.m_stack);
            }
        });
        CHECK(sizes == std::vector<uint64_t>{100, 101, 102, 103, 104});
        // With stacks, each block has one: the walk stopped at the garbage, it did not give up.
        if (std::string(mode) != "none") CHECK(stacks.count(0) == 0);
        fs::remove_all(outcome.m_directory);
    }
}

TEST_CASE("bad MEMLOG_ACCESS and MEMLOG_ACCESS_RATE values fall back to off and 1000") {
    Run run;
    run.m_argv = {scenarioPath("leaks")};
    run.m_env["MEMLOG_QUIET"] = "1";
    SECTION("MEMLOG_ACCESS=yes: sampling stays off") {
        run.m_env["MEMLOG_ACCESS"] = "yes";
        const Outcome outcome = runProgram(run);
        CHECK(countLines(outcome.m_stderr) == 1);
        CHECK(lineWith(outcome.m_stderr, "MEMLOG_ACCESS=yes").ends_with("using 0"));
        REQUIRE(outcome.m_logs.size() == 1);
        memlog::timeline::LogReader reader(outcome.m_logs[0]);
        CHECK(reader.header().m_accessSampler == memlog::format::AccessSampler::Off);
        fs::remove_all(outcome.m_directory);
    }
    SECTION("MEMLOG_ACCESS_RATE=0: asked for, with the default rate") {
        run.m_env["MEMLOG_ACCESS"] = "1";
        run.m_env["MEMLOG_ACCESS_RATE"] = "0";
        const Outcome outcome = runProgram(run);
        CHECK(countLines(outcome.m_stderr) == 1);  // the bad value
        CHECK(lineWith(outcome.m_stderr, "MEMLOG_ACCESS_RATE=0").ends_with("using 1000"));
        REQUIRE(outcome.m_logs.size() == 1);
        memlog::timeline::LogReader reader(outcome.m_logs[0]);
        CHECK(reader.header().m_accessSampler == memlog::format::AccessSampler::TickPerfClock);
        CHECK(reader.header().m_accessRate == 1000);
        fs::remove_all(outcome.m_directory);
    }
}

// memlog run on launchers (shell scripts, env, scripts that run scripts): the -o log is the
// launched process's last image, the closing list names every log, --no-children, memlog ls.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "memlog/recorder_settings.hpp"
#include "run_program.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/base/text_format.hpp"

using namespace memlog::test;
namespace fs = std::filesystem;

namespace {

// A folder with executable scripts for one test, removed at the end.
struct Scripts {
    std::string m_dir = fs::temp_directory_path() / ("memlog-launchers-" + std::to_string(getpid()));
    Scripts() { fs::create_directories(m_dir); }
    ~Scripts() { fs::remove_all(m_dir); }
    std::string add(const std::string& name, const std::string& text) {
        const std::string path = m_dir + "/" + name;
        std::ofstream(path) << text;
        chmod(path.c_str(), 0755);
        return path;
    }
};

std::vector<std::string> linesOf(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// The lines of the list `memlog run` ends with (after "N logs written:").
std::vector<std::string> closingList(const std::string& stderrText) {
    const std::vector<std::string> lines = linesOf(stderrText);
    std::vector<std::string> list;
    bool inList = false;
    for (const std::string& line : lines) {
        if (inList) list.push_back(line);
        if (line.find("logs written:") != std::string::npos || line.find("log written:") != std::string::npos)
            inList = true;
    }
    return list;
}

std::string exeOf(const std::string& log) {
    memlog::timeline::LogReader reader(log);
    return reader.header().m_exe;
}

uint32_t pidOf(const std::string& log) {
    memlog::timeline::LogReader reader(log);
    return reader.header().m_pid;
}

}  // namespace

TEST_CASE("memlog run -o through a shell script, env and a nested script: the -o log is the final program's") {
    Scripts scripts;
    // The inner script runs a child first (head), then execs the program through env.
    const std::string inner = scripts.add("inner.sh", "#!/bin/sh\nhead -c 1 /etc/hostname >/dev/null\nexec env MARK=1 " +
                                                           scenarioPath("leaks") + "\n");
    const std::string outer = scripts.add("outer.sh", "#!/bin/bash\nexec " + inner + "\n");
    Run run;
    run.m_preload = false;
    run.m_argv = {memlogCli(), "run", "-o", "out.memlog", "--", outer};
    const Outcome outcome = runProgram(run);
    CHECK(outcome.m_exitStatus == 0);
    const std::string named = outcome.m_directory + "/out.memlog";
    REQUIRE(fs::exists(named));
    CHECK(exeOf(named) == scenarioPath("leaks"));
    const auto leaks = summaryOf(named);
    CHECK(callsOf(leaks, "malloc") >= 15);
    CHECK(leaks.m_leakedBlocks >= 10);
    // bash, sh and env of the launched pid and head (dash starts it with vfork: no log of the
    // child before its exec): numbered logs beside it.
    CHECK(outcome.m_logs.size() == 5);
    const std::vector<std::string> list = closingList(outcome.m_stderr);
    REQUIRE(list.size() == outcome.m_logs.size());
    CHECK(list[0].find("leaks ") != std::string::npos);
    CHECK(list[0].find("pid " + std::to_string(pidOf(named)) + " ") != std::string::npos);
    CHECK(list[0].substr(list[0].size() - std::string(" out.memlog").size()) == " out.memlog");
    for (const std::string& log : outcome.m_logs) {
        const std::string name = fs::path(log).filename();
        int mentions = 0;
        for (const std::string& line : list)
            mentions += line.size() > name.size() && line.substr(line.size() - name.size() - 1) == " " + name;
        INFO(name);
        CHECK(mentions == 1);
        if (name != "out.memlog") CHECK(exeOf(log) != scenarioPath("leaks"));
    }
    // The launched pid's earlier images keep their numbered names: bash, sh, env.
    int launchedImages = 0;
    for (const std::string& log : outcome.m_logs) launchedImages += pidOf(log) == pidOf(named);
    CHECK(launchedImages == 4);
    // The rest of the list by events, most first.
    auto eventsIn = [](const std::string& line) {
        const size_t end = line.find(" event");
        size_t begin = line.rfind("  ", end) + 2;
        std::string digits;
        for (size_t i = begin; i < end; ++i)
            if (isdigit(static_cast<unsigned char>(line[i]))) digits += line[i];
        return std::stoull(digits);
    };
    for (size_t i = 2; i < list.size(); ++i) CHECK(eventsIn(list[i - 1]) >= eventsIn(list[i]));
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("memlog run --no-children records the launched process's images only") {
    Scripts scripts;
    const std::string script = scripts.add("launch.sh", "#!/bin/sh\nhead -c 1 /etc/hostname >/dev/null\nexec env " +
                                                            scenarioPath("leaks") + "\n");
    Run run;
    run.m_preload = false;
    run.m_argv = {memlogCli(), "run", "-q", "--no-children", "-o", "only.memlog", "--", script};
    const Outcome outcome = runProgram(run);
    CHECK(outcome.m_exitStatus == 0);
    CHECK(outcome.m_stderr.empty());
    REQUIRE(outcome.m_logs.size() == 3);  // sh, env, leaks: one pid
    const std::string named = outcome.m_directory + "/only.memlog";
    CHECK(exeOf(named) == scenarioPath("leaks"));
    for (const std::string& log : outcome.m_logs) CHECK(pidOf(log) == pidOf(named));
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("memlog run through a launcher: the recorders know every variable it sets, and say nothing of them") {
    // Each option that sets a recorder variable (from the recorder's table, so a row added later is
    // covered too), --no-children and -o: the shell and the program it execs each start a
    // recorder, and neither may call a variable of memlog run's unknown or wrong.
    Scripts scripts;
    const std::string script = scripts.add("launch.sh", "#!/bin/sh\nexec " + scenarioPath("leaks") + "\n");
    Run run;
    run.m_preload = false;
    run.m_argv = {memlogCli(), "run", "--no-children", "-o", "out.memlog"};
    for (const memlog::options::RecorderSetting& setting : memlog::options::kRecorderSettings) {
        if (!setting.m_runOption) continue;
        run.m_argv.push_back(setting.m_runOption);
        if (setting.m_row.m_kind != memlog::options::Kind::Switch) run.m_argv.push_back(setting.m_row.m_default);
    }
    run.m_argv.insert(run.m_argv.end(), {"--", script});
    const Outcome outcome = runProgram(run);
    INFO(outcome.m_stderr);
    CHECK(outcome.m_exitStatus == 0);
    CHECK(outcome.m_logs.size() == 2);  // sh, then the program it exec'd
    CHECK(outcome.m_stderr.find("is not a memlog setting") == std::string::npos);
    CHECK(outcome.m_stderr.find("memlog: MEMLOG_") == std::string::npos);  // nor a value of one called wrong
    CHECK(outcome.m_stderr.find("memlog: recording leaks") != std::string::npos);  // not quiet: it speaks
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("memlog run passes on the exit status and the signal of the program") {
    Scripts scripts;
    const std::string script = scripts.add("fail.sh", "#!/bin/sh\nexec env sh -c 'exit 9'\n");
    Run run;
    run.m_preload = false;
    run.m_argv = {memlogCli(), "run", "-q", "-o", "x.memlog", "--", script};
    const Outcome failed = runProgram(run);
    CHECK(failed.m_exitStatus == 9);
    fs::remove_all(failed.m_directory);
    run.m_argv = {memlogCli(), "run", "-q", "-o", "x.memlog", "--", "sh", "-c", "kill -TERM $$"};
    const Outcome killed = runProgram(run);
    CHECK(killed.m_signal == SIGTERM);
    fs::remove_all(killed.m_directory);
}

TEST_CASE("memlog ls lists a folder's logs with program, pid, events and peak, a bad one with its reason") {
    Run run;
    run.m_preload = false;
    run.m_argv = {memlogCli(), "run", "-q", "-o", "a.memlog", "--", "sh", "-c",
                  scenarioPath("leaks") + "; " + scenarioPath("linked_list")};
    const Outcome outcome = runProgram(run);
    REQUIRE(outcome.m_logs.size() == 3);  // sh, leaks, linked_list
    Run list;
    list.m_preload = false;
    list.m_argv = {memlogCli(), "ls", outcome.m_directory};
    const Outcome listed = runProgram(list);
    CHECK(listed.m_exitStatus == 0);
    const std::vector<std::string> lines = linesOf(listed.m_stdout);
    REQUIRE(lines.size() == 3);
    for (const std::string& log : outcome.m_logs) {
        const auto summary = summaryOf(log);
        const std::string program = fs::path(exeOf(log)).filename();
        bool found = false;
        for (const std::string& line : lines)
            found |= line.find(log) != std::string::npos && line.starts_with(program + " ") &&
                     line.find("pid " + std::to_string(summary.m_pid) + " ") != std::string::npos &&
                     line.find(" " + memlog::timeline::countText(summary.m_events) + " events") != std::string::npos;
        INFO(log);
        CHECK(found);
    }
    std::ofstream(outcome.m_directory + "/broken.memlog") << "not a log";
    const Outcome withBroken = runProgram(list);
    CHECK(withBroken.m_exitStatus == 2);
    CHECK(withBroken.m_stdout.find("unreadable: ") != std::string::npos);
    CHECK(withBroken.m_stdout.find("broken.memlog") != std::string::npos);
    fs::remove_all(outcome.m_directory);
}

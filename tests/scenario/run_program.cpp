// Process plumbing for the scenario tests: fork, exec with pipes, wait, and gather the logs.
#include "run_program.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <thread>

#include "timeline/read/log_reader.hpp"
#include "timeline/replay/block_observer.hpp"

namespace fs = std::filesystem;

namespace memlog::test {

Outcome recordQuietly(const std::vector<std::string>& argv) {
    Run run;
    run.m_argv = argv;
    run.m_env["MEMLOG_QUIET"] = "1";
    return runProgram(run);
}

Outcome runWithoutRecorder(const std::vector<std::string>& argv) {
    Run run;
    run.m_argv = argv;
    run.m_preload = false;
    Outcome outcome = runProgram(run);
    fs::remove_all(outcome.m_directory);
    return outcome;
}

std::string recorderLibrary() { return MEMLOG_TEST_LIBRARY; }
std::string scenarioPath(const std::string& name) { return std::string(MEMLOG_TEST_SCENARIOS) + "/" + name; }
std::string memlogCli() { return MEMLOG_TEST_CLI; }

std::string fileBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

uint32_t scenarioLine(const std::string& file, const std::string& marker) {
    std::ifstream source(std::string(MEMLOG_TEST_SOURCE_DIR) + "/scenarios/" + file);
    std::string line;
    for (uint32_t number = 1; std::getline(source, line); ++number)
        if (line.find(marker) != std::string::npos) return number;
    return 0;
}

namespace {

std::string freshDirectory() {
    char pattern[] = "/tmp/memlog-test-XXXXXX";
    if (!mkdtemp(pattern)) throw std::runtime_error("mkdtemp failed");
    return pattern;
}

}  // namespace

Outcome runProgram(const Run& run) {
    Outcome outcome;
    outcome.m_directory = freshDirectory();
    int out[2], err[2];
    if (pipe(out) != 0 || pipe(err) != 0) throw std::runtime_error("pipe failed");
    const pid_t child = fork();
    if (child < 0) throw std::runtime_error("fork failed");
    if (child == 0) {
        dup2(out[1], 1);
        dup2(err[1], 2);
        close(out[0]);
        close(err[0]);
        if (chdir(outcome.m_directory.c_str()) != 0) _exit(126);
        if (run.m_preload)
            setenv("LD_PRELOAD", recorderLibrary().c_str(), 1);
        else
            unsetenv("LD_PRELOAD");
        for (const std::string& name : run.m_unset) unsetenv(name.c_str());
        for (const auto& [name, value] : run.m_env) {
            std::string expanded = value;
            if (const size_t at = expanded.find("{dir}"); at != std::string::npos)
                expanded.replace(at, 5, outcome.m_directory);
            setenv(name.c_str(), expanded.c_str(), 1);
        }
        std::vector<char*> argv;
        for (const std::string& argument : run.m_argv) argv.push_back(const_cast<char*>(argument.c_str()));
        argv.push_back(nullptr);
        execvp(argv[0], argv.data());
        _exit(127);
    }
    close(out[1]);
    close(err[1]);
    if (run.m_killAfterSeconds > 0) {
        if (!run.m_killWhenFile.empty()) {
            const fs::path file = fs::path(outcome.m_directory) / run.m_killWhenFile;
            for (int i = 0; i < 1000 && !(fs::exists(file) && fs::file_size(file) > 0); ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        std::this_thread::sleep_for(std::chrono::duration<double>(run.m_killAfterSeconds));
        if (run.m_whileRunning) run.m_whileRunning(outcome.m_directory);
        kill(child, SIGKILL);
    }
    // Read both pipes without letting either fill up.
    pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    int open = 2;
    char buffer[65536];
    while (open > 0) {
        if (poll(fds, 2, -1) < 0) break;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
            const ssize_t got = read(fds[i].fd, buffer, sizeof buffer);
            if (got <= 0) {
                close(fds[i].fd);
                fds[i].fd = -1;
                --open;
            } else {
                (i == 0 ? outcome.m_stdout : outcome.m_stderr).append(buffer, static_cast<size_t>(got));
            }
        }
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (WIFEXITED(status)) outcome.m_exitStatus = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) outcome.m_signal = WTERMSIG(status);
    for (const auto& entry : fs::directory_iterator(outcome.m_directory))
        if (entry.path().extension() == ".memlog") outcome.m_logs.push_back(entry.path().string());
    std::sort(outcome.m_logs.begin(), outcome.m_logs.end());
    return outcome;
}

Outcome runMemlog(const std::vector<std::string>& arguments) {
    Run run;
    run.m_preload = false;
    run.m_argv = {memlogCli()};
    run.m_argv.insert(run.m_argv.end(), arguments.begin(), arguments.end());
    return runProgram(run);
}

std::string memlogSays(const std::vector<std::string>& arguments) {
    const Outcome outcome = runMemlog(arguments);
    fs::remove_all(outcome.m_directory);
    return outcome.m_stdout;
}

timeline::Summary summaryOf(const std::string& path) {
    timeline::LogReader reader(path);
    return timeline::summarize(reader);
}

uint64_t callsOf(const timeline::Summary& summary, const std::string& kind) {
    for (uint32_t k = 1; k < format::kHeapKindCount; ++k)
        if (kind == format::kKindInfo[k].m_name) return summary.m_calls[k];
    throw std::invalid_argument("no such kind: " + kind);
}

}  // namespace memlog::test

// Runs a program the way a user would, under the real LD_PRELOAD, in a fresh directory, and
// collects what a test needs: exit status or signal, stdout, stderr, and the logs it wrote.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "timeline/replay/summary.hpp"

namespace memlog::test {

struct Outcome {
    int m_exitStatus = -1;  // -1 when killed by a signal
    int m_signal = 0;
    std::string m_stdout;
    std::string m_stderr;
    std::string m_directory;  // where the program ran
    std::vector<std::string> m_logs;  // *.memlog files found there afterwards, sorted
};

struct Run {
    std::vector<std::string> m_argv;
    std::map<std::string, std::string> m_env;  // added to the environment; "{dir}" = run directory
    std::vector<std::string> m_unset;  // removed from the environment
    bool m_preload = true;  // LD_PRELOAD the recorder
    double m_killAfterSeconds = 0;  // >0: SIGKILL after this long (see m_killWhenFile)
    std::string m_killWhenFile;  // with a kill: wait for this file in the run dir first
    std::function<void(const std::string&)> m_whileRunning;  // with a kill: called with the run dir just before it
};

Outcome runProgram(const Run& run);
// `argv` under the recorder, quiet (MEMLOG_QUIET=1), in a fresh directory that the caller removes.
Outcome recordQuietly(const std::vector<std::string>& argv);
// `argv` without the recorder (memlog itself, go, nm): its outcome, its directory already removed.
Outcome runWithoutRecorder(const std::vector<std::string>& argv);

// memlog itself (no recorder) with these arguments, in a fresh directory.
Outcome runMemlog(const std::vector<std::string>& arguments);

// What a memlog command printed on stdout; its directory removed.
std::string memlogSays(const std::vector<std::string>& arguments);

// Build outputs, from the compile definitions of the test target.
std::string recorderLibrary();
std::string scenarioPath(const std::string& name);
std::string memlogCli();
// A file's bytes, whole ("" for one that cannot be read): pictures compared byte for byte.
std::string fileBytes(const std::string& path);
// The line of a scenario's source file (scenarios/FILE) that holds `marker` ("site:grab"), 0 for none.
uint32_t scenarioLine(const std::string& file, const std::string& marker);

// Reads and summarises a log (throws LogError on a bad one).
timeline::Summary summaryOf(const std::string& path);

// The value of calls[kind] by kind name ("malloc", "new[]", ...).
uint64_t callsOf(const timeline::Summary& summary, const std::string& kind);

}  // namespace memlog::test

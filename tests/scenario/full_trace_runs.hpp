// Shared by the full-trace tests: running a program under `memlog run --full-trace` or under the
// tool's counting build, and reading a log's accesses and events back the way a user does,
// through `memlog dump --csv`. Tests that need Valgrind or the tool exit with 77 where either is
// missing (ctest reports them skipped, with the reason on stdout).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "run_program.hpp"

namespace memlog::test {

inline void requireTraceTool() {
    if (std::system("command -v valgrind >/dev/null 2>&1") != 0) {
        std::printf("skipped: valgrind is not installed (scripts/deps installs it)\n");
        std::fflush(stdout);
        std::_Exit(77);
    }
    if (!std::filesystem::exists(std::string(MEMLOG_TEST_TRACE_TOOL_DIR) + "/memlog-amd64-linux")) {
        std::printf("skipped: memlog's Valgrind tool was not built (no Valgrind tool SDK at configure time)\n");
        std::fflush(stdout);
        std::_Exit(77);
    }
}

// `memlog run -q --full-trace -o LOG -- program...` in a fresh directory.
inline Outcome fullTrace(const std::vector<std::string>& program, const std::string& log = "trace.memlog") {
    Run run;
    run.m_preload = false;  // memlog run preloads the recorder itself
    run.m_argv = {memlogCli(), "run", "-q", "--full-trace", "-o", log, "--"};
    run.m_argv.insert(run.m_argv.end(), program.begin(), program.end());
    return runProgram(run);
}

// memlog with `arguments`, in a directory of its own; the directory is removed.
inline Outcome memlogRun(const std::vector<std::string>& arguments) {
    Run run;
    run.m_preload = false;
    run.m_argv = {memlogCli()};
    run.m_argv.insert(run.m_argv.end(), arguments.begin(), arguments.end());
    Outcome outcome = runProgram(run);
    std::filesystem::remove_all(outcome.m_directory);
    return outcome;
}

// memtimeline with `arguments` and no display (an export, or the line that says a window needs
// one), in a directory of its own; the directory is removed.
inline Outcome memtimeline(const std::vector<std::string>& arguments) {
    Run run;
    run.m_preload = false;
    run.m_unset = {"DISPLAY", "WAYLAND_DISPLAY"};
    run.m_argv = {MEMLOG_TEST_TIMELINE};
    run.m_argv.insert(run.m_argv.end(), arguments.begin(), arguments.end());
    Outcome outcome = runProgram(run);
    std::filesystem::remove_all(outcome.m_directory);
    return outcome;
}

// The counting build over `program` with the recorder preloaded as memlog run --full-trace does:
// what a trace would hold, by kind (format::AccessKind: 1 read, 2 write, 3 read-modify-write) and
// [0] what it leaves out (the recorder's and the allocator's brackets).
inline std::map<int, uint64_t> countedByTool(const std::vector<std::string>& program) {
    Run run;
    run.m_env["VALGRIND_LIB"] = MEMLOG_TEST_TRACE_TOOL_DIR;
    run.m_env["MEMLOG_FULL_TRACE"] = "1";
    run.m_env["MEMLOG_QUIET"] = "1";
    run.m_env["MEMLOG_OUT"] = "{dir}/counted.memlog";
    run.m_argv = {"valgrind", "--tool=memlog", "--count-only=yes", "--count-file=counts.txt", "-q",
                  "--run-libc-freeres=no", "--run-cxx-freeres=no", "--"};
    run.m_argv.insert(run.m_argv.end(), program.begin(), program.end());
    const Outcome outcome = runProgram(run);
    std::map<int, uint64_t> counts;
    std::ifstream file(outcome.m_directory + "/counts.txt");
    std::string word;
    uint64_t reads = 0, writes = 0, modifies = 0, leftOut = 0;
    file >> word >> reads >> word >> writes >> word >> modifies >> word >> leftOut;
    counts[1] = reads;
    counts[2] = writes;
    counts[3] = modifies;
    counts[0] = leftOut;
    std::filesystem::remove_all(outcome.m_directory);
    return counts;
}

// One row of `memlog dump --accesses --csv`.
struct AccessRow {
    uint64_t m_seq = 0;
    uint32_t m_tid = 0;
    std::string m_kind;
    uint64_t m_addr = 0;
    uint64_t m_size = 0;
    std::string m_region;
    uint64_t m_blockSeq = 0;  // 0: not in a block
    uint64_t m_offset = 0;
    std::string m_site;  // with `symbolize`: the function of the accessing instruction
    uint64_t m_instructions = 0;  // a full trace of memlog's tool: the thread's count up to it
};

// One heap event of `memlog dump --csv`.
struct EventRow {
    uint64_t m_seq = 0;
    uint32_t m_tid = 0;
    std::string m_kind;
    uint64_t m_size = 0;
};

// A CSV line's fields; a quoted field may hold commas and doubled quotes.
inline std::vector<std::string> csvCells(const std::string& line) {
    std::vector<std::string> cells(1);
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"')
            cells.back() += line[++i];
        else if (c == '"')
            quoted = !quoted;
        else if (c == ',' && !quoted)
            cells.emplace_back();
        else
            cells.back() += c;
    }
    return cells;
}

inline uint64_t number(const std::string& text) { return text.empty() ? 0 : std::stoull(text, nullptr, 0); }

inline std::vector<AccessRow> dumpedAccesses(const std::string& log, bool symbolize = false) {
    const Outcome dumped = symbolize ? memlogRun({"dump", log, "--accesses", "--csv", "--symbolize"})
                                     : memlogRun({"dump", log, "--accesses", "--csv"});
    std::vector<AccessRow> rows;
    std::stringstream in(dumped.m_stdout);
    std::string line;
    std::getline(in, line);  // the header
    while (std::getline(in, line)) {
        const auto c = csvCells(line);
        if (c.size() < 14) continue;
        rows.push_back({number(c[0]), static_cast<uint32_t>(number(c[2])), c[3], number(c[4]), number(c[5]), c[6],
                        number(c[7]), number(c[8]), c.size() > 14 ? c[14] : std::string(), number(c[13])});
    }
    return rows;
}

inline std::vector<EventRow> dumpedEvents(const std::string& log) {
    const Outcome dumped = memlogRun({"dump", log, "--csv"});
    std::vector<EventRow> rows;
    std::stringstream in(dumped.m_stdout);
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
        const auto c = csvCells(line);
        if (c.size() < 8) continue;
        rows.push_back({number(c[0]), static_cast<uint32_t>(number(c[2])), c[3], number(c[5])});
    }
    return rows;
}

// A number of `memlog stat --json`'s output: "name":value.
inline uint64_t jsonNumber(const std::string& json, const std::string& name) {
    const size_t at = json.find("\"" + name + "\":");
    return at == std::string::npos ? UINT64_MAX : std::stoull(json.substr(at + name.size() + 3));
}

}  // namespace memlog::test

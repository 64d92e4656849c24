// memlog run --full-trace: the program under memlog's Valgrind tool (preload/trace_tool/) with
// the recorder preloaded. Every traced process (forks and execs too) writes one log: its heap
// events from the recorder and, in streams of their own, every access from the tool. Here:
// finding Valgrind and the tool, the command line run_command.cpp runs, and the closing lines.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "commands.hpp"
#include "memlog/recorder_settings.hpp"
#include "timeline/base/option_table.hpp"
#include "timeline/open/opened_log.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/base/text_format.hpp"

namespace memlog::cli {
namespace {

std::string findInPath(const std::string& program) {
    const char* path = std::getenv("PATH");
    std::string directories = path ? path : "/usr/bin:/bin";
    size_t start = 0;
    while (start <= directories.size()) {
        const size_t colon = directories.find(':', start);
        const std::string directory =
            directories.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
        const std::string candidate = (directory.empty() ? "." : directory) + "/" + program;
        if (access(candidate.c_str(), X_OK) == 0) return candidate;
        if (colon == std::string::npos) break;
        start = colon + 1;
    }
    return {};
}

}  // namespace

int prepareFullTrace(std::vector<std::string>& program) {
    const std::string valgrind = findInPath("valgrind");
    if (valgrind.empty())
        return usageError(
            "run: --full-trace runs the program under Valgrind, which is not installed (Debian: apt-get "
            "install valgrind)",
            nullptr);
    // The tool's folder also holds links to Valgrind's own files: VALGRIND_LIB names it.
    const char* given = std::getenv(options::recorderSetting(options::Setting::TraceToolDir).m_row.m_name);
    const std::string tool = given && *given ? std::string(given) + "/memlog-amd64-linux"
                                             : findBesideMemlog("memlog/valgrind/memlog-amd64-linux");
    if (access(tool.c_str(), X_OK) != 0)
        return usageError(
            "run: --full-trace needs memlog's Valgrind tool, which this memlog was built without: install "
            "Valgrind's tool SDK (Debian: apt-get install valgrind) and build memlog again",
            nullptr);
    setenv("VALGRIND_LIB", tool.substr(0, tool.rfind('/')).c_str(), 1);
    const options::Row& fullTraceRow = options::recorderSetting(options::Setting::FullTrace).m_row;
    setenv(fullTraceRow.m_name, timeline::switchedValue(fullTraceRow), 1);
    // The C library's and libstdc++'s clean-ups at exit are Valgrind's doing, not the program's.
    std::vector<std::string> words = {valgrind,           "--tool=memlog",         "--trace-children=yes",
                                      "--run-libc-freeres=no", "--run-cxx-freeres=no", "-q", "--"};
    words.insert(words.end(), program.begin(), program.end());
    program = std::move(words);
    return -1;
}

void printFullTraces(const std::vector<std::string>& logs) {
    uint64_t traces = 0, accesses = 0, leftOut = 0, lost = 0;
    std::string only;
    for (const std::string& path : logs) {
        try {
            const timeline::OpenedLog log(path, {});  // the header alone
            const format::FileHeader& header = log.reader().header();
            if (header.m_accessSampler != format::AccessSampler::FullTrace) continue;
            ++traces;
            only = path;
            accesses += header.m_accessCounters.m_samples;
            leftOut += header.m_accessCounters.m_droppedInRecorder;
            lost += header.m_accessCounters.m_droppedLost;
        } catch (const timeline::LogError&) {
            // the closing list says why it cannot be read
        }
    }
    if (!traces) return;
    std::fprintf(stderr, "memlog: full trace: %s accesses %s %s (%s in the recorder and the allocator left out",
                 timeline::countText(accesses).c_str(), traces == 1 ? "into" : "in",
                 traces == 1 ? only.c_str() : (std::to_string(traces) + " logs").c_str(),
                 timeline::countText(leftOut).c_str());
    if (lost) std::fprintf(stderr, "; %s lost: the log could not be written", timeline::countText(lost).c_str());
    std::fprintf(stderr, ")\n");
}

}  // namespace memlog::cli

// memlog run --full-trace: the program under Valgrind's lackey with the recorder preloaded;
// lackey's trace comes through a pipe, its accesses are placed among the recorder's events
// (timeline/trace/lackey_trace) and appended to the recorder's log (timeline/trace/trace_log_writer).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "commands.hpp"
#include "memlog/recorder_settings.hpp"
#include "timeline/trace/lackey_trace.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/base/text_format.hpp"
#include "timeline/trace/trace_log_writer.hpp"

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

std::string baseName(const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// %p, %e and %% as the recorder expands them.
std::string expand(const std::string& pattern, pid_t pid, const std::string& program) {
    std::string out;
    for (size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] != '%' || i + 1 == pattern.size()) {
            out += pattern[i];
            continue;
        }
        const char what = pattern[++i];
        out += what == 'p' ? std::to_string(pid) : what == 'e' ? program : std::string(1, what);
    }
    return out;
}

}  // namespace

int runFullTrace(const std::vector<std::string>& program, std::string output, bool quiet) {
    const std::string valgrind = findInPath("valgrind");
    if (valgrind.empty())
        return usageError(
            "run: --full-trace runs the program under Valgrind, which is not installed (Debian: apt-get "
            "install valgrind)",
            nullptr);
    if (output.empty()) output = "%e.%p.memlog";
    const options::Row& fullTraceRow = options::recorderSetting(options::Setting::FullTrace).m_row;
    setenv(options::recorderSetting(options::Setting::Out).m_row.m_name, output.c_str(), 1);
    setenv(fullTraceRow.m_name, timeline::switchedValue(fullTraceRow), 1);
    int fds[2];
    if (pipe(fds) != 0) return usageError(std::string("run: cannot make a pipe: ") + std::strerror(errno), nullptr);
    // Like a shell: ^C and ^\ are for the program; this process stays to keep its trace.
    struct sigaction ignore {
    }, oldInt{}, oldQuit{};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGINT, &ignore, &oldInt);
    sigaction(SIGQUIT, &ignore, &oldQuit);
    const pid_t child = fork();
    if (child < 0) return usageError(std::string("run: cannot fork: ") + std::strerror(errno), nullptr);
    if (child == 0) {
        sigaction(SIGINT, &oldInt, nullptr);
        sigaction(SIGQUIT, &oldQuit, nullptr);
        close(fds[0]);
        const std::string logFd = "--log-fd=" + std::to_string(fds[1]);
        std::vector<std::string> words = {
            valgrind, "--tool=lackey", "--trace-mem=yes", "--child-silent-after-fork=yes", "-q", logFd, "--"};
        words.insert(words.end(), program.begin(), program.end());
        std::vector<char*> argv;
        for (std::string& word : words) argv.push_back(word.data());
        argv.push_back(nullptr);
        execv(valgrind.c_str(), argv.data());
        std::fprintf(stderr, "memlog: run: cannot run %s: %s\n", valgrind.c_str(), std::strerror(errno));
        _exit(127);
    }
    close(fds[1]);

    std::vector<format::AccessRecord> accesses;
    timeline::LackeyTrace trace([&](const format::AccessRecord& record) { accesses.push_back(record); });
    const bool showProgress = !quiet && isatty(STDERR_FILENO);
    std::vector<char> buffer(1 << 20);
    uint64_t lastShown = 0;
    for (;;) {
        const ssize_t got = read(fds[0], buffer.data(), buffer.size());
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        trace.feed({buffer.data(), static_cast<size_t>(got)});
        if (showProgress && trace.accesses() >= lastShown + 1'000'000) {
            lastShown = trace.accesses();
            std::fprintf(stderr, "\rmemlog: full trace: %s accesses so far", timeline::countText(lastShown).c_str());
        }
    }
    trace.finish();
    close(fds[0]);
    if (showProgress && lastShown) std::fprintf(stderr, "\n");
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    sigaction(SIGINT, &oldInt, nullptr);
    sigaction(SIGQUIT, &oldQuit, nullptr);
    const int exitStatus = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

    const std::string path = expand(output, child, baseName(program[0]));
    if (access(path.c_str(), F_OK) != 0) {
        std::fprintf(stderr, "memlog: run: %s wrote no log (%s)\n", program[0].c_str(),
                     trace.events() ? "its log is not where -o said" : "it made no allocation, or did not start");
        for (const std::string& line : trace.valgrindLines()) std::fprintf(stderr, "%s\n", line.c_str());
        return exitStatus ? exitStatus : 1;
    }
    uint64_t leftOut = trace.leftOut();
    try {
        // The markers' own code (Valgrind's client requests inside the recorder) touches the stack
        // around each marker: accesses made by the recorder's instructions are not the program's.
        std::vector<std::pair<uint64_t, uint64_t>> recorderCode;
        {
            // Quietly: the log was written just now, by this run.
            const timeline::OpenedLog log(path, {.m_walk = timeline::OpenedLog::Walk::Stacks});
            for (const timeline::Module& module : log.reader().modules())
                if (baseName(module.m_path).rfind("libmemlog.so", 0) == 0)
                    recorderCode.push_back({module.m_lo, module.m_hi});
        }
        timeline::TraceLogWriter writer(path, timeline::TraceLogWriter::Append{});
        for (const format::AccessRecord& record : accesses) {
            const bool ours = std::any_of(recorderCode.begin(), recorderCode.end(), [&](const auto& range) {
                return record.m_ip >= range.first && record.m_ip < range.second;
            });
            if (ours) {
                ++leftOut;
                continue;
            }
            writer.add(static_cast<uint32_t>(child), record);
        }
        writer.finish();
    } catch (const std::exception& error) {
        std::fprintf(stderr, "memlog: run: %s\n", error.what());
        return 2;
    }
    if (!quiet)
        std::fprintf(stderr,
                     "memlog: full trace: %s accesses among %s events into %s (%s of start-up, the recorder and the "
                     "allocator left out)\n",
                     timeline::countText(trace.accesses() + trace.leftOut() - leftOut).c_str(),
                     timeline::countText(trace.events()).c_str(), path.c_str(), timeline::countText(leftOut).c_str());
    return exitStatus;
}

}  // namespace memlog::cli

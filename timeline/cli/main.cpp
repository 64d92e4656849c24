// memlog: record a program's heap, and read what was recorded.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

#include "commands.hpp"
#include "memlog/format.hpp"
#include "memlog/recorder_settings.hpp"
#include "timeline/base/sigbus_guard.hpp"
#include "timeline/base/text_format.hpp"
#include "timeline/base/diagnostics.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/names/suppressions.hpp"
#include "unwind/name_cache.hpp"

namespace {

constexpr const char* kUsage = R"(usage: memlog COMMAND [ARGS]

Record a program's heap into a .memlog log and read it back.

  -v, --verbose   more on stderr: what was read and how long it took
  -q, --quiet     errors only on stderr: no warnings, no progress bars
  (also MEMLOG_LOG_LEVEL=trace|debug|info|warn|error|off for scripts)

Frames once named are kept for the next run, by build id, in ~/.cache/memlog/names
($XDG_CACHE_HOME/memlog/names when that is set; MEMLOG_CACHE_DIR=DIR for DIR/names;
MEMLOG_CACHE_DIR= with nothing keeps none).

commands:
  run [OPTIONS] [--] PROGRAM [ARGS]   run PROGRAM with the recorder loaded
  ls [DIR]                            the logs in a folder: program, pid, events, peak
  stat FILE [--json]                  summary: calls, blocks, peak, leaks, anomalies
  stat --suppressions [FILE]          the leak suppressions in use (built-in, FILE's)
  dump FILE [--csv] [--symbolize]     every heap event in sequence order
  sites FILE [--by M] [--top N]       allocation sites: calls, bytes, peak, leaked
  flame FILE [--metric M]             collapsed stacks for flame graph tools
  accesses FILE [--by G] [--top N]    access samples by site, block, function, global
  uaf FILE [--top N]                  uses after free: allocation, free and access stacks
  arrays FILE [--top N]               sampled blocks and globals as arrays: names, shapes
  cache FILE [--cache S:W:L]          a cache simulated over a full trace: hits, misses
  import TRACE.din -o OUT             a Dinero trace as a log of accesses
  compare SAMPLED FULL [--by G]       samples against a full trace of the same program
  diff BASE NEW [--by G] [--sort M]   two runs' allocation sites side by side, with changes
  pprof FILE -o OUT [--at MOMENT]     a pprof heap profile (go tool pprof, Pyroscope)
  trace-events FILE -o OUT.json       counters and instants for Perfetto, chrome://tracing
  index LOG... [--x AXIS]             the index memtimeline draws a big log through

%s

`memlog COMMAND --help` describes one command. Exit status: 0 success,
2 bad usage or a log that cannot be read.
)";

// The usage with the recorder's settings named from their table.
std::string usage() {
    std::string settings;
    for (const memlog::options::RecorderSetting& setting : memlog::options::kRecorderSettings)
        if (setting.m_audience == memlog::options::Audience::Person)
            settings += (settings.empty() ? "" : ", ") + std::string(setting.m_row.m_name);
    const std::string launcherless = memlog::timeline::wrapText(
        "Without the launcher: LD_PRELOAD=/path/to/libmemlog.so PROGRAM [ARGS] writes ./PROGRAM.PID.memlog "
        "(settings: " +
            settings + "; see `memlog run --help`).",
        0, 79);
    std::string text(kUsage);
    text.replace(text.find("%s"), 2, launcherless);
    return text;
}

}  // namespace

namespace memlog::cli {

int usageError(const std::string& message, const char* hint) {
    std::fprintf(stderr, "memlog: %s\n", message.c_str());
    if (hint) std::fprintf(stderr, "%s\n", hint);
    return 2;
}

int writeOutput(const std::string& path, const std::string& data) {
    const bool toStdout = path == "-";
    FILE* out = toStdout ? stdout : std::fopen(path.c_str(), "wb");
    const bool written = out && std::fwrite(data.data(), 1, data.size(), out) == data.size();
    const bool closed = out && (toStdout ? std::fflush(out) : std::fclose(out)) == 0;
    if (written && closed) return 0;
    std::fprintf(stderr, "memlog: cannot write %s: %s\n", path.c_str(), std::strerror(errno));
    return 1;
}

std::string csvField(const std::string& text) {
    if (text.find_first_of(",\"\n") == std::string::npos) return text;
    std::string quoted = "\"";
    for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

CommandLine readCommandLine(const std::string& command, const timeline::CommandSyntax& syntax,
                            const Arguments& arguments) {
    timeline::ParseResult parsed = timeline::parseOptions(syntax, arguments);
    CommandLine line{std::move(parsed.m_options)};
    if (parsed.m_help) {
        std::fputs(timeline::helpText(syntax).c_str(), stdout);
        line.m_exit = 0;
    } else if (!parsed.m_error.empty()) {
        const std::string_view usage = syntax.m_usage;
        const std::string hint = parsed.m_operandError ? "usage: " + std::string(usage.substr(0, usage.find('\n')))
                                                       : "Try 'memlog " + command + " --help'.";
        line.m_exit = usageError(command + ": " + parsed.m_error, hint.c_str());
    }
    return line;
}

void printSuppressions(const timeline::Suppressions& suppressions) {
    for (const timeline::SuppressionRule& rule : suppressions.rules()) {
        if (rule.m_builtIn)
            std::printf("%s\n    built-in: %s\n", rule.m_pattern.c_str(), rule.m_why.c_str());
        else
            std::printf("leak:%s\n    from %s\n", rule.m_pattern.c_str(), rule.m_origin.c_str());
    }
}

ProgressBar::ProgressBar(const std::string& label)
    : m_label(label), m_enabled(isatty(2) && diagnostics::showsProgress()) {}

ProgressBar::~ProgressBar() {
    if (m_drawn) std::fprintf(stderr, "\r\033[K");
}

void ProgressBar::update(double fraction) {
    if (!m_enabled || fraction >= 1.0) return;
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(fraction * kWidth);
    std::string bar(static_cast<size_t>(filled), '#');
    bar.resize(kWidth, '.');
    std::fprintf(stderr, "\r%s [%s] %3d%%", m_label.c_str(), bar.c_str(), static_cast<int>(fraction * 100));
    m_drawn = true;
}

}  // namespace memlog::cli

int main(int argc, char** argv) {
    using namespace memlog::cli;
    namespace diagnostics = memlog::diagnostics;
    // -v and -q before the command, or anywhere among its arguments but run's (whose -q is its
    // own, and whose program's arguments are not ours).
    Arguments leading(argv + 1, argv + argc);
    size_t commandAt = 0;
    while (commandAt < leading.size() && (leading[commandAt] == "-v" || leading[commandAt] == "--verbose" ||
                                          leading[commandAt] == "-q" || leading[commandAt] == "--quiet"))
        ++commandAt;
    Arguments options(leading.begin(), leading.begin() + static_cast<long>(commandAt));
    auto verbosity = diagnostics::takeVerbosity(options);
    if (commandAt >= leading.size()) {
        std::fputs(usage().c_str(), stderr);
        return 2;
    }
    const std::string command = leading[commandAt];
    Arguments arguments(leading.begin() + static_cast<long>(commandAt) + 1, leading.end());
    if (command != "run")
        if (const auto more = diagnostics::takeVerbosity(arguments)) verbosity = more;
    diagnostics::setup("memlog", verbosity);
    memlog::unwind::setNameCacheDirectory(memlog::unwind::defaultNameCacheDirectory());
    memlog::timeline::exitWhenALogIsCutWhileRead("memlog");
    if (command == "--help" || command == "-h" || command == "help") {
        std::fputs(usage().c_str(), stdout);
        return 0;
    }
    if (command == "--version") {
        std::printf("memlog 0.1.0 (log format %u; reads %u to %u)\n", memlog::format::kFormatVersion,
                    memlog::format::kOldestReadableVersion, memlog::format::kFormatVersion);
        return 0;
    }
    if (command == "run") return runCommand(arguments);
    if (command == "stat") return statCommand(arguments);
    if (command == "dump") return dumpCommand(arguments);
    if (command == "sites") return sitesCommand(arguments);
    if (command == "flame") return flameCommand(arguments);
    if (command == "accesses") return accessesCommand(arguments);
    if (command == "uaf") return uafCommand(arguments);
    if (command == "arrays") return arraysCommand(arguments);
    if (command == "import") return importCommand(arguments);
    if (command == "cache") return cacheCommand(arguments);
    if (command == "compare") return compareCommand(arguments);
    if (command == "diff") return diffCommand(arguments);
    if (command == "pprof") return pprofCommand(arguments);
    if (command == "trace-events") return traceEventsCommand(arguments);
    if (command == "ls") return lsCommand(arguments);
    if (command == "index") return indexCommand(arguments);
    return usageError("unknown command '" + command + "'", "Try 'memlog --help'.");
}

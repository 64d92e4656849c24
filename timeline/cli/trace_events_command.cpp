// memlog trace-events: a log as Chrome/Perfetto trace-event JSON (timeline/export/trace_events).
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "timeline/export/trace_events.hpp"
#include "timeline/read/log_reader.hpp"

namespace memlog::cli {
namespace {

constexpr const char* kHelp = R"(usage: memlog trace-events LOG -o FILE.json

Writes LOG as trace-event JSON, for Perfetto (ui.perfetto.dev), chrome://tracing
and the tools that read Chrome's trace format, beside a CPU trace of the same
run:
  counters   live bytes and live blocks of the process, and of each of its 16
             threads with the highest peaks of their own (a block counts for
             the thread that allocated it until it is freed), in microseconds
             since the log's start
  instants   anomalies (double and unknown frees, mismatched frees, reallocs of
             dead pointers, uses after free), memlog_phase() marks, and the
             fork before the log (its parent's pid) and the exec that ended it
A long log's counters are thinned to at most 2,000 intervals a series (250 for
a thread), each keeping the times of its highest and lowest values, so that the
peak is in the file as `memlog stat` gives it; an instant may stand for the
others of its kind in its interval (args.count). The file's size is bounded
whatever the log's.

  -o, --output FILE   the file to write (replaced if it exists; - for stdout)

Exit status: 0 done, 2 bad usage or a log that cannot be read (nothing is
written), 1 the file cannot be written.
)";

struct TraceEventArguments {
    std::string m_log, m_output;
    int m_exit = -1;  // >= 0: stop and exit with this (help printed, or a usage error)
};

TraceEventArguments parseTraceEventArguments(const Arguments& arguments) {
    TraceEventArguments parsed;
    const char* hint = "Try 'memlog trace-events --help'.";
    const auto fail = [&](const std::string& message) {
        parsed.m_exit = usageError("trace-events: " + message, hint);
        return parsed;
    };
    for (size_t i = 0; i < arguments.size(); ++i) {
        const std::string& argument = arguments[i];
        if (argument == "--help" || argument == "-h") {
            std::fputs(kHelp, stdout);
            parsed.m_exit = 0;
            return parsed;
        } else if (argument == "-o" || argument == "--output") {
            if (i + 1 >= arguments.size()) return fail(argument + " needs a file");
            parsed.m_output = arguments[++i];
        } else if (argument != "-" && !argument.empty() && argument[0] == '-') {
            return fail("unknown option '" + argument + "'");
        } else if (parsed.m_log.empty()) {
            parsed.m_log = argument;
        } else {
            return fail("one log at a time");
        }
    }
    if (parsed.m_log.empty()) {
        parsed.m_exit = usageError("trace-events: which log?", "usage: memlog trace-events LOG -o FILE.json");
        return parsed;
    }
    if (parsed.m_output.empty()) return fail("where to? (-o FILE.json)");
    return parsed;
}

}  // namespace

int traceEventsCommand(const Arguments& arguments) {
    const TraceEventArguments parsed = parseTraceEventArguments(arguments);
    if (parsed.m_exit >= 0) return parsed.m_exit;
    timeline::TraceEvents events;
    try {
        timeline::OpenedLog log = openLog(
            parsed.m_log, {.m_ownWalk = [&](timeline::LogReader& reader, const std::function<void(double)>& progress) {
                events = timeline::traceEvents(reader, {}, progress);
            }});
    } catch (const timeline::LogError& error) {
        std::fprintf(stderr, "memlog: %s\n", error.what());
        return 2;
    }
    // Written only once whole: a log that cannot be read leaves no file behind.
    return writeOutput(parsed.m_output, events.m_json);
}

}  // namespace memlog::cli

// memlog trace-events: a log as Chrome/Perfetto trace-event JSON (timeline/export/trace_events).
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "timeline/export/trace_events.hpp"
#include "timeline/read/log_reader.hpp"

namespace memlog::cli {
namespace {

constexpr options::Row kOptions[] = {
    outputRow("FILE", "the file to write (replaced if it exists; - for stdout)", "where to? (-o FILE.json)"),
};

constexpr timeline::CommandSyntax kSyntax{
    .m_usage = "memlog trace-events LOG -o FILE.json",
    .m_about = R"(Writes LOG as trace-event JSON, for Perfetto (ui.perfetto.dev), chrome://tracing
and the tools that read Chrome's trace format:
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
)",
    .m_options = kOptions,
    .m_notes = R"(Exit status: 0 done, 2 bad usage or a log that cannot be read (nothing is
written), 1 the file cannot be written.
)"};

}  // namespace

int traceEventsCommand(const Arguments& arguments) {
    const CommandLine line = readCommandLine("trace-events", kSyntax, arguments);
    if (line.m_exit >= 0) return line.m_exit;
    const std::string& path = line.m_options.operands()[0];
    timeline::TraceEvents events;
    try {
        timeline::OpenedLog log =
            openLog(path, {.m_ownWalk = [&](timeline::LogReader& reader, const std::function<void(double)>& progress) {
                        events = timeline::traceEvents(reader, {}, progress);
                    }});
    } catch (const timeline::LogError& error) {
        std::fprintf(stderr, "memlog: %s\n", error.what());
        return 2;
    }
    // Written only once whole: a log that cannot be read leaves no file behind.
    return writeOutput(line.m_options.text("--output"), events.m_json);
}

}  // namespace memlog::cli

// memlog pprof: a log as a gzip-compressed pprof heap profile (timeline/export/heap_profile), for
// pprof's viewer and the profile stores that take pprof (Pyroscope, Parca, Grafana).
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "timeline/base/number_parsing.hpp"
#include "timeline/export/heap_profile.hpp"
#include "timeline/export/protobuf_writer.hpp"
#include "timeline/read/log_reader.hpp"

namespace memlog::cli {
namespace {

constexpr const char* kHelp = R"(usage: memlog pprof LOG -o FILE [--at end|peak|TIME]

Writes a heap profile of LOG in pprof's format (profile.proto, gzip-compressed)
for `go tool pprof`, and for the profile stores that take pprof (Pyroscope,
Parca, Grafana). One sample per call stack, with four values:
  alloc_objects   blocks it allocated over the whole log (`memlog sites`' calls)
  alloc_space     their bytes (`sites`' bytes)
  inuse_objects   its blocks live at the moment chosen by --at
  inuse_space     their bytes (the default sample type)
Each stack starts at its allocation site: malloc, operator new and the C++
library's allocator templates are left out, as `memlog sites` leaves them out.
Inlined functions are lines of their caller's location; each module is a
mapping with its build id. Frames are named from the log's module map, so
pprof needs no binaries.

  -o, --output FILE   the profile to write (replaced if it exists; - for stdout)
  --at end            in use when the log ends: what leaked, suppressed or
                      not (default)
  --at peak           in use when the live bytes first reached their peak (the
                      inuse_space of a stack is `sites`' peak)
  --at TIME           in use TIME after the log's start: 250ms, 1.5s, 40us

  go tool pprof -http=:8080 FILE        pprof's web view
  go tool pprof -sample_index=alloc_space -top FILE

Exit status: 0 done, 2 bad usage or a log that cannot be read (nothing is
written), 1 the file cannot be written.
)";

struct PprofArguments {
    std::string m_log, m_output;
    timeline::ProfileMoment m_at;
    int m_exit = -1;  // >= 0: stop and exit with this (help printed, or a usage error)
};

PprofArguments parsePprofArguments(const Arguments& arguments) {
    PprofArguments parsed;
    const char* hint = "Try 'memlog pprof --help'.";
    const auto fail = [&](const std::string& message) {
        parsed.m_exit = usageError("pprof: " + message, hint);
        return parsed;
    };
    for (size_t i = 0; i < arguments.size(); ++i) {
        const std::string& argument = arguments[i];
        const bool valued = argument == "-o" || argument == "--output" || argument == "--at";
        if (valued && i + 1 >= arguments.size()) return fail(argument + " needs a value");
        if (argument == "--help" || argument == "-h") {
            std::fputs(kHelp, stdout);
            parsed.m_exit = 0;
            return parsed;
        } else if (argument == "-o" || argument == "--output") {
            parsed.m_output = arguments[++i];
        } else if (argument == "--at") {
            const std::string& at = arguments[++i];
            if (at == "end") {
                parsed.m_at.m_kind = timeline::ProfileMoment::Kind::End;
            } else if (at == "peak") {
                parsed.m_at.m_kind = timeline::ProfileMoment::Kind::Peak;
            } else if (const auto ns = timeline::parseDuration(at)) {
                parsed.m_at = {timeline::ProfileMoment::Kind::Time, *ns};
            } else {
                return fail("--at takes end, peak or a time since the start (250ms, 1.5s)");
            }
        } else if (!argument.empty() && argument[0] == '-') {
            return fail("unknown option '" + argument + "'");
        } else if (parsed.m_log.empty()) {
            parsed.m_log = argument;
        } else {
            return fail("one log at a time");
        }
    }
    if (parsed.m_log.empty()) {
        parsed.m_exit = usageError("pprof: which log?", "usage: memlog pprof LOG -o FILE [--at end|peak|TIME]");
        return parsed;
    }
    if (parsed.m_output.empty()) return fail("where to? (-o FILE)");
    return parsed;
}

std::string momentText(const timeline::MeasuredProfile& profile) {
    switch (profile.m_moment.m_kind) {
        case timeline::ProfileMoment::Kind::End:
            return "in use at the end of the log";
        case timeline::ProfileMoment::Kind::Peak:
            return "in use at the byte peak, " + timeline::durationText(static_cast<double>(profile.m_momentNs)) +
                   " after the start";
        case timeline::ProfileMoment::Kind::Time:
            return "in use " + timeline::durationText(static_cast<double>(profile.m_momentNs)) + " after the start";
    }
    return "";
}

}  // namespace

int pprofCommand(const Arguments& arguments) {
    const PprofArguments parsed = parsePprofArguments(arguments);
    if (parsed.m_exit >= 0) return parsed.m_exit;
    std::string profile;
    try {
        timeline::MeasuredProfile measured;
        timeline::OpenedLog log = openLog(
            parsed.m_log, {.m_ownWalk = [&](timeline::LogReader& reader, const std::function<void(double)>& progress) {
                measured = timeline::measureProfile(reader, parsed.m_at, progress);
            }});
        const std::string comment = "memlog: " + parsed.m_log + " (" + measured.m_summary.m_exe + ", pid " +
                                    std::to_string(measured.m_summary.m_pid) + "): " + momentText(measured);
        profile = timeline::gzipped(timeline::encodeProfile(measured, log.reader(), log.names(), comment));
    } catch (const timeline::LogError& error) {
        std::fprintf(stderr, "memlog: %s\n", error.what());
        return 2;
    }
    // Written only once whole: a log that cannot be read leaves no file behind.
    return writeOutput(parsed.m_output, profile);
}

}  // namespace memlog::cli

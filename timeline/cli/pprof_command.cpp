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

// --at: "end", "peak", or a time since the start.
const char* momentMistake(const char* text) {
    const std::string value = text;
    return value == "end" || value == "peak" || timeline::parseDuration(value)
               ? nullptr
               : "end, peak or a time since the log's start (250ms, 1.5s, or nanoseconds)";
}

constexpr options::Row kOptions[] = {
    outputRow("FILE", "the profile to write (replaced if it exists; - for stdout)", "where to? (-o FILE)"),
    {.m_name = "--at",
     .m_kind = options::Kind::Text,
     .m_default = "end",
     .m_valueName = "MOMENT",
     .m_help = "what is in use: at the end of the log (what leaked, suppressed or not), at the peak (when the "
               "live bytes first reached their highest: a stack's inuse_space is then `sites`' peak), or at a "
               "time since the log's start (250ms, 1.5s)",
     .m_check = momentMistake},
};

constexpr timeline::CommandSyntax kSyntax{
    .m_usage = "memlog pprof LOG -o FILE [--at end|peak|TIME]",
    .m_about = R"(Writes a heap profile of LOG in pprof's format (profile.proto, gzip-compressed)
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

A sampled log (MEMLOG_SAMPLE) gives estimates, as `memlog sites` does: each
sampled block counts 1/p of its kind (p its chance of being sampled), so the
values need no scaling; the profile's period is the mean gap in bytes (period
type space/bytes, as Go's heap profiles), and its comment says how many
samples the values come from. pprof has no place for intervals: `memlog sites
--csv` has them.
)",
    .m_options = kOptions,
    .m_notes = R"(
  go tool pprof -http=:8080 FILE        pprof's web view
  go tool pprof -sample_index=alloc_space -top FILE

Exit status: 0 done, 2 bad usage or a log that cannot be read (nothing is
written), 1 the file cannot be written.
)"};

struct PprofArguments {
    std::string m_log, m_output;
    timeline::ProfileMoment m_at;
    int m_exit = -1;  // >= 0: stop and exit with this (help printed, or a usage error)
};

PprofArguments parsePprofArguments(const Arguments& arguments) {
    PprofArguments parsed;
    const CommandLine line = readCommandLine("pprof", kSyntax, arguments);
    parsed.m_exit = line.m_exit;
    if (parsed.m_exit >= 0) return parsed;
    parsed.m_log = line.m_options.operands()[0];
    parsed.m_output = line.m_options.text("--output");
    const std::string at = line.m_options.text("--at");
    if (at == "peak")
        parsed.m_at.m_kind = timeline::ProfileMoment::Kind::Peak;
    else if (at != "end")
        parsed.m_at = {timeline::ProfileMoment::Kind::Time, *timeline::parseDuration(at)};
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

// A sampled log: what the values are.
std::string samplingText(const timeline::MeasuredProfile& profile) {
    const uint64_t mean = profile.m_summary.m_sampling.m_meanBytes;
    if (!mean) return "";
    return "; sampled, one allocation per " + std::to_string(mean) + " bytes on average: estimates from " +
           std::to_string(profile.m_samples) + " samples";
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
                                    std::to_string(measured.m_summary.m_pid) + "): " + momentText(measured) +
                                    samplingText(measured);
        profile = timeline::gzipped(timeline::encodeProfile(measured, log.reader(), log.names(), comment));
    } catch (const timeline::LogError& error) {
        std::fprintf(stderr, "memlog: %s\n", error.what());
        return 2;
    }
    // Written only once whole: a log that cannot be read leaves no file behind.
    return writeOutput(parsed.m_output, profile);
}

}  // namespace memlog::cli

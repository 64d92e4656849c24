// memlog sites: the allocation-site table, and memlog flame: collapsed stacks for flame graphs.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <string>

#include "commands.hpp"
#include "timeline/names/site_table.hpp"
#include "timeline/names/stack_names.hpp"
#include "timeline/names/suppressions.hpp"
#include "timeline/read/log_reader.hpp"

namespace memlog::cli {
namespace {

constexpr const char* kSitesHelp =
    R"help(usage: memlog sites FILE [--by calls|bytes|peak|leaked|caller] [--top N] [--csv]
                         [--suppressions SUPPRESSIONS]

The allocation sites of a .memlog log: for each function that allocated (its
innermost frame that is not allocator plumbing such as operator new, strdup or
std::allocator), how many blocks it allocated, how many bytes, how many bytes
were still live when the whole heap peaked, how many bytes of heap blocks
leaked (never freed), how many were live at the end but suppressed (a runtime's
one-time allocations, and the `leak:PATTERN` lines of --suppressions; `memlog
stat --suppressions` lists them), and how many bytes of anonymous mappings it
left mapped at exit (never unmapped: not counted as leaked).
A site in an inline helper names the function it was inlined into:
"make_obj (inlined in build_scene)".

  --by METRIC            sort by calls, bytes (default), peak or leaked
  --by caller            one row per function that is not inlined (an inline
                         helper's blocks count for the function it was
                         inlined into), sorted by bytes
  --top N                at most N rows (default 20; 0 for all)
  --csv                  rows of function,location,module,calls,bytes,peak_bytes,
                         leaked_bytes,leaked_blocks,suppressed_bytes,suppressed_blocks,
                         inlined_in,mapped_at_exit_bytes,mapped_at_exit_regions
  --suppressions FILE    more suppressions (see `memlog stat --help`)
)help";

constexpr const char* kFlameHelp = R"(usage: memlog flame FILE [--metric calls|bytes|peak|leaked]

Collapsed stacks of a .memlog log for flame graphs (flamegraph.pl, inferno,
speedscope): one line per distinct call stack, frames outermost first separated
by ';', then a space and the metric (default bytes). Inlined functions appear
as frames of their own. Suppressed leaks (see `memlog stat --help`) are not in
the leaked metric; --suppressions FILE adds `leak:PATTERN` lines.
)";

// Flame graph tools split frames at ';' and the count at the last space.
std::string flameFrame(const std::string& name) {
    std::string cleaned = name;
    std::replace(cleaned.begin(), cleaned.end(), ';', ':');
    std::replace(cleaned.begin(), cleaned.end(), '\n', ' ');
    return cleaned;
}

}  // namespace

int sitesCommand(const Arguments& arguments) {
    const TableArguments parsed = parseTableArguments(arguments, "sites", "--by", true, kSitesHelp,
                                                      "usage: memlog sites FILE [--by METRIC] [--top N] [--csv]");
    if (parsed.m_exit >= 0) return parsed.m_exit;
    timeline::Metric by = timeline::Metric::Bytes;
    const timeline::SiteGrouping grouping =
        parsed.m_by == "caller" ? timeline::SiteGrouping::Caller : timeline::SiteGrouping::Site;
    if (!parsed.m_by.empty() && grouping == timeline::SiteGrouping::Site && !timeline::parseMetric(parsed.m_by, by))
        return usageError("sites: --by takes calls, bytes, peak, leaked or caller", "Try 'memlog sites --help'.");
    const std::string& path = parsed.m_path;
    const size_t top = parsed.m_top;
    const bool csv = parsed.m_csv;
    try {
        const timeline::Suppressions suppressions = loadSuppressions(parsed.m_suppressions);
        timeline::OpenedLog log = openLog(path, {.m_walk = timeline::OpenedLog::Walk::Measure,
                                                 .m_names = timeline::OpenedLog::Names::Every,
                                                 .m_siteRows = grouping,
                                                 .m_suppressions = &suppressions});
        const auto table = timeline::topRows(log.siteRows(), by, top);
        if (csv) {
            std::puts(
                "function,location,module,calls,bytes,peak_bytes,leaked_bytes,leaked_blocks,suppressed_bytes,"
                "suppressed_blocks,inlined_in,mapped_at_exit_bytes,mapped_at_exit_regions");
            for (const auto& row : table)
                std::printf("%s,%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                            ",%s,%" PRIu64 ",%" PRIu64 "\n",
                            csvField(row.m_site.m_function).c_str(),
                            csvField(timeline::siteLocation(row.m_site)).c_str(), csvField(row.m_site.m_module).c_str(),
                            row.m_metrics.m_calls, row.m_metrics.m_bytes, row.m_metrics.m_peakBytes,
                            row.m_metrics.m_leakedBytes, row.m_metrics.m_leakedBlocks, row.m_metrics.m_suppressedBytes,
                            row.m_metrics.m_suppressedBlocks, csvField(row.m_inlinedIn).c_str(),
                            row.m_metrics.m_mappedAtExitBytes, row.m_metrics.m_mappedAtExitRegions);
        } else {
            std::printf("%12s %14s %12s %12s %12s %12s  %-40s %s\n", "calls", "bytes", "peak", "leaked", "suppressed",
                        "mapped", "function", "location");
            for (const auto& row : table)
                std::printf("%12" PRIu64 " %14" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64
                            "  %-40s %s\n",
                            row.m_metrics.m_calls, row.m_metrics.m_bytes, row.m_metrics.m_peakBytes,
                            row.m_metrics.m_leakedBytes, row.m_metrics.m_suppressedBytes,
                            row.m_metrics.m_mappedAtExitBytes,
                            timeline::siteFunctionText(row).c_str(), timeline::siteLocation(row.m_site).c_str());
        }
    } catch (const timeline::LogError& error) {
        std::fprintf(stderr, "memlog: %s\n", error.what());
        return 2;
    }
    return 0;
}

int flameCommand(const Arguments& arguments) {
    const TableArguments parsed = parseTableArguments(arguments, "flame", "--metric", false, kFlameHelp,
                                                      "usage: memlog flame FILE [--metric METRIC]");
    if (parsed.m_exit >= 0) return parsed.m_exit;
    timeline::Metric metric = timeline::Metric::Bytes;
    if (!parsed.m_by.empty() && !timeline::parseMetric(parsed.m_by, metric))
        return usageError("flame: --metric takes calls, bytes, peak or leaked", "Try 'memlog flame --help'.");
    const std::string& path = parsed.m_path;
    try {
        const timeline::Suppressions suppressions = loadSuppressions(parsed.m_suppressions);
        timeline::OpenedLog log = openLog(path, {.m_walk = timeline::OpenedLog::Walk::Measure,
                                                 .m_names = timeline::OpenedLog::Names::Every,
                                                 .m_suppressions = &suppressions});
        const std::vector<timeline::StackMetrics>& stacks = log.measured().m_stacks;
        // Different raw stacks can name the same frames (two return addresses on one line):
        // add them up under one line.
        std::map<std::string, uint64_t> lines;
        for (size_t id = 0; id < stacks.size(); ++id) {
            const uint64_t value = timeline::metricValue(stacks[id], metric);
            if (value == 0) continue;
            const auto frames = log.names().frames(static_cast<uint32_t>(id));
            std::string line;
            for (auto frame = frames.rbegin(); frame != frames.rend(); ++frame)
                line += (line.empty() ? "" : ";") + flameFrame(frame->m_function);
            lines[line.empty() ? "[no stack]" : line] += value;
        }
        for (const auto& [line, value] : lines) std::printf("%s %" PRIu64 "\n", line.c_str(), value);
    } catch (const timeline::LogError& error) {
        std::fprintf(stderr, "memlog: %s\n", error.what());
        return 2;
    }
    return 0;
}

}  // namespace memlog::cli

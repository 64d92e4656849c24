// memlog sites: the allocation-site table, and memlog flame: collapsed stacks for flame graphs.
#include <algorithm>
#include <cmath>
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

constexpr options::Row kSitesOptions[] = {
    {.m_name = "--by",
     .m_kind = options::Kind::Choice,
     .m_choices = "calls|bytes|peak|leaked|caller",
     .m_default = "bytes",
     .m_valueName = "METRIC",
     .m_help = "sort by calls, bytes, peak or leaked; caller: one row per function that is not inlined (an "
               "inline helper's blocks count for the function it was inlined into), sorted by bytes"},
    topRow("20", "at most N rows, 0 for all"),
    {.m_name = "--csv",
     .m_help = "rows of function,location,module,calls,bytes,peak_bytes,leaked_bytes,leaked_blocks,"
               "suppressed_bytes,suppressed_blocks,inlined_in,mapped_at_exit_bytes,mapped_at_exit_regions"},
    kSuppressionsRow,
};

constexpr timeline::CommandSyntax kSitesSyntax{
    .m_usage =
        "memlog sites FILE [--by calls|bytes|peak|leaked|caller] [--top N] [--csv]\n"
        "                         [--suppressions SUPPRESSIONS]",
    .m_about = R"help(The allocation sites of a .memlog log: for each function that allocated (its
innermost frame that is not allocator plumbing such as operator new, strdup or
std::allocator), how many blocks it allocated, how many bytes, how many bytes
were still live when the whole heap peaked, how many bytes of heap blocks
leaked (never freed), how many were live at the end but suppressed (a runtime's
one-time allocations, and the `leak:PATTERN` lines of --suppressions; `memlog
stat --suppressions` lists them), and how many bytes of anonymous mappings it
left mapped at exit (never unmapped: not counted as leaked).
A site in an inline helper names the function it was inlined into:
"make_obj (inlined in build_scene)".

A sampled log (MEMLOG_SAMPLE) gives estimates: each sampled block weighted by
the inverse of its chance of being sampled; the text adds the 95 % interval of
the --by column, the CSV the intervals of all four.
)help",
    .m_options = kSitesOptions};

constexpr options::Row kFlameOptions[] = {
    {.m_name = "--metric",
     .m_kind = options::Kind::Choice,
     .m_choices = "calls|bytes|peak|leaked",
     .m_default = "bytes",
     .m_valueName = "METRIC",
     .m_help = "what each stack counts"},
    kSuppressionsRow,
};

constexpr timeline::CommandSyntax kFlameSyntax{
    .m_usage = "memlog flame FILE [--metric calls|bytes|peak|leaked] [--suppressions SUPPRESSIONS]",
    .m_about = R"(Collapsed stacks of a .memlog log for flame graphs (flamegraph.pl, inferno,
speedscope): one line per distinct call stack, frames outermost first separated
by ';', then a space and the metric. Inlined functions appear as frames of
their own. Suppressed leaks (see `memlog stat --help`) are not in the leaked
metric. In a sampled log (MEMLOG_SAMPLE) each value is an estimate: the sampled
blocks weighted by the inverse of their chance of being sampled.
)",
    .m_options = kFlameOptions};

// Flame graph tools split frames at ';' and the count at the last space.
std::string flameFrame(const std::string& name) {
    std::string cleaned = name;
    std::replace(cleaned.begin(), cleaned.end(), ';', ':');
    std::replace(cleaned.begin(), cleaned.end(), '\n', ' ');
    return cleaned;
}

}  // namespace

int sitesCommand(const Arguments& arguments) {
    const CommandLine line = readCommandLine("sites", kSitesSyntax, arguments);
    if (line.m_exit >= 0) return line.m_exit;
    const std::string byText = line.m_options.text("--by");
    const timeline::SiteGrouping grouping =
        byText == "caller" ? timeline::SiteGrouping::Caller : timeline::SiteGrouping::Site;
    timeline::Metric by = timeline::Metric::Bytes;
    if (grouping == timeline::SiteGrouping::Site) timeline::parseMetric(byText, by);
    const std::string& path = line.m_options.operands()[0];
    const size_t top = line.m_options.number("--top");
    const bool csv = line.m_options.given("--csv");
    const std::string suppressionsFile = line.m_options.text("--suppressions");
    try {
        const timeline::Suppressions suppressions = loadSuppressions(suppressionsFile);
        timeline::OpenedLog log = openLog(path, {.m_walk = timeline::OpenedLog::Walk::Measure,
                                                 .m_names = timeline::OpenedLog::Names::Every,
                                                 .m_siteRows = grouping,
                                                 .m_suppressions = &suppressions});
        const auto table = timeline::topRows(log.siteRows(), by, top);
        const uint64_t sampleMean = log.measured().m_summary.m_sampling.m_meanBytes;
        // A sampled log: every value an estimate; the CSV gains each one's interval, the text the
        // interval of the column the rows are sorted by.
        const timeline::Metric kMetrics[] = {timeline::Metric::Calls, timeline::Metric::Bytes, timeline::Metric::Peak,
                                             timeline::Metric::Leaked};
        auto bound = [](double value) { return value <= 0 ? uint64_t{0} : static_cast<uint64_t>(std::llround(value)); };
        if (csv) {
            std::printf(
                "function,location,module,calls,bytes,peak_bytes,leaked_bytes,leaked_blocks,suppressed_bytes,"
                "suppressed_blocks,inlined_in,mapped_at_exit_bytes,mapped_at_exit_regions%s\n",
                sampleMean ? ",calls_ci95_low,calls_ci95_high,bytes_ci95_low,bytes_ci95_high,peak_bytes_ci95_low,"
                             "peak_bytes_ci95_high,leaked_bytes_ci95_low,leaked_bytes_ci95_high"
                           : "");
            for (const auto& row : table) {
                std::printf("%s,%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                            ",%s,%" PRIu64 ",%" PRIu64,
                            csvField(row.m_site.m_function).c_str(),
                            csvField(timeline::siteLocation(row.m_site)).c_str(), csvField(row.m_site.m_module).c_str(),
                            row.m_metrics.m_calls, row.m_metrics.m_bytes, row.m_metrics.m_peakBytes,
                            row.m_metrics.m_leakedBytes, row.m_metrics.m_leakedBlocks, row.m_metrics.m_suppressedBytes,
                            row.m_metrics.m_suppressedBlocks, csvField(row.m_inlinedIn).c_str(),
                            row.m_metrics.m_mappedAtExitBytes, row.m_metrics.m_mappedAtExitRegions);
                if (row.m_estimated)
                    for (const timeline::Metric metric : kMetrics)
                        std::printf(",%" PRIu64 ",%" PRIu64, bound(timeline::estimateOf(row, metric).m_low),
                                    bound(timeline::estimateOf(row, metric).m_high));
                std::printf("\n");
            }
        } else {
            if (sampleMean)
                std::printf("sampled: one allocation per %" PRIu64
                            " bytes on average; every value is an estimate, %s with its 95 %% interval\n",
                            sampleMean, timeline::metricName(by));
            std::printf("%12s %14s %12s %12s %12s %12s  %s%-40s %s\n", "calls", "bytes", "peak", "leaked", "suppressed",
                        "mapped", sampleMean ? "     95 % low      95 % high  " : "", "function", "location");
            for (const auto& row : table) {
                std::printf("%12" PRIu64 " %14" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 "  ",
                            row.m_metrics.m_calls, row.m_metrics.m_bytes, row.m_metrics.m_peakBytes,
                            row.m_metrics.m_leakedBytes, row.m_metrics.m_suppressedBytes,
                            row.m_metrics.m_mappedAtExitBytes);
                if (row.m_estimated)
                    std::printf("%14" PRIu64 " %14" PRIu64 "  ", bound(timeline::estimateOf(row, by).m_low),
                                bound(timeline::estimateOf(row, by).m_high));
                std::printf("%-40s %s\n", timeline::siteFunctionText(row).c_str(),
                            timeline::siteLocation(row.m_site).c_str());
            }
        }
    } catch (const timeline::LogError& error) {
        std::fprintf(stderr, "memlog: %s\n", error.what());
        return 2;
    }
    return 0;
}

int flameCommand(const Arguments& arguments) {
    const CommandLine line = readCommandLine("flame", kFlameSyntax, arguments);
    if (line.m_exit >= 0) return line.m_exit;
    timeline::Metric metric = timeline::Metric::Bytes;
    timeline::parseMetric(line.m_options.text("--metric"), metric);
    const std::string& path = line.m_options.operands()[0];
    const std::string suppressionsFile = line.m_options.text("--suppressions");
    try {
        const timeline::Suppressions suppressions = loadSuppressions(suppressionsFile);
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

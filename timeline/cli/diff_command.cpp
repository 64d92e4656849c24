// memlog diff: two runs' allocation sites side by side (timeline/export/site_diff), with the
// whole logs' numbers first.
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <utility>
#include <string>

#include "commands.hpp"
#include "timeline/export/site_diff.hpp"
#include "timeline/names/suppressions.hpp"
#include "timeline/read/log_reader.hpp"

namespace memlog::cli {
namespace {

constexpr options::Row kOptions[] = {
    {.m_name = "--by",
     .m_kind = options::Kind::Choice,
     .m_choices = "site|function|caller",
     .m_default = "site",
     .m_valueName = "GROUP",
     .m_help = "a row per allocation site; per function that allocated (its lines added up); or per function "
               "that is not inlined (an inline helper's blocks count for the function it was inlined into)"},
    {.m_name = "--sort",
     .m_kind = options::Kind::Choice,
     .m_choices = "calls|bytes|peak|leaked",
     .m_default = "bytes",
     .m_valueName = "METRIC",
     .m_help = "rows by the largest change of this value, up or down"},
    topRow("20", "at most N rows, 0 for all"),
    {.m_name = "--json",
     .m_help = "one JSON object: the logs, totals (duration_ns_base, duration_ns_new, duration_ns_delta, "
               "events_..., peak_bytes_..., peak_blocks_..., peak_heap_bytes_..., peak_mapped_bytes_..., "
               "leaked_bytes_..., leaked_blocks_..., mapped_at_exit_bytes_..., mapped_at_exit_regions_...) and rows "
               "(function, file, line, module, inlined_in, only_in, then calls_base, calls_new, calls_delta "
               "and the same for bytes, peak_bytes, leaked_bytes and leaked_blocks; a sampled log adds sampling_mean_bytes "
               "and samples to its log, and each row each change's interval: calls_delta_ci95_low, "
               "calls_delta_ci95_high, calls_significant, ...)"},
    {.m_name = "--csv",
     .m_help = "the rows alone: function,location,module,inlined_in,only_in,calls_base,calls_new,calls_delta,... "
               "as in --json (a sampled log: then each change's interval and significance, as in --json)"},
};

constexpr timeline::CommandSyntax kSyntax{
    .m_usage = "memlog diff BASE NEW [--by site|function|caller] [--top N]\n"
               "                     [--sort calls|bytes|peak|leaked] [--json|--csv]",
    .m_about = R"(Compares the allocation sites of two logs (BASE, then NEW: a run before and
after a change): the rows `memlog sites` prints for each, matched by function,
source file name, line and module file name (never by address: two runs, or
two builds, place code apart), and for each row the base value, the new value
and the change of: calls (blocks allocated), bytes, peak (the site's bytes
live when its run's heap peaked), leaked bytes and leaked blocks. A row only
one run has is marked (in: base or new). First the whole logs: duration,
events, peak bytes, peak blocks (the most live at once), the peaks of heap
blocks and of mappings apart, leaked bytes and blocks (heap blocks never freed)
and mappings never unmapped (mapped at exit, not leaks). Blocks that a runtime
keeps by design are suppressed, as in `memlog sites`.

When either log is sampled (MEMLOG_SAMPLE), its rows are estimates, as in
`memlog sites`, and each change is an estimate with its 95 % interval: the
variance of a difference is the sum of the two runs' (a full log's values are
exact: 0), the interval the normal one around the change. A change is
significant when its interval leaves out 0. The text gives the interval of
the --sort value's change and says whether it is significant; --json and --csv
give every change's (<name>_delta_ci95_low, <name>_delta_ci95_high,
<name>_significant). The head says which log is sampled, at what mean gap and
from how many samples; its whole-log numbers count a sampled log's samples,
and below them the peak and leaked bytes as `memlog stat` estimates them (a
full log's exact) come with their change's interval (--json: the totals'
estimated_peak_bytes_... and estimated_leaked_bytes_...).
)",
    .m_options = kOptions,
    .m_notes = "Exit status: 0 done, 2 bad usage or a log that cannot be read.\n",
    .m_minOperands = 2,
    .m_maxOperands = 2,
    .m_wrongOperands = "two logs: BASE and NEW"};

struct DiffArguments {
    std::string m_base, m_new;
    timeline::DiffGrouping m_by = timeline::DiffGrouping::Site;
    timeline::Metric m_sort = timeline::Metric::Bytes;
    size_t m_top = 20;
    bool m_json = false, m_csv = false;
    int m_exit = -1;  // >= 0: stop and exit with this (help printed, or a usage error)
};

DiffArguments parseDiffArguments(const Arguments& arguments) {
    DiffArguments parsed;
    const CommandLine line = readCommandLine("diff", kSyntax, arguments);
    parsed.m_exit = line.m_exit;
    if (parsed.m_exit >= 0) return parsed;
    const timeline::ParsedOptions& options = line.m_options;
    parsed.m_base = options.operands()[0];
    parsed.m_new = options.operands()[1];
    const std::string by = options.text("--by");
    parsed.m_by = by == "function" ? timeline::DiffGrouping::Function
                  : by == "caller" ? timeline::DiffGrouping::Caller
                                   : timeline::DiffGrouping::Site;
    timeline::parseMetric(options.text("--sort"), parsed.m_sort);
    parsed.m_top = options.number("--top");
    parsed.m_json = options.given("--json");
    parsed.m_csv = options.given("--csv");
    if (parsed.m_json && parsed.m_csv)
        parsed.m_exit = usageError("diff: --json or --csv, not both", "Try 'memlog diff --help'.");
    return parsed;
}

// A log's summary and its site rows, grouped for the diff (per function: per site, added up later).
struct Run {
    timeline::Summary m_summary;
    std::vector<timeline::SiteRow> m_rows;
    uint64_t sampleMean() const { return m_summary.m_sampling.m_meanBytes; }
};

// Whether the rows' changes are estimates: either run sampled.
bool estimated(const Run& base, const Run& newer) { return base.sampleMean() || newer.sampleMean(); }

// An interval's end as the rows print it (significance is decided before rounding).
int64_t rounded(double end) { return static_cast<int64_t>(std::llround(end)); }

Run openRun(const std::string& path, timeline::DiffGrouping by, const timeline::Suppressions& suppressions) {
    timeline::OpenedLog log = openLog(
        path, {.m_walk = timeline::OpenedLog::Walk::Measure,
               .m_siteRows = by == timeline::DiffGrouping::Caller ? timeline::SiteGrouping::Caller
                                                                  : timeline::SiteGrouping::Site,
               .m_suppressions = &suppressions});
    return {log.summary(), log.siteRows()};
}

const char* onlyIn(const timeline::SiteDiffRow& row) { return !row.m_inBase ? "new" : !row.m_inNew ? "base" : ""; }

void printJson(const DiffArguments& parsed, const Run& base, const Run& newer,
               const std::vector<timeline::SiteDiffRow>& rows, size_t matched) {
    const auto logJson = [](const std::string& path, const timeline::Summary& s) {
        const std::string sampling = s.m_sampling.m_meanBytes
                                         ? ",\"sampling_mean_bytes\":" + std::to_string(s.m_sampling.m_meanBytes) +
                                               ",\"samples\":" + std::to_string(s.m_sampling.m_samples)
                                         : "";
        return "{\"log\":" + jsonString(path) + ",\"exe\":" + jsonString(s.m_exe) + ",\"pid\":" + std::to_string(s.m_pid) +
               sampling + "}";
    };
    std::printf("{\"base\":%s,\"new\":%s,\"by\":\"%s\",\"sort\":\"%s\",\"totals\":{",
                logJson(parsed.m_base, base.m_summary).c_str(), logJson(parsed.m_new, newer.m_summary).c_str(),
                parsed.m_by == timeline::DiffGrouping::Site       ? "site"
                : parsed.m_by == timeline::DiffGrouping::Function ? "function"
                                                                  : "caller",
                timeline::metricName(parsed.m_sort));
    bool first = true;
    for (const timeline::TotalColumn& column : timeline::kTotalColumns) {
        const uint64_t b = base.m_summary.*column.m_value, n = newer.m_summary.*column.m_value;
        std::printf("%s\"%s_base\":%" PRIu64 ",\"%s_new\":%" PRIu64 ",\"%s_delta\":%" PRId64, first ? "" : ",",
                    column.m_name, b, column.m_name, n, column.m_name, timeline::difference(b, n));
        first = false;
    }
    if (estimated(base, newer))
        for (const timeline::EstimatedTotal& total : timeline::kEstimatedTotals) {
            const timeline::EstimatedChange change = timeline::estimatedChange(base.m_summary, newer.m_summary, total);
            std::printf(",\"%s_base\":%" PRIu64 ",\"%s_new\":%" PRIu64 ",\"%s_delta\":%" PRId64
                        ",\"%s_delta_ci95_low\":%" PRId64 ",\"%s_delta_ci95_high\":%" PRId64 ",\"%s_significant\":%s",
                        total.m_name, timeline::estimatedValue(base.m_summary, total), total.m_name,
                        timeline::estimatedValue(newer.m_summary, total), total.m_name, change.m_change, total.m_name,
                        rounded(change.m_low), total.m_name, rounded(change.m_high), total.m_name,
                        change.significant() ? "true" : "false");
        }
    std::printf("},\"rows_matched\":%zu,\"rows\":[", matched);
    for (size_t i = 0; i < rows.size(); ++i) {
        const timeline::SiteDiffRow& row = rows[i];
        std::printf("%s{\"function\":%s,\"file\":%s,\"line\":%u,\"module\":%s,\"inlined_in\":%s,\"only_in\":%s",
                    i ? "," : "", jsonString(row.m_site.m_function).c_str(), jsonString(row.m_site.m_file).c_str(),
                    row.m_site.m_line, jsonString(row.m_site.m_module).c_str(),
                    row.m_inlinedIn.empty() ? "null" : jsonString(row.m_inlinedIn).c_str(),
                    *onlyIn(row) ? ("\"" + std::string(onlyIn(row)) + "\"").c_str() : "null");
        for (const timeline::DiffColumn& column : timeline::kDiffColumns)
            std::printf(",\"%s_base\":%" PRIu64 ",\"%s_new\":%" PRIu64 ",\"%s_delta\":%" PRId64, column.m_name,
                        row.m_base.*column.m_value, column.m_name, row.m_new.*column.m_value, column.m_name,
                        timeline::changeOf(row, column));
        if (estimated(base, newer))
            for (const timeline::DiffColumn& column : timeline::kDiffColumns) {
                const timeline::EstimatedChange change = timeline::estimatedChange(row, column);
                std::printf(",\"%s_delta_ci95_low\":%" PRId64 ",\"%s_delta_ci95_high\":%" PRId64 ",\"%s_significant\":%s",
                            column.m_name, rounded(change.m_low), column.m_name, rounded(change.m_high), column.m_name,
                            change.significant() ? "true" : "false");
            }
        std::printf("}");
    }
    std::printf("]}\n");
}

void printCsv(const std::vector<timeline::SiteDiffRow>& rows, bool withIntervals) {
    std::printf("function,location,module,inlined_in,only_in");
    for (const timeline::DiffColumn& column : timeline::kDiffColumns)
        std::printf(",%s_base,%s_new,%s_delta", column.m_name, column.m_name, column.m_name);
    if (withIntervals)  // after the columns a full diff has: a reader of those finds them in place
        for (const timeline::DiffColumn& column : timeline::kDiffColumns)
            std::printf(",%s_delta_ci95_low,%s_delta_ci95_high,%s_significant", column.m_name, column.m_name,
                        column.m_name);
    std::printf("\n");
    for (const timeline::SiteDiffRow& row : rows) {
        std::printf("%s,%s,%s,%s,%s", csvField(row.m_site.m_function).c_str(),
                    csvField(timeline::siteLocation(row.m_site)).c_str(), csvField(row.m_site.m_module).c_str(),
                    csvField(row.m_inlinedIn).c_str(), onlyIn(row));
        for (const timeline::DiffColumn& column : timeline::kDiffColumns)
            std::printf(",%" PRIu64 ",%" PRIu64 ",%" PRId64, row.m_base.*column.m_value, row.m_new.*column.m_value,
                        timeline::changeOf(row, column));
        if (withIntervals)
            for (const timeline::DiffColumn& column : timeline::kDiffColumns) {
                const timeline::EstimatedChange change = timeline::estimatedChange(row, column);
                std::printf(",%" PRId64 ",%" PRId64 ",%s", rounded(change.m_low), rounded(change.m_high),
                            change.significant() ? "true" : "false");
            }
        std::printf("\n");
    }
}

void printText(const DiffArguments& parsed, const Run& base, const Run& newer,
               const std::vector<timeline::SiteDiffRow>& rows, size_t matched) {
    std::printf("base  %s: %s (pid %u)\nnew   %s: %s (pid %u)\n", parsed.m_base.c_str(),
                base.m_summary.m_exe.c_str(), base.m_summary.m_pid, parsed.m_new.c_str(),
                newer.m_summary.m_exe.c_str(), newer.m_summary.m_pid);
    for (const auto& [side, run] : {std::pair{"base", &base}, std::pair{"new ", &newer}})
        if (run->sampleMean())
            std::printf("%s  sampled: one allocation per %" PRIu64 " bytes on average, %" PRIu64
                        " samples; its rows are estimates, its whole-log numbers but the estimated ones count the samples\n",
                        side, run->sampleMean(), run->m_summary.m_sampling.m_samples);
    const bool intervals = estimated(base, newer);
    if (intervals) std::printf("changes are estimates: significant when the 95 %% interval leaves out 0\n");
    std::printf("\n%-22s %16s %16s %16s\n", "", "base", "new", "change");
    for (const timeline::TotalColumn& column : timeline::kTotalColumns) {
        const uint64_t b = base.m_summary.*column.m_value, n = newer.m_summary.*column.m_value;
        std::printf("%-22s %16" PRIu64 " %16" PRIu64 " %16s\n", column.m_title, b, n,
                    timeline::signedText(timeline::difference(b, n)).c_str());
    }
    if (intervals) {  // what `memlog stat` estimates, each change with its interval
        std::printf("%-22s %16s %16s %16s %14s %14s %-3s\n", "", "", "", "", "95 % low", "95 % high", "sig");
        for (const timeline::EstimatedTotal& total : timeline::kEstimatedTotals) {
            const timeline::EstimatedChange change = timeline::estimatedChange(base.m_summary, newer.m_summary, total);
            std::printf("%-22s %16" PRIu64 " %16" PRIu64 " %16s %14s %14s %-3s\n", total.m_title,
                        timeline::estimatedValue(base.m_summary, total), timeline::estimatedValue(newer.m_summary, total),
                        timeline::signedText(change.m_change).c_str(), timeline::signedText(rounded(change.m_low)).c_str(),
                        timeline::signedText(rounded(change.m_high)).c_str(), change.significant() ? "yes" : "no");
        }
    }
    const timeline::DiffColumn& sorted = timeline::diffColumn(parsed.m_sort);
    std::printf("\n%zu of %zu rows, by the size of the change of %s\n", rows.size(), matched, sorted.m_name);
    // The chosen value of each run, then the change of every value.
    std::printf("%29s | %-66s |", sorted.m_name, "change");
    if (intervals) std::printf(" %-32s |", ("change of " + std::string(sorted.m_name) + ", 95 %").c_str());
    std::printf("\n%14s %14s | %10s %14s %14s %14s %8s |", "base", "new", "calls", "bytes", "peak", "leaked", "blocks");
    if (intervals) std::printf(" %14s %14s %-3s |", "low", "high", "sig");
    std::printf(" %-4s  %-40s %s\n", "in", "function", "location");
    for (const timeline::SiteDiffRow& row : rows) {
        std::printf("%14" PRIu64 " %14" PRIu64 " |", row.m_base.*sorted.m_value, row.m_new.*sorted.m_value);
        const int widths[] = {10, 14, 14, 14, 8};
        for (size_t c = 0; c < std::size(timeline::kDiffColumns); ++c)
            std::printf(" %*s", widths[c], timeline::signedText(timeline::changeOf(row, timeline::kDiffColumns[c])).c_str());
        if (intervals) {
            const timeline::EstimatedChange change = timeline::estimatedChange(row, sorted);
            std::printf(" | %14s %14s %-3s", timeline::signedText(rounded(change.m_low)).c_str(),
                        timeline::signedText(rounded(change.m_high)).c_str(), change.significant() ? "yes" : "no");
        }
        timeline::SiteRow shown;
        shown.m_site = row.m_site;
        shown.m_inlinedIn = row.m_inlinedIn;
        std::printf(" | %-4s  %-40s %s\n", row.m_inBase && row.m_inNew ? "both" : onlyIn(row),
                    timeline::siteFunctionText(shown).c_str(), timeline::siteLocation(row.m_site).c_str());
    }
}

}  // namespace

int diffCommand(const Arguments& arguments) {
    const DiffArguments parsed = parseDiffArguments(arguments);
    if (parsed.m_exit >= 0) return parsed.m_exit;
    try {
        const timeline::Suppressions suppressions = loadSuppressions("");
        const Run base = openRun(parsed.m_base, parsed.m_by, suppressions);
        const Run newer = openRun(parsed.m_new, parsed.m_by, suppressions);
        std::vector<timeline::SiteDiffRow> rows = timeline::diffSiteRows(base.m_rows, newer.m_rows, parsed.m_by);
        const size_t matched = rows.size();
        rows = timeline::topChanges(std::move(rows), parsed.m_sort, parsed.m_top);
        if (parsed.m_json)
            printJson(parsed, base, newer, rows, matched);
        else if (parsed.m_csv)
            printCsv(rows, estimated(base, newer));
        else
            printText(parsed, base, newer, rows, matched);
    } catch (const timeline::LogError& error) {
        std::fprintf(stderr, "memlog: %s\n", error.what());
        return 2;
    }
    return 0;
}

}  // namespace memlog::cli

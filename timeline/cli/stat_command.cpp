// memlog stat: the summary of one log, as text or as one JSON object.
#include <chrono>
#include <cmath>
#include <cinttypes>
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "timeline/base/diagnostics.hpp"
#include "timeline/names/program_hints.hpp"
#include "timeline/names/site_table.hpp"
#include "timeline/names/suppressions.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/replay/summary.hpp"

namespace memlog::cli {
namespace {

constexpr options::Row kOptions[] = {
    {.m_name = "--json",
     .m_help = "the same as one JSON object (peak_bytes: heap and mappings; peak_heap_bytes, peak_mapped_bytes: "
               "each alone; leaked_bytes, leaked_blocks: heap blocks only; mapped_at_exit_bytes, "
               "mapped_at_exit_regions; suppressed_bytes, suppressed_blocks; access_allocator; hints: a list of "
               "sentences)"},
    {.m_name = "--suppressions",
     .m_kind = options::Kind::Path,
     .m_valueName = "FILE",
     .m_help = "more suppressions, LeakSanitizer's way: one `leak:PATTERN` a line, matching any frame's function, "
               "module or source file ('*' any text, '^' and '$' anchor it; '#' starts a comment); without a "
               "log: print the suppressions in use",
     .m_valueOptional = true},
};

constexpr timeline::CommandSyntax kSyntax{
    .m_usage =
        "memlog stat FILE [--json] [--suppressions SUPPRESSIONS]\n"
        "       memlog stat --suppressions [SUPPRESSIONS]",
    .m_about = R"(Reads a .memlog log and prints: the program, its duration and threads, the calls
per entry point that allocated, resized or freed something, blocks begun and
ended, the peak of live bytes (with the blocks live at that moment; when the
program mapped memory of its own, the heap's peak and the mappings' apart, each
at its own moment), the most blocks live at once (another moment, as a rule),
the heap blocks never freed (leaks) and, apart, the anonymous mappings never
unmapped (alive at exit: the process's end returns them, not a leak),
distinct call stacks, anomalies (frees of unknown pointers, double frees,
reallocs of dead pointers, mismatched free/delete, access samples outside a
live block, in logs of format 2), events the recorder lost, access samples
(reads, writes; heap, global, stack, other; freed blocks: the program's uses
after free; allocator: the allocator's own code at work, the malloc family or
the C library's allocator functions however reached, never in a block; blocks
sampled), the sampler (off,
its mechanism and what it did with its ticks, or why it was unavailable),
and the top allocation sites by calls, bytes, bytes live at the peak, and bytes
leaked (see `memlog sites`). Last, hints about the kind of program: a CPython
interpreter whose objects pymalloc kept in its arenas is told of
PYTHONMALLOC=malloc (`memlog run --python-objects`).

A sampled log (MEMLOG_SAMPLE) holds only the samples: the counts above are
theirs, and a "sampled" part estimates what the program did (blocks and bytes
allocated, the peak, the leaks), each with its 95 % interval: normal where the
samples are many, Poisson's exact one where they are few. The top sites are
estimates too (--json: value, ci95_low, ci95_high; sampling_mean_bytes).

Blocks that a runtime allocates once and never frees by design (libstdc++'s
emergency exception pool, stdio's buffers) are counted as suppressed, apart
from the leaks: `leaked` is what no suppression matches.
)",
    .m_options = kOptions,
    .m_minOperands = 0};

constexpr size_t kTopSites = 5;
constexpr timeline::Metric kSiteMetrics[] = {timeline::Metric::Calls, timeline::Metric::Bytes, timeline::Metric::Peak,
                                             timeline::Metric::Leaked};

// The top sites per metric, without the sites whose value is zero.
using TopSites = std::vector<std::pair<timeline::Metric, std::vector<timeline::SiteRow>>>;

TopSites topSites(const std::vector<timeline::SiteRow>& all) {  // named once, sorted four ways
    TopSites top;
    for (const timeline::Metric metric : kSiteMetrics) {
        auto rows = timeline::topRows(all, metric, kTopSites);
        std::erase_if(rows, [metric](const timeline::SiteRow& row) { return metricValue(row.m_metrics, metric) == 0; });
        top.emplace_back(metric, std::move(rows));
    }
    return top;
}

uint64_t rounded(double value) { return value <= 0 ? 0 : static_cast<uint64_t>(std::llround(value)); }

// A sampled log's estimates (none of these fields in a full log's JSON).
void printJsonEstimates(const timeline::SampleEstimates& e) {
    if (!e.m_meanBytes) return;
    std::printf(",\"sampling_mean_bytes\":%" PRIu64 ",\"samples\":%" PRIu64 ",\"samples_dropped\":%" PRIu64
                ",\"estimated\":{",
                e.m_meanBytes, e.m_samples, e.m_setOverflow);
    const std::pair<const char*, const timeline::Estimate*> parts[] = {
        {"calls", &e.m_calls}, {"bytes", &e.m_bytes}, {"peak_bytes", &e.m_peak}, {"leaked_bytes", &e.m_leaked}};
    for (size_t i = 0; i < std::size(parts); ++i)
        std::printf("%s\"%s\":{\"value\":%" PRIu64 ",\"ci95_low\":%" PRIu64 ",\"ci95_high\":%" PRIu64
                    ",\"samples\":%" PRIu64 ",\"interval\":\"%s\"}",
                    i ? "," : "", parts[i].first, rounded(parts[i].second->m_value), rounded(parts[i].second->m_low),
                    rounded(parts[i].second->m_high), parts[i].second->m_samples,
                    parts[i].second->m_exactPoisson ? "poisson" : "normal");
    std::printf("}");
}

void printJson(const timeline::Summary& s) {
    std::printf("{\"format_version\":%u,\"complete\":%s,\"pid\":%u,\"parent_pid\":%u,\"exe\":%s,", s.m_formatVersion,
                s.m_complete ? "true" : "false", s.m_pid, s.m_parentPid, jsonString(s.m_exe).c_str());
    std::printf("\"duration_ns\":%" PRIu64 ",\"threads\":%u,\"events\":%" PRIu64 ",\"calls\":{", s.m_durationNs,
                s.m_threads, s.m_events);
    for (uint32_t kind = 1; kind < format::kHeapKindCount; ++kind)
        std::printf("%s\"%s\":%" PRIu64, kind > 1 ? "," : "", format::kKindInfo[kind].m_name, s.m_calls[kind]);
    // The fields a script knew keep their order and meanings, but leaked_*: heap blocks only (README.md).
    std::printf("},\"allocations\":%" PRIu64 ",\"frees\":%" PRIu64 ",\"peak_bytes\":%" PRIu64
                ",\"blocks_at_peak\":%" PRIu64 ",\"peak_blocks\":%" PRIu64 ",\"peak_heap_bytes\":%" PRIu64
                ",\"peak_mapped_bytes\":%" PRIu64 ",\"leaked_bytes\":%" PRIu64 ",\"leaked_blocks\":%" PRIu64
                ",\"suppressed_bytes\":%" PRIu64 ",\"suppressed_blocks\":%" PRIu64 ",\"mapped_at_exit_bytes\":%" PRIu64
                ",\"mapped_at_exit_regions\":%" PRIu64 ",\"stacks\":%" PRIu64,
                s.m_allocations, s.m_frees, s.m_peakBytes, s.m_blocksAtPeak, s.m_peakBlocks, s.m_peakHeapBytes,
                s.m_peakMappedBytes, s.m_leakedBytes, s.m_leakedBlocks, s.m_suppressedBytes, s.m_suppressedBlocks,
                s.m_mappedAtExitBytes, s.m_mappedAtExitRegions, s.m_stacks);
    const timeline::Anomalies& a = s.m_anomalies;
    std::printf(",\"anomalies\":{\"unknown_free\":%" PRIu64 ",\"double_free\":%" PRIu64 ",\"unknown_realloc\":%" PRIu64
                ",\"mismatched_free\":%" PRIu64 ",\"access_outside_block\":%" PRIu64 ",\"use_after_free\":%" PRIu64
                "},\"lost_events\":%" PRIu64 ",\"lost_meta_records\":%" PRIu64,
                a.m_unknownFree, a.m_doubleFree, a.m_unknownRealloc, a.m_mismatchedFree, a.m_accessOutsideBlock,
                a.m_useAfterFree, s.m_lostEvents, s.m_lostMetaRecords);
    std::printf(",\"unwind_checked\":%" PRIu64 ",\"unwind_mismatches\":%" PRIu64 ",\"unwind_full_walks\":%" PRIu64,
                s.m_unwindChecked, s.m_unwindMismatches, s.m_unwindFullWalks);
    std::printf(",\"access_sampler\":%s,\"access_rate\":%u,\"access_samples\":%" PRIu64 ",\"access_reads\":%" PRIu64
                ",\"access_writes\":%" PRIu64 ",\"access_heap\":%" PRIu64 ",\"access_global\":%" PRIu64
                ",\"access_stack\":%" PRIu64 ",\"access_other\":%" PRIu64 ",\"access_freed\":%" PRIu64
                ",\"access_allocator\":%" PRIu64 ",\"blocks_sampled\":%" PRIu64,
                jsonString(timeline::accessSamplerText(s)).c_str(), s.m_accessRate, s.m_accessSamples, s.m_accessReads,
                s.m_accessWrites, s.m_accessHeap, s.m_accessGlobal, s.m_accessStack, s.m_accessOther, s.m_accessFreed,
                s.m_accessAllocator, s.m_blocksSampled);
    const format::AccessCounters& c = s.m_accessCounters;
    std::printf(",\"access_ticks\":%" PRIu64 ",\"access_steps\":%" PRIu64 ",\"access_passed_over\":%" PRIu64
                ",\"access_dropped\":%" PRIu64 ",\"access_dropped_by\":{\"in_recorder\":%" PRIu64
                ",\"stepping\":%" PRIu64 ",\"no_access\":%" PRIu64 ",\"undecodable\":%" PRIu64
                ",\"unsupported\":%" PRIu64 ",\"lost\":%" PRIu64 "}",
                c.m_ticks, c.m_steps, c.m_passedOver, c.dropped(), c.m_droppedInRecorder, c.m_droppedStepping,
                c.m_droppedNoAccess, c.m_droppedUndecodable, c.m_droppedUnsupported, c.m_droppedLost);
    const format::WatchCounters& w = s.m_watchCounters;
    std::printf(",\"watch_sampler\":%s,\"watch_rate\":%u,\"watch_traps\":%" PRIu64 ",\"watch_other_thread\":%" PRIu64
                ",\"watch_reuse_median_ns\":%" PRIu64 ",\"blocks_used_after_free\":%" PRIu64
                ",\"watch_counters\":{\"armed\":%" PRIu64 ",\"traps\":%" PRIu64 ",\"ignored_in_allocator\":%" PRIu64
                ",\"ignored_in_recorder\":%" PRIu64 ",\"stale\":%" PRIu64 ",\"retired_by_time\":%" PRIu64
                ",\"freed_while_watched\":%" PRIu64 ",\"disarmed_by_allocation\":%" PRIu64
                ",\"disarmed_by_unmap\":%" PRIu64 ",\"skipped_for_budget\":%" PRIu64 ",\"arm_failures\":%" PRIu64 "}",
                jsonString(timeline::watchSamplerText(s)).c_str(), s.m_watchRate, s.m_watchTraps, s.m_watchOtherThread,
                s.m_watchReuseMedianNs, s.m_blocksUsedAfterFree, w.m_armed, w.m_traps, w.m_ignoredInAllocator,
                w.m_ignoredInRecorder, w.m_stale, w.m_retiredByTime, w.m_freedWhileWatched, w.m_disarmedByAllocation,
                w.m_disarmedByUnmap, w.m_skippedForBudget, w.m_armFailures);
    printJsonEstimates(s.m_sampling);
}

void printJsonSites(const TopSites& top) {
    std::printf(",\"top_sites\":{");
    for (size_t m = 0; m < top.size(); ++m) {
        std::printf("%s\"%s\":[", m ? "," : "", timeline::metricName(top[m].first));
        const auto& rows = top[m].second;
        for (size_t i = 0; i < rows.size(); ++i) {
            std::printf("%s{\"function\":%s,\"inlined_in\":%s,\"file\":%s,\"line\":%u,\"module\":%s,\"value\":%" PRIu64,
                        i ? "," : "", jsonString(rows[i].m_site.m_function).c_str(),
                        rows[i].m_inlinedIn.empty() ? "null" : jsonString(rows[i].m_inlinedIn).c_str(),
                        jsonString(rows[i].m_site.m_file).c_str(), rows[i].m_site.m_line,
                        jsonString(rows[i].m_site.m_module).c_str(), metricValue(rows[i].m_metrics, top[m].first));
            if (rows[i].m_estimated) {
                const timeline::Estimate& estimate = timeline::estimateOf(rows[i], top[m].first);
                std::printf(",\"ci95_low\":%" PRIu64 ",\"ci95_high\":%" PRIu64 ",\"samples\":%" PRIu64,
                            rounded(estimate.m_low), rounded(estimate.m_high), estimate.m_samples);
            }
            std::printf("}");
        }
        std::printf("]");
    }
    std::printf("}");
}

// 1234567 -> "1,234,567"
std::string grouped(uint64_t value) {
    std::string digits = std::to_string(value), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string blocks(uint64_t count) { return grouped(count) + (count == 1 ? " block" : " blocks"); }

std::string bytes(uint64_t value) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double scaled = static_cast<double>(value);
    int unit = 0;
    while (scaled >= 1024 && unit < 4) scaled /= 1024, ++unit;
    char text[64];
    if (unit == 0)
        std::snprintf(text, sizeof text, "%" PRIu64 " B", value);
    else
        std::snprintf(text, sizeof text, "%.1f %s (%s bytes)", scaled, units[unit], grouped(value).c_str());
    return text;
}

std::string duration(uint64_t ns) {
    char text[64];
    if (ns >= 1'000'000'000)
        std::snprintf(text, sizeof text, "%.3f s", ns / 1e9);
    else if (ns >= 1'000'000)
        std::snprintf(text, sizeof text, "%.3f ms", ns / 1e6);
    else
        std::snprintf(text, sizeof text, "%.3f us", ns / 1e3);
    return text;
}

// "1.2 MiB (1,234,567 bytes)" or "1,234" with its interval.
std::string estimateText(const timeline::Estimate& estimate, bool inBytes) {
    auto amount = [inBytes](double value) {
        if (!inBytes || value < 1024) return grouped(rounded(value)) + (inBytes ? " B" : "");
        const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
        int unit = 0;
        for (value /= 1024; value >= 1024 && unit < 3; value /= 1024) ++unit;
        char text[32];
        std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
        return std::string(text);
    };
    return "~" + amount(estimate.m_value) + " (95 %: " + amount(estimate.m_low) + " to " + amount(estimate.m_high) + ")";
}

// A sampled log: the block counts above are the samples'; these are what the program did.
void printTextEstimates(const timeline::SampleEstimates& e) {
    if (!e.m_meanBytes) return;
    std::printf("sampled      one allocation per %s allocated on average: estimated from %s samples", bytes(e.m_meanBytes).c_str(),
                grouped(e.m_samples).c_str());
    if (e.m_setOverflow)
        std::printf(" (%s more dropped by the recorder: its set of live samples was full; the estimates are low)",
                    grouped(e.m_setOverflow).c_str());
    std::printf("\n  allocated  %s blocks, %s\n", estimateText(e.m_calls, false).c_str(),
                estimateText(e.m_bytes, true).c_str());
    std::printf("  peak       %s\n", estimateText(e.m_peak, true).c_str());
    std::printf("  leaked     %s\n", estimateText(e.m_leaked, true).c_str());
}

// The samples by kind and place, then what the sampler did with its ticks.
void printAccessLines(const timeline::Summary& s) {
    if (s.m_accessSamples) {
        const bool exact = s.m_accessSampler == format::AccessSampler::FullTrace;
        std::printf("accesses     %s %s (%s reads, %s writes): heap %s in %s, global %s, stack %s, other %s",
                    grouped(s.m_accessSamples).c_str(), exact ? "exact, every one" : "samples",
                    grouped(s.m_accessReads).c_str(), grouped(s.m_accessWrites).c_str(),
                    grouped(s.m_accessHeap).c_str(), blocks(s.m_blocksSampled).c_str(),
                    grouped(s.m_accessGlobal).c_str(), grouped(s.m_accessStack).c_str(),
                    grouped(s.m_accessOther).c_str());
        if (s.m_accessFreed) std::printf(", freed blocks %s", grouped(s.m_accessFreed).c_str());
        if (s.m_accessAllocator) std::printf(", allocator %s", grouped(s.m_accessAllocator).c_str());
        std::printf("\n");
    } else
        std::printf("accesses     none\n");
    std::printf("sampler      %s", timeline::accessSamplerText(s).c_str());
    const format::AccessCounters& c = s.m_accessCounters;
    if (s.m_accessSampler == format::AccessSampler::TickPerfClock ||
        s.m_accessSampler == format::AccessSampler::TickThreadTimers) {
        std::printf(", %u ticks a CPU-second per thread: %s ticks, %s steps, %s instructions passed over, %s dropped",
                    s.m_accessRate, grouped(c.m_ticks).c_str(), grouped(c.m_steps).c_str(),
                    grouped(c.m_passedOver).c_str(), grouped(c.dropped()).c_str());
        if (c.dropped())
            std::printf(
                " (in the recorder %s, while stepping %s, no access within the steps %s, undecodable %s, "
                "unsupported %s, no room in the log %s)",
                grouped(c.m_droppedInRecorder).c_str(), grouped(c.m_droppedStepping).c_str(),
                grouped(c.m_droppedNoAccess).c_str(), grouped(c.m_droppedUndecodable).c_str(),
                grouped(c.m_droppedUnsupported).c_str(), grouped(c.m_droppedLost).c_str());
    } else if (s.m_accessSampler == format::AccessSampler::ProcessWide ||
               s.m_accessSampler == format::AccessSampler::PerThread) {
        std::printf(", at most %u traps/s", s.m_accessRate);
    }
    std::printf("\n");
    if (s.m_watchSampler == format::WatchSampler::Off) return;
    std::printf("watchpoints  %s", timeline::watchSamplerText(s).c_str());
    if (s.m_watchSampler == format::WatchSampler::ProcessWide) {
        const format::WatchCounters& w = s.m_watchCounters;
        std::printf(
            ", at most %u traps/s: %s armed, %s traps (%s by another thread), reuse median %s; %s freed "
            "while watched, %s used after free",
            s.m_watchRate, grouped(w.m_armed).c_str(), grouped(s.m_watchTraps).c_str(),
            grouped(s.m_watchOtherThread).c_str(), duration(s.m_watchReuseMedianNs).c_str(),
            blocks(w.m_freedWhileWatched).c_str(), blocks(s.m_blocksUsedAfterFree).c_str());
    }
    std::printf("\n");
}

void printText(const timeline::Summary& s, const std::string& path, const TopSites& top) {
    std::printf("log          %s (format %u, %s)\n", path.c_str(), s.m_formatVersion,
                s.m_complete ? "complete" : "no clean end: read up to where it stops");
    std::printf("program      %s (pid %u", s.m_exe.c_str(), s.m_pid);
    if (s.m_parentPid) std::printf(", forked from %u", s.m_parentPid);
    std::printf(")\nduration     %s\nthreads      %u\nevents       %s\n", duration(s.m_durationNs).c_str(), s.m_threads,
                grouped(s.m_events).c_str());
    std::printf("calls        ");
    int shown = 0;
    for (uint32_t kind = 1; kind < format::kHeapKindCount; ++kind) {
        if (!s.m_calls[kind]) continue;
        const char* separator = shown == 0 ? "" : shown % 4 == 0 ? ",\n             " : ", ";
        std::printf("%s%s %s", separator, format::kKindInfo[kind].m_name, grouped(s.m_calls[kind]).c_str());
        ++shown;
    }
    if (!shown) std::printf("none");
    std::printf("\nblocks       %s begun, %s ended\n", grouped(s.m_allocations).c_str(), grouped(s.m_frees).c_str());
    std::printf("peak         %s in %s (live at that moment)\n", bytes(s.m_peakBytes).c_str(),
                blocks(s.m_blocksAtPeak).c_str());
    if (s.m_peakMappedBytes) {  // else the peak is the heap's alone
        std::printf("peak heap    %s (heap blocks alone, at their own peak)\n", bytes(s.m_peakHeapBytes).c_str());
        std::printf("peak mapped  %s (mappings alone, at their own peak)\n", bytes(s.m_peakMappedBytes).c_str());
    }
    std::printf("peak blocks  %s (the most live at once)\n", grouped(s.m_peakBlocks).c_str());
    std::printf("leaked       %s in %s", bytes(s.m_leakedBytes).c_str(), blocks(s.m_leakedBlocks).c_str());
    if (s.m_suppressedBlocks)
        std::printf(" (besides %s in %s suppressed: `memlog stat --suppressions`)", bytes(s.m_suppressedBytes).c_str(),
                    blocks(s.m_suppressedBlocks).c_str());
    std::printf("\n");
    if (s.m_mappedAtExitRegions)
        std::printf("mapped       %s in %s %s at exit (never unmapped; not counted as leaked)\n",
                    bytes(s.m_mappedAtExitBytes).c_str(), grouped(s.m_mappedAtExitRegions).c_str(),
                    s.m_mappedAtExitRegions == 1 ? "region" : "regions");
    printTextEstimates(s.m_sampling);
    std::printf("stacks       %s distinct\n", grouped(s.m_stacks).c_str());
    const timeline::Anomalies& a = s.m_anomalies;
    std::printf("anomalies    %s", grouped(a.total()).c_str());
    if (a.total())
        std::printf(
            " (unknown free %s, double free %s, unknown realloc %s, mismatched free %s, access outside a block %s, "
            "use after free %s)",
            grouped(a.m_unknownFree).c_str(), grouped(a.m_doubleFree).c_str(), grouped(a.m_unknownRealloc).c_str(),
            grouped(a.m_mismatchedFree).c_str(), grouped(a.m_accessOutsideBlock).c_str(),
            grouped(a.m_useAfterFree).c_str());
    std::printf("\nlost events  %s", grouped(s.m_lostEvents).c_str());
    if (s.m_lostMetaRecords)
        std::printf(" (and %s records of stacks, module maps or thread ends)", grouped(s.m_lostMetaRecords).c_str());
    std::printf("\n");
    if (s.m_unwindChecked || s.m_unwindFullWalks)
        std::printf("unwind check %s stacks compared with a full walk, %s differed, %s left to the full walk\n",
                    grouped(s.m_unwindChecked).c_str(), grouped(s.m_unwindMismatches).c_str(),
                    grouped(s.m_unwindFullWalks).c_str());
    printAccessLines(s);
    for (const auto& [metric, rows] : top) {
        if (rows.empty()) continue;
        std::printf("\ntop sites by %s\n", timeline::metricName(metric));
        for (const auto& row : rows) {
            const uint64_t value = metricValue(row.m_metrics, metric);
            const bool inBytes = metric != timeline::Metric::Calls;
            const std::string amount = row.m_estimated ? estimateText(timeline::estimateOf(row, metric), inBytes)
                                       : inBytes       ? bytes(value)
                                                       : grouped(value);
            std::printf("  %-28s %s  %s\n", amount.c_str(), timeline::siteFunctionText(row).c_str(),
                        timeline::siteLocation(row.m_site).c_str());
        }
    }
}

}  // namespace

int statCommand(const Arguments& arguments) {
    const CommandLine line = readCommandLine("stat", kSyntax, arguments);
    if (line.m_exit >= 0) return line.m_exit;
    const bool json = line.m_options.given("--json");
    const std::string suppressionsFile = line.m_options.text("--suppressions");
    // Without a log, --suppressions alone prints them.
    if (line.m_options.operands().empty() && !line.m_options.given("--suppressions"))
        return usageError("stat: which log?", "usage: memlog stat FILE [--json]");
    const std::string path = line.m_options.operands().empty() ? "" : line.m_options.operands()[0];
    try {
        const timeline::Suppressions suppressions = loadSuppressions(suppressionsFile);
        if (path.empty()) {
            printSuppressions(suppressions);
            return 0;
        }
        // Only the frames the top lists and the suppressions ask for are named, as they ask: a
        // site is a stack's first frames, and naming every frame of every stack first loaded the
        // debug information of modules no site is in (the C library's, behind main).
        timeline::OpenedLog log = openLog(path, {.m_walk = timeline::OpenedLog::Walk::Measure,
                                                 .m_names = timeline::OpenedLog::Names::AsAsked,
                                                 .m_siteRows = timeline::SiteGrouping::Site,
                                                 .m_suppressions = &suppressions});
        const timeline::MeasuredLog& measured = log.measured();
        const TopSites top = topSites(log.siteRows());
        using Clock = std::chrono::steady_clock;
        const auto hintsStarted = Clock::now();
        const std::vector<std::string> hints = timeline::programHints(log.names(), measured.m_stacks);
        const double readSeconds = log.walkSeconds();
        const double nameSeconds =
            log.namingSeconds() + std::chrono::duration<double>(Clock::now() - hintsStarted).count();
        char timing[256];
        std::snprintf(timing, sizeof timing,
                      "read %" PRIu64 " events in %.3f s (%.1f M events/s, %s), named %zu stacks in %.3f s",
                      measured.m_summary.m_events, readSeconds,
                      readSeconds > 0 ? static_cast<double>(measured.m_summary.m_events) / readSeconds / 1e6 : 0.0,
                      measured.m_decodedAlongside ? "decoded on a second thread" : "on one thread",
                      log.reader().stacks().size(), nameSeconds);
        diagnostics::debug(timing);
        if (json) {
            printJson(measured.m_summary);
            printJsonSites(top);
            std::printf(",\"hints\":[");
            for (size_t i = 0; i < hints.size(); ++i) std::printf("%s%s", i ? "," : "", jsonString(hints[i]).c_str());
            std::printf("]}\n");
        } else {
            printText(measured.m_summary, path, top);
            for (const std::string& hint : hints) std::printf("\nhint: %s\n", hint.c_str());
        }
    } catch (const timeline::LogError& error) {
        std::fprintf(stderr, "memlog: %s\n", error.what());
        return 2;
    }
    return 0;
}

}  // namespace memlog::cli

// Two runs' site tables side by side (`memlog diff`): the rows of each log's site table (the rows
// `memlog sites` prints) matched by what a rebuild keeps, never by address: the function, the
// source file's name, the line, the module's file name and, for an inlined site, the function it
// was inlined into. Rows only one run has are kept and marked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "timeline/names/site_table.hpp"
#include "timeline/replay/stack_metrics.hpp"
#include "timeline/replay/summary.hpp"

namespace memlog::timeline {

// A row's numbers in one run. A sampled run's values are estimates (`memlog sites`' rows), and
// each has its variance beside it (sample_estimates.hpp); a full run's are exact: variance 0.
struct SiteValues {
    uint64_t m_calls = 0;
    uint64_t m_bytes = 0;
    uint64_t m_peakBytes = 0;  // the site's bytes live when its run's heap peaked (`sites`' peak)
    uint64_t m_leakedBytes = 0;
    uint64_t m_leakedBlocks = 0;
    double m_callsVariance = 0, m_bytesVariance = 0, m_peakBytesVariance = 0;
    double m_leakedBytesVariance = 0, m_leakedBlocksVariance = 0;
};

// A value of both runs: what a text, JSON or CSV row prints, in this order.
struct DiffColumn {
    const char* m_name;  // JSON and CSV: <name>_base, <name>_new, <name>_delta
    uint64_t SiteValues::*m_value;
    double SiteValues::*m_variance;
    Estimate StackEstimates::*m_estimate;  // where a sampled site row keeps it
};
inline constexpr DiffColumn kDiffColumns[] = {
    {"calls", &SiteValues::m_calls, &SiteValues::m_callsVariance, &StackEstimates::m_calls},
    {"bytes", &SiteValues::m_bytes, &SiteValues::m_bytesVariance, &StackEstimates::m_bytes},
    {"peak_bytes", &SiteValues::m_peakBytes, &SiteValues::m_peakBytesVariance, &StackEstimates::m_peak},
    {"leaked_bytes", &SiteValues::m_leakedBytes, &SiteValues::m_leakedBytesVariance, &StackEstimates::m_leaked},
    {"leaked_blocks", &SiteValues::m_leakedBlocks, &SiteValues::m_leakedBlocksVariance,
     &StackEstimates::m_leakedBlocks},
};
const DiffColumn& diffColumn(Metric metric);  // calls, bytes, peak_bytes, leaked_bytes

struct SiteDiffRow {
    unwind::SourceFrame m_site;  // the new run's frame when both have the row
    std::string m_inlinedIn;
    bool m_inBase = false;
    bool m_inNew = false;
    SiteValues m_base;
    SiteValues m_new;
};

// New minus base, and its size for sorting (a difference of two uint64 fits neither type alone).
int64_t changeOf(const SiteDiffRow& row, const DiffColumn& column);
uint64_t sizeOfChange(const SiteDiffRow& row, const DiffColumn& column);

// A change when either run is sampled: an estimate with its 95 % interval. The variance of a
// difference of independent estimates is the sum of theirs (a full run adds 0); the interval
// is the normal one around the change, and the change is significant when it excludes 0.
struct EstimatedChange {
    int64_t m_change = 0;  // changeOf()
    double m_low = 0, m_high = 0;
    bool significant() const { return m_low > 0 || m_high < 0; }
};
EstimatedChange estimatedChange(const SiteDiffRow& row, const DiffColumn& column);
// The same of any two values and their variances (the whole logs' estimates).
EstimatedChange estimatedChange(uint64_t base, double baseVariance, uint64_t newer, double newVariance);

// How the rows are grouped: the site table's rows (per site, or per calling function: compare
// them as `SiteGrouping` made them), or per function (a site table's rows of one function added
// up over its lines and the functions it was inlined into).
enum class DiffGrouping { Site, Function, Caller };

// The rows matched, in the order of their keys; rows of one run with one key are added up.
std::vector<SiteDiffRow> diffSiteRows(const std::vector<SiteRow>& base, const std::vector<SiteRow>& newer,
                                      DiffGrouping grouping);
// The `top` rows (0: all) with the largest change of `by`, in either direction, largest first;
// ties keep the order of their keys.
std::vector<SiteDiffRow> topChanges(std::vector<SiteDiffRow> rows, Metric by, size_t top);

// The whole logs' numbers the head of a diff compares.
struct TotalColumn {
    const char* m_name;  // JSON: <name>_base, <name>_new, <name>_delta
    const char* m_title;  // text
    uint64_t Summary::*m_value;
};
inline constexpr TotalColumn kTotalColumns[] = {
    {"duration_ns", "duration (ns)", &Summary::m_durationNs},
    {"events", "events", &Summary::m_events},
    {"peak_bytes", "peak bytes", &Summary::m_peakBytes},
    {"peak_blocks", "peak blocks", &Summary::m_peakBlocks},
    {"peak_heap_bytes", "peak heap bytes", &Summary::m_peakHeapBytes},
    {"peak_mapped_bytes", "peak mapped bytes", &Summary::m_peakMappedBytes},
    {"leaked_bytes", "leaked bytes", &Summary::m_leakedBytes},
    {"leaked_blocks", "leaked blocks", &Summary::m_leakedBlocks},
    // Mappings never unmapped: apart from the leaks (a process's arenas live until it exits).
    {"mapped_at_exit_bytes", "mapped at exit bytes", &Summary::m_mappedAtExitBytes},
    {"mapped_at_exit_regions", "mapped at exit regions", &Summary::m_mappedAtExitRegions},
};

// The whole logs' numbers that a sampled log estimates (`memlog stat`'s), beside the head's
// columns when either log is sampled: a full log's exact value, or a sampled one's estimate.
struct EstimatedTotal {
    const char* m_name;  // JSON: <name>_base, _new, _delta, _delta_ci95_low, _delta_ci95_high, _significant
    const char* m_title;  // text
    uint64_t Summary::*m_exact;
    Estimate SampleEstimates::*m_estimate;
};
inline constexpr EstimatedTotal kEstimatedTotals[] = {
    {"estimated_peak_bytes", "peak bytes, estimated", &Summary::m_peakBytes, &SampleEstimates::m_peak},
    {"estimated_leaked_bytes", "leaked bytes, estimated", &Summary::m_leakedBytes, &SampleEstimates::m_leaked},
};
// Base and new of one such total, with the change's interval.
EstimatedChange estimatedChange(const Summary& base, const Summary& newer, const EstimatedTotal& total);
uint64_t estimatedValue(const Summary& summary, const EstimatedTotal& total);

// "+12", "-3", "0": a change as the tables print it.
std::string signedText(int64_t change);
int64_t difference(uint64_t base, uint64_t newer);  // newer - base, saturated at int64's ends

}  // namespace memlog::timeline

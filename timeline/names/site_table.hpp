// The site table: per allocation site (a stack's innermost frame that is not allocator plumbing),
// or per the function the sites were inlined into, the metrics of every stack through it; what
// `memlog sites` prints and `memlog stat` lists the tops of.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "timeline/replay/stack_metrics.hpp"
#include "unwind/symbolizer.hpp"

namespace memlog::timeline {

class StackNames;

struct SiteRow {
    unwind::SourceFrame m_site;
    std::string m_inlinedIn;  // see StackNames::inlinedIn
    StackMetrics m_metrics;
    // A sampled log: m_metrics holds the estimates, rounded, and this their intervals.
    bool m_estimated = false;
    StackEstimates m_estimates;
};

// The interval of a row's value by `metric` (a sampled log's rows only).
const Estimate& estimateOf(const SiteRow& row, Metric metric);

// Rows per allocation site, or per the function the sites were inlined into (Caller: an
// inlined helper's blocks count for the function a user wrote the call in; the row has no line).
enum class SiteGrouping { Site, Caller };

// Per-site totals, sorted by `by` (largest first), at most `top` rows (0: all).
std::vector<SiteRow> siteTable(StackNames& names, const std::vector<StackMetrics>& stacks, Metric by, size_t top,
                               SiteGrouping grouping = SiteGrouping::Site);
// The same rows unsorted: to be sorted more than one way (the top lists of `memlog stat`).
std::vector<SiteRow> siteRows(StackNames& names, const std::vector<StackMetrics>& stacks,
                              SiteGrouping grouping = SiteGrouping::Site);
// The two halves of siteRows. The naming: the rows without their numbers, in the table's order,
// and the row of each stack that allocated (by stack id); it reads only `m_calls` of the metrics.
struct NamedSiteRows {
    static constexpr uint32_t kNoRow = UINT32_MAX;
    std::vector<SiteRow> m_rows;
    std::vector<uint32_t> m_rowOfStack;
};
NamedSiteRows nameSiteRows(StackNames& names, const std::vector<StackMetrics>& stacks,
                           SiteGrouping grouping = SiteGrouping::Site);
// The numbers: each stack's metrics added to its row; for a sampled log (`estimates` not empty,
// MeasuredLog::m_stackEstimates) their intervals too.
std::vector<SiteRow> siteRows(NamedSiteRows named, const std::vector<StackMetrics>& stacks,
                              const std::vector<StackEstimates>& estimates = {}, uint64_t meanBytes = 0);
std::vector<SiteRow> siteRows(StackNames& names, const MeasuredLog& measured,
                              SiteGrouping grouping = SiteGrouping::Site);
// The `top` largest rows by `by` (0: all), largest first.
std::vector<SiteRow> topRows(std::vector<SiteRow> rows, Metric by, size_t top);

// "grab (inlined in make_large)", or the function alone.
std::string siteFunctionText(const SiteRow& row);

// "file:line" or the module when there is no line.
std::string siteLocation(const unwind::SourceFrame& frame);

}  // namespace memlog::timeline

// Site rows: stacks named once each (stacks through one call site share its row), then their
// metrics added up; the rows sorted as a table asks.
#include "timeline/names/site_table.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "timeline/names/stack_names.hpp"

namespace memlog::timeline {

std::string siteFunctionText(const SiteRow& row) {
    return row.m_inlinedIn.empty() ? row.m_site.m_function
                                   : row.m_site.m_function + " (inlined in " + row.m_inlinedIn + ")";
}

std::string siteLocation(const unwind::SourceFrame& frame) {
    if (!frame.m_file.empty() && frame.m_line) {
        const size_t slash = frame.m_file.rfind('/');
        return (slash == std::string::npos ? frame.m_file : frame.m_file.substr(slash + 1)) + ":" +
               std::to_string(frame.m_line);
    }
    return frame.m_module;
}

NamedSiteRows nameSiteRows(StackNames& names, const std::vector<StackMetrics>& stacks, SiteGrouping grouping) {
    // Keyed by the inlining caller too: one inline helper's line in two functions is two sites.
    std::map<std::tuple<std::string, std::string, uint32_t, std::string>, uint32_t> rowOfKey;
    NamedSiteRows named;
    named.m_rowOfStack.assign(stacks.size(), NamedSiteRows::kNoRow);
    // Stacks through one call site share its row: once a stack's first address outside the
    // allocator decided its row alone (m_decidedBy), the others through that address take the
    // row and that row's frame without naming anything or building a key (65,536 stacks through
    // one call of malloc spent 20 ms in strings and the map). The row's frame is the last
    // stack's, as below: `frameFrom` says which address it came from, so that it is copied only
    // when another address's stack came in between.
    struct Decided {
        uint32_t m_row;
        unwind::SourceFrame m_frame;
    };
    std::unordered_map<uint64_t, Decided> decided;
    std::vector<uint64_t> frameFrom;  // per row: the address its m_site came from, 0 unknown
    for (size_t id = 0; id < stacks.size(); ++id) {
        if (stacks[id].m_calls == 0) continue;
        const uint64_t first = names.firstOutsidePlumbing(static_cast<uint32_t>(id));
        if (const auto known = first ? decided.find(first) : decided.end(); known != decided.end()) {
            const uint32_t row = known->second.m_row;
            if (frameFrom[row] != first) {
                named.m_rows[row].m_site = known->second.m_frame;
                frameFrom[row] = first;
            }
            named.m_rowOfStack[id] = row;
            continue;
        }
        StackNames::SiteOfStack of = names.siteOf(static_cast<uint32_t>(id));
        SiteRow row;
        if (grouping == SiteGrouping::Caller) {
            row.m_site = std::move(of.m_caller);
            row.m_site.m_line = 0;  // a row gathers the function's calls from several lines
            row.m_site.m_inlined = false;
        } else {
            row.m_site = std::move(of.m_site);
            row.m_inlinedIn = std::move(of.m_inlinedIn);
        }
        auto [at, added] =
            rowOfKey.try_emplace({row.m_site.m_function, row.m_site.m_file, row.m_site.m_line, row.m_inlinedIn},
                                 static_cast<uint32_t>(named.m_rows.size()));
        if (added) {
            named.m_rows.push_back(std::move(row));
            frameFrom.push_back(0);
        } else {  // the key leaves out the module: the last stack's frame stands for the row, as it always did
            named.m_rows[at->second].m_site = std::move(row.m_site);
        }
        named.m_rowOfStack[id] = at->second;
        frameFrom[at->second] = of.m_decidedBy;
        if (of.m_decidedBy) decided.emplace(of.m_decidedBy, Decided{at->second, named.m_rows[at->second].m_site});
    }
    // The rows in the order of their keys, as the table always listed them (ties keep it).
    std::vector<uint32_t> renumbered(named.m_rows.size());
    std::vector<SiteRow> ordered;
    ordered.reserve(named.m_rows.size());
    for (const auto& [key, row] : rowOfKey) {
        renumbered[row] = static_cast<uint32_t>(ordered.size());
        ordered.push_back(std::move(named.m_rows[row]));
    }
    named.m_rows = std::move(ordered);
    for (uint32_t& row : named.m_rowOfStack)
        if (row != NamedSiteRows::kNoRow) row = renumbered[row];
    return named;
}

std::vector<SiteRow> siteRows(NamedSiteRows named, const std::vector<StackMetrics>& stacks,
                              const std::vector<StackEstimates>& estimates, uint64_t meanBytes) {
    for (size_t id = 0; id < stacks.size() && id < named.m_rowOfStack.size(); ++id) {
        if (named.m_rowOfStack[id] == NamedSiteRows::kNoRow) continue;
        if (id < estimates.size()) {  // sums of weighted samples add up like the metrics
            StackEstimates& sum = named.m_rows[named.m_rowOfStack[id]].m_estimates;
            const StackEstimates& stack = estimates[id];
            for (auto part : {&StackEstimates::m_calls, &StackEstimates::m_bytes, &StackEstimates::m_peak,
                              &StackEstimates::m_leaked, &StackEstimates::m_leakedBlocks})
                (sum.*part).m_sum.merge((stack.*part).m_sum);
        }
        const StackMetrics& metrics = stacks[id];
        StackMetrics& sum = named.m_rows[named.m_rowOfStack[id]].m_metrics;
        sum.m_calls += metrics.m_calls;
        sum.m_bytes += metrics.m_bytes;
        sum.m_peakBytes += metrics.m_peakBytes;
        sum.m_leakedBytes += metrics.m_leakedBytes;
        sum.m_leakedBlocks += metrics.m_leakedBlocks;
        sum.m_mappedAtExitBytes += metrics.m_mappedAtExitBytes;
        sum.m_mappedAtExitRegions += metrics.m_mappedAtExitRegions;
        sum.m_suppressedBytes += metrics.m_suppressedBytes;
        sum.m_suppressedBlocks += metrics.m_suppressedBlocks;
    }
    if (!estimates.empty()) {
        for (SiteRow& row : named.m_rows) {
            row.m_estimated = true;
            for (auto part : {&StackEstimates::m_calls, &StackEstimates::m_bytes, &StackEstimates::m_peak,
                              &StackEstimates::m_leaked, &StackEstimates::m_leakedBlocks})
                row.m_estimates.*part = timeline::estimateOf((row.m_estimates.*part).m_sum, static_cast<double>(meanBytes));
        }
    }
    return std::move(named.m_rows);
}

std::vector<SiteRow> siteRows(StackNames& names, const MeasuredLog& measured, SiteGrouping grouping) {
    return siteRows(nameSiteRows(names, measured.m_stacks, grouping), measured.m_stacks, measured.m_stackEstimates,
                    measured.m_summary.m_sampling.m_meanBytes);
}

const Estimate& estimateOf(const SiteRow& row, Metric metric) {
    switch (metric) {
        case Metric::Calls:
            return row.m_estimates.m_calls;
        case Metric::Bytes:
            return row.m_estimates.m_bytes;
        case Metric::Peak:
            return row.m_estimates.m_peak;
        case Metric::Leaked:
            break;
    }
    return row.m_estimates.m_leaked;
}

std::vector<SiteRow> siteRows(StackNames& names, const std::vector<StackMetrics>& stacks, SiteGrouping grouping) {
    return siteRows(nameSiteRows(names, stacks, grouping), stacks);
}

std::vector<SiteRow> topRows(std::vector<SiteRow> rows, Metric by, size_t top) {
    std::stable_sort(rows.begin(), rows.end(), [by](const SiteRow& a, const SiteRow& b) {
        return metricValue(a.m_metrics, by) > metricValue(b.m_metrics, by);
    });
    if (top && rows.size() > top) rows.resize(top);
    return rows;
}

std::vector<SiteRow> siteTable(StackNames& names, const std::vector<StackMetrics>& stacks, Metric by, size_t top,
                               SiteGrouping grouping) {
    return topRows(siteRows(names, stacks, grouping), by, top);
}

}  // namespace memlog::timeline

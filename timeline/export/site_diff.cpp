// Matching two site tables: each row's key made of names alone (a file and a module by their
// base names, so that two checkouts or build folders still match), the rows of each run added
// into the key's row, then sorted by the size of a change.
#include "timeline/export/site_diff.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "timeline/replay/sample_estimates.hpp"

namespace memlog::timeline {

namespace {

std::string baseName(const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

using RowKey = std::tuple<std::string, std::string, uint32_t, std::string, std::string>;

RowKey keyOf(const SiteRow& row, DiffGrouping grouping) {
    const unwind::SourceFrame& site = row.m_site;
    if (grouping == DiffGrouping::Function) return {site.m_function, baseName(site.m_file), 0, site.m_module, ""};
    return {site.m_function, baseName(site.m_file), site.m_line, site.m_module, row.m_inlinedIn};
}

void add(SiteValues& into, const SiteRow& row) {
    const StackMetrics& metrics = row.m_metrics;
    into.m_calls += metrics.m_calls;
    into.m_bytes += metrics.m_bytes;
    into.m_peakBytes += metrics.m_peakBytes;
    into.m_leakedBytes += metrics.m_leakedBytes;
    into.m_leakedBlocks += metrics.m_leakedBlocks;
    if (!row.m_estimated) return;
    // A sum a replay built by adding and removing samples may end a rounding error below 0.
    for (const DiffColumn& column : kDiffColumns)
        into.*column.m_variance += std::max((row.m_estimates.*column.m_estimate).m_sum.m_variance, 0.0);
}

}  // namespace

const DiffColumn& diffColumn(Metric metric) {
    switch (metric) {
        case Metric::Calls:
            return kDiffColumns[0];
        case Metric::Bytes:
            return kDiffColumns[1];
        case Metric::Peak:
            return kDiffColumns[2];
        case Metric::Leaked:
            return kDiffColumns[3];
    }
    return kDiffColumns[1];
}

int64_t difference(uint64_t base, uint64_t newer) {
    if (newer >= base) return newer - base > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(newer - base);
    return base - newer > static_cast<uint64_t>(INT64_MAX) ? INT64_MIN : -static_cast<int64_t>(base - newer);
}

int64_t changeOf(const SiteDiffRow& row, const DiffColumn& column) {
    return difference(row.m_base.*column.m_value, row.m_new.*column.m_value);
}

uint64_t sizeOfChange(const SiteDiffRow& row, const DiffColumn& column) {
    const uint64_t base = row.m_base.*column.m_value, newer = row.m_new.*column.m_value;
    return newer >= base ? newer - base : base - newer;
}

EstimatedChange estimatedChange(uint64_t base, double baseVariance, uint64_t newer, double newVariance) {
    EstimatedChange estimated;
    estimated.m_change = difference(base, newer);
    const double half = normalHalfWidth95(baseVariance + newVariance);
    estimated.m_low = static_cast<double>(estimated.m_change) - half;
    estimated.m_high = static_cast<double>(estimated.m_change) + half;
    return estimated;
}

EstimatedChange estimatedChange(const SiteDiffRow& row, const DiffColumn& column) {
    return estimatedChange(row.m_base.*column.m_value, row.m_base.*column.m_variance, row.m_new.*column.m_value,
                           row.m_new.*column.m_variance);
}

uint64_t estimatedValue(const Summary& summary, const EstimatedTotal& total) {
    if (!summary.m_sampling.m_meanBytes) return summary.*total.m_exact;
    return static_cast<uint64_t>(std::llround((summary.m_sampling.*total.m_estimate).m_value));
}

EstimatedChange estimatedChange(const Summary& base, const Summary& newer, const EstimatedTotal& total) {
    const auto variance = [&](const Summary& summary) {
        return summary.m_sampling.m_meanBytes ? std::max((summary.m_sampling.*total.m_estimate).m_sum.m_variance, 0.0)
                                              : 0.0;
    };
    return estimatedChange(estimatedValue(base, total), variance(base), estimatedValue(newer, total), variance(newer));
}

std::string signedText(int64_t change) { return change > 0 ? "+" + std::to_string(change) : std::to_string(change); }

std::vector<SiteDiffRow> diffSiteRows(const std::vector<SiteRow>& base, const std::vector<SiteRow>& newer,
                                      DiffGrouping grouping) {
    std::map<RowKey, SiteDiffRow> rows;
    const auto take = [&](const std::vector<SiteRow>& run, bool isNew) {
        for (const SiteRow& row : run) {
            SiteDiffRow& into = rows[keyOf(row, grouping)];
            if (isNew || !into.m_inNew) {  // the new run's names stand for a row both have
                into.m_site = row.m_site;
                into.m_inlinedIn = grouping == DiffGrouping::Function ? "" : row.m_inlinedIn;
                if (grouping == DiffGrouping::Function) {
                    into.m_site.m_line = 0;  // a row gathers the function's lines
                    into.m_site.m_inlined = false;
                }
            }
            (isNew ? into.m_inNew : into.m_inBase) = true;
            add(isNew ? into.m_new : into.m_base, row);
        }
    };
    take(base, false);
    take(newer, true);
    std::vector<SiteDiffRow> matched;
    matched.reserve(rows.size());
    for (auto& [key, row] : rows) matched.push_back(std::move(row));
    return matched;
}

std::vector<SiteDiffRow> topChanges(std::vector<SiteDiffRow> rows, Metric by, size_t top) {
    const DiffColumn& column = diffColumn(by);
    std::stable_sort(rows.begin(), rows.end(), [&](const SiteDiffRow& a, const SiteDiffRow& b) {
        return sizeOfChange(a, column) > sizeOfChange(b, column);
    });
    if (top && rows.size() > top) rows.resize(top);
    return rows;
}

}  // namespace memlog::timeline

// diffSiteRows and topChanges: two site tables matched by names (never addresses, never folders),
// rows of one run marked, rows grouped per function, sorted by the size of a change; a sampled
// run's changes with their intervals, by hand.
#include <catch2/catch.hpp>

#include <cmath>

#include "timeline/export/site_diff.hpp"

using memlog::timeline::DiffGrouping;
using memlog::timeline::Metric;
using memlog::timeline::SiteDiffRow;
using memlog::timeline::SiteRow;

namespace {

SiteRow row(const std::string& function, const std::string& file, uint32_t line, uint64_t calls, uint64_t bytes,
            uint64_t leaked = 0, const std::string& inlinedIn = "", const std::string& module = "app") {
    SiteRow r;
    r.m_site = {function, file, line, module, !inlinedIn.empty()};
    r.m_inlinedIn = inlinedIn;
    r.m_metrics.m_calls = calls;
    r.m_metrics.m_bytes = bytes;
    r.m_metrics.m_peakBytes = bytes / 2;
    r.m_metrics.m_leakedBytes = leaked;
    r.m_metrics.m_leakedBlocks = leaked ? 1 : 0;
    r.m_metrics.m_suppressedBytes = 999;  // not a value of the diff
    return r;
}

const SiteDiffRow& find(const std::vector<SiteDiffRow>& rows, const std::string& function, uint32_t line = 0,
                        const std::string& inlinedIn = "") {
    for (const SiteDiffRow& r : rows)
        if (r.m_site.m_function == function && (!line || r.m_site.m_line == line) && r.m_inlinedIn == inlinedIn)
            return r;
    FAIL("no row " << function);
    return rows.front();
}

}  // namespace

TEST_CASE("site diff: rows matched by function, file name, line, module and the function inlined into") {
    // The new run was built in another folder: the files' paths differ, their names do not.
    const std::vector<SiteRow> base = {row("parse", "/old/src/parse.c", 10, 5, 500),
                                       row("grab", "/old/src/util.h", 3, 2, 64, 0, "parse"),
                                       row("gone", "/old/src/gone.c", 7, 1, 8),
                                       row("parse", "/old/src/parse.c", 10, 1, 1, 0, "", "libother.so")};
    const std::vector<SiteRow> newer = {row("parse", "/new/src/parse.c", 10, 8, 800, 40),
                                        row("grab", "/new/src/util.h", 3, 2, 64, 0, "load"),
                                        row("fresh", "/new/src/fresh.c", 2, 3, 30)};
    const auto rows = memlog::timeline::diffSiteRows(base, newer, DiffGrouping::Site);
    REQUIRE(rows.size() == 6);  // parse twice (two modules), grab twice (two callers), gone, fresh
    const SiteDiffRow& parse = find(rows, "parse");
    CHECK((parse.m_inBase && parse.m_inNew));
    CHECK(parse.m_site.m_file == "/new/src/parse.c");  // the new run's names
    CHECK(parse.m_base.m_calls == 5);
    CHECK(parse.m_new.m_calls == 8);
    CHECK(memlog::timeline::changeOf(parse, memlog::timeline::kDiffColumns[0]) == 3);
    CHECK(memlog::timeline::changeOf(parse, memlog::timeline::kDiffColumns[3]) == 40);
    CHECK(memlog::timeline::changeOf(parse, memlog::timeline::kDiffColumns[4]) == 1);
    const SiteDiffRow& grabInParse = find(rows, "grab", 3, "parse");
    CHECK((grabInParse.m_inBase && !grabInParse.m_inNew));
    const SiteDiffRow& grabInLoad = find(rows, "grab", 3, "load");
    CHECK((!grabInLoad.m_inBase && grabInLoad.m_inNew));
    CHECK((find(rows, "gone").m_inBase && !find(rows, "gone").m_inNew));
    CHECK((!find(rows, "fresh").m_inBase && find(rows, "fresh").m_inNew));
    CHECK(memlog::timeline::changeOf(find(rows, "gone"), memlog::timeline::kDiffColumns[1]) == -8);
}

TEST_CASE("site diff by function: a function's lines and callers add up into one row with no line") {
    const std::vector<SiteRow> base = {row("load", "a.c", 10, 1, 100), row("load", "a.c", 20, 2, 200),
                                       row("grab", "u.h", 3, 4, 40, 0, "load")};
    const std::vector<SiteRow> newer = {row("load", "a.c", 11, 5, 500), row("grab", "u.h", 3, 1, 10, 0, "save")};
    const auto rows = memlog::timeline::diffSiteRows(base, newer, DiffGrouping::Function);
    REQUIRE(rows.size() == 2);
    const SiteDiffRow& load = find(rows, "load");
    CHECK(load.m_site.m_line == 0);
    CHECK(load.m_base.m_calls == 3);
    CHECK(load.m_base.m_bytes == 300);
    CHECK(load.m_new.m_calls == 5);
    const SiteDiffRow& grab = find(rows, "grab");
    CHECK(grab.m_inlinedIn.empty());
    CHECK((grab.m_inBase && grab.m_inNew));
    CHECK(grab.m_base.m_calls == 4);
    CHECK(grab.m_new.m_calls == 1);
}

TEST_CASE("site diff: sorted by the size of the change either way, ties in the order of their keys, at most top") {
    const std::vector<SiteRow> base = {row("a", "f.c", 1, 1, 100), row("b", "f.c", 2, 1, 900), row("c", "f.c", 3, 1, 50),
                                       row("d", "f.c", 4, 1, 10)};
    const std::vector<SiteRow> newer = {row("a", "f.c", 1, 1, 300), row("b", "f.c", 2, 1, 600), row("c", "f.c", 3, 9, 250),
                                        row("d", "f.c", 4, 1, 10)};
    const auto rows = memlog::timeline::topChanges(memlog::timeline::diffSiteRows(base, newer, DiffGrouping::Site),
                                                   Metric::Bytes, 0);
    REQUIRE(rows.size() == 4);
    CHECK(rows[0].m_site.m_function == "b");  // -300
    CHECK(rows[1].m_site.m_function == "a");  // +200, before c's +200: a's key comes first
    CHECK(rows[2].m_site.m_function == "c");
    CHECK(rows[3].m_site.m_function == "d");  // no change
    const auto byCalls = memlog::timeline::topChanges(memlog::timeline::diffSiteRows(base, newer, DiffGrouping::Site),
                                                      Metric::Calls, 1);
    REQUIRE(byCalls.size() == 1);
    CHECK(byCalls[0].m_site.m_function == "c");
    CHECK(memlog::timeline::signedText(-300) == "-300");
    CHECK(memlog::timeline::signedText(200) == "+200");
    CHECK(memlog::timeline::signedText(0) == "0");
    CHECK(memlog::timeline::difference(0, UINT64_MAX) == INT64_MAX);  // saturated, not wrapped
    CHECK(memlog::timeline::difference(UINT64_MAX, 0) == INT64_MIN);
}

namespace {

// A sampled run's row: its bytes an estimate with this variance, its calls with another.
SiteRow sampledRow(const std::string& function, uint64_t bytes, double bytesVariance, double callsVariance = 0) {
    SiteRow r = row(function, "f.c", 1, 10, bytes);
    r.m_estimated = true;
    r.m_estimates.m_bytes.m_sum.m_variance = bytesVariance;
    r.m_estimates.m_calls.m_sum.m_variance = callsVariance;
    return r;
}

}  // namespace

TEST_CASE("site diff of sampled runs: a change's interval adds the two runs' variances, a full run's being 0") {
    using memlog::timeline::estimatedChange;
    const auto& bytes = memlog::timeline::kDiffColumns[1];
    const auto& calls = memlog::timeline::kDiffColumns[0];
    // Both sampled: sd 200 and 300, so the difference's is sqrt(130000) = 360.555...
    const auto both = memlog::timeline::diffSiteRows({sampledRow("a", 1000, 40000, 4)}, {sampledRow("a", 1500, 90000, 5)},
                                                     DiffGrouping::Site);
    REQUIRE(both.size() == 1);
    const auto change = estimatedChange(both[0], bytes);
    CHECK(change.m_change == 500);
    CHECK(change.m_low == Approx(500 - 1.96 * std::sqrt(130000.0)));  // -206.69
    CHECK(change.m_high == Approx(500 + 1.96 * std::sqrt(130000.0)));  // 1206.69
    CHECK(!change.significant());
    CHECK(estimatedChange(both[0], calls).m_high == Approx(1.96 * 3));  // no change, sd 3
    CHECK(!estimatedChange(both[0], calls).significant());
    // A full base (exact) and a sampled new run with sd 100: 500 +- 196, significant.
    const auto oneSide = memlog::timeline::diffSiteRows({row("a", "f.c", 1, 10, 1000)}, {sampledRow("a", 1500, 10000)},
                                                        DiffGrouping::Site);
    const auto shifted = estimatedChange(oneSide[0], bytes);
    CHECK(shifted.m_low == Approx(304));
    CHECK(shifted.m_high == Approx(696));
    CHECK(shifted.significant());
    // Down is significant too, when the interval stays below 0.
    const auto down = memlog::timeline::diffSiteRows({sampledRow("a", 1500, 10000)}, {row("a", "f.c", 1, 10, 1000)},
                                                     DiffGrouping::Site);
    CHECK(estimatedChange(down[0], bytes).m_high == Approx(-304));
    CHECK(estimatedChange(down[0], bytes).significant());
    // Two exact runs: an interval of one point, significant whenever the values differ.
    const auto exact = memlog::timeline::diffSiteRows({row("a", "f.c", 1, 10, 1000)}, {row("a", "f.c", 1, 10, 1001)},
                                                      DiffGrouping::Site);
    CHECK(estimatedChange(exact[0], bytes).m_low == 1);
    CHECK(estimatedChange(exact[0], bytes).m_high == 1);
    CHECK(estimatedChange(exact[0], bytes).significant());
    CHECK(!estimatedChange(exact[0], calls).significant());
    // Rows added into one (per function) add their variances; one a replay left a rounding error
    // below 0 adds nothing.
    SiteRow otherLine = sampledRow("a", 500, 2500);
    otherLine.m_site.m_line = 2;
    const auto grouped = memlog::timeline::diffSiteRows({sampledRow("a", 1000, 7500), otherLine, sampledRow("a", 0, -1e-9)},
                                                        {row("a", "f.c", 1, 10, 1500)}, DiffGrouping::Function);
    REQUIRE(grouped.size() == 1);
    CHECK(grouped[0].m_base.m_bytesVariance == 10000);
    CHECK(estimatedChange(grouped[0], bytes).m_change == 0);
    CHECK(estimatedChange(grouped[0], bytes).m_high == Approx(196));
}

TEST_CASE("site diff's estimated totals: a full log's exact value against a sampled log's estimate and variance") {
    memlog::timeline::Summary full, sampled;
    full.m_peakBytes = 1000;
    full.m_leakedBytes = 7;
    sampled.m_peakBytes = 90;  // the samples': not what is compared
    sampled.m_sampling.m_meanBytes = 4096;
    sampled.m_sampling.m_peak.m_value = 1500.4;
    sampled.m_sampling.m_peak.m_sum.m_variance = 10000;
    const auto& peak = memlog::timeline::kEstimatedTotals[0];
    CHECK(memlog::timeline::estimatedValue(full, peak) == 1000);
    CHECK(memlog::timeline::estimatedValue(sampled, peak) == 1500);
    const auto change = memlog::timeline::estimatedChange(full, sampled, peak);
    CHECK(change.m_change == 500);
    CHECK(change.m_low == Approx(304));
    CHECK(change.m_high == Approx(696));
    CHECK(change.significant());
    // Two full logs: exact values, an interval of one point.
    const auto leaked = memlog::timeline::estimatedChange(full, full, memlog::timeline::kEstimatedTotals[1]);
    CHECK(leaked.m_low == 0);
    CHECK(leaked.m_high == 0);
}

// diffSiteRows and topChanges: two site tables matched by names (never addresses, never folders),
// rows of one run marked, rows grouped per function, sorted by the size of a change.
#include <catch2/catch.hpp>

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

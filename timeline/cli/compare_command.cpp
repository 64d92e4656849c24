// memlog compare: what samples said against what a full trace counted (timeline/trace/sample_comparison).
#include <algorithm>
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/trace/sample_comparison.hpp"
#include "timeline/base/text_format.hpp"

namespace memlog::cli {
namespace {

constexpr const char* kHelp = R"(usage: memlog compare SAMPLED FULL [--by site|function|block] [--top N] [--csv]

Checks access samples against the truth: SAMPLED is a log of a run recorded
with samples (memlog run --access), FULL a log of a run of the same
deterministic program with every access (memlog run --full-trace). Both are
grouped alike: per allocation site (default), per accessing function, or per
heap block (a block is matched by its site and its place among that site's
blocks: addresses differ between runs). For each row: its share of all
accesses in the samples and in the trace, and its share of writes, with the
differences in percentage points (samples minus truth). Most accesses first.

  --by G    site (default), function or block
  --top N   at most N rows (default 20; 0 for all)
  --csv     one row per line, with a header

Exit status: 0 done, 2 bad usage or a log that cannot be read.
)";

}  // namespace

int compareCommand(const Arguments& arguments) {
    std::vector<std::string> logs;
    Arguments rest;
    for (const std::string& argument : arguments) {
        if (!argument.empty() && argument[0] != '-' && logs.size() < 2 && (rest.empty() || rest.back() != "--by") &&
            (rest.empty() || rest.back() != "--top"))
            logs.push_back(argument);
        else
            rest.push_back(argument);
    }
    const bool help = std::find(rest.begin(), rest.end(), "--help") != rest.end() ||
                      std::find(rest.begin(), rest.end(), "-h") != rest.end();
    if (logs.size() != 2 && !help)
        return usageError("compare: two logs: a sampled one, then a full trace", "Try 'memlog compare --help'.");
    // The table options, with the second log given as the table's file.
    if (logs.size() == 2) rest.insert(rest.begin(), logs[1]);
    const TableArguments parsed = parseTableArguments(rest, "compare", "--by", true, kHelp,
                                                      "usage: memlog compare SAMPLED FULL [--by G] [--top N] [--csv]");
    if (parsed.m_exit >= 0) return parsed.m_exit;
    timeline::AccessGrouping by = timeline::AccessGrouping::Site;
    if (!parsed.m_by.empty() &&
        (!timeline::parseAccessGrouping(parsed.m_by, by) || by == timeline::AccessGrouping::Global))
        return usageError("compare: --by takes site, function or block", "Try 'memlog compare --help'.");
    try {
        // The comparison walks the logs: opened here, quietly, as it always read them.
        timeline::OpenedLog sampled(logs[0], {}), full(logs[1], {});
        const timeline::SampleCheck check = timeline::checkSamples(sampled.reader(), full.reader(), by);
        if (parsed.m_csv)
            std::puts(
                "name,location,samples,sampled_share,exact_accesses,exact_share,share_difference,sampled_writes_share,"
                "exact_writes_share,writes_difference");
        else
            std::printf("%s samples against %s exact accesses\n%9s %9s %7s  %9s %9s %7s  %s\n",
                        timeline::countText(check.m_sampledTotal).c_str(),
                        timeline::countText(check.m_exactTotal).c_str(), "sampled", "exact", "diff", "writes s",
                        "writes e", "diff", "where");
        size_t shown = 0;
        for (const timeline::SampleCheckRow& row : check.m_rows) {
            if (parsed.m_top && shown++ == parsed.m_top) break;
            const double sampled = row.sampledShare(check.m_sampledTotal), exact = row.exactShare(check.m_exactTotal);
            const double writesSampled = row.sampledWriteShare(), writesExact = row.exactWriteShare();
            if (parsed.m_csv) {
                std::printf("%s,%s,%llu,%.2f,%llu,%.2f,%.2f,%.2f,%.2f,%.2f\n", csvField(row.m_name).c_str(),
                            csvField(row.m_location).c_str(), static_cast<unsigned long long>(row.m_sampled), sampled,
                            static_cast<unsigned long long>(row.m_exact), exact, sampled - exact, writesSampled,
                            writesExact, writesSampled - writesExact);
                continue;
            }
            std::printf("%8.1f%% %8.1f%% %+7.1f  %8.1f%% %8.1f%% %+7.1f  %s%s%s\n", sampled, exact, sampled - exact,
                        writesSampled, writesExact, writesSampled - writesExact, row.m_name.c_str(),
                        row.m_location.empty() ? "" : "  ", row.m_location.c_str());
        }
    } catch (const timeline::LogError& error) {
        std::fprintf(stderr, "memlog: %s\n", error.what());
        return 2;
    }
    return 0;
}

}  // namespace memlog::cli

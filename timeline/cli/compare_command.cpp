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

constexpr options::Row kOptions[] = {
    {.m_name = "--by",
     .m_kind = options::Kind::Choice,
     .m_choices = "site|function|block",
     .m_default = "site",
     .m_valueName = "GROUP",
     .m_help = "what a row is"},
    topRow("20", "at most N rows, 0 for all"),
    {.m_name = "--csv", .m_help = "one row per line, with a header"},
};

constexpr timeline::CommandSyntax kSyntax{
    .m_usage = "memlog compare SAMPLED FULL [--by site|function|block] [--top N] [--csv]",
    .m_about = R"(Checks access samples against the truth: SAMPLED is a log of a run recorded
with samples (memlog run --access), FULL a log of a run of the same
deterministic program with every access (memlog run --full-trace). Both are
grouped alike: per allocation site (default), per accessing function, or per
heap block (a block is matched by its site and its place among that site's
blocks: addresses differ between runs). For each row: its share of all
accesses in the samples and in the trace, and its share of writes, with the
differences in percentage points (samples minus truth). Most accesses first.
)",
    .m_options = kOptions,
    .m_notes = "Exit status: 0 done, 2 bad usage or a log that cannot be read.\n",
    .m_minOperands = 2,
    .m_maxOperands = 2,
    .m_wrongOperands = "two logs: a sampled one, then a full trace"};

}  // namespace

int compareCommand(const Arguments& arguments) {
    const CommandLine line = readCommandLine("compare", kSyntax, arguments);
    if (line.m_exit >= 0) return line.m_exit;
    timeline::AccessGrouping by = timeline::AccessGrouping::Site;
    timeline::parseAccessGrouping(line.m_options.text("--by"), by);
    const std::vector<std::string>& logs = line.m_options.operands();
    const size_t top = line.m_options.number("--top");
    const bool csv = line.m_options.given("--csv");
    try {
        // The comparison walks the logs: opened here, quietly, as it always read them.
        timeline::OpenedLog sampled(logs[0], {}), full(logs[1], {});
        const timeline::SampleCheck check = timeline::checkSamples(sampled.reader(), full.reader(), by);
        if (csv)
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
            if (top && shown++ == top) break;
            const double sampled = row.sampledShare(check.m_sampledTotal), exact = row.exactShare(check.m_exactTotal);
            const double writesSampled = row.sampledWriteShare(), writesExact = row.exactWriteShare();
            if (csv) {
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

// memlog accesses: the access samples of a log grouped by allocation site, block, accessing
// function or global (timeline/accesses/access_table.hpp), as a table or CSV.
#include <cinttypes>
#include <cstdio>
#include <functional>
#include <string>

#include "commands.hpp"
#include "timeline/base/diagnostics.hpp"
#include "timeline/accesses/access_table.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/base/text_format.hpp"

namespace memlog::cli {
namespace {

constexpr options::Row kOptions[] = {
    {.m_name = "--by",
     .m_kind = options::Kind::Choice,
     .m_choices = "site|block|function|global",
     .m_default = "site",
     .m_valueName = "GROUP",
     .m_help = "what a row is (below)"},
    topRow("20", "at most N rows, 0 for all"),
    {.m_name = "--csv", .m_help = "rows of CSV; the columns are named on the first line"},
};

constexpr timeline::CommandSyntax kSyntax{
    .m_usage = "memlog accesses FILE [--by site|block|function|global] [--top N] [--csv]",
    .m_about = R"(The access samples of a .memlog log (recorded with MEMLOG_ACCESS=1 or
`memlog run --access`), grouped into rows, most sampled first. Each row: the
samples, how many read and how many wrote (a read-modify-write counts as both),
the distinct bytes the samples touched, and the first and last sample.
)",
    .m_options = kOptions,
    .m_notes = R"(The rows: by site, the allocation site of the block a sample fell in (globals,
stacks, the allocator's own code at work (the malloc family's bookkeeping: the
row (allocator)) and other memory as rows of their own), with the blocks each
site allocated, how many got a sample, and the blocks and bytes that got none;
then the largest blocks of 4 KiB or more that no sample touched: memory
allocated and never used, or used too briefly for the sampling rate to see. By
block, each heap block with samples: its allocation's sequence number, address,
size and site. By function, the function of the sampled instruction. By
global, each global (the ELF symbol around the address).

Samples are taken every so much CPU time: a row with few samples is a rough
estimate, and "no sample" does not mean "not accessed".
)"};

std::string timeText(uint64_t ns) { return timeline::durationText(static_cast<double>(ns)); }

void printCsv(const timeline::AccessTable& table, timeline::AccessGrouping by) {
    using timeline::AccessGrouping;
    if (by == AccessGrouping::Block)
        std::puts("block_seq,addr,size,site,samples,reads,writes,bytes_touched,first_ns,last_ns");
    else if (by == AccessGrouping::Site)
        std::puts(
            "site,location,samples,reads,writes,bytes_touched,first_ns,last_ns,blocks,blocks_sampled,"
            "unsampled_blocks,unsampled_bytes");
    else
        std::printf("%s,location,samples,reads,writes,bytes_touched,first_ns,last_ns\n",
                    by == AccessGrouping::Function ? "function" : "global");
    for (const timeline::AccessRow& row : table.m_rows) {
        if (by == AccessGrouping::Block)
            std::printf("%" PRIu64 ",0x%" PRIx64 ",%" PRIu64 ",%s,", row.m_blockSeq, row.m_blockAddr, row.m_blockSize,
                        csvField(row.m_location).c_str());
        else
            std::printf("%s,%s,", csvField(row.m_name).c_str(), csvField(row.m_location).c_str());
        std::printf("%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, row.m_samples, row.m_reads,
                    row.m_writes, row.m_bytesTouched, row.m_firstNs, row.m_lastNs);
        if (by == AccessGrouping::Site)
            std::printf(",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, row.m_blocks, row.m_blocksSampled,
                        row.m_unsampledBlocks, row.m_unsampledBytes);
        std::putchar('\n');
    }
}

void printTable(const timeline::AccessTable& table, timeline::AccessGrouping by, const std::string& path) {
    using timeline::AccessGrouping;
    std::printf("%s samples in %s\n\n", timeline::countText(table.m_samples).c_str(), path.c_str());
    std::printf("%10s %10s %10s %12s %10s %10s  ", "samples", "reads", "writes", "touched", "first", "last");
    if (by == AccessGrouping::Block) std::printf("%-10s %-18s %12s  ", "block", "addr", "size");
    if (by == AccessGrouping::Site) std::printf("%8s %8s %14s  ", "blocks", "sampled", "unsampled");
    std::printf("%s\n", by == AccessGrouping::Block      ? "site"
                        : by == AccessGrouping::Function ? "function"
                        : by == AccessGrouping::Global   ? "global"
                                                         : "site");
    for (const timeline::AccessRow& row : table.m_rows) {
        std::printf("%10s %10s %10s %12s %10s %10s  ", timeline::countText(row.m_samples).c_str(),
                    timeline::countText(row.m_reads).c_str(), timeline::countText(row.m_writes).c_str(),
                    timeline::bytesText(static_cast<double>(row.m_bytesTouched)).c_str(),
                    row.m_samples ? timeText(row.m_firstNs).c_str() : "-",
                    row.m_samples ? timeText(row.m_lastNs).c_str() : "-");
        if (by == AccessGrouping::Block)
            std::printf("%-10" PRIu64 " 0x%016" PRIx64 " %12s  %s\n", row.m_blockSeq, row.m_blockAddr,
                        timeline::bytesText(static_cast<double>(row.m_blockSize)).c_str(), row.m_location.c_str());
        else if (by == AccessGrouping::Site)
            std::printf("%8s %8s %14s  %s  %s\n", timeline::countText(row.m_blocks).c_str(),
                        timeline::countText(row.m_blocksSampled).c_str(),
                        timeline::bytesText(static_cast<double>(row.m_unsampledBytes)).c_str(), row.m_name.c_str(),
                        row.m_location.c_str());
        else
            std::printf("%s  %s\n", row.m_name.c_str(), row.m_location.c_str());
    }
    if (by != AccessGrouping::Site || table.m_largestUnsampled.empty()) return;
    std::printf("\nlargest blocks no sample touched (allocated, never sampled)\n");
    std::printf("%-10s %-18s %12s  %s\n", "block", "addr", "size", "site");
    for (const timeline::UnsampledBlock& block : table.m_largestUnsampled)
        std::printf("%-10" PRIu64 " 0x%016" PRIx64 " %12s  %s\n", block.m_seq, block.m_addr,
                    timeline::bytesText(static_cast<double>(block.m_size)).c_str(), block.m_site.c_str());
}

}  // namespace

int accessesCommand(const Arguments& arguments) {
    const CommandLine line = readCommandLine("accesses", kSyntax, arguments);
    if (line.m_exit >= 0) return line.m_exit;
    timeline::AccessGrouping by = timeline::AccessGrouping::Site;
    timeline::parseAccessGrouping(line.m_options.text("--by"), by);
    const std::string& path = line.m_options.operands()[0];
    const size_t top = line.m_options.number("--top");
    const bool csv = line.m_options.given("--csv");
    try {
        // The table's pass is the walk (it names what it found at its end).
        timeline::AccessTable table;
        openLog(path, {.m_ownWalk = [&](timeline::LogReader& reader, const std::function<void(double)>& progress) {
                    table = timeline::accessTable(reader, by, top, progress,
                                                  [](const std::string& problem) { diagnostics::warn(problem); });
                }});
        if (table.m_samples == 0 && !csv)
            std::fprintf(stderr,
                         "memlog: %s has no access samples (record with MEMLOG_ACCESS=1 or `memlog run --access`)\n",
                         path.c_str());
        if (csv)
            printCsv(table, by);
        else
            printTable(table, by, path);
    } catch (const timeline::LogError& error) {
        std::fprintf(stderr, "memlog: %s\n", error.what());
        return 2;
    }
    return 0;
}

}  // namespace memlog::cli

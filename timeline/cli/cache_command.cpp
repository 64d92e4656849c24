// memlog cache: a cache simulated over every access of a full-trace log (timeline/trace/cache_report).
#include <cinttypes>
#include <cstdio>
#include <algorithm>
#include <string>

#include "commands.hpp"
#include "timeline/trace/cache_report.hpp"
#include "timeline/names/stack_names.hpp"
#include "timeline/names/site_index.hpp"
#include "timeline/base/text_format.hpp"

namespace memlog::cli {
namespace {

constexpr options::Row kOptions[] = {
    {.m_name = "--cache",
     .m_kind = options::Kind::Text,
     .m_default = "32K:8:64",
     .m_valueName = "SIZE:WAYS:LINE",
     .m_help = "the cache: its size in bytes (K, M or G allowed), its associativity (1: direct-mapped) and its "
               "line size in bytes, a power of two; as memtimeline --cache takes it",
     .m_check = timeline::cacheGeometryMistake},
    topRow("10", "at most N rows in each list, 0 for all"),
    {.m_name = "--json",
     .m_help = "one JSON object: memory_accesses (the program's), then in line accesses: accesses, hits, "
               "misses, compulsory, capacity, conflict, and blocks, globals and sets lists"},
};

constexpr timeline::CommandSyntax kSyntax{
    .m_usage = "memlog cache FILE [--cache SIZE:WAYS:LINE] [--top N] [--json]",
    .m_about = R"(Simulates a cache over every access of a log that holds them all (a full trace:
memlog run --full-trace, or memlog import), in the log's order: set-associative,
least recently used, write-allocate. Each miss is compulsory (the line was never
touched before), capacity (a fully associative cache of the same size misses
too) or conflict (only the mapping of lines to sets made it miss). Prints the
program's accesses (as memlog stat counts them), then in line accesses (one
across two lines counts twice) the totals, the totals per region (heap, global, stack, other;
freed blocks and the allocator's own code when they have any), the heap blocks and globals with
the most misses, and the sets with the most misses.
)",
    .m_options = kOptions,
    .m_notes = R"(A log of samples (MEMLOG_ACCESS=1) is refused: a cache needs every access.
Exit status: 0 done, 2 bad usage, a log that cannot be read, or one without
every access.
)"};

std::string percent(uint64_t part, uint64_t whole) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %%",
                  whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
    return text;
}

std::string countsText(const timeline::CacheCounts& c) {
    return timeline::countText(c.m_accesses) + " accesses, " + timeline::countText(c.misses()) + " misses (" +
           percent(c.misses(), c.m_accesses) + "): compulsory " + timeline::countText(c.m_compulsory) + ", capacity " +
           timeline::countText(c.m_capacity) + ", conflict " + timeline::countText(c.m_conflict);
}

std::string countsJson(const timeline::CacheCounts& c) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "\"accesses\":%" PRIu64 ",\"hits\":%" PRIu64 ",\"misses\":%" PRIu64 ",\"compulsory\":%" PRIu64
                  ",\"capacity\":%" PRIu64 ",\"conflict\":%" PRIu64,
                  c.m_accesses, c.m_hits, c.misses(), c.m_compulsory, c.m_capacity, c.m_conflict);
    return text;
}

void printText(const timeline::CacheReport& report, timeline::StackNames& names, size_t top) {
    const timeline::CacheGeometry& g = report.m_geometry;
    std::printf("cache        %s, %u %s, %u-byte lines, %s sets; least recently used, write-allocate\n",
                timeline::bytesText(static_cast<double>(g.m_size)).c_str(), g.m_ways, g.m_ways == 1 ? "way" : "ways",
                g.m_line, timeline::countText(g.sets()).c_str());
    std::printf("accesses     %s by the program; below, an access across two lines counts twice\n",
                timeline::countText(report.m_memoryAccesses).c_str());
    std::printf("total        %s\n", countsText(report.m_total).c_str());
    std::printf("heap         %s\n", countsText(report.m_heap).c_str());
    std::printf("global       %s\n", countsText(report.m_global).c_str());
    std::printf("stack        %s\n", countsText(report.m_stack).c_str());
    std::printf("other        %s\n", countsText(report.m_other).c_str());
    if (report.m_freed.m_accesses) std::printf("freed blocks %s\n", countsText(report.m_freed).c_str());
    if (report.m_allocator.m_accesses) std::printf("allocator    %s\n", countsText(report.m_allocator).c_str());
    if (!report.m_blocks.empty()) {
        std::printf("\nheap blocks by misses\n  %12s %12s %8s  %-14s %10s  %s\n", "misses", "accesses", "miss", "block",
                    "size", "site");
        for (size_t i = 0; i < report.m_blocks.size() && (!top || i < top); ++i) {
            const auto& row = report.m_blocks[i];
            std::printf("  %12s %12s %8s  %-14s %10s  %s\n", timeline::countText(row.m_counts.misses()).c_str(),
                        timeline::countText(row.m_counts.m_accesses).c_str(),
                        percent(row.m_counts.misses(), row.m_counts.m_accesses).c_str(),
                        timeline::hexText(row.m_addr).c_str(),
                        timeline::bytesText(static_cast<double>(row.m_size)).c_str(),
                        timeline::siteLabel(names.site(row.m_stack)).c_str());
        }
    }
    if (!report.m_globals.empty()) {
        std::printf("\nglobals by misses\n  %12s %12s %8s  %s\n", "misses", "accesses", "miss", "global");
        for (size_t i = 0; i < report.m_globals.size() && (!top || i < top); ++i) {
            const auto& row = report.m_globals[i];
            std::printf("  %12s %12s %8s  %s\n", timeline::countText(row.m_counts.misses()).c_str(),
                        timeline::countText(row.m_counts.m_accesses).c_str(),
                        percent(row.m_counts.misses(), row.m_counts.m_accesses).c_str(), row.m_name.c_str());
        }
    }
    std::vector<size_t> sets(report.m_sets.size());
    for (size_t i = 0; i < sets.size(); ++i) sets[i] = i;
    std::stable_sort(sets.begin(), sets.end(),
                     [&](size_t a, size_t b) { return report.m_sets[a].misses() > report.m_sets[b].misses(); });
    std::printf("\nsets by misses\n  %8s %12s %12s %12s %12s\n", "set", "misses", "accesses", "capacity", "conflict");
    for (size_t i = 0; i < sets.size() && (!top || i < top); ++i) {
        const auto& c = report.m_sets[sets[i]];
        if (!c.m_accesses) break;
        std::printf("  %8zu %12s %12s %12s %12s\n", sets[i], timeline::countText(c.misses()).c_str(),
                    timeline::countText(c.m_accesses).c_str(), timeline::countText(c.m_capacity).c_str(),
                    timeline::countText(c.m_conflict).c_str());
    }
}

void printJson(const timeline::CacheReport& report, timeline::StackNames& names) {
    const timeline::CacheGeometry& g = report.m_geometry;
    std::printf("{\"cache\":{\"size\":%" PRIu64 ",\"ways\":%u,\"line\":%u,\"sets\":%" PRIu64
                "},\"memory_accesses\":%" PRIu64 ",%s",
                g.m_size, g.m_ways, g.m_line, g.sets(), report.m_memoryAccesses, countsJson(report.m_total).c_str());
    std::printf(",\"blocks\":[");
    for (size_t i = 0; i < report.m_blocks.size(); ++i) {
        const auto& row = report.m_blocks[i];
        std::printf("%s{\"block_seq\":%" PRIu64 ",\"addr\":\"0x%" PRIx64 "\",\"size\":%" PRIu64 ",\"site\":%s,%s}",
                    i ? "," : "", row.m_blockSeq, row.m_addr, row.m_size,
                    jsonString(timeline::siteLabel(names.site(row.m_stack))).c_str(), countsJson(row.m_counts).c_str());
    }
    std::printf("],\"globals\":[");
    for (size_t i = 0; i < report.m_globals.size(); ++i) {
        const auto& row = report.m_globals[i];
        std::printf("%s{\"name\":%s,\"addr\":\"0x%" PRIx64 "\",\"size\":%" PRIu64 ",%s}", i ? "," : "",
                    jsonString(row.m_name).c_str(), row.m_addr, row.m_size, countsJson(row.m_counts).c_str());
    }
    std::printf("],\"sets\":[");
    for (size_t i = 0; i < report.m_sets.size(); ++i)
        std::printf("%s{\"set\":%zu,%s}", i ? "," : "", i, countsJson(report.m_sets[i]).c_str());
    std::printf("]}\n");
}

}  // namespace

int cacheCommand(const Arguments& arguments) {
    const CommandLine line = readCommandLine("cache", kSyntax, arguments);
    if (line.m_exit >= 0) return line.m_exit;
    const std::string& path = line.m_options.operands()[0];
    const timeline::CacheGeometry geometry = *timeline::parseCacheGeometry(line.m_options.text("--cache"));
    const size_t top = line.m_options.number("--top");
    const bool json = line.m_options.given("--json");
    try {
        // A first walk reads the module map for the names; the simulation is a second.
        timeline::OpenedLog log = openLog(path, {.m_refuse = timeline::cacheRefusal,
                                                 .m_walk = timeline::OpenedLog::Walk::Stacks,
                                                 .m_names = timeline::OpenedLog::Names::Every});
        if (!log.refusal().empty()) {
            std::fprintf(stderr, "memlog: cache: %s: %s\n", path.c_str(), log.refusal().c_str());
            return 2;
        }
        const timeline::CacheReport report = timeline::simulateCache(log.reader(), log.names(), geometry);
        if (json)
            printJson(report, log.names());
        else
            printText(report, log.names(), top);
    } catch (const timeline::LogError& error) {
        std::fprintf(stderr, "memlog: %s\n", error.what());
        return 2;
    }
    return 0;
}

}  // namespace memlog::cli

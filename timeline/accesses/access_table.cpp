// One walk keeps every sample (about 80 bytes each: samples are thousands to millions, never
// the billions of a heap) with where it fell, and counts each stack's blocks; the names come
// after the walk, when the module map is whole, and rows that name the same thing are merged.
#include "timeline/accesses/access_table.hpp"

#include <algorithm>
#include <map>

#include "timeline/replay/access_attribution.hpp"
#include "timeline/replay/block_observer.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/base/seeded_hash.hpp"
#include "timeline/names/site_table.hpp"
#include "timeline/names/stack_names.hpp"

namespace memlog::timeline {
namespace {

struct Kept {
    uint64_t m_timeNs;
    uint64_t m_addr;
    uint64_t m_size;
    uint64_t m_ip;  // the accessing instruction
    Attribution m_where;
    bool m_reads;
    bool m_writes;
};

struct BlockCount {
    uint64_t m_blocks = 0;
    uint64_t m_bytes = 0;
};

class Gather final : public BlockObserver {
public:
    void begin(const BlockChange& change) override {
        BlockCount& count = m_perStack[change.m_stack];
        ++count.m_blocks;
        count.m_bytes += change.m_size;
        if (change.m_size >= kLargeBlock)
            m_large.push_back({change.m_seq, change.m_addr, change.m_size, change.m_stack});
    }
    void end(const BlockChange&) override {}
    void access(const AccessSample& sample, const Attribution& where) override {
        // A watchpoint's trap reports the instruction after the access.
        const uint64_t ip = sample.m_ipAfter ? sample.m_ip - 1 : sample.m_ip;
        m_kept.push_back({sample.m_timeNs, sample.m_addr, sample.m_size, ip, where, sample.reads(), sample.writes()});
    }

    struct Large {
        uint64_t m_seq, m_addr, m_size;
        uint32_t m_stack;
    };
    NumberMap<uint32_t, BlockCount> m_perStack;
    std::vector<Large> m_large;
    std::vector<Kept> m_kept;
};

// "function file:line", or the function alone.
std::string siteText(const unwind::SourceFrame& site) {
    const std::string location = siteLocation(site);
    return location.empty() ? site.m_function : site.m_function + " " + location;
}

// "grid+0x18" -> "grid", "libc.so.6+0x1d2a40" -> "libc.so.6": a global's row, not its byte.
std::string withoutOffset(const std::string& symbol) {
    const size_t plus = symbol.rfind("+0x");
    return plus == std::string::npos ? symbol : symbol.substr(0, plus);
}

// A row being built: its samples' byte ranges, each within a space (a heap block's first
// sequence number; 0 for absolute addresses), become the distinct bytes touched.
struct Building {
    AccessRow m_row;
    std::vector<std::tuple<uint64_t, uint64_t, uint64_t>> m_ranges;  // space, first byte, end
    NumberSet<uint32_t> m_stacks;  // by site: the stacks it gathers
};

uint64_t distinctBytes(std::vector<std::tuple<uint64_t, uint64_t, uint64_t>>& ranges) {
    std::sort(ranges.begin(), ranges.end());
    uint64_t total = 0, space = 0, reached = 0;
    bool any = false;
    for (const auto& [rangeSpace, from, to] : ranges) {
        if (!any || rangeSpace != space || from >= reached) {
            total += to - from;
            reached = to;
        } else if (to > reached) {
            total += to - reached;
            reached = to;
        }
        space = rangeSpace;
        any = true;
    }
    return total;
}

}  // namespace

bool parseAccessGrouping(const std::string& text, AccessGrouping& grouping) {
    if (text == "site")
        grouping = AccessGrouping::Site;
    else if (text == "block")
        grouping = AccessGrouping::Block;
    else if (text == "function")
        grouping = AccessGrouping::Function;
    else if (text == "global")
        grouping = AccessGrouping::Global;
    else
        return false;
    return true;
}

AccessTable accessTable(LogReader& reader, AccessGrouping by, size_t top, const std::function<void(double)>& progress,
                        const std::function<void(const std::string&)>& warn) {
    Gather gather;
    summarize(reader, progress, &gather);
    StackNames names(reader, warn);
    AccessTable table;
    table.m_samples = gather.m_kept.size();

    std::map<std::string, Building> rows;
    NumberMap<uint64_t, std::pair<uint32_t, uint64_t>> sampledBlocks;  // seq: stack, size
    for (const Kept& kept : gather.m_kept) {
        const Attribution& where = kept.m_where;
        const bool heap = where.m_region == Region::Heap;
        if (heap) sampledBlocks[where.m_blockSeq] = {where.m_blockStack, where.m_blockSize};
        std::string key, name, location;
        if (by == AccessGrouping::Function) {
            const auto& frames = names.instruction(kept.m_ip);
            if (!frames.empty()) {
                name = frames.front().m_function;
                location = siteLocation(frames.front());
            }
        } else if (heap && by == AccessGrouping::Block) {
            name = std::to_string(where.m_blockSeq);
        } else if (heap && by == AccessGrouping::Site) {
            const unwind::SourceFrame site = names.site(where.m_blockStack);
            name = site.m_function;
            location = siteLocation(site);
        } else if (where.m_region == Region::Global && by != AccessGrouping::Block) {
            name = withoutOffset(names.globalName(kept.m_addr));
            if (by == AccessGrouping::Site) name = "global " + name;
        } else if (by == AccessGrouping::Site) {
            name = where.m_region == Region::Stack       ? "(stack)"
                   : where.m_region == Region::Allocator ? "(allocator)"  // its own metadata, not the program's
                                                         : "(other)";
        } else {
            continue;  // by block: only heap samples; by global: only globals
        }
        key = name + '\t' + location;
        Building& building = rows[key];
        AccessRow& row = building.m_row;
        if (row.m_samples == 0) {
            row.m_name = name;
            row.m_location = location;
            row.m_firstNs = kept.m_timeNs;
            if (by == AccessGrouping::Block) {
                row.m_blockSeq = where.m_blockSeq;
                row.m_blockAddr = where.m_blockAddr;
                row.m_blockSize = where.m_blockSize;
                row.m_location = siteText(names.site(where.m_blockStack));
            }
        }
        ++row.m_samples;
        row.m_reads += kept.m_reads;
        row.m_writes += kept.m_writes;
        row.m_firstNs = std::min(row.m_firstNs, kept.m_timeNs);
        row.m_lastNs = std::max(row.m_lastNs, kept.m_timeNs);
        const uint64_t space = heap ? where.m_blockSeq : 0;
        const uint64_t from = heap ? where.m_offset : kept.m_addr;
        building.m_ranges.emplace_back(space, from, from + kept.m_size);
        if (heap && by == AccessGrouping::Site) building.m_stacks.insert(where.m_blockStack);
    }

    if (by == AccessGrouping::Site) {
        // Every stack that allocated belongs to a site row, sampled or not.
        for (const auto& [stack, count] : gather.m_perStack) {
            const unwind::SourceFrame site = names.site(stack);
            Building& building = rows[site.m_function + '\t' + siteLocation(site)];
            building.m_row.m_name = site.m_function;
            building.m_row.m_location = siteLocation(site);
            building.m_stacks.insert(stack);
        }
        NumberMap<uint32_t, BlockCount> sampledPerStack;
        for (const auto& [seq, block] : sampledBlocks) {
            ++sampledPerStack[block.first].m_blocks;
            sampledPerStack[block.first].m_bytes += block.second;
        }
        for (auto& [key, building] : rows)
            for (uint32_t stack : building.m_stacks) {
                const BlockCount all = gather.m_perStack[stack], sampled = sampledPerStack[stack];
                building.m_row.m_blocks += all.m_blocks;
                building.m_row.m_blocksSampled += sampled.m_blocks;
                building.m_row.m_unsampledBlocks += all.m_blocks - std::min(all.m_blocks, sampled.m_blocks);
                building.m_row.m_unsampledBytes += all.m_bytes - std::min(all.m_bytes, sampled.m_bytes);
            }
        for (const Gather::Large& large : gather.m_large)
            if (!sampledBlocks.count(large.m_seq))
                table.m_largestUnsampled.push_back({large.m_seq, large.m_addr, large.m_size, ""});
        std::stable_sort(table.m_largestUnsampled.begin(), table.m_largestUnsampled.end(),
                         [](const UnsampledBlock& a, const UnsampledBlock& b) { return a.m_size > b.m_size; });
        if (top && table.m_largestUnsampled.size() > top) table.m_largestUnsampled.resize(top);
        NumberMap<uint64_t, uint32_t> stackOf;
        for (const Gather::Large& large : gather.m_large) stackOf[large.m_seq] = large.m_stack;
        for (UnsampledBlock& block : table.m_largestUnsampled) {
            block.m_site = siteText(names.site(stackOf[block.m_seq]));
        }
    }

    for (auto& [key, building] : rows) {
        building.m_row.m_bytesTouched = distinctBytes(building.m_ranges);
        table.m_rows.push_back(std::move(building.m_row));
    }
    std::stable_sort(table.m_rows.begin(), table.m_rows.end(), [](const AccessRow& a, const AccessRow& b) {
        if (a.m_samples != b.m_samples) return a.m_samples > b.m_samples;
        return a.m_unsampledBytes > b.m_unsampledBytes;
    });
    if (top && table.m_rows.size() > top) table.m_rows.resize(top);
    return table;
}

}  // namespace memlog::timeline

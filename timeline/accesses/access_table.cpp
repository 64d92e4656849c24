// The samples are grouped as the walk meets them, never kept: each goes to its row (named on
// the spot, so a first walk reads the stacks and the module map: for a full trace the
// recorder's records alone), its bytes to TouchedBytes. Memory follows the rows, the blocks and
// the lines touched, whatever the number of accesses (a full trace's hundreds of millions).
#include "timeline/accesses/access_table.hpp"

#include <algorithm>
#include <map>

#include "timeline/accesses/touched_bytes.hpp"
#include "timeline/base/answer_memo.hpp"
#include "timeline/replay/access_attribution.hpp"
#include "timeline/replay/block_observer.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/base/seeded_hash.hpp"
#include "timeline/names/site_table.hpp"
#include "timeline/names/stack_names.hpp"

namespace memlog::timeline {
namespace {

struct BlockCount {
    uint64_t m_blocks = 0;
    uint64_t m_bytes = 0;
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

constexpr uint32_t kNoRow = UINT32_MAX;

class Gather final : public BlockObserver {
public:
    Gather(AccessGrouping by, StackNames& names) : m_by(by), m_names(names) {}

    void begin(const BlockChange& change) override {
        BlockCount& count = m_perStack[change.m_stack];
        ++count.m_blocks;
        count.m_bytes += change.m_size;
        if (change.m_size >= kLargeBlock)
            m_large.push_back({change.m_seq, change.m_addr, change.m_size, change.m_stack});
        m_liveSeq[change.m_addr] = change.m_seq;
    }
    void end(const BlockChange& change) override {
        const auto it = m_liveSeq.find(change.m_addr);
        if (it == m_liveSeq.end()) return;
        m_touched.close(it->second);  // no sample falls in it any more: its lines are counted
        m_liveSeq.erase(it);
    }
    void access(const AccessSample& sample, const Attribution& where) override {
        ++m_samples;
        const bool heap = where.m_region == Region::Heap;
        if (heap && where.m_blockSeq != m_lastSampledBlock) {  // one lookup a run of samples in a block
            m_sampledBlocks.try_emplace(where.m_blockSeq, where.m_blockStack, where.m_blockSize);
            m_lastSampledBlock = where.m_blockSeq;
        }
        const uint32_t index = rowOf(sample, where);
        if (index == kNoRow) return;
        Row& row = m_rows[index];
        if (row.m_row.m_samples == 0) {
            row.m_row.m_firstNs = sample.m_timeNs;
            if (m_by == AccessGrouping::Block) {
                row.m_row.m_blockSeq = where.m_blockSeq;
                row.m_row.m_blockAddr = where.m_blockAddr;
                row.m_row.m_blockSize = where.m_blockSize;
                row.m_row.m_location = siteText(m_names.site(where.m_blockStack));
            }
        }
        ++row.m_row.m_samples;
        row.m_row.m_reads += sample.reads();
        row.m_row.m_writes += sample.writes();
        row.m_row.m_firstNs = std::min(row.m_row.m_firstNs, sample.m_timeNs);
        row.m_row.m_lastNs = std::max(row.m_row.m_lastNs, sample.m_timeNs);
        const uint64_t space = heap ? where.m_blockSeq : 0;
        m_touched.touch(index, space, heap ? where.m_offset : sample.m_addr, sample.m_size);
        if (heap && m_by == AccessGrouping::Site) row.m_stacks.insert(where.m_blockStack);
    }

    struct Large {
        uint64_t m_seq, m_addr, m_size;
        uint32_t m_stack;
    };
    struct Row {
        AccessRow m_row;
        NumberSet<uint32_t> m_stacks;  // by site: the stacks it gathers
    };

    // The row named `name` at `location`, made when new.
    uint32_t rowNamed(const std::string& name, const std::string& location) {
        const auto [it, added] = m_byName.try_emplace(name + '\t' + location, static_cast<uint32_t>(m_rows.size()));
        if (added) {
            Row& row = m_rows.emplace_back();
            row.m_row.m_name = name;
            row.m_row.m_location = location;
        }
        return it->second;
    }

    AccessGrouping m_by;
    StackNames& m_names;
    uint64_t m_samples = 0;
    NumberMap<uint32_t, BlockCount> m_perStack;
    std::vector<Large> m_large;
    NumberMap<uint64_t, uint64_t> m_liveSeq;  // live blocks: address to sequence number
    NumberMap<uint64_t, std::pair<uint32_t, uint64_t>> m_sampledBlocks;  // seq: stack, size
    uint64_t m_lastSampledBlock = 0;
    std::vector<Row> m_rows;
    std::map<std::string, uint32_t> m_byName;  // "name\tlocation": the rows in the table's order
    TouchedBytes m_touched;  // by row

private:
    // The row of a sample, or kNoRow for one this grouping leaves out. Each name is asked once
    // per instruction, stack, block or address (the memos): a full trace comes back to the same
    // ones millions of times.
    uint32_t rowOf(const AccessSample& sample, const Attribution& where) {
        const bool heap = where.m_region == Region::Heap;
        if (m_by == AccessGrouping::Function) {
            // A watchpoint's trap reports the instruction after the access.
            const uint64_t ip = sample.m_ipAfter ? sample.m_ip - 1 : sample.m_ip;
            return m_rowOfAddress.get(ip, [&](uint64_t at) {
                const auto& frames = m_names.instruction(at);
                return frames.empty() ? rowNamed("", "") : rowNamed(frames.front().m_function, siteLocation(frames.front()));
            });
        }
        if (heap && m_by == AccessGrouping::Block) {
            const auto [it, added] = m_rowOfBlock.try_emplace(where.m_blockSeq, 0);
            if (added) it->second = rowNamed(std::to_string(where.m_blockSeq), "");
            return it->second;
        }
        if (heap && m_by == AccessGrouping::Site) {
            const auto [it, added] = m_rowOfStack.try_emplace(where.m_blockStack, 0);
            if (added) {
                const unwind::SourceFrame site = m_names.site(where.m_blockStack);
                it->second = rowNamed(site.m_function, siteLocation(site));
            }
            return it->second;
        }
        if (where.m_region == Region::Global && m_by != AccessGrouping::Block) {
            return m_rowOfAddress.get(sample.m_addr, [&](uint64_t at) {
                const std::string name = withoutOffset(m_names.globalName(at));
                return rowNamed(m_by == AccessGrouping::Site ? "global " + name : name, "");
            });
        }
        if (m_by == AccessGrouping::Site)
            return rowNamed(where.m_region == Region::Stack       ? "(stack)"
                            : where.m_region == Region::Allocator ? "(allocator)"  // its own metadata, not the program's
                                                                  : "(other)",
                            "");
        return kNoRow;  // by block: only heap samples; by global: only globals
    }

    AnswerMemo<uint32_t> m_rowOfAddress;  // by function: instruction; by global or site: a global's byte
    NumberMap<uint32_t, uint32_t> m_rowOfStack;
    NumberMap<uint64_t, uint32_t> m_rowOfBlock;
};

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
    // The names, before the walk of the samples: the stacks and the module map of a first walk
    // that reads the recorder's records alone (a full trace's accesses left out).
    reader.leaveOutTraces(true);
    reader.forEachEvent([](const Event&) {});
    reader.leaveOutTraces(false);
    StackNames names(reader, warn);
    Gather gather(by, names);
    summarize(reader, progress, &gather);
    AccessTable table;
    table.m_samples = gather.m_samples;

    if (by == AccessGrouping::Site) {
        // Every stack that allocated belongs to a site row, sampled or not.
        for (const auto& [stack, count] : gather.m_perStack) {
            const unwind::SourceFrame site = names.site(stack);
            gather.m_rows[gather.rowNamed(site.m_function, siteLocation(site))].m_stacks.insert(stack);
        }
        NumberMap<uint32_t, BlockCount> sampledPerStack;
        for (const auto& [seq, block] : gather.m_sampledBlocks) {
            ++sampledPerStack[block.first].m_blocks;
            sampledPerStack[block.first].m_bytes += block.second;
        }
        for (Gather::Row& building : gather.m_rows)
            for (uint32_t stack : building.m_stacks) {
                const BlockCount all = gather.m_perStack[stack], sampled = sampledPerStack[stack];
                building.m_row.m_blocks += all.m_blocks;
                building.m_row.m_blocksSampled += sampled.m_blocks;
                building.m_row.m_unsampledBlocks += all.m_blocks - std::min(all.m_blocks, sampled.m_blocks);
                building.m_row.m_unsampledBytes += all.m_bytes - std::min(all.m_bytes, sampled.m_bytes);
            }
        for (const Gather::Large& large : gather.m_large)
            if (!gather.m_sampledBlocks.count(large.m_seq))
                table.m_largestUnsampled.push_back({large.m_seq, large.m_addr, large.m_size, ""});
        std::stable_sort(table.m_largestUnsampled.begin(), table.m_largestUnsampled.end(),
                         [](const UnsampledBlock& a, const UnsampledBlock& b) { return a.m_size > b.m_size; });
        if (top && table.m_largestUnsampled.size() > top) table.m_largestUnsampled.resize(top);
        NumberMap<uint64_t, uint32_t> stackOf;
        for (const Gather::Large& large : gather.m_large) stackOf[large.m_seq] = large.m_stack;
        for (UnsampledBlock& block : table.m_largestUnsampled) block.m_site = siteText(names.site(stackOf[block.m_seq]));
    }

    const std::vector<uint64_t> touched = gather.m_touched.finish(gather.m_rows.size());
    for (const auto& [key, index] : gather.m_byName) {
        gather.m_rows[index].m_row.m_bytesTouched = touched[index];
        table.m_rows.push_back(std::move(gather.m_rows[index].m_row));
    }
    std::stable_sort(table.m_rows.begin(), table.m_rows.end(), [](const AccessRow& a, const AccessRow& b) {
        if (a.m_samples != b.m_samples) return a.m_samples > b.m_samples;
        return a.m_unsampledBytes > b.m_unsampledBytes;
    });
    if (top && table.m_rows.size() > top) table.m_rows.resize(top);
    return table;
}

}  // namespace memlog::timeline

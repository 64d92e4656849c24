#include "timeline/trace/sample_comparison.hpp"

#include <algorithm>
#include <map>

#include "timeline/read/log_reader.hpp"
#include "timeline/names/stack_names.hpp"
#include "timeline/names/site_index.hpp"
#include "timeline/replay/block_observer.hpp"

namespace memlog::timeline {

namespace {

// Block rows get their site's name and the block's place among that site's blocks.
class BlockOrdinals final : public BlockObserver {
public:
    void begin(const BlockChange& change) override { m_blocks.push_back({change.m_seq, change.m_stack}); }
    void end(const BlockChange&) override {}
    std::vector<std::pair<uint64_t, uint32_t>> m_blocks;  // seq, allocating stack, in order
};

// The table's walk, and for blocks a second walk of the same log for each block's ordinal.
std::map<std::pair<std::string, std::string>, AccessRow> rowsOf(LogReader& reader, AccessGrouping by) {
    const AccessTable table = accessTable(reader, by, 0);
    std::map<uint64_t, std::string> blockNames;  // seq -> "site #K"
    if (by == AccessGrouping::Block) {
        BlockOrdinals ordinals;
        summarize(reader, {}, &ordinals);
        StackNames names(reader, {});
        std::map<std::string, uint64_t> perSite;
        for (const auto& [seq, stack] : ordinals.m_blocks) {
            const std::string site = siteLabel(names.site(stack));
            blockNames[seq] = site + " #" + std::to_string(++perSite[site]);
        }
    }
    std::map<std::pair<std::string, std::string>, AccessRow> rows;
    for (const AccessRow& row : table.m_rows) {
        std::pair<std::string, std::string> key{row.m_name, row.m_location};
        if (by == AccessGrouping::Block && row.m_blockSeq) key = {blockNames[row.m_blockSeq], ""};
        AccessRow& into = rows[key];
        into.m_samples += row.m_samples;
        into.m_writes += row.m_writes;
    }
    return rows;
}

}  // namespace

SampleCheck checkSamples(LogReader& sampledLog, LogReader& fullLog, AccessGrouping by) {
    const auto sampled = rowsOf(sampledLog, by), exact = rowsOf(fullLog, by);
    std::map<std::pair<std::string, std::string>, SampleCheckRow> rows;
    SampleCheck check;
    for (const auto& [key, row] : sampled) {
        SampleCheckRow& into = rows[key];
        into.m_sampled = row.m_samples;
        into.m_sampledWrites = row.m_writes;
        check.m_sampledTotal += row.m_samples;
    }
    for (const auto& [key, row] : exact) {
        SampleCheckRow& into = rows[key];
        into.m_exact = row.m_samples;
        into.m_exactWrites = row.m_writes;
        check.m_exactTotal += row.m_samples;
    }
    for (auto& [key, row] : rows) {
        row.m_name = key.first;
        row.m_location = key.second;
        check.m_rows.push_back(row);
    }
    std::stable_sort(check.m_rows.begin(), check.m_rows.end(),
                     [](const SampleCheckRow& a, const SampleCheckRow& b) { return a.m_exact > b.m_exact; });
    return check;
}

}  // namespace memlog::timeline

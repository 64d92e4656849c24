#include "render/raster/bin_summaries.hpp"

#include <algorithm>
#include <cmath>
#include <thread>

#include "timeline/base/other_core.hpp"
#include "render/raster/power_table.hpp"

namespace memlog::render {

namespace {

// A node's bins while they are summed: the weight and the weighted channels, for the means.
struct Sums {
    double m_weight = 0;
    double m_channels[3] = {0, 0, 0};
};

void finish(BinSummaries::Entry* entries, const std::vector<Sums>& sums) {
    for (size_t bin = 0; bin < sums.size(); ++bin) {
        entries[bin].m_weight = static_cast<float>(sums[bin].m_weight);
        if (sums[bin].m_weight > 0)
            for (size_t c = 0; c < 3; ++c)
                entries[bin].m_mean[c] =
                    static_cast<uint16_t>(std::lround(sums[bin].m_channels[c] / sums[bin].m_weight));
    }
}

}  // namespace

BinSummaries::BinSummaries(const timeline::BlockIndex& index, std::span<const uint8_t> itemBin, size_t bins,
                           const FrameColours& colours, double alpha)
    : m_bins(bins) {
    const auto& nodes = index.nodes();
    while (m_firstInternal < nodes.size() && nodes[m_firstInternal].m_leaf) ++m_firstInternal;
    if (bins == 0 || m_firstInternal == nodes.size()) return;
    m_entries.resize((nodes.size() - m_firstInternal) * bins);
    const PowerTable power(alpha);
    const auto& boxes = index.boxes();
    // The nodes just above the leaves, from their blocks.
    auto fromBlocks = [&](size_t from, size_t to) {
        std::vector<Sums> sums(bins);
        for (size_t n = from; n < to; ++n) {
            const timeline::BlockIndex::Node& node = nodes[n];
            if (!nodes[node.m_first].m_leaf) continue;
            std::fill(sums.begin(), sums.end(), Sums{});
            Entry* entries = &m_entries[(n - m_firstInternal) * bins];
            for (uint32_t child = node.m_first; child < node.m_first + node.m_count; ++child) {
                const timeline::BlockIndex::Node& leaf = nodes[child];
                for (uint32_t k = leaf.m_first; k < leaf.m_first + leaf.m_count; ++k) {
                    const size_t bin = itemBin[k];
                    if (bin >= bins) continue;
                    const double area = boxes[k].area();
                    const double weight = power.ofAny(area);
                    entries[bin].m_boxArea += area;
                    ++entries[bin].m_items;
                    sums[bin].m_weight += weight;
                    for (int c = 0; c < 3; ++c)
                        sums[bin].m_channels[c] +=
                            weight * static_cast<double>(colours.channel(colours.m_itemKey[k], c));
                }
            }
            finish(entries, sums);
        }
    };
    const size_t middle = m_firstInternal + (nodes.size() - m_firstInternal) / 2;
    {
        std::jthread second = timeline::startOnOtherCore(fromBlocks, middle, nodes.size());
        fromBlocks(m_firstInternal, middle);
    }
    // The nodes higher up, from their children's: children come before their parents.
    std::vector<Sums> sums(bins);
    for (size_t n = m_firstInternal; n < nodes.size(); ++n) {
        const timeline::BlockIndex::Node& node = nodes[n];
        if (nodes[node.m_first].m_leaf) continue;
        std::fill(sums.begin(), sums.end(), Sums{});
        Entry* entries = &m_entries[(n - m_firstInternal) * bins];
        for (uint32_t child = node.m_first; child < node.m_first + node.m_count; ++child) {
            const Entry* parts = &m_entries[(child - m_firstInternal) * bins];
            for (size_t bin = 0; bin < bins; ++bin) {
                entries[bin].m_boxArea += parts[bin].m_boxArea;
                entries[bin].m_items += parts[bin].m_items;
                sums[bin].m_weight += parts[bin].m_weight;
                for (size_t c = 0; c < 3; ++c) sums[bin].m_channels[c] += parts[bin].m_weight * parts[bin].m_mean[c];
            }
        }
        finish(entries, sums);
    }
}

}  // namespace memlog::render

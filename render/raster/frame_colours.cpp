// Node summaries, made on demand. Packed with their generation in one 64-bit atomic, so a
// reader sees a whole summary of this alpha or knows it has none.
#include "render/raster/frame_colours.hpp"

#include <cmath>

namespace memlog::render {

void FrameColours::setPalette(bool categorical) {
    m_categorical = categorical;
    for (size_t slot = 0; slot <= kPaletteSize; ++slot) {
        const Rgb colour = categoryColour(slot);
        const double channels[3] = {colour.m_r, colour.m_g, colour.m_b};
        for (int c = 0; c < 3; ++c) m_slotChannels[slot][c] = CoverageAccumulator::quantiseAttribute(channels[c]);
    }
}

void NodeSummaries::reset(size_t nodes, bool fromChildren) {
    m_packed = std::make_unique<std::atomic<uint64_t>[]>(nodes);  // value-initialised: zero, never made
    m_weights = fromChildren ? std::make_unique<std::atomic<float>[]>(nodes) : nullptr;
    m_nodes = nodes;
    m_generation = 1;
    m_alpha = -1;
}

void NodeSummaries::setAlpha(double alpha) {
    if (alpha == m_alpha) return;
    m_alpha = alpha;
    m_power = PowerTable(alpha);
    if (++m_generation == 0) {  // wrapped: an old summary could pass for new
        for (size_t n = 0; n < m_nodes; ++n) m_packed[n].store(0, std::memory_order_relaxed);
        m_generation = 1;
    }
}

std::array<uint16_t, 3> NodeSummaries::mean(const timeline::BlockIndex& index, const timeline::BlockIndex::Node& node,
                                            const FrameColours& colours) const {
    const size_t at = index.indexOf(node);
    std::atomic<uint64_t>& slot = m_packed[at];
    uint64_t packed = slot.load(std::memory_order_acquire);
    if (packed >> 48 != m_generation) {
        const Summary made = summarise(index, node, colours);
        if (m_weights) m_weights[at].store(static_cast<float>(made.m_weight), std::memory_order_relaxed);
        packed = uint64_t{m_generation} << 48 | uint64_t{made.m_mean[2]} << 32 | uint64_t{made.m_mean[1]} << 16 |
                 made.m_mean[0];
        slot.store(packed, std::memory_order_release);  // after its weight: whoever sees it sees both
    }
    return {static_cast<uint16_t>(packed), static_cast<uint16_t>(packed >> 16), static_cast<uint16_t>(packed >> 32)};
}

NodeSummaries::Summary NodeSummaries::summarise(const timeline::BlockIndex& index,
                                                const timeline::BlockIndex::Node& node,
                                                const FrameColours& colours) const {
    double weight = 0, channel[3] = {0, 0, 0};
    if (m_weights && !node.m_leaf) {
        for (uint32_t child = node.m_first; child < node.m_first + node.m_count; ++child) {
            const std::array<uint16_t, 3> childMean = mean(index, index.nodes()[child], colours);
            const double w = m_weights[child].load(std::memory_order_relaxed);
            weight += w;
            for (int c = 0; c < 3; ++c) channel[c] += w * childMean[static_cast<size_t>(c)];
        }
    } else {
        const auto& boxes = index.boxes();
        index.forEachPositionUnder(node, [&](size_t k) {
            const timeline::IndexBox& box = boxes[k];
            const double w = m_power.ofAny(box.area());
            const uint16_t key = colours.m_itemKey[k];
            weight += w;
            for (int c = 0; c < 3; ++c) channel[c] += w * static_cast<double>(colours.channel(key, c));
        });
    }
    Summary summary;
    summary.m_weight = weight;
    if (weight > 0)
        for (int c = 0; c < 3; ++c)
            summary.m_mean[static_cast<size_t>(c)] = static_cast<uint16_t>(std::lround(channel[c] / weight));
    return summary;
}

}  // namespace memlog::render

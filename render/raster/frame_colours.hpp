// The colours a frame draws with, for one colouring: each block's (in the index's order) and,
// for level of detail, each folded index node's, made when a frame first folds the node.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "render/raster/block_colouring.hpp"
#include "render/raster/colour_map.hpp"
#include "render/raster/coverage_accumulator.hpp"
#include "render/raster/power_table.hpp"
#include "timeline/model/block_index.hpp"
#include "timeline/base/huge_pages.hpp"
#include "timeline/base/other_core.hpp"

namespace memlog::render {

// The blocks' colours in the accumulator's fixed point.
struct FrameColours {
    // The colours of `count` blocks in the index's order, `key(k)` the k-th's (keyOf's): a big
    // count split between two threads (`key` is called from both).
    template <typename KeyAt>
    static void make(FrameColours& colours, bool categorical, size_t count, KeyAt&& key) {
        colours.setPalette(categorical);
        colours.m_itemKey.resize(count);
        auto part = [&](size_t from, size_t to) {
            for (size_t k = from; k < to; ++k) colours.m_itemKey[k] = key(k);
        };
        constexpr size_t kTwoThreadsFrom = size_t{1} << 16;
        if (count < kTwoThreadsFrom) return part(0, count);
        std::jthread second = timeline::startOnOtherCore(part, count / 2, count);
        part(0, count / 2);
    }
    void setPalette(bool categorical);
    uint16_t keyOf(const BlockColouring& colouring, const timeline::Block& block) const {
        return static_cast<uint16_t>(m_categorical ? colouring.slot(block)
                                                   : CoverageAccumulator::quantiseAttribute(colouring.scalar(block)));
    }

    bool m_categorical = false;
    // Per block, in the order make() was given (m_itemKey[k] is the k-th block's): the palette
    // slot (categories) or the quantised attribute (quantities).
    timeline::HugeVector<uint16_t> m_itemKey;
    // Per palette slot: its three channels, quantised.
    uint64_t m_slotChannels[kPaletteSize + 1][3] = {};
    // Channel `c` of a block of key `key` (m_itemKey's): a quantity has channel 0 alone.
    uint64_t channel(uint16_t key, int c) const { return m_categorical ? m_slotChannels[key][c] : (c == 0 ? key : 0); }
};

// The colour of an index node drawn as one summary: the mean of its blocks' quantised
// attributes or channels, weighted by their box areas^alpha (as equation 1 would average them
// if each had a pixel to itself; an equal weight for every block gave the many small ones too
// much say). Made from the node's blocks when a frame first folds it at an alpha, and kept
// until the alpha or the colours change: summing every node of the log at each new alpha was a
// pass over every block for a view that folded a dozen nodes.
class NodeSummaries {
public:
    // For an index of `nodes` nodes, none made. `fromChildren`: a node above the leaves is the
    // mean of its children's means (weighted by their summed weights), not of its blocks: a
    // draft's whole-log view folds nodes holding every block, which, made from the blocks, was
    // a pass over all of them (1.3 s at 10^8) after the leaves' summaries had made one already.
    // The means differ from the blocks' by the rounding of the children's.
    void reset(size_t nodes, bool fromChildren = false);
    // Before a frame's threads start: a new alpha forgets every summary.
    void setAlpha(double alpha);
    // The node's mean channels. Safe from several threads at once: two that make the same
    // node store the same value.
    std::array<uint16_t, 3> mean(const timeline::BlockIndex& index, const timeline::BlockIndex::Node& node,
                                 const FrameColours& colours) const;

private:
    struct Summary {
        std::array<uint16_t, 3> m_mean{0, 0, 0};
        double m_weight = 0;  // the blocks' weights, summed
    };
    Summary summarise(const timeline::BlockIndex& index, const timeline::BlockIndex::Node& node,
                      const FrameColours& colours) const;
    double m_alpha = -1;
    PowerTable m_power{1.0};
    // Per node: the generation it was made in (high 16 bits; 0: never) and its three channels.
    uint16_t m_generation = 1;
    std::unique_ptr<std::atomic<uint64_t>[]> m_packed;
    // With fromChildren, per node: its Summary's weight, stored before its packed mean.
    std::unique_ptr<std::atomic<float>[]> m_weights;
    size_t m_nodes = 0;
};

}  // namespace memlog::render

// What the blocks of each bin under an index node add up to, for drafts of correlated views: a
// bin's view folds a node as a single view does (its coverage spread over its box with its mean
// colour), but from the node's blocks of that bin alone. Only nodes above the leaves have them
// (at ten million blocks and eight bins, 42 thousand nodes, 8 MB): a draft folds at 8 pixels or
// more, where leaves are a pixel or two, and a leaf it would fold is drawn block by block.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "render/raster/frame_colours.hpp"
#include "timeline/model/block_index.hpp"

namespace memlog::render {

class BinSummaries {
public:
    struct Entry {
        double m_boxArea = 0;  // the bin's blocks' boxes: axis units x bytes
        float m_weight = 0;  // their areas^alpha, summed: what their mean weighs in a parent's
        uint32_t m_items = 0;
        std::array<uint16_t, 3> m_mean{};  // channels, weighted as NodeSummaries weighs them
    };

    // A bin's view folds a node only when it holds this many of the bin's blocks or more (see
    // TileRaster::draw): a sparse bin's blocks spread over a node's box tint no pixel. Higher
    // values cost frame time (docs/BENCHMARKS.md, "correlated drafts").
    static constexpr uint32_t kDenseEnough = 8;

    BinSummaries() = default;
    // From every block once (on two threads): `itemBin` holds the bin of each position of the
    // index's order (`bins` or more: none), `colours` their colours, `alpha` the weights'.
    BinSummaries(const timeline::BlockIndex& index, std::span<const uint8_t> itemBin, size_t bins,
                 const FrameColours& colours, double alpha);

    bool empty() const { return m_entries.empty(); }
    // Node `node`'s blocks of bin `bin`; nullptr for a leaf.
    const Entry* of(size_t node, size_t bin) const {
        return node < m_firstInternal ? nullptr : &m_entries[(node - m_firstInternal) * m_bins + bin];
    }

private:
    size_t m_firstInternal = 0;  // leaves come first in the index's nodes
    size_t m_bins = 0;
    timeline::HugeVector<Entry> m_entries;  // node n's of bin b at (n - m_firstInternal) x m_bins + b
};

}  // namespace memlog::render

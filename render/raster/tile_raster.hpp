// One tile of a view: from the model's index (the window's frames), where only the index nodes
// that meet the window and the tile are opened, and with level of detail a node whose box is
// smaller than a pixel or so is drawn as one summary of its blocks; or, for an export, from a
// walk over every block (its tiles are bands of rows: bandsOf). The buffers stay between tiles
// and frames.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "render/raster/bin_summaries.hpp"
#include "render/raster/block_colouring.hpp"
#include "render/raster/block_view.hpp"
#include "render/raster/coverage_accumulator.hpp"
#include "render/raster/frame_colours.hpp"
#include "render/raster/tiles.hpp"
#include "timeline/model/model_index.hpp"

namespace memlog::render {

// What a frame cost: how many blocks were drawn one by one, how many index nodes were drawn
// as summaries and how many blocks those held. A block across the line between two tiles is
// counted in both. And how many blocks were big enough for a cushion (kMinCushionPixels both
// ways), whatever the style: with none, the picture is the same in every cushion style. And
// whether a view was a draft (FrameContext::m_draftAbove).
struct FrameStats {
    size_t m_items = 0;
    size_t m_foldedNodes = 0;
    size_t m_foldedItems = 0;
    size_t m_cushionable = 0;
    bool m_draft = false;
    FrameStats& operator+=(const FrameStats& other) {
        m_items += other.m_items;
        m_foldedNodes += other.m_foldedNodes;
        m_foldedItems += other.m_foldedItems;
        m_cushionable += other.m_cushionable;
        m_draft = m_draft || other.m_draft;
        return *this;
    }
};

struct FrameInputs {
    // The blocks come from the index or, for an export, from a walk over m_walk, coloured by
    // m_walkColouring (m_colours then gives the palette alone).
    const timeline::ModelIndex* m_index = nullptr;
    const timeline::BlockModel* m_walk = nullptr;
    const BlockColouring* m_walkColouring = nullptr;
    const FrameColours* m_colours = nullptr;
    const NodeSummaries* m_summaries = nullptr;  // at the spec's alpha, or a draft's
    ViewSpec m_spec;  // no bins: m_oneBin says which blocks are drawn
    double m_foldPixels = 0;  // fold nodes at most this many pixels both ways; 0: never
    // With m_oneBin, only the blocks of bin m_bin are drawn: m_binPositions holds their
    // positions in the index's order, ascending (a view reads its own blocks, not every block
    // near its window), m_nodeBins a bit for each bin under each node (a node without the
    // view's bin is not opened).
    bool m_oneBin = false;
    uint8_t m_bin = 0;
    std::span<const uint32_t> m_binPositions;
    const uint8_t* m_nodeBins = nullptr;
    // A draft of a bin's view (m_foldPixels > 0) folds nodes above the leaves from what they
    // hold of the bin (its summary, and its addresses in m_groups); a leaf is drawn exactly.
    const BinSummaries* m_binSummaries = nullptr;
    const timeline::ModelIndex::Groups* m_groups = nullptr;
};

// Where an index node's box lands in a view, and whether level of detail folds it: at most
// `foldPixels` both ways, inside one band of addresses (where rows are linear in bytes).
struct NodeExtent {
    double m_x0, m_x1, m_rowTop, m_rowBottom;
    bool m_oneBand;
    bool m_inRows;  // false: none of its addresses is shown
    // Whether it meets columns [left, left + columns) and rows [top, top + rows).
    bool meets(double left, double columns, double top, double rows) const {
        return m_x1 > left && m_x0 < left + columns && m_inRows && m_rowBottom > top && m_rowTop < top + rows;
    }
    bool folds(double foldPixels) const {
        return foldPixels > 0 && m_oneBand && m_x1 - m_x0 <= foldPixels && m_rowBottom - m_rowTop <= foldPixels;
    }
};
inline NodeExtent nodeExtent(const timeline::BlockIndex::Node& node, const ViewSpec& spec, const XScale& scale) {
    NodeExtent extent{};
    extent.m_x0 = scale.x(static_cast<double>(node.m_box.m_x0));
    extent.m_x1 = scale.x(static_cast<double>(node.m_box.m_x1));
    extent.m_inRows =
        spec.m_scale->rowsOf(node.m_box.m_y0, node.m_box.m_y1, extent.m_rowTop, extent.m_rowBottom, extent.m_oneBand);
    return extent;
}

// One a thread, each on cache lines of its own.
class alignas(64) TileRaster {
public:
    // Draws `tile` of `target` (the whole view: its width and height are the view's) from the
    // index.
    FrameStats draw(const FrameInputs& inputs, PixelBuffer target, const Tile& tile);

private:
    template <typename AddBox>
    void drawFromIndex(const FrameInputs& inputs, const Tile& tile, const XScale& scale, FrameStats& stats,
                       AddBox& addBox);
    CoverageAccumulator m_accumulator{0, 0, 0.5, 1};
    std::vector<float> m_shade;  // cushions of the tile, column by column; zeroed when a tile first needs it
    std::vector<uint64_t> m_leaves;  // one bit a leaf (by its place in order()): to be opened
};

}  // namespace memlog::render

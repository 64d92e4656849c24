// A tile of a view from the index. The query opens a node only when it meets the window; here
// a node is also skipped when it misses the tile, and folded when it is small: its blocks'
// coverage F (their boxes' area in pixels) and, as if they shared it equally, n^(1-alpha)
// F^alpha for the sum of f^alpha, spread over its box with their mean colour. Blocks of opened
// leaves go through the same steps as drawBlocks (blockRect, the accumulator, cushions,
// pixelColour), so a frame in which nothing folds is the exact picture: a tile moves rectangles
// by whole pixels, which changes no fraction of a pixel, and clips them at whole pixels.
//
// Why tiles: a block is 8 to 16 updates of the difference arrays, scattered over a few of their
// rows. Arrays for the whole view (40 bytes a pixel: 64 MiB at 1600x1000) live in memory, not
// in a cache, and every block waited for its updates there; a tile's arrays stay in the core's
// own cache, and so does their integration.
//
// The accumulator is used transposed: its rows are the tile's pixel columns. Leaves are read in
// the order of their items, time slice after time slice, each slice by address; a slice is a
// few columns wide, so its blocks walk up a few of the accumulator's rows, through memory in
// order.
#include "render/raster/tile_raster.hpp"

#include <algorithm>
#include <array>

namespace memlog::render {

using timeline::BlockIndex;
using timeline::IndexBox;

namespace {

// Into the tile's accumulator: rows and columns swapped, moved by whole pixels (exact in double).
PixelRect transposed(const PixelRect& rect, double left, double top) {
    return {rect.m_y0 - top, rect.m_y1 - top, rect.m_x0 - left, rect.m_x1 - left, rect.m_attribute};
}

// The first place from `from` on where `positions` (ascending) reach `value`: steps that double,
// then a binary search within the last one.
size_t gallopTo(std::span<const uint32_t> positions, size_t from, size_t value) {
    size_t lo = from, step = 1, hi = from;
    while (hi < positions.size() && positions[hi] < value) {
        lo = hi + 1;
        hi = std::min(positions.size(), hi + step);
        step *= 2;
    }
    return static_cast<size_t>(
        std::lower_bound(positions.begin() + static_cast<long>(lo), positions.begin() + static_cast<long>(hi), value) -
        positions.begin());
}

}  // namespace

// The blocks of a tile from the index: nodes that miss the tile skipped, small ones folded.
template <typename AddBox>
void TileRaster::drawFromIndex(const FrameInputs& inputs, const Tile& tile, const XScale& scale, FrameStats& stats,
                               AddBox& addBox) {
    const ViewSpec& spec = inputs.m_spec;
    const FrameColours& colours = *inputs.m_colours;
    const timeline::ModelIndex& index = *inputs.m_index;
    const int left = tile.m_left, columns = tile.m_columns, top = tile.m_top, rows = tile.m_rows;
    const double tileLeft = left, tileTop = top;
    const PowerTable& power = m_accumulator.power();
    const auto& bands = spec.m_scale->bands();
    const auto& boxes = index.index().boxes();
    const uint16_t* keys = colours.m_itemKey.data();
    // The block at position k of the index's order.
    auto addBlock = [&](size_t k) __attribute__((always_inline)) { addBox(boxes[k], keys[k]); };

    // A folded node: `coverage` (the sum of its blocks' f) and, as if they shared it equally,
    // items^(1-alpha) coverage^alpha for their sum of f^alpha, spread over [x0, x1) x [rowTop,
    // rowBottom) with their mean colour.
    auto spread = [&](double x0, double x1, double rowTop, double rowBottom, double coverage, uint32_t items,
                      const std::array<uint16_t, 3>& mean) {
        // n^(1-alpha) F^alpha as n (F/n)^alpha: one power, from the table (two pow() calls a
        // node were a twentieth of a correlated draft of the 10 M log).
        const double n = static_cast<double>(items);
        const double weight = items ? n * power.ofAny(coverage / n) : 0.0;
        const uint64_t attributes[3] = {mean[0], mean[1], mean[2]};
        m_accumulator.addSpread(transposed({x0, x1, rowTop, rowBottom, 0}, tileLeft, tileTop), coverage, weight,
                                attributes);
        ++stats.m_foldedNodes;
        stats.m_foldedItems += items;
    };
    // Pixels per axis unit x byte of a box that lands on [x0, x1) x [rowTop, rowBottom).
    auto pixelsPerArea = [](const IndexBox& box, double x0, double x1, double rowTop, double rowBottom) {
        return (x1 - x0) / static_cast<double>(box.m_x1 - box.m_x0) * (rowBottom - rowTop) /
               static_cast<double>(box.m_y1 - box.m_y0);
    };
    // A folded node of a bin's view: its blocks of the bin, over their addresses alone.
    auto foldForBin = [&](const BlockIndex::Node& node, const BinSummaries::Entry& entry, double x0, double x1) {
        const auto [lo, hi] = inputs.m_groups->addresses(index.index().indexOf(node), inputs.m_bin);
        const IndexBox box{node.m_box.m_x0, node.m_box.m_x1, lo, hi};
        double rowTop, rowBottom;
        bool oneBand;
        if (!spec.m_scale->rowsOf(lo, hi, rowTop, rowBottom, oneBand)) return;
        spread(x0, x1, rowTop, rowBottom, entry.m_boxArea * pixelsPerArea(box, x0, x1, rowTop, rowBottom),
               entry.m_items, entry.m_mean);
    };
    // What a bin's view may fold a node as: nodes above the leaves only, and only where the bin
    // is dense. A few of its blocks spread over a node's box would tint no pixel, where each
    // alone tints one, and cost little drawn one by one.
    auto binFold = [&](const BlockIndex::Node& node) -> const BinSummaries::Entry* {
        if (node.m_leaf) return nullptr;
        const BinSummaries::Entry* entry = inputs.m_binSummaries->of(index.index().indexOf(node), inputs.m_bin);
        return entry->m_items >= BinSummaries::kDenseEnough ? entry : nullptr;
    };

    // True: the node is done (outside the tile, folded, or a leaf kept for later); false: open it.
    auto visitNode = [&](const BlockIndex::Node& node) {
        if (inputs.m_nodeBins && !(inputs.m_nodeBins[index.index().indexOf(node)] >> inputs.m_bin & 1)) return true;
        const NodeExtent extent = nodeExtent(node, spec, scale);
        const double x0 = extent.m_x0, x1 = extent.m_x1, rowTop = extent.m_rowTop, rowBottom = extent.m_rowBottom;
        if (!extent.meets(left, columns, top, rows)) return true;
        const bool folds = extent.folds(inputs.m_foldPixels);
        const BinSummaries::Entry* binEntry = folds && inputs.m_oneBin ? binFold(node) : nullptr;
        if (!folds || (inputs.m_oneBin && !binEntry)) {
            // A bin's view draws the blocks of a small node where the bin is sparse one by one:
            // its leaves are marked from the parent, without reading their nodes (16 misses).
            // Leaves without the bin, or off the tile, then give no block to draw.
            if (folds && index.index().aboveLeaves(node)) {
                index.index().markLeavesUnder(node, m_leaves);
                return true;
            }
            if (!node.m_leaf) return false;
            BlockIndex::mark(node, m_leaves);
            return true;
        }
        if (inputs.m_oneBin) {
            foldForBin(node, *binEntry, x0, x1);
            return true;
        }
        const double coverage = index.sums(node).m_boxArea * pixelsPerArea(node.m_box, x0, x1, rowTop, rowBottom);
        spread(x0, x1, rowTop, rowBottom, coverage, node.m_items,
               inputs.m_summaries->mean(index.index(), node, colours));
        return true;
    };

    const IndexBox window{spec.m_window.m_from, spec.m_window.m_to, bands.front().m_range.m_lo,
                          bands.back().m_range.m_hi};
    index.index().clearMarks(m_leaves);
    // Leaves are only marked there: their blocks are drawn afterwards, from the index's
    // boxes and keys in their order, one run of memory after another.
    index.index().query(window, visitNode, [](uint32_t) {});
    if (!inputs.m_oneBin) {
        index.index().forEachMarkedLeaf(m_leaves, [&](size_t first, size_t end) {
            stats.m_items += end - first;
            for (size_t k = first; k < end; ++k) addBlock(k);
        });
    } else {
        // The bin's own positions in each leaf: leaves come in ascending order, so the
        // search for a leaf's first goes on from where the leaf before ended.
        const std::span<const uint32_t> positions = inputs.m_binPositions;
        const size_t count = positions.size();
        size_t at = 0;
        index.index().forEachMarkedLeaf(m_leaves, [&](size_t first, size_t end) {
            at = static_cast<size_t>(gallopTo(positions, at, first));
            for (; at < count && positions[at] < end; ++at) {
                // Asked for ahead: a view's blocks are a thin stream through the boxes,
                // which the hardware did not fetch on time.
                if (at + 8 < count) __builtin_prefetch(&boxes[positions[at + 8]]);
                ++stats.m_items;
                addBlock(positions[at]);
            }
        });
    }
}

FrameStats TileRaster::draw(const FrameInputs& shared, PixelBuffer target, const Tile& tile) {
    // A copy on this thread's stack: read with every block, the caller's lay next to the other
    // thread's running counters, and the line bounced between the cores (two threads were no
    // faster than one).
    const FrameInputs inputs = shared;
    FrameStats stats;
    const ViewSpec& spec = inputs.m_spec;
    const FrameColours& colours = *inputs.m_colours;
    const int left = tile.m_left, columns = tile.m_columns, top = tile.m_top, rows = tile.m_rows;
    const bool categorical = colours.m_categorical;
    m_accumulator.reset(rows, columns, spec.m_alpha, categorical ? 3 : 1);
    const PowerTable& power = m_accumulator.power();
    bool shaded = false;
    const XScale scale(spec.m_window, target.m_width);
    const auto& bands = spec.m_scale->bands();

    const double tileLeft = left, tileTop = top;
    // A block's box with its colour key. Inlined, with the tile's edges as doubles in locals,
    // and the clip to the tile left to the accumulator, which clips anyway: as a call it read
    // the edges through its closure and converted them for every block (docs/BENCHMARKS.md,
    // "the raster"). The GNU spelling: GCC takes [[gnu::always_inline]] there as the lambda
    // type's, and ignores it.
    auto addBox = [&](const IndexBox& box, uint64_t scalar) __attribute__((always_inline)) {
        PixelRect rect;
        if (!boxRect(box.m_x0, box.m_x1, box.m_y0, box.m_y1, spec, scale, rect)) return;
        const PixelRect flipped = transposed(rect, tileLeft, tileTop);
        if (!m_accumulator.add(flipped, categorical ? colours.m_slotChannels[scalar] : &scalar))
            return;  // off the tile
        if (rect.m_x1 - rect.m_x0 >= kMinCushionPixels && rect.m_y1 - rect.m_y0 >= kMinCushionPixels) {
            ++stats.m_cushionable;
            if (spec.m_cushion == CushionStyle::None) return;
            // Cushions are symmetric in x and y, so the transposed shade is the shade transposed.
            if (!shaded) m_shade.assign(static_cast<size_t>(rows) * static_cast<size_t>(columns), 0.0f);
            shaded = true;
            addCushion(flipped, spec.m_cushion, power, rows, columns, m_shade);
        }
    };

    if (const timeline::BlockModel* model = inputs.m_walk) {
        // An export's band: every block of the view's bin that may meet its window, those off
        // the band left to the accumulator, as the reference walk does.
        const BlockColouring& colouring = *inputs.m_walkColouring;
        model->forEachMeeting(spec.m_axis, spec.m_window, [&](const timeline::Block& block) {
            if (spec.m_bins && spec.m_bins->binOf(block) != spec.m_bin) return;
            addBox(timeline::ModelIndex::boxOf(block, spec.m_axis), colours.keyOf(colouring, block));
        });
    } else if (!bands.empty() && columns > 0 && rows > 0) {
        drawFromIndex(inputs, tile, scale, stats, addBox);
    }

    const int channels = m_accumulator.channels();
    const uint32_t background = toArgb(kBackground);
    m_accumulator.resolveAndClear([&](int column, const uint64_t* sums) {
        const float* shade = shaded ? &m_shade[static_cast<size_t>(column) * static_cast<size_t>(rows)] : nullptr;
        uint32_t* out = target.row(top) + left + column;
        // Inside a block, pixel after pixel has the same sums (and no cushion slope): the colour
        // of the one before, without equation 1 again (which was half of a zoomed-in frame).
        uint64_t before[2 + CoverageAccumulator::kMaxAttributes] = {};
        float shadeBefore = 0;
        uint32_t colourBefore = background;
        for (int y = 0; y < rows; ++y, sums += channels, out += target.m_stride) {
            // A weight of at most 1 in fixed point is below pixelColour's 1e-9: background, as it
            // would say, without the conversions.
            if (static_cast<int64_t>(sums[1]) <= 1) {
                *out = background;
                continue;
            }
            const float shadeHere = shade ? shade[y] : 0.0f;
            uint64_t differ = 0;  // not std::equal: that is a memcmp call
            for (int c = 0; c < channels; ++c) differ |= sums[c] ^ before[c];
            if (shadeHere == shadeBefore && differ == 0) {
                *out = colourBefore;
                continue;
            }
            colourBefore = pixelColour(CoverageAccumulator::toPixelSums(sums, channels), categorical, power,
                                       shade ? shade + y : nullptr);
            for (int c = 0; c < channels; ++c) before[c] = sums[c];
            shadeBefore = shadeHere;
            *out = colourBefore;
        }
    });
    return stats;
}

}  // namespace memlog::render

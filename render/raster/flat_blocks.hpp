// An export's blocks without an index: one walk over the log sorts the blocks of a view into
// the tiles they meet, so that an export is drawn by the same tile raster as the window's
// frames. Indexing the whole log for one picture cost an export 1.3 to 1.5 times its time and
// twice its memory (docs/BENCHMARKS.md); this costs a walk and 4 bytes a block in view.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "render/raster/block_view.hpp"
#include "timeline/block_model.hpp"

namespace memlog::render {

// Columns [m_left, m_left + m_columns) and rows [m_top, m_top + m_rows) of a view; m_id is its
// place in tilesOf()'s list.
struct Tile {
    int m_left, m_columns, m_top, m_rows;
    size_t m_id = 0;
};

// A view `width` x `height` in tiles of about `tileBytes` of the accumulator's arrays (a pixel
// costs 80 bytes with categories, 48 without), of equal size to a pixel, column after column.
std::vector<Tile> tilesOf(int width, int height, bool categorical, size_t tileBytes);

class FlatBlocks {
public:
    // The blocks of `spec` (and its bin) meeting each of `tiles` (tilesOf's, of a view `width` wide).
    FlatBlocks(const timeline::BlockModel& model, const ViewSpec& spec, int width, std::span<const Tile> tiles);

    const timeline::BlockModel& model() const { return m_model; }
    // The model indices of the blocks that meet tile `id`, ascending.
    std::span<const uint32_t> blocksOf(size_t id) const {
        return std::span(m_blocks).subspan(m_starts[id], m_starts[id + 1] - m_starts[id]);
    }

private:
    const timeline::BlockModel& m_model;
    std::vector<uint32_t> m_blocks;  // tile 0's, tile 1's, ...
    std::vector<size_t> m_starts;    // where each tile's begin (and one past the last)
};

}  // namespace memlog::render

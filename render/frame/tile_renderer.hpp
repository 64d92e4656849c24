// The one rasteriser: draws views in tiles on two threads, each taking the next tile until none
// is left, for the window's frames (from the index) and for exports (a walk over the blocks, in bands) alike. Between
// tiles it asks whether to give the frame up (input waiting) and whether the frame runs late
// (DraftPolicy), after which the tiles still to draw fold as their drafts would.
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "render/frame/draft_policy.hpp"
#include "render/raster/tile_raster.hpp"

namespace memlog::render {

struct TileJob {
    FrameInputs m_inputs;
    FrameInputs m_lateInputs;  // once the frame runs late (as m_inputs when m_mayBeLate is false)
    bool m_mayBeLate = false;
    bool m_draft = false;  // planned as a draft: it is one if it folds a node
    PixelBuffer m_target;
    std::vector<Tile> m_tiles;
};

class TileRenderer {
public:
    // About this many bytes of the accumulator's two arrays a tile, so that they stay in a
    // core's cache beside the colour tables (scripts/bench-frame was no faster with half or
    // twice this).
    static constexpr size_t kTileBytes = 1 << 20;
    static std::vector<Tile> tiles(PixelBuffer target, bool categorical) {
        return tilesOf(target.m_width, target.m_height, categorical, kTileBytes);
    }

    struct Result {
        std::vector<FrameStats> m_stats;  // a job each
        bool m_interrupted = false;  // `interrupt` said yes: the targets hold parts
    };
    // `interrupt` is asked from the calling thread before the first tile and every 10 ms or so
    // (empty: never); `policy` says when the frame runs late (null: never).
    Result draw(std::span<const TileJob> jobs, const std::function<bool()>& interrupt, const DraftPolicy* policy);

private:
    TileRaster m_rasters[2];  // one a thread
};

}  // namespace memlog::render

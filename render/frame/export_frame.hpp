// An export's views, drawn by the tile renderer without an index: every block, nothing folded
// (DraftPolicy::exact), each view's blocks sorted into its tiles by one walk (FlatBlocks).
#pragma once

#include <vector>

#include "render/frame/frame_plan.hpp"
#include "render/raster/block_colouring.hpp"
#include "render/raster/tile_raster.hpp"
#include "timeline/block_model.hpp"

namespace memlog::render {

// Draws `requests` (their blocks, then their layers) coloured by `colouring`; returns their plans.
std::vector<FramePlan> drawExport(const timeline::BlockModel& model, const BlockColouring& colouring,
                                  std::vector<ViewRequest> requests);

}  // namespace memlog::render

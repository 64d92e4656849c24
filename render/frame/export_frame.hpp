// An export's views, drawn by the tile renderer without an index: every block, nothing folded
// (DraftPolicy::exact), each view in bands of rows drawn by a walk over the blocks (bandsOf).
// Indexing the whole log for one picture cost an export 1.3 to 1.5 times its time and twice its
// memory, and sorting the blocks into square tiles first 1.3 to 2 times its time
// (docs/BENCHMARKS.md).
#pragma once

#include <vector>

#include "render/frame/frame_plan.hpp"
#include "render/raster/block_colouring.hpp"
#include "render/raster/tile_raster.hpp"
#include "timeline/model/block_model.hpp"

namespace memlog::render {

// Draws `requests` (their blocks, then their layers) coloured by `colouring`; returns their plans.
std::vector<FramePlan> drawExport(const timeline::BlockModel& model, const BlockColouring& colouring,
                                  std::vector<ViewRequest> requests);

}  // namespace memlog::render

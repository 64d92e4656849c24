// The plan of an array view: one plane of an array's cells, as a picture of when or how often
// each cell was touched, or as one frame of a playback. An array has at most a few million
// cells and each pixel shows one, so nothing is folded and no plan is a draft: the draft
// policy is about blocks and is not asked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "render/frame/frame_plan.hpp"
#include "render/raster/array_grid.hpp"

namespace memlog::render {

struct ArrayPlan {
    PlanKind m_kind = PlanKind::ArrayCells;
    const timeline::ArrayCells* m_cells = nullptr;
    uint64_t m_plane = 0;
    CellColouring m_colouring = CellColouring::FirstTouch;
    const timeline::Playback* m_playback = nullptr;  // set: draw frame m_frame of it
    uint32_t m_frame = 0, m_fade = 3;  // fading over this many slices
    const std::vector<FadingTouch>* m_touches = nullptr;  // set: these cells lit (the window's playback)
    PixelBuffer m_target;
    // "name.kind=array name.plane=2 ..." as FramePlan::describe.
    std::string describe(const std::string& name) const;
};

void drawArrayPlan(const ArrayPlan& plan);

}  // namespace memlog::render

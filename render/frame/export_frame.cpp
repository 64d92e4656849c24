#include "render/frame/export_frame.hpp"

#include <memory>

#include "render/frame/draft_policy.hpp"
#include "render/frame/tile_renderer.hpp"

namespace memlog::render {

std::vector<FramePlan> drawExport(const timeline::BlockModel& model, const BlockColouring& colouring,
                                  std::vector<ViewRequest> requests) {
    FrameColours palette;  // the blocks' keys come from the colouring as the walk meets them
    palette.setPalette(colouring.categorical());
    std::vector<FramePlan> plans;
    std::vector<TileJob> jobs;
    for (ViewRequest& request : requests) {
        const FramePlan& plan = plans.emplace_back(DraftPolicy::exact(std::move(request)));
        TileJob& job = jobs.emplace_back();
        job.m_target = plan.m_request.m_target;
        job.m_tiles = bandsOf(job.m_target.m_width, job.m_target.m_height, palette.m_categorical, model.size());
        job.m_inputs.m_walk = &model;
        job.m_inputs.m_walkColouring = &colouring;
        job.m_inputs.m_colours = &palette;
        job.m_inputs.m_spec = plan.m_request.m_spec;
        job.m_lateInputs = job.m_inputs;
    }
    auto renderer = std::make_unique<TileRenderer>();  // its rasters' buffers are big for a stack
    renderer->draw(jobs, {}, nullptr);
    std::vector<FramePlan> drawn;
    for (FramePlan& plan : plans) {
        drawLayers(plan);
        drawn.push_back(std::move(plan).drawn());
    }
    return drawn;
}

}  // namespace memlog::render

#include "render/frame/export_frame.hpp"

#include <memory>

#include "render/frame/draft_policy.hpp"
#include "render/frame/tile_renderer.hpp"

namespace memlog::render {

std::vector<FramePlan> drawExport(const timeline::BlockModel& model, const BlockColouring& colouring,
                                  std::vector<ViewRequest> requests) {
    FrameColours colours;
    FrameColours::make(colours, colouring, model.size(), [&](size_t k) -> const timeline::Block& { return model[k]; });
    std::vector<FramePlan> plans;
    std::vector<std::unique_ptr<FlatBlocks>> blocks;
    std::vector<TileJob> jobs;
    for (ViewRequest& request : requests) {
        const FramePlan& plan = plans.emplace_back(DraftPolicy::exact(std::move(request)));
        TileJob& job = jobs.emplace_back();
        job.m_target = plan.m_request.m_target;
        job.m_tiles = TileRenderer::tiles(job.m_target, colours.m_categorical);
        const ViewSpec& spec = plan.m_request.m_spec;
        blocks.push_back(std::make_unique<FlatBlocks>(model, spec, job.m_target.m_width, job.m_tiles));
        job.m_inputs.m_flat = blocks.back().get();
        job.m_inputs.m_colours = &colours;
        job.m_inputs.m_spec = spec;
        job.m_lateInputs = job.m_inputs;
    }
    auto renderer = std::make_unique<TileRenderer>();  // its rasters' buffers are big for a stack
    renderer->draw(jobs, {}, nullptr);
    for (const FramePlan& plan : plans) drawLayers(plan);
    return plans;
}

}  // namespace memlog::render

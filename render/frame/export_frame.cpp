// An export's views: the tile renderer over bands of rows, each band a walk over the blocks; and
// what a Report asks of them, from walks (timeline::viewContents, timeline::wholeRanges).
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

const BlockColouring& ExportViews::colouring(timeline::XAxis axis, ColourBy by, timeline::XWindow window) {
    m_axis = axis;
    m_colouring = BlockColouring::make(by, m_model, axis, window, m_sites);
    return m_colouring;
}

const timeline::Bins& ExportViews::bins(timeline::BinKind kind) {
    if (!m_bins || m_bins->kind() != kind) m_bins = timeline::Bins::make(kind, m_model, m_axis, m_sites);
    return *m_bins;
}

std::vector<timeline::ViewContents> ExportViews::contents(const timeline::ViewsQuery& query) {
    return timeline::viewContents(m_model, query);
}

const AddressScale& ExportViews::wholeScale(double height) {
    if (!m_wholeScale || m_wholeScale->height() != height)
        m_wholeScale.emplace(timeline::wholeRanges(m_model, AddressScale::maxRanges(height)), height);
    return *m_wholeScale;
}

std::vector<FramePlan> ExportViews::drawViews(std::vector<ViewRequest> requests) {
    return drawExport(m_model, m_colouring, std::move(requests));
}

std::optional<FramePlan> ExportViews::drawWhole(const ViewRequest& request) {
    return drawExport(m_model, m_colouring, {request}).front();
}

}  // namespace memlog::render

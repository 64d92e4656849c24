// An export's views, drawn by the tile renderer without an index: every block, nothing folded
// (DraftPolicy::exact), each view in bands of rows drawn by a walk over the blocks (bandsOf).
// Indexing the whole log for one picture cost an export 1.3 to 1.5 times its time and twice its
// memory, and sorting the blocks into square tiles first 1.3 to 2 times its time
// (docs/BENCHMARKS.md). ExportViews: a Report's ViewSource for an export, every answer from walks.
#pragma once

#include <optional>
#include <vector>

#include "render/frame/frame_plan.hpp"
#include "render/frame/view_source.hpp"
#include "render/raster/block_colouring.hpp"
#include "render/raster/tile_raster.hpp"
#include "timeline/model/block_model.hpp"

namespace memlog::render {

// Draws `requests` (their blocks, then their layers) coloured by `colouring`; returns their plans.
std::vector<FramePlan> drawExport(const timeline::BlockModel& model, const BlockColouring& colouring,
                                  std::vector<ViewRequest> requests);

// One picture's views over a model without an index: the colouring of the blocks in the
// window, bins and what the views hold by walks, the views by drawExport. The model and sites
// must outlive it.
class ExportViews final : public ViewSource {
public:
    ExportViews(const timeline::BlockModel& model, const timeline::SiteIndex* sites) : m_model(model), m_sites(sites) {}

    const BlockColouring& colouring(timeline::XAxis axis, ColourBy by, timeline::XWindow window) override;
    const timeline::Bins& bins(timeline::BinKind kind) override;
    std::vector<timeline::ViewContents> contents(const timeline::ViewsQuery& query) override;
    const AddressScale& wholeScale(double height) override;
    void newFrame() override {}
    std::vector<FramePlan> drawViews(std::vector<ViewRequest> requests) override;
    std::optional<FramePlan> drawWhole(const ViewRequest& request) override;

private:
    const timeline::BlockModel& m_model;
    const timeline::SiteIndex* m_sites;
    timeline::XAxis m_axis = timeline::XAxis::Time;
    BlockColouring m_colouring;
    std::optional<timeline::Bins> m_bins;
    std::optional<AddressScale> m_wholeScale;
};

}  // namespace memlog::render

// What a Report draws from, one interface for the window and the export: the colours of the
// blocks, the correlated views' bins, what each view holds (its address ranges and occupancy,
// timeline::viewContents), the whole log's address scale, and the views' pictures with their
// plans. The window's is its FrameContext (an index and caches kept between frames); an
// export's is ExportViews (walks over the blocks, export_frame.hpp).
#pragma once

#include <optional>
#include <vector>

#include "render/frame/frame_plan.hpp"
#include "render/raster/address_scale.hpp"
#include "render/raster/block_colouring.hpp"
#include "timeline/model/bins.hpp"
#include "timeline/model/view_contents.hpp"

namespace memlog::render {

class ViewSource {
public:
    virtual ~ViewSource() = default;

    // Made ready for views on `axis` coloured `by`, its colouring: of the blocks in `window`
    // (an export), or of the whole log (the window, so that colours stay put as it zooms).
    virtual const BlockColouring& colouring(timeline::XAxis axis, ColourBy by, timeline::XWindow window) = 0;
    // The bins of `kind` on the axis colouring() made ready.
    virtual const timeline::Bins& bins(timeline::BinKind kind) = 0;
    // What each view of `query` holds (its bins, if any, are those bins() gave).
    virtual std::vector<timeline::ViewContents> contents(const timeline::ViewsQuery& query) = 0;
    // The whole log's address scale (every range) for a view `height` pixels tall.
    virtual const AddressScale& wholeScale(double height) = 0;

    // A frame begins (a Report's paint()).
    virtual void newFrame() = 0;
    // Draws the views' blocks, then their layers; their plans, in order.
    virtual std::vector<FramePlan> drawViews(std::vector<ViewRequest> requests) = 0;
    // The whole log's view (the context view) for `request`; none when the frame was given up.
    virtual std::optional<FramePlan> drawWhole(const ViewRequest& request) = 0;
};

}  // namespace memlog::render

// A frame is planned before it is drawn: for each view, what it shows, how much it folds and
// whether that makes it a draft, decided in one place (DraftPolicy) and then only carried out.
// A plan is a plain value: the view cache is keyed by it and --trace prints it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "render/raster/block_view.hpp"
#include "render/raster/view_layer.hpp"

namespace memlog::render {

// What a view draws under its layers. New kinds of views (a cache's lines) come in as new kinds
// and layers: folding and drafts are about blocks only. ArrayCells: one plane of an array's
// cells (frame/array_plan), never folded, never a draft.
enum class PlanKind : uint8_t { Blocks, ArrayCells };

// Everything a view's pixels (before its layers) depend on: equal keys, equal pixels.
struct PlanKey {
    PlanKind m_kind = PlanKind::Blocks;
    timeline::XAxis m_axis = timeline::XAxis::Time;
    timeline::XWindow m_window{};
    std::vector<AddressScale::Band> m_bands;
    int m_binKind = -1, m_bin = -1;  // -1: no bins
    double m_alpha = 0, m_foldPixels = 0;  // 0: exact
    CushionStyle m_cushion = CushionStyle::Plateau;
    uint64_t m_generation = 0;  // the colours' and the index's (FrameContext)
    int m_width = 0, m_height = 0;
    bool operator==(const PlanKey&) const = default;
    // Whether a picture drawn for `drawn` serves this key: equal, but for a cushion style no
    // block of that picture was big enough to show, and, when `lookMayLag`, for the alpha, the
    // cushion style and the fold (the context view while the alpha slider is dragged).
    bool servedBy(const PlanKey& drawn, bool cushionShows, bool lookMayLag = false) const;
};

// What the caller asks of a view.
struct ViewRequest {
    ViewSpec m_spec;
    PixelBuffer m_target;
    bool m_levelOfDetail = false;  // fold what a pixel cannot tell apart
    bool m_mayDraft = false;  // fold more when the view holds too many blocks to draw in time
    bool m_mayLag = false;  // a picture of another alpha or cushion style will do
    std::vector<const ViewLayer*> m_layers;  // drawn over the blocks, in this order
};

// What will be drawn.
struct FramePlan {
    ViewRequest m_request;
    double m_foldPixels = 0;  // index nodes at most this many pixels both ways drawn as one; 0: none
    double m_lateFoldPixels = 0;  // the same once the frame runs late (equal: it cannot be late)
    bool m_draft = false;  // folds more than level of detail: drawn exactly when input pauses
    PlanKey m_key;
    size_t m_layerCount = 0;  // the request's layers, which live only while the frame is drawn
    // "name.fold=8 name.late_fold=8 name.draft=1 ..." for --trace.
    std::string describe(const std::string& name) const;
    // What is kept of a plan once its frame is drawn: its layers are gone.
    FramePlan drawn() && {
        m_layerCount = m_request.m_layers.size();
        m_request.m_layers.clear();
        m_request.m_target = {};
        return std::move(*this);
    }
};

// The key of `spec` drawn into `width` x `height` pixels folding `foldPixels`.
PlanKey planKey(const ViewSpec& spec, int width, int height, double foldPixels, uint64_t generation);

// Draws a plan's layers over its target; with `giveWay`, false when a layer gave way to it.
inline bool drawLayers(const FramePlan& plan, const std::function<bool()>& giveWay = {}) {
    for (const ViewLayer* layer : plan.m_request.m_layers) {
        if (!giveWay)
            layer->draw(plan.m_request.m_spec, plan.m_request.m_target);
        else if (!layer->drawGivingWay(plan.m_request.m_spec, plan.m_request.m_target, giveWay))
            return false;
    }
    return true;
}

}  // namespace memlog::render

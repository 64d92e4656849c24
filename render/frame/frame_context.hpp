// What the window keeps between frames, so that a frame costs what is in view rather than the
// size of the log: the model's index (per x axis), the colours of each block and each folded
// index node (per colouring), the bins of correlated views, the whole log's address scale, and
// the pictures of recent views (ViewCache). Its draw() carries out the DraftPolicy's plans with
// the TileRenderer. It is the window's ViewSource: a Report given one (ReportOptions::m_frame)
// draws through it. One frame at a time: it is not to be shared between threads (it runs its
// own two).
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <thread>
#include <vector>

#include "render/frame/draft_policy.hpp"
#include "render/frame/frame_plan.hpp"
#include "render/frame/tile_renderer.hpp"
#include "render/frame/view_cache.hpp"
#include "render/frame/view_source.hpp"
#include "render/raster/block_colouring.hpp"
#include "render/raster/tile_raster.hpp"
#include "timeline/model/binned_index.hpp"
#include "timeline/model/bins.hpp"
#include "timeline/model/model_index.hpp"

namespace memlog::render {

class FrameContext final : public ViewSource {
public:
    // The model and sites must outlive the context. Nothing is built until prepare().
    FrameContext(const timeline::BlockModel& model, const timeline::SiteIndex* sites);
    ~FrameContext() override;
    FrameContext(const FrameContext&) = delete;
    FrameContext& operator=(const FrameContext&) = delete;

    // How views are drawn: exactly, with level of detail, or as drafts (the window sets it up).
    DraftPolicy& policy() { return m_policy; }
    const DraftPolicy& policy() const { return m_policy; }
    // Asked while views are drawn, from the calling thread, before the first tile and then
    // every 10 ms or so, whether to give the frame up (the window's exact picture of a draft
    // gives way to input). Once it says yes, nothing more is drawn until newFrame(), and a
    // view given up is not kept (its target holds a part of it). Empty: never asked.
    void setInterrupt(std::function<bool()> interrupt) { m_interrupt = std::move(interrupt); }
    // Since newFrame(): whether drawing was given up, and whether a view or the whole log's
    // picture was a draft (drawn or kept).
    bool interrupted() const { return m_interrupted; }
    bool drewDraft() const { return m_drewDraft; }

    // Makes it ready for frames on `axis` coloured `by` (a Report calls it). The index is built
    // when the axis changes (or mapped, when the log's index file keeps it for that axis:
    // ModelIndex::forModel), the colours when either changes (a pass over the blocks);
    // otherwise this costs nothing. The colouring covers the whole log, so that colours stay
    // put while the window zooms. A built index takes about 59 bytes a block, and some 30 more
    // while it is built. `progress` hears 0..1 while anything is built.
    void prepare(timeline::XAxis axis, ColourBy by, const std::function<void(double)>& progress = {});

    timeline::XAxis axis() const { return m_axis; }
    const timeline::ModelIndex& index() const { return *m_index; }
    const BlockColouring& colouring() const { return m_colouring; }

    // As a Report's ViewSource: prepare() then the colouring (of the whole log, whatever the
    // window); what the views hold, through the index (and the bins', made if need be).
    const BlockColouring& colouring(timeline::XAxis axis, ColourBy by, timeline::XWindow window) override;
    std::vector<timeline::ViewContents> contents(const timeline::ViewsQuery& query) override;

    // Plans the views of one frame (correlated views: one alpha) with the policy, copies those
    // whose pictures are kept, draws the others together (one pass of tiles for all), then
    // every view's layers. Returns what the blocks cost; drawViews(), their plans.
    FrameStats draw(std::vector<ViewRequest> requests);
    std::vector<FramePlan> drawViews(std::vector<ViewRequest> requests) override;
    // The plans of the last draw() and drawWhole(), in order (for --trace).
    const std::vector<FramePlan>& lastPlans() const { return m_lastPlans; }

    // The same without layers, for one view or several.
    FrameStats drawBlocks(const ViewSpec& spec, PixelBuffer target, bool levelOfDetail, bool mayDraft = false);
    struct BlocksJob {
        ViewSpec m_spec;
        PixelBuffer m_target;
    };
    FrameStats drawBlocks(std::span<const BlocksJob> jobs, bool levelOfDetail, bool mayDraft = false);
    // How many pixels a draft of `spec` (`width` wide) folds (DraftPolicy::draftFoldPixels).
    double draftFoldPixels(const ViewSpec& spec, int width) const {
        return m_policy.draftFoldPixels(*m_index, spec, width);
    }
    // A new frame begins (a Report's paint() says so): views of the frame before last go.
    void newFrame() override;
    void forgetViews() { m_cache.forgetRecent(); }  // the next draw() draws

    // The address scale of the whole log (every range) for a view `height` pixels tall, and its
    // picture (`spec`: the whole x extent on that scale): made once per size and settings (a
    // cushion style only if a block is big enough to show one), then copied. `mayLag`: a
    // picture of another alpha or cushion style will do (the window while the alpha slider is
    // dragged: drawing every block of the log at each step of the drag was most of its frame).
    const AddressScale& wholeScale(double height) override;
    // The whole log's picture for `request` (its layers drawn over it): kept until its key
    // changes; with m_mayLag, a picture of another alpha or cushion style serves.
    // Its plan; none when the frame was given up.
    std::optional<FramePlan> drawWhole(const ViewRequest& request) override;

    // What the last drawBlocks() cost (nothing drawn when it copied a kept view), and whether
    // it gave a draft (drawn or kept).
    const FrameStats& lastStats() const { return m_lastStats; }
    // What every view drawn since newFrame() drew (views kept from before count nothing).
    const FrameStats& frameStats() const { return m_frameStats; }

    // Correlated views: the bins of `kind` over the whole log (made once per axis and kind,
    // as the colours are) and the bin of each block by its position in the index's order
    // (kNoBin: none). drawBlocks() draws one bin's blocks when its spec has bins of a kind
    // made here, folding only as a draft (a node's summary mixes bins: a draft folds nodes
    // above the leaves by their own bin's summaries).
    static constexpr uint8_t kNoBin = timeline::BinnedIndex::kNoBin;
    // Whether the bins of `kind` are made for the prepared axis and colouring; prepareBins()
    // makes them (the ones before go), telling `progress` as prepare() does: 1.8 s for ten
    // million blocks (a window does it behind its progress bar). About 30 bytes a block in all
    // (a process of ten million blocks grew by 294 MB with eight bins).
    bool binsReady(timeline::BinKind kind) const;
    void prepareBins(timeline::BinKind kind, const std::function<void(double)>& progress = {});
    const timeline::Bins& bins(timeline::BinKind kind) override;
    const timeline::HugeVector<uint8_t>& itemBins(timeline::BinKind kind);
    // Each bin's blocks with sorted ends and node hulls of their own, made with the bins: a
    // bin's occupancy and address ranges over every address without a pass over its blocks
    // (ModelIndex::Groups).
    const timeline::ModelIndex::Groups& binGroups(timeline::BinKind kind);

private:
    void buildColours();
    void summariseLeavesForDrafts();
    DraftPolicy::IndexFacts factsFor(const ViewSpec& spec) const;
    // What the tile raster reads to draw `spec` folding `foldPixels` (0: nothing).
    FrameInputs inputsFor(const ViewSpec& spec, double foldPixels);
    TileJob jobFor(const FramePlan& plan);

    const timeline::BlockModel& m_model;
    const timeline::SiteIndex* m_sites;
    DraftPolicy m_policy;
    std::function<bool()> m_interrupt;
    timeline::XAxis m_axis = timeline::XAxis::Time;
    ColourBy m_colourBy = ColourBy::Site;
    std::unique_ptr<timeline::ModelIndex> m_index;
    BlockColouring m_colouring;
    FrameColours m_colours;
    NodeSummaries m_summaries;
    // A draft's node colours, made at one alpha whatever the view's: a draft after a new
    // alpha would otherwise summarise every node in view again.
    NodeSummaries m_draftSummaries;
    static constexpr double kDraftSummaryAlpha = 0.5;
    uint64_t m_generation = 0;  // grows whenever the index or the colours change
    TileRenderer m_renderer;
    ViewCache m_cache;
    std::vector<FramePlan> m_lastPlans;
    FrameStats m_lastStats;
    FrameStats m_frameStats;
    bool m_interrupted = false, m_drewDraft = false;

    struct BinCache {
        timeline::BinKind m_kind = timeline::BinKind::Size;
        uint64_t m_generation = 0;  // 0: nothing made
        timeline::BinnedIndex m_binned;
        // For drafts of the bins' views: made when the log has more than m_draftAbove blocks.
        BinSummaries m_draftSummaries;
    } m_binCache;
    BinCache& binCache(timeline::BinKind kind);

    struct WholeScale {
        double m_height = -1;
        uint64_t m_generation = 0;
        AddressScale m_scale;
    } m_wholeScale;
};

}  // namespace memlog::render

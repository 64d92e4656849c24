// What the window keeps between frames, so that a frame costs what is in view rather than the
// size of the log: the model's index (per x axis), the colouring with each block's and each
// index node's colour (per colouring), the whole log's address scale and picture (the report's
// context view), and the rasteriser's buffers. A Report given one (ReportOptions::m_frame)
// draws through it; ReportOptions::m_levelOfDetail lets it fold what is smaller than a pixel.
// One frame at a time: it is not to be shared between threads (it runs its own two).
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <thread>
#include <vector>

#include "render/raster/block_colouring.hpp"
#include "render/raster/tile_raster.hpp"
#include "render/frame/other_core.hpp"
#include "timeline/bins.hpp"
#include "timeline/model_index.hpp"

namespace memlog::render {

class FrameContext {
public:
    // The model and sites must outlive the context. Nothing is built until prepare().
    FrameContext(const timeline::BlockModel& model, const timeline::SiteIndex* sites);
    ~FrameContext();
    FrameContext(const FrameContext&) = delete;
    FrameContext& operator=(const FrameContext&) = delete;

    // Level of detail: an index node whose box is at most this many pixels both ways is drawn
    // as one summary of its blocks. 1: what a pixel cannot tell apart anyway.
    double m_foldPixels = 1.0;
    // Drafts: a view with more blocks than this in its window, asked for `mayDraft`, is drawn
    // folding nodes of about the index's leaves' size in pixels (see draftFoldPixels), in a
    // fraction of the time, unless its exact picture is kept; the window then draws it exactly
    // once input pauses. 0: never. At 30 to 40 ms a million blocks (docs/BENCHMARKS.md), more
    // than 1.5 million blocks would not be drawn in 50 ms. With more blocks than this in the
    // log (or than DraftBudget::kDraftsFrom, when fewer: see m_draftLimit), prepare() makes
    // the colours of the index's leaves for drafts (the nodes a draft of the whole log folds:
    // 0.35 s at ten million blocks, which the first draft spent otherwise, with the window
    // waiting), and prepareBins() what each node above the leaves holds of each bin
    // (BinSummaries: correlated views' drafts).
    static constexpr size_t kDraftAbove = 1'500'000;
    size_t m_draftAbove = kDraftAbove;
    // Set by the window for the frames to come, from how fast exact frames were painted
    // (DraftBudget): views of more blocks than this are drafts too. 0: m_draftAbove alone. So
    // that it may go below m_draftAbove, the drafts' summaries are prepared for logs of more
    // than DraftBudget::kDraftsFrom blocks.
    size_t m_draftLimit = 0;
    // A frame that runs late finishes as a draft: once its tiles have taken m_lateAfterMs, or
    // those done so far (a quarter at least) say all would take more than m_lateProjectedMs,
    // the tiles still to draw of views asked for `mayDraft` fold as their drafts would
    // (draftFoldPixels), and those views are drafts, drawn exactly once input pauses. Why: an
    // exact frame of a million blocks paints in 27 to 30 ms on two cores, about 50 on one,
    // and the host of this project's virtual machine takes a core away for a frame now and
    // then (docs/BENCHMARKS.md). Views of a log too small for drafts are never late. Never
    // late by default: the window sets DraftBudget's times, so that nothing else depends on
    // how fast the machine happens to be.
    static constexpr double kNeverLate = std::numeric_limits<double>::infinity();
    double m_lateAfterMs = kNeverLate;
    double m_lateProjectedMs = kNeverLate;
    // Asked while views are drawn, from the calling thread, before the first tile and then
    // every 10 ms or so, whether to give the frame up (the window's exact picture of a draft
    // gives way to input). Once it says yes, nothing more is drawn until newFrame(), and a
    // view given up is not kept (its target holds a part of it). Empty: never asked.
    std::function<bool()> m_interrupt;
    // Since newFrame(): whether drawing was given up, and whether a view or the whole log's
    // picture was a draft (drawn or kept).
    bool interrupted() const { return m_interrupted; }
    bool drewDraft() const { return m_drewDraft; }

    // Makes it ready for frames on `axis` coloured `by` (a Report calls it). The index is built
    // when the axis changes (0.25 s for a million blocks, 3 s for ten million), the colours
    // when either changes (a pass over the blocks); otherwise this costs nothing. The colouring
    // covers the whole log, so that colours stay put while the window zooms. The colour of a
    // folded index node is made when a frame first folds it at an alpha (NodeSummaries).
    // About 53 bytes a block (32 of them the index's copy of the blocks' boxes), and some 30
    // more while the index is built.
    // `progress` hears 0..1 while anything is built (a window may call this itself, with a
    // progress bar, before its first frame).
    void prepare(timeline::XAxis axis, ColourBy by, const std::function<void(double)>& progress = {});

    timeline::XAxis axis() const { return m_axis; }
    const timeline::ModelIndex& index() const { return *m_index; }
    const BlockColouring& colouring() const { return m_colouring; }

    // Fills `target` with the blocks of `spec` (its axis the prepared one), as drawBlocks
    // does: split in tiles, drawn by two threads. With `levelOfDetail`, nodes of at most
    // m_foldPixels are folded. A view drawn in this frame or the one before with nothing
    // about it changed (only an overlay: access samples, cursors; or the cushion style, where
    // no block is big enough for a cushion) is copied from there.
    FrameStats drawBlocks(const ViewSpec& spec, PixelBuffer target, bool levelOfDetail, bool mayDraft = false);
    // The blocks of several views of one frame (correlated views: one alpha), each as above,
    // drawn together: see draw().
    struct BlocksJob {
        ViewSpec m_spec;
        PixelBuffer m_target;
    };
    FrameStats drawBlocks(std::span<const BlocksJob> jobs, bool levelOfDetail, bool mayDraft = false);
    // How many pixels a draft of `spec` (`width` wide) folds: three times the typical leaf's
    // width or height in pixels (for a bin's view, 1.5 times the typical node above the
    // leaves: at 8 pixels, the whole 10 M log zoomed in by 1.25 drew 5.6 million blocks of
    // leaves one by one in its correlated views), at least kDraftFoldAtLeast, at most 32. The floor bounds a
    // draft's work by the screen rather than the log: the whole of a log of ten million blocks
    // at 1600x1000 has leaves 1.3 x 1.6 pixels, and folded at 4.7 (three leaves) took 45 ms
    // (memtimeline-frame-bench --drafts), 35 at 6, 20 at 7, 17.5 at 8 (off by 8.7 levels of
    // 255 on average from the exact picture, against 4.9 at 4.7), 15.5 at 16.
    static constexpr double kDraftFoldAtLeast = 8;
    double draftFoldPixels(const ViewSpec& spec, int width) const;
    // A new frame begins (a Report's paint() says so): views of the frame before last go.
    void newFrame();
    void forgetViews() { m_keptViews.clear(); }  // the next drawBlocks() draws

    // The address scale of the whole log (every range) for a view `height` pixels tall, and its
    // picture (`spec`: the whole x extent on that scale): made once per size and settings (a
    // cushion style only if a block is big enough to show one), then copied. `mayLag`: a
    // picture of another alpha or cushion style will do (the window while the alpha slider is
    // dragged: drawing every block of the log at each step of the drag was most of its frame).
    const AddressScale& wholeScale(double height);
    // `mayDraft`: as drawBlocks has it (the whole log holds every block).
    void drawWhole(const ViewSpec& spec, PixelBuffer target, bool levelOfDetail, bool mayLag = false, bool mayDraft = false);

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
    static constexpr uint8_t kNoBin = UINT8_MAX;
    // Whether the bins of `kind` are made for the prepared axis and colouring; prepareBins()
    // makes them (the ones before go), telling `progress` as prepare() does: 1.8 s for ten
    // million blocks (a window does it behind its progress bar). About 30 bytes a block in all
    // (a process of ten million blocks grew by 294 MB with eight bins).
    bool binsReady(timeline::BinKind kind) const;
    void prepareBins(timeline::BinKind kind, const std::function<void(double)>& progress = {});
    const timeline::Bins& bins(timeline::BinKind kind);
    const timeline::HugeVector<uint8_t>& itemBins(timeline::BinKind kind);
    // Each bin's blocks with sorted ends and node hulls of their own, made with the bins: a
    // bin's occupancy and address ranges over every address without a pass over its blocks
    // (ModelIndex::Groups).
    const timeline::ModelIndex::Groups& binGroups(timeline::BinKind kind);

    // Every block whose leaf meets `box`, as visit(part, position in the index's order, model
    // index), on two threads: part 0 gets the first half of the leaves, part 1 the rest. For
    // what a summary of a node cannot serve, such as one bin's occupancy; the caller tests
    // each block.
    template <typename Visit>
    void forEachNear(const timeline::IndexBox& box, Visit&& visit) const {
        const timeline::ModelIndex::Leaves leaves = m_index->leavesMeeting(box, [](const timeline::BlockIndex::Node&) { return false; });
        auto visitPart = [&](int part, size_t from, size_t to) {
            m_index->forEachInLeaves(leaves, from, to, [&](size_t position, uint32_t index) { visit(part, position, index); });
        };
        const size_t half = leaves.size() / 2;
        std::jthread second = startOnOtherCore(visitPart, 1, half, leaves.size());
        visitPart(0, 0, half);
    }

private:
    void buildColours();
    void summariseLeavesForDrafts();
    // The fold of a view drawn exactly or with level of detail (correlated views fold only as
    // drafts: draftFold).
    double foldPixels(const ViewSpec& spec, bool levelOfDetail) const { return levelOfDetail && !spec.m_bins ? m_foldPixels : 0; }
    FrameInputs inputsFor(const ViewSpec& spec, double foldPixels);
    // A FrameStats a job; each job folds nodes of at most folds[job] pixels (0: none), drafts
    // (more than m_foldPixels) with summaries of their own. Once the frame runs late (see
    // m_lateAfterMs), lateFolds[job] instead (empty: as folds).
    std::vector<FrameStats> draw(std::span<const BlocksJob> jobs, std::span<const double> folds,
                                 std::span<const double> lateFolds = {});
    // Whether a frame that started at `started` and has drawn `done` of `tiles` tiles runs late.
    bool runningLate(std::chrono::steady_clock::time_point started, size_t done, size_t tiles) const;
    static constexpr size_t kTileBytes = 1 << 20;
    static std::vector<Tile> tilesOf(int width, int height, bool categorical);

    const timeline::BlockModel& m_model;
    const timeline::SiteIndex* m_sites;
    timeline::XAxis m_axis = timeline::XAxis::Time;
    ColourBy m_colourBy = ColourBy::Site;
    std::unique_ptr<timeline::ModelIndex> m_index;
    BlockColouring m_colouring;
    FrameColours m_colours;
    NodeSummaries m_summaries;
    // A draft's node colours, made at one alpha whatever the view's: a draft after a new
    // alpha would otherwise summarise every node in view again (140 ms at ten million blocks).
    NodeSummaries m_draftSummaries;
    static constexpr double kDraftSummaryAlpha = 0.5;
    uint64_t m_generation = 0;  // grows whenever the index or the colours change
    TileRaster m_rasters[2];  // one a thread
    FrameStats m_lastStats;
    FrameStats m_frameStats;
    // The most blocks a view may hold and be exact (m_draftAbove, lowered by m_draftLimit).
    size_t draftAbove() const { return m_draftLimit ? std::min(m_draftLimit, m_draftAbove) : m_draftAbove; }
    // Whether a log of `blocks` blocks may have drafts: their summaries are prepared.
    bool mayHaveDrafts(size_t blocks) const;

    // The blocks' pixels of recent views, before any overlay, and what they were drawn from.
    struct ViewKey {
        timeline::XAxis m_axis;
        timeline::XWindow m_window;
        std::vector<AddressScale::Band> m_bands;
        int m_binKind, m_bin;  // -1: no bins
        double m_alpha, m_foldPixels;  // 0: exact
        CushionStyle m_cushion;
        uint64_t m_generation;
        int m_width, m_height;
        bool operator==(const ViewKey&) const = default;
        // Whether a picture drawn for `drawn` serves this key: equal, but for a cushion style
        // that no block of that picture was big enough to show (FrameStats::m_cushionable),
        // and, when `lookMayLag`, for any alpha and cushion style, and a draft.
        bool servedBy(const ViewKey& drawn, bool cushionShows, bool lookMayLag = false) const {
            ViewKey same = *this;
            if (!cushionShows || lookMayLag) same.m_cushion = drawn.m_cushion;
            if (lookMayLag) {
                same.m_alpha = drawn.m_alpha;
                same.m_foldPixels = drawn.m_foldPixels;
            }
            return same == drawn;
        }
    };
    struct KeptView {
        ViewKey m_key;
        uint64_t m_frame = 0;  // the last frame that drew or copied it
        bool m_cushionShows = true;
        bool m_draft = false;
        std::vector<uint32_t> m_pixels;
        PixelBuffer pixels() { return {m_pixels.data(), m_key.m_width, m_key.m_height, m_key.m_width}; }
    };
    static constexpr size_t kKeptViews = timeline::Bins::kMaxBins + 1;  // every correlated view, or the main one
    std::vector<KeptView> m_keptViews;  // the most recent last
    uint64_t m_frameNumber = 0;
    bool m_interrupted = false, m_drewDraft = false;
    ViewKey keyOf(const ViewSpec& spec, PixelBuffer target, double foldPixels) const;
    std::vector<KeptView>::iterator keptFor(const ViewKey& key);
    // `fold`, or a draft's (draftFoldPixels) when `spec` may be a draft (callers ask with level
    // of detail only): more than m_draftAbove blocks on its rows, and for a bin's view, the
    // bins' summaries at hand (BinCache::m_draftSummaries).
    double draftFold(const ViewSpec& spec, int width, double fold) const;
    // The fold of `spec` as a draft, whatever its blocks: `fold` when it may not be one (no
    // drafts, a log too small for them, a bin's view without the bins' summaries).
    double foldAsDraft(const ViewSpec& spec, int width, double fold) const;

    struct BinCache {
        timeline::BinKind m_kind = timeline::BinKind::Size;
        uint64_t m_generation = 0;  // 0: nothing made
        timeline::Bins m_bins;
        timeline::HugeVector<uint8_t> m_itemBin;
        timeline::HugeVector<uint32_t> m_binPositions;  // the positions of bin 0's blocks, bin 1's, ...: each ascending
        std::vector<size_t> m_binStarts;       // where each bin's begin there (and one past the last)
        std::vector<uint8_t> m_nodeBins;  // per index node, a bit for each bin with a block under it
        timeline::ModelIndex::Groups m_groups;  // a group a bin
        // For drafts of the bins' views: made when the log has more than m_draftAbove blocks.
        BinSummaries m_draftSummaries;
        static_assert(timeline::Bins::kMaxBins <= 8, "a bin's bit in a byte");
    } m_binCache;
    BinCache& binCache(timeline::BinKind kind);

    struct WholeScale {
        double m_height = -1;
        uint64_t m_generation = 0;
        AddressScale m_scale;
    } m_wholeScale;
    struct WholePicture {
        ViewKey m_key{};
        bool m_cushionShows = true;  // as KeptView's
        bool m_draft = false;
        std::vector<uint32_t> m_pixels;  // empty: none drawn yet
    } m_wholePictures[2];  // exact, and with level of detail
};

}  // namespace memlog::render

// The one place that decides how a view is drawn: exactly, folding what a pixel cannot tell
// apart (level of detail), or as a draft that folds more because the view holds more blocks
// than a frame can draw in time (--draft-above, lowered while the machine paints slowly:
// DraftBudget); and whether a frame that runs late finishes its views as drafts. Everything
// else (the frame context, the report, the window) carries out the plans it makes.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <limits>

#include "render/frame/draft_budget.hpp"
#include "render/frame/frame_plan.hpp"
#include "timeline/model/access_summary.hpp"
#include "timeline/model/model_index.hpp"

namespace memlog::render {

class DraftPolicy {
public:
    // Views of more blocks are drafts unless --draft-above says otherwise: a million blocks
    // paint in 30 to 40 ms here (docs/BENCHMARKS.md), 1.5 million would not fit in 50.
    static constexpr size_t kDraftAbove = 1'500'000;
    // Level of detail folds nodes of at most a pixel: what a pixel cannot tell apart anyway.
    static constexpr double kLevelOfDetailFold = 1.0;
    // A draft folds nodes of at least this many pixels: its work is bounded by the screen,
    // not by the log (docs/BENCHMARKS.md: drafts fold at 8 pixels at least). At most 32 for
    // leaves of the typical size; more where the leaves it would open hold more than
    // draftAbove() blocks (withinLimit).
    static constexpr double kDraftFoldAtLeast = 8;
    static constexpr double kDraftFoldAtMost = 32;
    static constexpr double kNeverLate = std::numeric_limits<double>::infinity();
    // A view's access samples are drawn from their summary (timeline/model/access_summary) when it
    // holds more of them: a frame draws about this many one by one in its time (23 ns a sample
    // here, docs/BENCHMARKS.md), and the exact picture follows once input pauses. The summary is
    // made from as many on: the same number, so that a view that should be drafted has one.
    static constexpr size_t kAccessDraftAbove = timeline::AccessSummary::kWorthFrom;

    // `ceiling`: the most blocks a view may hold and be exact; 0: no drafts.
    explicit DraftPolicy(size_t ceiling = kDraftAbove) : m_ceiling(ceiling), m_budget(ceiling) {}

    void setCeiling(size_t ceiling) {
        m_ceiling = ceiling;
        m_budget = DraftBudget(ceiling);
    }
    size_t ceiling() const { return m_ceiling; }
    // The window: views become drafts below the ceiling while exact frames paint slowly
    // (exactFrame tells how fast they did), and frames that run late finish as drafts.
    void followMachineSpeed() {
        m_followsMachine = true;
        setLateAfter(DraftBudget::kLateAfterMs, DraftBudget::kLateProjectedMs);
    }
    void exactFrame(size_t blocks, double paintMs) { m_budget.exactFrame(blocks, paintMs); }
    // A frame runs late once its tiles have taken `afterMs`, or those done so far (a quarter
    // at least) say all would take more than `projectedMs`. kNeverLate: never.
    void setLateAfter(double afterMs, double projectedMs) {
        m_lateAfterMs = afterMs;
        m_lateProjectedMs = projectedMs;
    }
    double lateAfterMs() const { return m_lateAfterMs; }
    double lateProjectedMs() const { return m_lateProjectedMs; }

    // The most blocks a view may hold and be exact now.
    size_t draftAbove() const { return m_followsMachine ? m_budget.draftAbove() : m_ceiling; }
    // Whether a log of `blocks` blocks may have drafts at all (their summaries are then made
    // when the log is prepared).
    bool mayHaveDrafts(size_t blocks) const {
        return m_ceiling && blocks > std::min(m_ceiling, DraftBudget::kDraftsFrom);
    }

    // What the index tells about a view's blocks.
    struct IndexFacts {
        const timeline::ModelIndex* m_index = nullptr;
        bool m_binDraftsReady = false;  // for a bin's view: the bins' draft summaries are made
        uint64_t m_generation = 0;
        bool m_categorical = false;  // colours by category: the tiles' size (TileRenderer::tiles)
    };
    // The plan of `request` drawn from an index. `kept`: whether a picture of a key is at hand
    // (a view is a draft only when its exact picture is not).
    FramePlan plan(ViewRequest request, const IndexFacts& facts, const std::function<bool(const PlanKey&)>& kept) const;
    // The plan of an export: every block, nothing folded, never late.
    static FramePlan exact(ViewRequest request);

    // How many pixels a draft of `spec`, `width` wide, folds: three times the typical leaf's
    // width or height in pixels (a bin's view: 1.5 times the typical node above the leaves,
    // since it folds no leaf), between kDraftFoldAtLeast and kDraftFoldAtMost.
    double draftFoldPixels(const timeline::ModelIndex& index, const ViewSpec& spec, int width) const;
    // Whether a frame that started at `started` with `done` of `tiles` tiles drawn runs late.
    bool runningLate(std::chrono::steady_clock::time_point started, size_t done, size_t tiles) const;

private:
    double levelOfDetailFold(const ViewRequest& request) const {
        // A node's colour mixes bins: a bin's view folds only as a draft, from its own summaries.
        return request.m_levelOfDetail && !request.m_spec.m_bins ? kLevelOfDetailFold : 0;
    }
    // `fold`, or a draft's when the log may have drafts and a bin's view has its summaries.
    double foldAsDraft(const ViewRequest& request, const IndexFacts& facts, double fold) const;
    // `fold` doubled until the leaves a draft opens hold at most draftAbove() blocks.
    double withinLimit(const timeline::ModelIndex& index, const ViewRequest& request, bool categorical,
                       double fold) const;
    // Whether the view holds more than draftAbove() blocks.
    bool overLimit(const ViewRequest& request, const IndexFacts& facts) const;

    size_t m_ceiling;
    DraftBudget m_budget;
    bool m_followsMachine = false;
    double m_lateAfterMs = kNeverLate, m_lateProjectedMs = kNeverLate;
};

}  // namespace memlog::render

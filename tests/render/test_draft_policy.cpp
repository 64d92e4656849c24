// The draft policy plans each view: exact, level of detail (a pixel), or a draft when the view
// holds more blocks than the limit and its exact picture is not kept; what a late frame folds;
// and the limit following how fast exact frames painted.
#include <catch2/catch.hpp>

#include <cmath>

#include "frame_views.hpp"
#include "render/frame/draft_policy.hpp"

using namespace memlog;
using render::ColourBy;
using render::DraftBudget;
using render::DraftPolicy;
using render::FramePlan;
using render::PlanKey;
using render::ViewRequest;
using timeline::XAxis;

namespace {

struct Planned {
    timeline::BlockModel m_model = test::randomHeap(30'000, 400);
    render::FrameContext m_frame{m_model, nullptr};
    std::vector<uint32_t> m_pixels = std::vector<uint32_t>(500 * 300);
    std::unique_ptr<test::FrameView> m_view;
    size_t m_inView = 0;
    // A view of the first `share` of the log's time.
    explicit Planned(double share = 1) {
        m_frame.prepare(XAxis::Time, ColourBy::Size);
        timeline::XWindow window = m_model.extent(XAxis::Time);
        window.m_to = window.m_from + static_cast<uint64_t>(static_cast<double>(window.width()) * share);
        m_view = std::make_unique<test::FrameView>(m_frame, XAxis::Time, window, 0, UINT64_MAX, 500, 300);
        m_inView = m_frame.index().countIn({window.m_from, window.m_to, 0, UINT64_MAX});
    }
    ViewRequest request(bool levelOfDetail, bool mayDraft) {
        return {m_view->m_spec, {m_pixels.data(), 500, 300, 500}, levelOfDetail, mayDraft, false, {}};
    }
    FramePlan plan(const DraftPolicy& policy, bool levelOfDetail, bool mayDraft, bool exactKept = false) {
        const DraftPolicy::IndexFacts facts{&m_frame.index(), false, 7};
        return policy.plan(request(levelOfDetail, mayDraft), facts,
                           [&](const PlanKey& key) { return exactKept && key.m_foldPixels <= 1; });
    }
};

}  // namespace

TEST_CASE("the draft policy: exact, level of detail, drafts over the limit unless the exact picture is kept") {
    Planned planned;
    DraftPolicy policy(planned.m_inView);  // the view is not above the limit
    FramePlan plan = planned.plan(policy, false, false);
    CHECK(plan.m_foldPixels == 0);
    CHECK_FALSE(plan.m_draft);
    CHECK(plan.m_key.m_generation == 7);
    plan = planned.plan(policy, true, true);
    CHECK(plan.m_foldPixels == DraftPolicy::kLevelOfDetailFold);
    CHECK_FALSE(plan.m_draft);
    CHECK(plan.m_key.m_foldPixels == plan.m_foldPixels);

    policy.setCeiling(planned.m_inView - 1);
    plan = planned.plan(policy, true, true);
    CHECK(plan.m_draft);
    CHECK(plan.m_foldPixels >= DraftPolicy::kDraftFoldAtLeast);
    // The typical leaf's fold, doubled while the leaves it opens hold more than the limit.
    const double typical = planned.m_frame.draftFoldPixels(planned.m_view->m_spec, 500);
    CHECK(typical <= DraftPolicy::kDraftFoldAtMost);
    CHECK(std::exp2(std::round(std::log2(plan.m_foldPixels / typical))) * typical == plan.m_foldPixels);
    CHECK(plan.m_key.m_foldPixels == plan.m_foldPixels);
    CHECK(plan.describe("view0").find("view0.draft=1") != std::string::npos);
    // Asked for no draft (the window's exact redraw), or with the exact picture at hand: exact.
    CHECK_FALSE(planned.plan(policy, true, false).m_draft);
    CHECK_FALSE(planned.plan(policy, true, true, true).m_draft);
    // An export: nothing folds whatever the limit.
    CHECK(DraftPolicy::exact(planned.request(true, true)).m_foldPixels == 0);
    // No drafts at all (--draft-above 0).
    policy.setCeiling(0);
    CHECK_FALSE(planned.plan(policy, true, true).m_draft);
}

TEST_CASE("the draft policy: a late frame folds as a draft would, and the limit follows slow exact frames") {
    Planned planned(0.5);
    REQUIRE(planned.m_model.size() > planned.m_inView);  // drafts are made for this log at this limit
    DraftPolicy policy(planned.m_inView);
    FramePlan plan = planned.plan(policy, true, true);
    CHECK_FALSE(plan.m_draft);  // on time: not above the limit
    CHECK(plan.m_lateFoldPixels >= DraftPolicy::kDraftFoldAtLeast);  // late, it would fold as a draft
    CHECK(planned.plan(policy, true, false).m_lateFoldPixels == DraftPolicy::kLevelOfDetailFold);  // never a draft

    CHECK(policy.lateAfterMs() == DraftPolicy::kNeverLate);
    CHECK_FALSE(policy.runningLate(std::chrono::steady_clock::now() - std::chrono::seconds(10), 1, 2));
    policy.followMachineSpeed();
    CHECK(policy.lateAfterMs() == DraftBudget::kLateAfterMs);
    CHECK(policy.runningLate(std::chrono::steady_clock::now() - std::chrono::seconds(10), 1, 2));
    CHECK_FALSE(policy.runningLate(std::chrono::steady_clock::now(), 1, 2));

    // The limit: --draft-above until exact frames are measured, down to the floor when they
    // paint slowly, back up when they paint fast.
    policy.setCeiling(4'000'000);
    CHECK(policy.draftAbove() == 4'000'000);
    policy.exactFrame(1'000'000, 1000);  // a second for a million blocks
    CHECK(policy.draftAbove() == DraftBudget::kDraftsFrom);
    for (int fast = 0; fast < 10; ++fast) policy.exactFrame(1'000'000, 5);
    CHECK(policy.draftAbove() == 4'000'000);
}

// Drafts that follow the machine's speed (DraftBudget): the limit of blocks drawn exactly in
// answer to input, from how fast exact frames were painted, and the frame context drafting a
// view over that limit though under --draft-above.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "frame_views.hpp"
#include "render/frame/draft_budget.hpp"

using namespace memlog;
using render::ColourBy;
using render::DraftBudget;
using render::DraftPolicy;
using render::FrameContext;
using render::FrameStats;
using test::FrameView;
using test::randomHeap;
using timeline::XAxis;
using timeline::XWindow;

namespace {

bool near(size_t value, size_t expected) {
    return std::llabs(static_cast<long long>(value) - static_cast<long long>(expected)) <= 1;
}

}  // namespace

TEST_CASE(
    "the draft limit is what the last exact frames would paint within the budget, between a floor and --draft-above") {
    DraftBudget budget(1'500'000);
    CHECK(budget.draftAbove() == 1'500'000);  // nothing measured yet
    budget.exactFrame(500'000, 60);  // too few blocks to tell the speed per block
    CHECK(budget.draftAbove() == 1'500'000);
    budget.exactFrame(1'000'000, 30);  // 30 ms a million: 1.17 million in 35 ms
    CHECK(near(budget.draftAbove(), 1'166'666));
    budget.exactFrame(1'000'000, 50);  // half each: 40 ms a million, 875 thousand
    CHECK(near(budget.draftAbove(), 875'000));
    budget.exactFrame(2'000'000, 800);  // 220 ms a million: below the floor
    CHECK(budget.draftAbove() == DraftBudget::kDraftsFrom);
    budget.exactFrame(1'000'000, 20);  // 120 ms a million
    budget.exactFrame(1'000'000, 20);  // 70: two fast frames undo most of a slow one
    CHECK(near(budget.draftAbove(), 500'000));
    budget.exactFrame(1'000'000, 10);  // 40
    budget.exactFrame(1'000'000, 10);  // 25
    budget.exactFrame(1'000'000, 10);  // 17.5: more than --draft-above would fit
    CHECK(budget.draftAbove() == 1'500'000);

    DraftBudget never(0), small(1000);
    never.exactFrame(1'000'000, 500);
    small.exactFrame(1'000'000, 500);
    CHECK(never.draftAbove() == 0);  // no drafts, however slow
    CHECK(small.draftAbove() == 1000);
}

TEST_CASE(
    "a view over the frame's draft limit is a draft though under --draft-above, and frameStats counts what was drawn") {
    const timeline::BlockModel model = randomHeap(800'000, 800);
    REQUIRE(model.size() > DraftBudget::kDraftsFrom);
    FrameContext frame(model, nullptr);
    frame.prepare(XAxis::Time, ColourBy::Size);
    const XWindow extent = model.extent(XAxis::Time);
    const FrameView view(frame, XAxis::Time, extent, 0, UINT64_MAX, 400, 300);
    const size_t inView = frame.index().countIn({extent.m_from, extent.m_to, 0, UINT64_MAX});
    REQUIRE(inView > DraftBudget::kDraftsFrom);
    frame.policy().setCeiling(10 * inView);  // --draft-above far over the view: exact

    FrameStats stats;
    frame.newFrame();
    view.throughFrame(frame, true, &stats, true);
    CHECK_FALSE(stats.m_draft);
    CHECK(stats.m_items >= inView);
    CHECK(frame.frameStats().m_items == stats.m_items);
    frame.newFrame();
    view.throughFrame(frame, true, &stats, true);  // kept: nothing drawn
    CHECK(frame.frameStats().m_items == 0);

    frame.forgetViews();
    // Slow exact frames lower the limit to just under the view: a million blocks in what
    // would paint inView - 1 of them in the budget.
    frame.policy().followMachineSpeed();
    frame.policy().exactFrame(1'000'000, 1e6 * DraftBudget::kPaintBudgetMs / static_cast<double>(inView - 1));
    REQUIRE(frame.policy().draftAbove() < inView);
    frame.newFrame();
    view.throughFrame(frame, true, &stats, true);
    CHECK(stats.m_draft);
    CHECK(stats.m_foldedItems > inView / 2);
    CHECK(frame.frameStats().m_items == stats.m_items);
    frame.forgetViews();
    frame.policy().setCeiling(10 * inView);  // nothing measured since: --draft-above alone
    frame.policy().setLateAfter(DraftPolicy::kNeverLate, DraftPolicy::kNeverLate);
    frame.newFrame();
    view.throughFrame(frame, true, &stats, true);
    CHECK_FALSE(stats.m_draft);
}

// Drafts of views with more blocks than a frame draws exactly (FrameContext::m_draftAbove): when
// a view or the whole log's picture is one, how near it stays to the exact picture, which kept
// picture serves; and a frame given up when asked (FrameContext::m_interrupt).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "frame_views.hpp"
#include "render/frame/draft_budget.hpp"
#include "render/report/report.hpp"

using namespace memlog;
using render::ColourBy;
using render::DraftPolicy;
using render::FrameContext;
using render::FrameStats;
using render::ViewSpec;
using test::FrameView;
using test::Image;
using test::kBackground;
using test::randomHeap;
using test::wholePicture;
using timeline::XAxis;
using timeline::XWindow;

TEST_CASE("a view with more blocks than the draft limit is a draft: folded, close, and never over its exact picture") {
    const timeline::BlockModel model = randomHeap(300'000, 300);
    FrameContext frame(model, nullptr);
    frame.prepare(XAxis::Time, ColourBy::Size);
    const XWindow extent = model.extent(XAxis::Time);
    const FrameView view(frame, XAxis::Time, extent, 0, UINT64_MAX, 400, 300);
    const size_t inView = frame.index().countIn({extent.m_from, extent.m_to, 0, UINT64_MAX});
    REQUIRE(inView > 100'000);
    CHECK(frame.draftFoldPixels(view.m_spec, 400) >= DraftPolicy::kDraftFoldAtLeast);
    // A quarter the size, leaves are a quarter as many pixels, three of which are below the
    // floor: a draft's work is bounded by the screen, however small the leaves.
    const FrameView small(frame, XAxis::Time, extent, 0, UINT64_MAX, 100, 75);
    CHECK(frame.draftFoldPixels(small.m_spec, 100) == DraftPolicy::kDraftFoldAtLeast);

    frame.policy().setCeiling(inView);  // not more than the limit: exact
    FrameStats stats;
    const Image exact = view.throughFrame(frame, true, &stats, true);
    CHECK_FALSE(stats.m_draft);
    frame.forgetViews();
    frame.policy().setCeiling(inView - 1);
    const Image draft = view.throughFrame(frame, true, &stats, true);
    INFO(stats.m_foldedItems << " of " << inView << " blocks folded, " << stats.m_items << " drawn one by one, fold "
                             << frame.draftFoldPixels(view.m_spec, 400));
    CHECK(stats.m_draft);
    CHECK(stats.m_foldedItems > inView * 9 / 10);
    // Near the exact picture where it can be: pixel by pixel this heap is noise, which a draft
    // averages, so squares of 20 x 20 pixels are compared, channel by channel. A draft of it
    // folds at 14 pixels and is paler, by 15 to 35 levels of 255 (equation 1 is not linear in
    // coverage, and spread evenly, the background outweighs more). And nothing the exact
    // picture shows is missing: a folded node spreads over its box, which holds all its blocks.
    CHECK(draft.m_pixels != exact.m_pixels);
    const double worstSquare = test::worstSquareDifference(exact, draft);
    size_t lost = 0;
    for (size_t i = 0; i < exact.m_pixels.size(); ++i)
        lost += exact.m_pixels[i] != kBackground && draft.m_pixels[i] == kBackground;
    INFO("the worst square's mean differs by " << worstSquare << " levels of 255");
    CHECK(worstSquare <= 40);
    CHECK(lost == 0);
    // Kept, a draft is copied and still said to be one; once the exact picture is drawn (not
    // allowed a draft), a request that allows one gets the exact picture.
    CHECK(view.throughFrame(frame, true, &stats, true).m_pixels == draft.m_pixels);
    CHECK(stats.m_draft);
    CHECK(stats.m_items == 0);
    CHECK(view.throughFrame(frame, true, &stats, false).m_pixels == exact.m_pixels);
    CHECK_FALSE(stats.m_draft);
    CHECK(view.throughFrame(frame, true, &stats, true).m_pixels == exact.m_pixels);
    CHECK_FALSE(stats.m_draft);
    // No limit: never a draft.
    frame.forgetViews();
    frame.policy().setCeiling(0);
    CHECK(view.throughFrame(frame, true, &stats, true).m_pixels == exact.m_pixels);
    CHECK_FALSE(stats.m_draft);
}

TEST_CASE("the whole log's picture is a draft only above the limit, and a draft serves while it may lag") {
    const timeline::BlockModel model = randomHeap(100'000, 200);
    FrameContext frame(model, nullptr), fresh(model, nullptr);
    frame.prepare(XAxis::Time, ColourBy::Size);
    fresh.prepare(XAxis::Time, ColourBy::Size);
    const ViewSpec whole = FrameView(frame, XAxis::Time, model.extent(XAxis::Time), 0, UINT64_MAX, 120, 300).m_spec;
    const std::vector<uint32_t> exact = wholePicture(fresh, whole, 120, 300, true);
    frame.policy().setCeiling(model.size());  // not above: exact
    frame.newFrame();
    CHECK(wholePicture(frame, whole, 120, 300, true, false, true) == exact);
    CHECK_FALSE(frame.drewDraft());
    frame.policy().setCeiling(model.size() - 1);
    frame.newFrame();
    CHECK(wholePicture(frame, whole, 120, 300, true, false, true) == exact);  // the exact one is at hand
    CHECK_FALSE(frame.drewDraft());
    ViewSpec other = whole;
    other.m_alpha = 0.7;  // a new alpha: not at hand, so a draft
    frame.newFrame();
    const std::vector<uint32_t> draft = wholePicture(frame, other, 120, 300, true, false, true);
    CHECK(frame.drewDraft());
    CHECK(draft != wholePicture(fresh, other, 120, 300, true));
    frame.newFrame();
    CHECK(wholePicture(frame, whole, 120, 300, true, true) == draft);  // lagging, the draft will do
    CHECK(frame.drewDraft());
    frame.newFrame();
    CHECK(wholePicture(frame, other, 120, 300, true) == wholePicture(fresh, other, 120, 300, true));
    CHECK_FALSE(frame.drewDraft());
}

TEST_CASE("a frame given up when asked is neither kept nor counted, and the next one draws") {
    const timeline::BlockModel model = randomHeap(50'000, 200);
    FrameContext frame(model, nullptr);
    frame.prepare(XAxis::Time, ColourBy::Size);
    const FrameView view(frame, XAxis::Time, model.extent(XAxis::Time), 0, UINT64_MAX, 400, 300);
    int asked = 0;
    frame.setInterrupt([&] { return ++asked > 0; });
    frame.newFrame();
    FrameStats stats;
    view.throughFrame(frame, true, &stats);
    CHECK(asked == 1);  // before the first tile
    CHECK(frame.interrupted());
    const std::vector<uint32_t> untouched(120 * 300, 0);
    CHECK(wholePicture(frame, view.m_spec, 120, 300, true) == untouched);  // nothing more this frame
    CHECK(asked == 1);
    // Asked again only in the next frame; without the question, it draws as ever.
    frame.setInterrupt(nullptr);
    frame.newFrame();
    CHECK_FALSE(frame.interrupted());
    const Image drawn = view.throughFrame(frame, true, &stats);
    CHECK(stats.m_items > 0);  // not copied from a view given up
    CHECK(drawn.m_pixels == view.exact(model, frame).m_pixels);
    CHECK(wholePicture(frame, view.m_spec, 120, 300, true) != untouched);
}

TEST_CASE("a layer that gives way to input gives the frame up, as its tiles would") {
    const timeline::BlockModel model = randomHeap(20'000, 200);
    FrameContext frame(model, nullptr);
    frame.prepare(XAxis::Time, ColourBy::Size);
    const FrameView view(frame, XAxis::Time, model.extent(XAxis::Time), 0, UINT64_MAX, 120, 300);
    // A layer that asks once, as a full trace's exact samples ask every 65,536 of them.
    struct Asking : render::ViewLayer {
        mutable bool m_asking = false;
        mutable int m_drawn = 0;
        void draw(const ViewSpec&, render::PixelBuffer) const override { ++m_drawn; }
        bool drawGivingWay(const ViewSpec&, render::PixelBuffer, const std::function<bool()>& giveWay) const override {
            m_asking = true;
            const bool stop = giveWay();
            m_asking = false;
            m_drawn += stop ? 0 : 1;
            return !stop;
        }
    } layer;
    std::vector<uint32_t> pixels(120 * 300);
    render::ViewRequest request;
    request.m_spec = view.m_spec;
    request.m_target = {pixels.data(), 120, 300, 120};
    request.m_layers = {&layer};
    frame.setInterrupt([&] { return layer.m_asking; });  // the tiles go on; the layer is told to stop
    frame.newFrame();
    frame.draw({request});
    CHECK(frame.interrupted());
    CHECK(layer.m_drawn == 0);
    frame.setInterrupt(nullptr);
    frame.newFrame();
    frame.draw({request});
    CHECK_FALSE(frame.interrupted());
    CHECK(layer.m_drawn == 1);
}

TEST_CASE("a report whose frame is given up has no plans to tell, and the next paint has them all") {
    const timeline::BlockModel model = randomHeap(50'000, 200);
    FrameContext frame(model, nullptr);
    render::ReportOptions options;
    options.m_width = 900;
    options.m_height = 600;
    options.m_frame = &frame;
    options.m_levelOfDetail = true;
    const render::Report report(model, nullptr, options);
    frame.setInterrupt([] { return true; });
    (void)test::imageOf(report);
    CHECK(frame.interrupted());
    CHECK(report.plans().empty());
    frame.setInterrupt(nullptr);
    (void)test::imageOf(report);
    const std::vector<render::FramePlan> plans = report.plans();
    REQUIRE(plans.size() == 2);  // the main view and the context view
    CHECK(plans[0].m_foldPixels == render::DraftPolicy::kLevelOfDetailFold);
    CHECK(plans[0].m_layerCount == 2);  // access samples and cursors
    CHECK(plans[0].m_request.m_layers.empty());  // the layers lived only while the frame was drawn
    CHECK(plans[1].m_key.m_width == static_cast<int>(report.layout().m_context.m_width));
}

TEST_CASE("a frame running late draws its remaining tiles as the view's draft, kept as a draft") {
    const timeline::BlockModel model = randomHeap(800'000, 300);
    REQUIRE(model.size() > render::DraftBudget::kDraftsFrom);  // big enough for drafts prepared ahead
    FrameContext frame(model, nullptr);
    frame.prepare(XAxis::Time, ColourBy::Size);
    const XWindow extent = model.extent(XAxis::Time);
    const FrameView view(frame, XAxis::Time, extent, 0, UINT64_MAX, 400, 300);
    const size_t inView = frame.index().countIn({extent.m_from, extent.m_to, 0, UINT64_MAX});
    REQUIRE(inView < frame.policy().ceiling());  // on time, exact
    auto onTime = [&] { frame.policy().setLateAfter(DraftPolicy::kNeverLate, DraftPolicy::kNeverLate); };
    auto lateFromTheStart = [&] { frame.policy().setLateAfter(0, frame.policy().lateProjectedMs()); };
    FrameStats stats;
    onTime();
    const Image exact = view.throughFrame(frame, true, &stats, true);
    CHECK_FALSE(stats.m_draft);
    frame.forgetViews();
    frame.policy().setCeiling(inView - 1);
    const Image draft = view.throughFrame(frame, true, &stats, true);
    REQUIRE(stats.m_draft);
    REQUIRE(draft.m_pixels != exact.m_pixels);
    frame.policy().setCeiling(DraftPolicy::kDraftAbove);

    // Late from its first tile, the view is its draft to the pixel, and says so.
    frame.forgetViews();
    lateFromTheStart();
    CHECK(view.throughFrame(frame, true, &stats, true).m_pixels == draft.m_pixels);
    CHECK(stats.m_draft);
    // Kept as the draft it is: asked for exactly (a draft's refinement), the view is drawn.
    CHECK(view.throughFrame(frame, true, &stats, false).m_pixels == exact.m_pixels);
    CHECK_FALSE(stats.m_draft);
    CHECK(stats.m_items > 0);
    // Never late where no draft is allowed (an export, a refinement).
    frame.forgetViews();
    CHECK(view.throughFrame(frame, true, &stats, false).m_pixels == exact.m_pixels);
    CHECK_FALSE(stats.m_draft);

    // Late once a quarter of the tiles are done (any time spent then projects past 0 ms): the
    // first tiles are exact, the rest the draft's.
    frame.forgetViews();
    onTime();
    frame.policy().setLateAfter(frame.policy().lateAfterMs(), 0);
    const Image part = view.throughFrame(frame, true, &stats, true);
    CHECK(stats.m_draft);
    size_t asExact = 0, asDraft = 0, neither = 0;
    for (size_t i = 0; i < part.m_pixels.size(); ++i) {
        const uint32_t p = part.m_pixels[i];
        asExact += p == exact.m_pixels[i] && p != draft.m_pixels[i];
        asDraft += p == draft.m_pixels[i] && p != exact.m_pixels[i];
        neither += p != exact.m_pixels[i] && p != draft.m_pixels[i];
    }
    INFO(asExact << " pixels only the exact picture's, " << asDraft << " only the draft's");
    CHECK(asExact > 1000);
    CHECK(asDraft > 1000);
    CHECK(neither == 0);
}

TEST_CASE("a view of a log too small for drafts is never late") {
    const timeline::BlockModel model = randomHeap(50'000, 200);
    FrameContext frame(model, nullptr);
    frame.prepare(XAxis::Time, ColourBy::Size);
    const FrameView view(frame, XAxis::Time, model.extent(XAxis::Time), 0, UINT64_MAX, 400, 300);
    frame.policy().setLateAfter(0, frame.policy().lateProjectedMs());
    FrameStats stats;
    CHECK(view.throughFrame(frame, true, &stats, true).m_pixels == view.exact(model, frame).m_pixels);
    CHECK_FALSE(stats.m_draft);
}

TEST_CASE("a draft zoomed deep into the addresses draws no more blocks one by one than the limit") {
    // Sixteen slots of 300 across the whole log, 400 x 300 pixels: each leaf of the index, a few
    // slots tall, is taller than a draft folds the typical leaf (32 pixels at most), and so it
    // was opened: its blocks drawn one by one, more of them than the exact picture may draw.
    const timeline::BlockModel model = randomHeap(300'000, 300);
    FrameContext frame(model, nullptr);
    frame.prepare(XAxis::Time, ColourBy::Size);
    const XWindow extent = model.extent(XAxis::Time);
    const uint64_t lo = test::RandomHeap{}.m_base, hi = lo + 16 * 4096;
    const FrameView view(frame, XAxis::Time, extent, lo, hi, 400, 300);
    const size_t inView = frame.index().countIn({extent.m_from, extent.m_to, lo, hi});
    REQUIRE(inView > 4'000);
    frame.policy().setCeiling(inView / 4);
    FrameStats stats;
    const Image exact = view.throughFrame(frame, true, &stats, false);
    frame.forgetViews();
    const Image draft = view.throughFrame(frame, true, &stats, true);
    INFO(stats.m_items << " drawn one by one, " << stats.m_foldedItems << " folded, of " << inView);
    CHECK(stats.m_draft);
    CHECK(stats.m_items <= inView / 4);
    // Folded nodes spread over their boxes, which hold their blocks. A leaf folded at four
    // times the usual size spreads a narrow block's faint column over its whole height, and
    // there a pixel may round to the background: few of them.
    size_t shown = 0, lost = 0;
    for (size_t i = 0; i < exact.m_pixels.size(); ++i) {
        shown += exact.m_pixels[i] != kBackground;
        lost += exact.m_pixels[i] != kBackground && draft.m_pixels[i] == kBackground;
    }
    INFO(lost << " of " << shown << " pixels lost");
    CHECK(lost * 100 <= shown);
}

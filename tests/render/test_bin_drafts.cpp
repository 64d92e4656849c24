// Drafts of correlated views: what each index node above the leaves holds of each bin
// (BinSummaries), and a bin's view drawn from it when it has more blocks than the draft limit.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "frame_views.hpp"
#include "render/raster/bin_summaries.hpp"

using namespace memlog;
using render::BinSummaries;
using render::ColourBy;
using render::DraftPolicy;
using render::FrameContext;
using render::FrameStats;
using test::FrameView;
using test::Image;
using test::kBackground;
using test::randomHeap;
using timeline::XAxis;
using timeline::XWindow;

namespace {

// Size bins of a frame context coloured by site, with the drafts' summaries made for them.
const timeline::Bins& sizeBinsWithDrafts(FrameContext& frame) {
    frame.policy().setCeiling(1000);  // before the bins are made: their summaries with them
    frame.prepare(XAxis::Time, ColourBy::Site);
    return frame.bins(timeline::BinKind::Size);
}

}  // namespace

TEST_CASE("the bins' summary of a node above the leaves is what its blocks of each bin add up to") {
    const timeline::BlockModel model = randomHeap(60'000, 150);
    FrameContext frame(model, nullptr);
    frame.prepare(XAxis::Time, ColourBy::Size);
    const size_t bins = frame.bins(timeline::BinKind::Size).count();
    REQUIRE(bins > 2);
    const auto& itemBin = frame.itemBins(timeline::BinKind::Size);
    const timeline::BlockIndex& index = frame.index().index();
    // Colours of its own: a quantity that differs from block to block.
    render::FrameColours colours;
    for (size_t k = 0; k < index.size(); ++k) colours.m_itemKey.push_back(static_cast<uint16_t>(k * 7919 % 4096));
    const double alpha = 0.5;
    const BinSummaries summaries(index, itemBin, bins, colours, alpha);
    REQUIRE_FALSE(summaries.empty());

    size_t internal = 0;
    const auto& nodes = index.nodes();
    for (size_t n = 0; n < nodes.size(); ++n) {
        if (nodes[n].m_leaf) {
            CHECK(summaries.of(n, 0) == nullptr);
            continue;
        }
        ++internal;
        std::vector<double> area(bins, 0), weight(bins, 0), weighted(bins, 0);
        std::vector<uint32_t> items(bins, 0);
        index.forEachPositionUnder(nodes[n], [&](size_t k) {
            const size_t bin = itemBin[k];
            if (bin >= bins) return;
            const timeline::IndexBox& box = index.boxes()[k];
            const double a = static_cast<double>(box.m_x1 - box.m_x0) * static_cast<double>(box.m_y1 - box.m_y0);
            area[bin] += a;
            ++items[bin];
            weight[bin] += std::pow(a, alpha);
            weighted[bin] += std::pow(a, alpha) * colours.m_itemKey[k];
        });
        for (size_t bin = 0; bin < bins; ++bin) {
            INFO("node " << n << " bin " << bin);
            const BinSummaries::Entry& entry = *summaries.of(n, bin);
            CHECK(entry.m_items == items[bin]);
            CHECK(entry.m_boxArea == Approx(area[bin]).epsilon(1e-9));
            // The mean of a node higher up comes from its children's rounded means.
            if (items[bin] > 0) CHECK(std::abs(entry.m_mean[0] - weighted[bin] / weight[bin]) <= 1.5);
        }
    }
    CHECK(internal > 10);
}

TEST_CASE(
    "a bin's view with more blocks than the draft limit is a draft of its own blocks, close to its exact picture") {
    // The nodes above the leaves some 11 pixels wide, more than the least a draft folds: one
    // folds them all the same (it never folds a leaf of a bin's view).
    constexpr int W = 200, H = 75;
    const timeline::BlockModel model = randomHeap(300'000, 300);
    FrameContext frame(model, nullptr);
    const timeline::Bins& bins = sizeBinsWithDrafts(frame);
    REQUIRE(bins.count() > 2);
    const XWindow extent = model.extent(XAxis::Time);
    size_t foldedSomewhere = 0;
    for (size_t bin = 0; bin < bins.count(); ++bin) {
        INFO("bin " << bin);
        FrameView view(frame, XAxis::Time, extent, 0, UINT64_MAX, W, H);
        view.m_spec.m_bins = &bins;
        view.m_spec.m_bin = static_cast<int>(bin);
        FrameStats stats;
        const Image exact = view.throughFrame(frame, true, &stats, false);
        CHECK_FALSE(stats.m_draft);
        CHECK(stats.m_foldedNodes == 0);
        const size_t blocks = stats.m_items;
        frame.forgetViews();
        const Image draft = view.throughFrame(frame, true, &stats, true);
        CHECK(stats.m_draft);
        foldedSomewhere += stats.m_foldedItems;
        // Folded nodes count the bin's blocks alone: a node counts them in each tile it
        // meets, but a node's every block would be 30 times as many.
        CHECK(stats.m_foldedItems <= 2 * blocks);
        // Squares of 20 x 20 near the exact picture, channel by channel: a node's summary of
        // every bin would make a sparse bin's view several times darker (43 to 61 levels).
        const double worstSquare = test::worstSquareDifference(exact, draft);
        // Nothing the exact picture shows clearly is missing, and few faint pixels: a node's
        // blocks of a sparse bin spread over its box may tint a pixel less than one level
        // where one of them alone tinted it (the worst seen: 36 levels of 255). Nodes with
        // fewer than BinSummaries::kDenseEnough of the bin's blocks are not folded: folding
        // every node lost 3.4 % of a bin's pixels here, now 1.5 %.
        size_t shown = 0, lost = 0;
        int faintest = 0;
        for (size_t i = 0; i < exact.m_pixels.size(); ++i) {
            if (exact.m_pixels[i] == kBackground) continue;
            ++shown;
            if (draft.m_pixels[i] != kBackground) continue;
            ++lost;
            for (int shift : {0, 8, 16})
                faintest = std::max(faintest, static_cast<int>(kBackground >> shift & 0xff) -
                                                  static_cast<int>(exact.m_pixels[i] >> shift & 0xff));
        }
        INFO("the worst square's mean differs by " << worstSquare << " levels of 255; " << lost << " of " << shown
                                                   << " pixels lost, the darkest by " << faintest << " levels");
        CHECK(worstSquare <= 40);
        CHECK(lost * 50 <= shown);
        CHECK(faintest <= 48);
        // Drawn exactly once more (not allowed a draft): the exact picture.
        CHECK(view.throughFrame(frame, true, &stats, false).m_pixels == exact.m_pixels);
    }
    CHECK(foldedSomewhere > model.size() / 2);
}

TEST_CASE("a view allowed a draft that folds no node is its exact picture, and not a draft") {
    // A fiftieth of the log, 200 pixels wide: the nodes above the leaves some 550 pixels wide,
    // wider than any bin's draft folds; still thousands of blocks, over the limit. (The view of
    // every block folds its leaves instead: a draft draws no more blocks one by one than the
    // limit.)
    const timeline::BlockModel model = randomHeap(300'000, 300);
    FrameContext frame(model, nullptr);
    frame.policy().setCeiling(100);
    frame.prepare(XAxis::Time, ColourBy::Site);
    const timeline::Bins& bins = frame.bins(timeline::BinKind::Size);
    const XWindow extent = model.extent(XAxis::Time);
    const uint64_t from = extent.m_from + extent.width() / 2;
    const XWindow window{from, from + extent.width() / 50};
    REQUIRE(frame.index().countIn({window.m_from, window.m_to, 0, UINT64_MAX}) > 10 * frame.policy().ceiling());
    for (int bin = -1; bin < static_cast<int>(bins.count()); ++bin) {
        INFO((bin < 0 ? std::string("every block") : "bin " + std::to_string(bin)));
        FrameView view(frame, XAxis::Time, window, 0, UINT64_MAX, 200, 75);
        if (bin >= 0) {
            view.m_spec.m_bins = &bins;
            view.m_spec.m_bin = bin;
        }
        FrameStats stats;
        const Image exact = view.throughFrame(frame, true, &stats, false);
        frame.forgetViews();
        const Image allowed = view.throughFrame(frame, true, &stats, true);
        if (bin < 0) {
            CHECK(stats.m_draft);
            CHECK(stats.m_items <= frame.policy().ceiling());
            continue;
        }
        CHECK(stats.m_foldedNodes == 0);
        CHECK(stats.m_items > 0);
        CHECK_FALSE(stats.m_draft);
        CHECK(allowed.m_pixels == exact.m_pixels);
    }
}

TEST_CASE("bins made when the log had no more blocks than the draft limit are never drafted") {
    const timeline::BlockModel model = randomHeap(20'000, 100);
    FrameContext frame(model, nullptr);
    frame.prepare(XAxis::Time, ColourBy::Site);  // the limit of 1.5 million: no summaries
    const timeline::Bins& bins = frame.bins(timeline::BinKind::Size);
    frame.policy().setCeiling(100);
    FrameView view(frame, XAxis::Time, model.extent(XAxis::Time), 0, UINT64_MAX, 300, 100);
    view.m_spec.m_bins = &bins;
    view.m_spec.m_bin = 0;
    FrameStats stats;
    const Image exact = view.throughFrame(frame, true, &stats, false);
    frame.forgetViews();
    CHECK(view.throughFrame(frame, true, &stats, true).m_pixels == exact.m_pixels);
    CHECK_FALSE(stats.m_draft);
    CHECK(stats.m_foldedNodes == 0);
}

TEST_CASE("correlated views drawn together and running late are each their bin's draft") {
    constexpr int W = 200, H = 75;
    const timeline::BlockModel model = randomHeap(300'000, 300);
    FrameContext frame(model, nullptr);
    const timeline::Bins& bins = sizeBinsWithDrafts(frame);
    const XWindow extent = model.extent(XAxis::Time);
    const XWindow window{extent.m_from + extent.width() / 5, extent.m_to - extent.width() / 5};
    std::vector<FrameView> views;
    views.reserve(bins.count());  // a view's spec points to its own scale: never moved
    std::vector<Image> drafts, exacts;
    FrameStats stats;
    for (size_t bin = 0; bin < bins.count(); ++bin) {
        views.emplace_back(frame, XAxis::Time, window, 0, UINT64_MAX, W, H);
        views.back().m_spec.m_bins = &bins;
        views.back().m_spec.m_bin = static_cast<int>(bin);
        drafts.push_back(views.back().throughFrame(frame, true, &stats, true));
        REQUIRE(stats.m_draft);
        exacts.push_back(views.back().throughFrame(frame, true, &stats, false));
    }
    // No more blocks in view than the limit: exact on time, their drafts when late.
    frame.policy().setCeiling(frame.index().countIn({window.m_from, window.m_to, 0, UINT64_MAX}));
    REQUIRE(frame.policy().ceiling() < model.size());
    auto drawTogether = [&] {
        std::vector<Image> images(views.size());
        std::vector<FrameContext::BlocksJob> jobs;
        for (size_t v = 0; v < views.size(); ++v) {
            images[v].m_width = W;
            images[v].m_height = H;
            images[v].m_pixels.assign(W * H, 0);
            jobs.push_back({views[v].m_spec, {images[v].m_pixels.data(), W, H, W}});
        }
        frame.forgetViews();
        stats = frame.drawBlocks(jobs, true, true);
        return images;
    };
    frame.policy().setLateAfter(DraftPolicy::kNeverLate, DraftPolicy::kNeverLate);
    std::vector<Image> drawn = drawTogether();
    CHECK_FALSE(stats.m_draft);
    for (size_t v = 0; v < views.size(); ++v) CHECK(drawn[v].m_pixels == exacts[v].m_pixels);
    frame.policy().setLateAfter(0, frame.policy().lateProjectedMs());
    drawn = drawTogether();
    CHECK(stats.m_draft);
    for (size_t v = 0; v < views.size(); ++v) {
        INFO("bin " << v);
        CHECK(drawn[v].m_pixels == drafts[v].m_pixels);
    }
}

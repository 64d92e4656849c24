// Frames through the FrameContext: without anything to fold they are the exact picture (the
// same pixels as drawBlocks, the same report page, correlated views too); with folding they
// stay close to it, no block disappears, and a zoomed-in frame opens few blocks. Drafts and
// frames given up: test_frame_drafts.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <random>

#include "frame_views.hpp"
#include "random_heap.hpp"
#include "render/frame/frame_context.hpp"
#include "render_helpers.hpp"

using namespace memlog;
using render::AddressScale;
using render::ColourBy;
using render::CushionStyle;
using render::FrameContext;
using render::FrameStats;
using render::ViewSpec;
using test::FrameView;
using test::Image;
using test::kBackground;
using test::kHeapBase;
using test::randomHeap;
using test::wholePicture;
using timeline::XAxis;
using timeline::XWindow;

namespace {

int largestDistance(const Image& a, const Image& b) {
    int worst = 0;
    for (size_t i = 0; i < a.m_pixels.size(); ++i)
        worst = std::max(worst, test::channelDistance(a.m_pixels[i], b.m_pixels[i]));
    return worst;
}

// The walk's address scales and occupancy bars against those of the frame context, view by
// view: the same ranges, the same events, the same live bytes but for the walk's rounding.
void checkSameViews(const render::Report& walked, const render::Report& fast) {
    REQUIRE(walked.viewCount() == fast.viewCount());
    for (size_t v = 0; v < walked.viewCount(); ++v) {
        INFO("view " << v);
        const auto& a = walked.scale(v).ranges().ranges();
        const auto& b = fast.scale(v).ranges().ranges();
        REQUIRE(a.size() == b.size());
        for (size_t i = 0; i < a.size(); ++i) {
            CHECK(a[i].m_lo == b[i].m_lo);
            CHECK(a[i].m_hi == b[i].m_hi);
        }
        REQUIRE(walked.occupancy(v).size() == fast.occupancy(v).size());
        for (size_t c = 0; c < walked.occupancy(v).size(); ++c) {
            CHECK(fast.occupancy(v)[c].m_events == walked.occupancy(v)[c].m_events);
            CHECK(fast.occupancy(v)[c].m_liveBytes ==
                  Approx(walked.occupancy(v)[c].m_liveBytes).margin(1e-6 * walked.fullBytes()));
        }
    }
}

// Blocks of at least 1,500 bytes that live at least 3 events: big against the pixels
// of the views below, so nothing in them is smaller than a pixel.
timeline::BlockModel bigBlocks(uint32_t seed) {
    test::RandomHeap spec;
    spec.m_seed = seed;
    spec.m_events = 300;
    spec.m_slots = 24;
    spec.m_freeShare = 0.3;
    timeline::BlockModel model = test::randomHeap(spec);
    timeline::BlockModel big;
    model.forEach([&](const timeline::Block& b) {
        if (b.size() >= 1500 && b.endSeq() - b.beginSeq() >= 3) big.append(b);
    });
    big.finish(model.summary(), model.threads(), model.endNs(), model.extent(XAxis::Events).m_to, 5);
    return big;
}

}  // namespace

TEST_CASE("a frame through the index equals drawBlocks when nothing is smaller than a pixel") {
    for (uint32_t seed = 1; seed <= 3; ++seed) {
        const timeline::BlockModel model = bigBlocks(seed);
        REQUIRE(model.size() > 20);
        const XWindow extent = model.extent(XAxis::Events);
        for (const ColourBy by : {ColourBy::Thread, ColourBy::Size}) {
            FrameContext frame(model, nullptr);
            frame.prepare(XAxis::Events, by);
            struct Case {
                XWindow m_window;
                uint64_t m_lo, m_hi;
                CushionStyle m_cushion;
            };
            const uint64_t base = test::RandomHeap{}.m_base;
            const Case cases[] = {{extent, 0, UINT64_MAX, CushionStyle::Plateau},
                                  {{extent.m_from + 40, extent.m_from + 140}, 0, UINT64_MAX, CushionStyle::Parabolic},
                                  {extent, base + 20'000, base + (1 << 20) + 30'000, CushionStyle::Plateau},
                                  {{extent.m_from + 100, extent.m_to}, base + 5000, UINT64_MAX, CushionStyle::None}};
            for (const Case& c : cases) {
                // At least 2 pixels an event; the scale's rows are at most 1,000 bytes.
                const int width = static_cast<int>(2 * c.m_window.width()) + 7;
                const FrameView view(frame, XAxis::Events, c.m_window, c.m_lo, c.m_hi, width, 330, 0.3, c.m_cushion);
                FrameStats stats;
                const Image exact = view.exact(model, frame);
                const Image drawn = view.throughFrame(frame, true, &stats);
                INFO("seed " << seed << " colour " << render::colourByName(by) << " window " << c.m_window.m_from
                             << ".." << c.m_window.m_to << " addresses " << std::hex << c.m_lo << ".." << c.m_hi);
                REQUIRE(view.m_scale.ranges().bytes() / 330 < 1500);
                CHECK(stats.m_foldedNodes == 0);
                CHECK(stats.m_items > 0);
                // Identical but for the order in which float cushion shades are summed.
                CHECK(largestDistance(exact, drawn) <= 1);
                CHECK(largestDistance(exact, view.throughFrame(frame, false)) <= 1);
            }
        }
    }
}

TEST_CASE("a report through a frame context is the exact report when nothing is smaller than a pixel") {
    const timeline::BlockModel model = bigBlocks(4);
    render::ReportOptions options;
    options.m_width = 900;
    options.m_height = 700;
    options.m_axis = XAxis::Events;
    options.m_colourBy = ColourBy::Thread;
    options.m_cursors = {model.extent(XAxis::Events).m_from + 50};
    const render::Report exact(model, nullptr, options);
    FrameContext frame(model, nullptr);
    options.m_frame = &frame;
    options.m_levelOfDetail = true;
    const render::Report fast(model, nullptr, options);
    const Image a = test::imageOf(exact), b = test::imageOf(fast);
    CHECK(frame.lastStats().m_foldedNodes == 0);
    CHECK(largestDistance(a, b) <= 1);
    checkSameViews(exact, fast);
}

TEST_CASE("a zoomed report through a frame context has the address scales and occupancy of the walk") {
    test::RandomHeap spec;
    spec.m_events = 50'000;
    spec.m_slots = 120;
    spec.m_regions = 5;
    const timeline::BlockModel model = test::randomHeap(spec);
    FrameContext frame(model, nullptr);
    const XWindow extent = model.extent(XAxis::Time);
    std::mt19937_64 random(3);
    for (int trial = 0; trial < 12; ++trial) {
        render::ReportOptions options;
        options.m_width = 1000;
        options.m_height = 700;
        const uint64_t width = extent.width() / (1 + random() % 40);
        const uint64_t from = extent.m_from + random() % (extent.width() - width + 1);
        options.m_window = XWindow{from, from + width};
        if (trial % 2) {
            options.m_addrLo = kHeapBase + random() % (3 << 20);
            options.m_addrHi = options.m_addrLo + 1 + random() % (2 << 20);
        }
        // One view, then correlated views (one pass over the blocks near the window for all bins).
        for (const auto bins : {std::optional<timeline::BinKind>{}, std::optional{timeline::BinKind::Size},
                                std::optional{timeline::BinKind::Region}}) {
            options.m_bins = bins;
            options.m_frame = nullptr;
            const render::Report walked(model, nullptr, options);
            options.m_frame = &frame;
            options.m_levelOfDetail = true;
            const render::Report fast(model, nullptr, options);
            INFO("trial " << trial << " bins " << (bins ? static_cast<int>(*bins) : -1));
            checkSameViews(walked, fast);
        }
    }
}

TEST_CASE("correlated views through a frame context are the walk's views") {
    test::RandomHeap spec;
    spec.m_events = 4000;
    spec.m_slots = 60;
    spec.m_regions = 3;
    const timeline::BlockModel model = test::randomHeap(spec);
    FrameContext frame(model, nullptr);
    for (const timeline::BinKind kind :
         {timeline::BinKind::Size, timeline::BinKind::Thread, timeline::BinKind::Region}) {
        for (const render::BinLayout layout : {render::BinLayout::Time, render::BinLayout::Address}) {
            INFO("bins " << static_cast<int>(kind) << " layout " << static_cast<int>(layout));
            render::ReportOptions options;
            options.m_width = 1000;
            options.m_height = 800;
            options.m_colourBy = ColourBy::Size;
            options.m_bins = kind;
            options.m_layout = layout;
            const render::Report walked(model, nullptr, options);
            options.m_frame = &frame;
            options.m_levelOfDetail = true;  // never folds with bins
            const render::Report fast(model, nullptr, options);
            CHECK(walked.viewCount() > 1);
            checkSameViews(walked, fast);
            // The whole log in view: both colour over it, so the pages are the same.
            CHECK(largestDistance(test::imageOf(walked), test::imageOf(fast)) <= 1);
            CHECK(frame.lastStats().m_foldedNodes == 0);
        }
    }
}

TEST_CASE("correlated views through a frame context leave out a block of no bytes at the address window's low end") {
    // The lowest block of all has no bytes, and the address window begins at it: Block::meets
    // leaves it out (it holds no address of the window), though its box (one byte) is inside.
    const timeline::BlockModel heap = randomHeap(4000, 60);
    timeline::BlockModel model;
    const uint64_t lowest = kHeapBase - (uint64_t{1} << 20);
    timeline::Block::Fields fields{};
    fields.m_addr = lowest;
    fields.m_beginNs = heap[0].beginNs();
    fields.m_endNs = fields.m_beginNs + 10;
    fields.m_beginSeq = fields.m_endSeq = heap[0].beginSeq();
    model.append(timeline::Block(fields));
    heap.forEach([&](const timeline::Block& b) { model.append(b); });
    model.finish(heap.summary(), heap.threads(), heap.endNs(), heap.extent(XAxis::Events).m_to, 5);
    render::ReportOptions options;
    options.m_width = 1000;
    options.m_height = 800;
    options.m_bins = timeline::BinKind::Size;
    options.m_addrLo = lowest;
    const render::Report walked(model, nullptr, options);
    FrameContext frame(model, nullptr);
    options.m_frame = &frame;
    const render::Report fast(model, nullptr, options);
    checkSameViews(walked, fast);
    for (size_t v = 0; v < fast.viewCount(); ++v)
        for (const auto& range : fast.scale(v).ranges().ranges()) CHECK(range.m_lo > lowest);
}

TEST_CASE("a frame context kept across axes, colourings and alphas draws what a new one draws") {
    const timeline::BlockModel model = randomHeap(60'000, 100);
    FrameContext kept(model, nullptr);
    struct Step {
        XAxis m_axis;
        ColourBy m_by;
        double m_alpha;
    };
    for (const Step step : {Step{XAxis::Time, ColourBy::Size, 0.3}, Step{XAxis::Events, ColourBy::Size, 0.3},
                            Step{XAxis::Events, ColourBy::Thread, 0.3}, Step{XAxis::Events, ColourBy::Thread, 0.7},
                            Step{XAxis::Time, ColourBy::Lifetime, 0.5}}) {
        FrameContext fresh(model, nullptr);
        std::vector<double> heard;
        kept.prepare(step.m_axis, step.m_by, [&](double done) { heard.push_back(done); });
        CHECK(std::is_sorted(heard.begin(), heard.end()));  // progress only goes forwards, to 1
        CHECK((heard.empty() || heard.back() == 1.0));
        fresh.prepare(step.m_axis, step.m_by);
        const XWindow extent = model.extent(step.m_axis);
        // First a view where nothing folds (the nodes' summaries for this alpha are not made),
        // then one small enough that nodes fold, so the summaries (per alpha) are used too.
        const FrameView big(kept, step.m_axis, {extent.m_from, extent.m_from + extent.width() / 100}, 0, UINT64_MAX,
                            800, 600, step.m_alpha);
        FrameStats bigStats;
        big.throughFrame(kept, true, &bigStats);
        CHECK(bigStats.m_foldedNodes == 0);
        const FrameView a(kept, step.m_axis, extent, 0, UINT64_MAX, 60, 45, step.m_alpha);
        const FrameView b(fresh, step.m_axis, extent, 0, UINT64_MAX, 60, 45, step.m_alpha);
        FrameStats stats;
        const Image fromKept = a.throughFrame(kept, true, &stats);
        INFO(render::colourByName(step.m_by)
             << " alpha " << step.m_alpha << ": " << stats.m_foldedNodes << " nodes folded");
        CHECK(stats.m_foldedNodes > 0);
        CHECK(fromKept.m_pixels == b.throughFrame(fresh, true).m_pixels);
        // The whole log's picture is kept per size and settings, and redrawn when they change.
        CHECK(wholePicture(kept, a.m_spec, 60, 45, true) == wholePicture(fresh, a.m_spec, 60, 45, true));
    }
}

TEST_CASE("a view drawn again with nothing changed is copied, and any change draws it anew") {
    const timeline::BlockModel model = randomHeap(20'000, 100);
    FrameContext frame(model, nullptr);
    frame.prepare(XAxis::Time, ColourBy::Size);
    const XWindow extent = model.extent(XAxis::Time);
    const FrameView whole(frame, XAxis::Time, extent, 0, UINT64_MAX, 300, 200);
    FrameStats stats;
    const Image first = whole.throughFrame(frame, false, &stats);
    CHECK(stats.m_items > 0);
    // Again (an overlay changed, say): a copy, nothing drawn, the same pixels.
    CHECK(whole.throughFrame(frame, false, &stats).m_pixels == first.m_pixels);
    CHECK(stats.m_items == 0);
    // Each change draws, and draws what a new context draws.
    auto drawsAsNew = [&](const FrameView& view, bool levelOfDetail) {
        const Image image = view.throughFrame(frame, levelOfDetail, &stats);
        CHECK(stats.m_items + stats.m_foldedItems > 0);
        FrameContext fresh(model, nullptr);
        fresh.prepare(frame.axis(), frame.colouring().by());
        CHECK(image.m_pixels == view.throughFrame(fresh, levelOfDetail).m_pixels);
    };
    drawsAsNew(FrameView(frame, XAxis::Time, extent, 0, UINT64_MAX, 300, 200, 0.6), false);  // alpha
    drawsAsNew(
        FrameView(frame, XAxis::Time, {extent.m_from, extent.m_from + extent.width() / 2}, 0, UINT64_MAX, 300, 200),
        false);
    drawsAsNew(FrameView(frame, XAxis::Time, extent, kHeapBase, kHeapBase + (1 << 20), 300, 200), false);  // addresses
    drawsAsNew(FrameView(frame, XAxis::Time, extent, 0, UINT64_MAX, 301, 200), false);  // size
    drawsAsNew(whole, true);  // level of detail
    // All of that in one frame: the first view is still kept.
    CHECK(whole.throughFrame(frame, false, &stats).m_pixels == first.m_pixels);
    CHECK(stats.m_items == 0);
    // Kept into the next frame, not beyond.
    frame.newFrame();
    CHECK(whole.throughFrame(frame, false, &stats).m_pixels == first.m_pixels);
    CHECK(stats.m_items == 0);
    frame.newFrame();
    frame.newFrame();
    drawsAsNew(whole, false);
    // A new colouring draws everything again.
    frame.prepare(XAxis::Time, ColourBy::Lifetime);
    drawsAsNew(whole, false);
}

TEST_CASE("views drawn together are each the view drawn alone, and are kept as it is") {
    const timeline::BlockModel model = randomHeap(20'000, 100);
    FrameContext frame(model, nullptr);
    frame.prepare(XAxis::Time, ColourBy::Site);
    const timeline::Bins& bins = frame.bins(timeline::BinKind::Size);
    REQUIRE(bins.count() > 2);
    const XWindow extent = model.extent(XAxis::Time);
    const XWindow half{extent.m_from + extent.width() / 4, extent.m_from + extent.width() * 3 / 4};
    // One view a bin, of different sizes and windows, as correlated views and more. (Each
    // apart on the heap: a view's spec points at its own scale.)
    auto binView = [&](size_t bin, XWindow window, int width, int height) {
        auto view = std::make_unique<FrameView>(frame, XAxis::Time, window, 0, UINT64_MAX, width, height);
        view->m_spec.m_bins = &bins;
        view->m_spec.m_bin = static_cast<int>(bin);
        return view;
    };
    std::vector<std::unique_ptr<FrameView>> views;
    for (size_t bin = 0; bin < bins.count(); ++bin)
        views.push_back(
            binView(bin, bin % 2 ? half : extent, 290 + 7 * static_cast<int>(bin), 60 + 11 * static_cast<int>(bin)));
    std::vector<Image> images(views.size());
    auto drawTogether = [&] {
        std::vector<FrameContext::BlocksJob> jobs;
        for (size_t v = 0; v < views.size(); ++v) {
            images[v].m_width = views[v]->m_width;
            images[v].m_height = views[v]->m_height;
            images[v].m_pixels.assign(static_cast<size_t>(views[v]->m_width) * static_cast<size_t>(views[v]->m_height),
                                      0);
            jobs.push_back({views[v]->m_spec,
                            {images[v].m_pixels.data(), views[v]->m_width, views[v]->m_height, views[v]->m_width}});
        }
        return frame.drawBlocks(jobs, false);
    };
    const FrameStats together = drawTogether();
    size_t alone = 0;
    for (size_t v = 0; v < views.size(); ++v) {
        INFO("bin " << v);
        FrameContext fresh(model, nullptr);
        fresh.prepare(XAxis::Time, ColourBy::Site);
        FrameStats stats;
        CHECK(images[v].m_pixels == views[v]->throughFrame(fresh, false, &stats).m_pixels);
        CHECK(std::count(images[v].m_pixels.begin(), images[v].m_pixels.end(), kBackground) <
              static_cast<long>(images[v].m_pixels.size()));
        alone += stats.m_items;
    }
    CHECK(together.m_items == alone);  // the stats are of every view drawn
    // Again: every view copied, nothing drawn, the same pixels.
    const std::vector<Image> before = images;
    CHECK(drawTogether().m_items == 0);
    for (size_t v = 0; v < views.size(); ++v) CHECK(images[v].m_pixels == before[v].m_pixels);
    // One view changed: only it is drawn.
    views[1] = binView(1, extent, views[1]->m_width, views[1]->m_height);
    FrameStats one;
    FrameContext fresh(model, nullptr);
    fresh.prepare(XAxis::Time, ColourBy::Site);
    const Image expected = views[1]->throughFrame(fresh, false, &one);
    CHECK(drawTogether().m_items == one.m_items);
    CHECK(images[1].m_pixels == expected.m_pixels);
    CHECK(images[0].m_pixels == before[0].m_pixels);
}

TEST_CASE("a new cushion style draws a view anew only where a block is big enough for a cushion") {
    // Both pictures as a new context draws them; the one without a block of 4 x 4 pixels is
    // the same in every style, and copied.
    const timeline::BlockModel small = randomHeap(20'000, 100), big = bigBlocks(7);
    for (const timeline::BlockModel* model : {&small, &big}) {
        FrameContext frame(*model, nullptr), fresh(*model, nullptr);
        frame.prepare(XAxis::Time, ColourBy::Size);
        fresh.prepare(XAxis::Time, ColourBy::Size);
        const XWindow extent = model->extent(XAxis::Time);
        FrameStats stats;
        FrameView(frame, XAxis::Time, extent, 0, UINT64_MAX, 300, 200).throughFrame(frame, false, &stats);
        const bool cushionShows = stats.m_cushionable > 0;
        CHECK(cushionShows == (model == &big));
        for (CushionStyle style : {CushionStyle::None, CushionStyle::Parabolic}) {
            const FrameView view(frame, XAxis::Time, extent, 0, UINT64_MAX, 300, 200, 0.3, style);
            const Image image = view.throughFrame(frame, false, &stats);
            CHECK((stats.m_items > 0) == cushionShows);
            CHECK(image.m_pixels == view.throughFrame(fresh, false).m_pixels);
        }
        // The whole log's picture (the context view) alike.
        ViewSpec whole = FrameView(frame, XAxis::Time, extent, 0, UINT64_MAX, 120, 200).m_spec;
        wholePicture(frame, whole, 120, 200, false);
        whole.m_cushion = CushionStyle::Parabolic;
        CHECK(wholePicture(frame, whole, 120, 200, false) == wholePicture(fresh, whole, 120, 200, false));
    }
}

TEST_CASE("the whole log's picture keeps an earlier alpha only when it may lag") {
    const timeline::BlockModel model = randomHeap(20'000, 100);
    FrameContext frame(model, nullptr), fresh(model, nullptr);
    frame.prepare(XAxis::Time, ColourBy::Size);
    fresh.prepare(XAxis::Time, ColourBy::Size);
    ViewSpec whole = FrameView(frame, XAxis::Time, model.extent(XAxis::Time), 0, UINT64_MAX, 120, 200).m_spec;
    auto picture = [&](FrameContext& context, double alpha, bool mayLag) {
        whole.m_alpha = alpha;
        return wholePicture(context, whole, 120, 200, false, mayLag);
    };
    const std::vector<uint32_t> atLow = picture(frame, 0.2, false);
    CHECK(picture(frame, 0.9, true) == atLow);  // lagging: the picture at 0.2
    const std::vector<uint32_t> atHigh = picture(frame, 0.9, false);
    CHECK(atHigh != atLow);
    CHECK(atHigh == picture(fresh, 0.9, false));
    // A new colouring is never lagged behind.
    frame.prepare(XAxis::Time, ColourBy::Lifetime);
    fresh.prepare(XAxis::Time, ColourBy::Lifetime);
    CHECK(picture(frame, 0.9, true) == picture(fresh, 0.9, false));
}

// A heap of 100,000 blocks in 50 x 40 pixels, 50 blocks a pixel: nearly all of them fold, in
// nodes smaller than a pixel. Folding moves a node's coverage about inside its box and weighs
// its blocks as if they were equal; it may not change the picture beyond that. Measured, in
// levels of 255 of the largest channel difference (thread / size colouring): a mean of 2.0 /
// 1.2 over the view, 17 / 12 at the worst pixel, 4 / 2 for the worst 3 x 3 mean (a
// neighbourhood that holds a node's box). Asserted with half as much again: folded nodes that
// weighed half what they should already give 5, 28 and 12.
TEST_CASE("with folding the frame of a random heap stays close to the exact one") {
    const timeline::BlockModel model = randomHeap(300'000, 300);
    constexpr int kWidth = 50, kHeight = 40;
    for (const ColourBy by : {ColourBy::Thread, ColourBy::Size}) {
        FrameContext frame(model, nullptr);
        frame.prepare(XAxis::Time, by);
        const XWindow extent = model.extent(XAxis::Time);
        const FrameView view(frame, XAxis::Time, extent, 0, UINT64_MAX, kWidth, kHeight);
        FrameStats stats;
        const Image exact = view.exact(model, frame);
        const Image folded = view.throughFrame(frame, true, &stats);
        INFO("colour " << render::colourByName(by) << ": " << stats.m_foldedNodes << " nodes folded holding "
                       << stats.m_foldedItems << " blocks, " << stats.m_items << " drawn one by one");
        CHECK(stats.m_foldedItems > model.size() / 2);  // the test is about folding
        double total = 0, worstMean = 0;
        int worst = 0;
        for (int y = 0; y < kHeight; ++y)
            for (int x = 0; x < kWidth; ++x) {
                total += test::channelDistance(exact.at(x, y), folded.at(x, y));
                worst = std::max(worst, test::channelDistance(exact.at(x, y), folded.at(x, y)));
                if (x < 1 || y < 1 || x > kWidth - 2 || y > kHeight - 2) continue;
                for (int shift : {0, 8, 16}) {
                    double a = 0, b = 0;
                    for (int dy = -1; dy <= 1; ++dy)
                        for (int dx = -1; dx <= 1; ++dx) {
                            a += exact.at(x + dx, y + dy) >> shift & 0xff;
                            b += folded.at(x + dx, y + dy) >> shift & 0xff;
                        }
                    worstMean = std::max(worstMean, std::abs(a - b) / 9);
                }
            }
        const double mean = total / (kWidth * kHeight);
        INFO("mean largest channel difference " << mean << ", worst pixel " << worst << ", worst 3 x 3 mean "
                                                << worstMean);
        CHECK(mean <= 3);
        CHECK(worst <= 26);
        CHECK(worstMean <= 6);
    }
}

// Clusters of 32 blocks, each cluster a tenth of a pixel across and far from the others, so
// that its blocks alone tint their pixel: folded, each cluster is one summary.
TEST_CASE("with folding no block disappears") {
    std::mt19937_64 random(17);
    timeline::BlockModel model;
    constexpr int kWidth = 240, kHeight = 160, kClusters = 200;
    constexpr uint64_t kNsPerPixel = 10'000, kBytesPerRow = 4096, kBase = 0x7000'0000'0000ull;
    uint64_t seq = 1;
    for (int c = 0; c < kClusters; ++c) {
        const uint64_t ns = (1 + random() % (kWidth - 2)) * kNsPerPixel + random() % (kNsPerPixel / 2);
        const uint64_t addr = kBase + (1 + random() % (kHeight - 2)) * kBytesPerRow + random() % (kBytesPerRow / 2);
        for (uint64_t i = 0; i < 32; ++i) {
            timeline::Block::Fields f{};
            f.m_addr = addr + i * 8;  // 8 bytes apart: never overlapping
            f.m_size = random() % 9;  // 0 to 8 bytes
            f.m_beginNs = ns + random() % 500;
            f.m_endNs = f.m_beginNs + random() % 300;
            f.m_beginSeq = seq++;
            f.m_endSeq = seq++;
            f.m_thread = static_cast<uint32_t>(random() % 3);
            model.append(timeline::Block(f));
        }
    }
    model.finish(timeline::Summary{}, {100, 101, 102}, kWidth * kNsPerPixel, seq, 1);
    FrameContext frame(model, nullptr);
    frame.prepare(XAxis::Time, ColourBy::Thread);
    const XWindow window{0, kWidth * kNsPerPixel};
    FrameView view(frame, XAxis::Time, window, 0, UINT64_MAX, kWidth, kHeight, 0.3, CushionStyle::None);
    view.m_scale = AddressScale(timeline::AddressRanges({{kBase, kBase + kHeight * kBytesPerRow}}), kHeight);
    FrameStats stats;
    const Image exact = view.exact(model, frame);
    const Image folded = view.throughFrame(frame, true, &stats);
    INFO(stats.m_foldedNodes << " nodes folded holding " << stats.m_foldedItems << " blocks, " << stats.m_items
                             << " drawn one by one");
    REQUIRE(stats.m_foldedItems > model.size() * 3 / 4);
    const render::XScale scale(window, kWidth);
    size_t checked = 0;
    model.forEach([&](const timeline::Block& b) {
        render::PixelRect r;
        REQUIRE(render::blockRect(b, view.m_spec, scale, r));
        const int x = static_cast<int>((r.m_x0 + r.m_x1) / 2), y = static_cast<int>((r.m_y0 + r.m_y1) / 2);
        INFO("block at " << std::hex << b.addr() << std::dec << " size " << b.size() << " pixel " << x << "," << y);
        REQUIRE(exact.at(x, y) != kBackground);  // the exact picture shows it
        CHECK(folded.at(x, y) != kBackground);
        ++checked;
    });
    CHECK(checked == model.size());
}

TEST_CASE("a zoomed-in frame opens far fewer blocks than the model holds") {
    const timeline::BlockModel model = randomHeap(200'000, 300);
    FrameContext frame(model, nullptr);
    frame.prepare(XAxis::Time, ColourBy::Size);
    const XWindow extent = model.extent(XAxis::Time);
    const uint64_t from = extent.m_from + extent.width() / 3;
    for (const bool levelOfDetail : {false, true}) {
        const FrameView view(frame, XAxis::Time, {from, from + extent.width() / 50}, kHeapBase, kHeapBase + 100'000,
                             400, 300);
        FrameStats stats;
        view.throughFrame(frame, levelOfDetail, &stats);
        INFO((levelOfDetail ? "level of detail: " : "exact: ")
             << stats.m_items << " blocks opened of " << model.size());
        CHECK(stats.m_items > 0);
        CHECK(stats.m_items + stats.m_foldedItems < model.size() / 100);
    }
}

TEST_CASE("a report of an empty model through a frame context says there are no blocks") {
    const timeline::BlockModel model = test::randomHeap({.m_events = 0});
    FrameContext frame(model, nullptr);
    render::ReportOptions options;
    options.m_width = 800;
    options.m_height = 500;
    options.m_frame = &frame;
    options.m_levelOfDetail = true;
    const render::Report report(model, nullptr, options);
    const Image page = test::imageOf(report);
    CHECK(report.scale(0).bands().empty());
    CHECK(frame.lastStats().m_items == 0);
    const auto view = page.region(report.layout().m_cells.front().m_view);
    CHECK(std::count(view.begin(), view.end(), 0u) == 0);  // painted, not left empty
}

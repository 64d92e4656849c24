// The window's kept picture: when a frame reuses it, draws it anew or draws its draft exactly,
// where it draws, and what a draft becomes as time passes and input comes (no display: reports
// painted into image surfaces, times given).
#include <catch2/catch.hpp>

#include <cairo.h>

#include <memory>

#include "../random_heap.hpp"
#include "render/frame/frame_context.hpp"
#include "render/window/kept_picture.hpp"

using namespace memlog;
using render::KeptPicture;
using render::ReportOptions;
using Work = KeptPicture::Work;
using State = KeptPicture::State;

namespace {

struct Fixture {
    timeline::BlockModel m_model = test::randomHeap({.m_seed = 7, .m_events = 2000});
    render::FrameContext m_frame{m_model, nullptr};
    KeptPicture m_picture;

    ReportOptions options() {
        ReportOptions options;
        options.m_width = 500;
        options.m_height = 300;
        options.m_frame = &m_frame;
        options.m_levelOfDetail = true;
        options.m_mayDraft = true;
        return options;
    }
    // What the window does for a frame of `options`: the report made and painted into the target
    // the picture gives, then kept (as a draft, when `draft`).
    cairo_surface_t* draw(const ReportOptions& options, Work work, uint64_t reads, bool draft, uint32_t now) {
        auto report = std::make_unique<render::Report>(m_model, nullptr, options);
        cairo_surface_t* target = m_picture.target(work, options.m_width, options.m_height);
        cairo_t* cr = cairo_create(target);
        report->paint(cr);
        cairo_destroy(cr);
        m_picture.keep(target, std::move(report), reads, work, draft, now);
        return target;
    }
};

}  // namespace

TEST_CASE("a picture is reused while it shows what the frame would draw, and only then") {
    Fixture f;
    ReportOptions options = f.options();
    CHECK(f.m_picture.workFor(options, 1) == Work::Draw);  // nothing kept yet
    f.draw(options, Work::Draw, 1, false, 1000);
    CHECK(f.m_picture.pictures() == 1);
    CHECK(f.m_picture.state() == State::Exact);
    CHECK(f.m_picture.lastFrame() == KeptPicture::LastFrame::Drawn);
    CHECK(f.m_picture.workFor(options, 1) == Work::Reuse);
    options.m_mayDraft = false;  // a draft or its exact picture: the same view
    CHECK(f.m_picture.workFor(options, 1) == Work::Reuse);
    CHECK(f.m_picture.workFor(options, 2) == Work::Draw);  // the log was read again
    ReportOptions other = f.options();
    other.m_alpha = 0.6;
    CHECK(f.m_picture.workFor(other, 1) == Work::Draw);
    other = f.options();
    other.m_width = 501;
    CHECK(f.m_picture.workFor(other, 1) == Work::Draw);
    f.m_picture.logChanged();  // the report's model is gone: it cannot serve hit tests
    CHECK(f.m_picture.report() == nullptr);
    CHECK(f.m_picture.surface() != nullptr);  // shown dimmed while a new axis is prepared
    CHECK(f.m_picture.workFor(f.options(), 1) == Work::Draw);
}

TEST_CASE("a new view is drawn over the kept surface, a new size gets a surface of its own") {
    Fixture f;
    cairo_surface_t* first = f.draw(f.options(), Work::Draw, 1, false, 0);
    CHECK(f.m_picture.surface() == first);
    ReportOptions moved = f.options();
    moved.m_alpha = 0.9;
    CHECK(f.m_picture.target(Work::Draw, 500, 300) == first);
    ReportOptions bigger = f.options();
    bigger.m_height = 320;
    cairo_surface_t* second = f.draw(bigger, Work::Draw, 1, false, 0);
    CHECK(cairo_image_surface_get_height(second) == 320);
    CHECK(f.m_picture.surface() == second);
}

TEST_CASE("a draft is due once input has paused, is drawn exactly beside it, and gives way to input") {
    Fixture f;
    const ReportOptions options = f.options();
    cairo_surface_t* draft = f.draw(options, Work::Draw, 1, true, 1000);
    CHECK(f.m_picture.state() == State::Draft);
    CHECK(f.m_picture.workFor(options, 1) == Work::Reuse);  // not due yet
    REQUIRE(f.m_picture.untilDue(1000));
    CHECK(*f.m_picture.untilDue(1050) == KeptPicture::kRefineAfterMs - 50);
    CHECK_FALSE(f.m_picture.tick(1000 + KeptPicture::kRefineAfterMs - 1, false));
    CHECK_FALSE(f.m_picture.tick(1000 + KeptPicture::kRefineAfterMs, true));  // input just came: not yet
    CHECK(f.m_picture.state() == State::Draft);
    CHECK(f.m_picture.tick(1000 + KeptPicture::kRefineAfterMs, false));
    CHECK(f.m_picture.state() == State::DraftDue);
    CHECK(f.m_picture.untilDue(5000) == std::nullopt);
    CHECK(f.m_picture.workFor(options, 1) == Work::Refine);
    ReportOptions other = options;
    other.m_cushion = render::CushionStyle::None;
    CHECK(f.m_picture.workFor(other, 1) == Work::Draw);  // a new view gets its draft first

    // Drawn exactly into a surface of its own; input comes: the draft stays, due again later.
    cairo_surface_t* exact = f.m_picture.target(Work::Refine, 500, 300);
    CHECK(exact != draft);
    f.m_picture.gaveWay(exact, 2000);
    CHECK(f.m_picture.surface() == draft);
    CHECK(f.m_picture.state() == State::Draft);
    CHECK(f.m_picture.lastFrame() == KeptPicture::LastFrame::GaveWay);
    CHECK(*f.m_picture.untilDue(2000) == KeptPicture::kRefineAfterMs);
    CHECK(f.m_picture.workFor(options, 1) == Work::Reuse);

    // Due again, drawn exactly to the end: the exact picture replaces the draft.
    REQUIRE(f.m_picture.tick(2000 + KeptPicture::kRefineAfterMs, false));
    cairo_surface_t* done = f.draw(options, Work::Refine, 1, false, 2300);
    CHECK(done != draft);
    CHECK(f.m_picture.surface() == done);
    CHECK(f.m_picture.state() == State::Exact);
    CHECK(f.m_picture.lastFrame() == KeptPicture::LastFrame::Refined);
    CHECK(f.m_picture.pictures() == 2);
    CHECK(f.m_picture.workFor(options, 1) == Work::Reuse);
}

TEST_CASE("the kept picture names its views' plans for --trace, the context view last") {
    Fixture f;
    f.draw(f.options(), Work::Draw, 1, false, 0);
    const std::string plans = f.m_picture.plans();
    CHECK(plans.find(" view0.") == 0);
    CHECK(plans.find(" context.") != std::string::npos);
    CHECK(plans.find(" view1.") == std::string::npos);
    ReportOptions bins = f.options();
    bins.m_bins = timeline::BinKind::Thread;  // correlated views: no context view
    f.draw(bins, Work::Draw, 1, false, 0);
    CHECK(f.m_picture.plans().find(" view1.") != std::string::npos);
    CHECK(f.m_picture.plans().find(" context.") == std::string::npos);
}

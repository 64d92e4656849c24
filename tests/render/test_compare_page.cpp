// Two runs on one page (memtimeline BASE --compare NEW), painted as the PNG export paints it: one
// site in one colour in both runs though their stacks and rankings differ, one time scale (a
// moment at the same x in both), each run on its own address axis.
#include <catch2/catch.hpp>

#include "heap_records.hpp"
#include "render/report/compare_page.hpp"
#include "render_helpers.hpp"
#include "timeline/names/site_index.hpp"

using namespace memlog;
using memlog::test::Image;
using memlog::test::LogBuilder;
using memlog::test::modelOf;
using render::ColourBy;
using render::ComparePage;
using render::Rect;
using render::Report;
using render::ReportOptions;
using timeline::XAxis;

namespace {

constexpr uint64_t kBaseAlpha = 0x5000'0000, kBaseBeta = 0x5000'2000;
constexpr uint64_t kNewAlpha = 0x7f00'0000'0000, kNewBeta = 0x7f00'0001'0000;

unwind::SourceFrame frame(const char* function, uint32_t line) { return {function, "app.cpp", line, "app", false}; }

// The base run: alpha (stack 1) holds 4 KiB for 20 events, beta (stack 2) 256 bytes.
timeline::BlockModel baseModel() {
    LogBuilder log;
    log.thread(1).malloc(1, kBaseAlpha, 4096, 1).malloc(2, kBaseBeta, 256, 2).free(21, kBaseAlpha, 1).free(22, kBaseBeta, 2);
    return modelOf(log);
}

// The new run, rebuilt: other stack ids (5 is alpha, 7 beta), other addresses, twice as long; beta
// now holds 8 KiB for 40 events and alpha 4 KiB for 10, so that beta covers the most of both runs.
timeline::BlockModel newModel() {
    LogBuilder log;
    log.thread(1).malloc(1, kNewBeta, 8192, 7).malloc(2, kNewAlpha, 4096, 5).free(12, kNewAlpha, 5).free(41, kNewBeta, 7);
    return modelOf(log);
}

timeline::SiteIndex baseSites() {
    return {{0, 1, 2}, {frame("(no stack)", 0), frame("alpha()", 10), frame("beta()", 20)}};
}

timeline::SiteIndex newSites() {
    return {{0, 0, 0, 0, 0, 2, 0, 1}, {frame("(no stack)", 0), frame("beta()", 20), frame("alpha()", 10)}};
}

ReportOptions flatOptions() {
    ReportOptions options;
    options.m_width = 900;
    options.m_height = 1000;
    options.m_cushion = render::CushionStyle::None;
    options.m_alpha = 1;
    options.m_colourBy = ColourBy::Site;
    options.m_axis = XAxis::Time;
    return options;
}

const timeline::Block& blockAt(const timeline::BlockModel& model, uint64_t addr) {
    for (size_t i = 0; i < model.size(); ++i)
        if (model[i].addr() == addr) return model[i];
    FAIL("no block at " << addr);
    return model[0];
}

// Where `block` is drawn in the report's main view, moved down by `top` page rows.
Rect mainRect(const Report& report, const timeline::Block& block, int top) {
    const std::vector<Rect> rects = report.blockRects(block);
    REQUIRE(!rects.empty());
    Rect rect = rects.front();  // the main view's; the context view's comes after
    rect.m_y += top;
    return rect;
}

uint32_t centre(const Image& image, const Rect& rect) {
    return image.at(static_cast<int>(rect.m_x + rect.m_width / 2), static_cast<int>(rect.m_y + rect.m_height / 2));
}

struct Runs {
    timeline::BlockModel m_base = baseModel(), m_new = newModel();
    timeline::SiteIndex m_baseSites = baseSites(), m_newSites = newSites();
    ComparePage page() const {
        return ComparePage({&m_base, &m_baseSites, flatOptions()}, {&m_new, &m_newSites, flatOptions()});
    }
};

}  // namespace

TEST_CASE("compare page: a site is one colour in both runs, matched by name across other stacks and rankings") {
    const Runs runs;
    const ComparePage page = runs.page();
    cairo_surface_t* surface = render::renderPageImage(page);
    const Image image = test::imageOf(surface);
    cairo_surface_destroy(surface);
    REQUIRE(image.m_width == 900);
    REQUIRE(image.m_height == 1000);
    const uint32_t baseAlpha = centre(image, mainRect(page.base(), blockAt(runs.m_base, kBaseAlpha), 0));
    const uint32_t baseBeta = centre(image, mainRect(page.base(), blockAt(runs.m_base, kBaseBeta), 0));
    const uint32_t newAlpha = centre(image, mainRect(page.next(), blockAt(runs.m_new, kNewAlpha), page.nextTop()));
    const uint32_t newBeta = centre(image, mainRect(page.next(), blockAt(runs.m_new, kNewBeta), page.nextTop()));
    CHECK(baseAlpha == newAlpha);
    CHECK(baseBeta == newBeta);
    CHECK(baseAlpha != baseBeta);
    // Beta covers the most of the two runs: the palette's first colour, in both legends.
    CHECK(test::channelDistance(baseBeta, render::toArgb(render::categoryColour(0))) <= 2);
    CHECK(test::channelDistance(baseAlpha, render::toArgb(render::categoryColour(1))) <= 2);
    CHECK(page.base().colouring().categories().front().m_label == "beta() (app.cpp:20)");
    CHECK(page.next().colouring().categories().front().m_label == "beta() (app.cpp:20)");
    // Each run drawn alone ranks its own sites: alpha would take the base's first colour, and the
    // two pictures would give one site two colours.
    ReportOptions alone = flatOptions();
    alone.m_height = 500;
    const Report baseAlone(runs.m_base, &runs.m_baseSites, alone);
    const Image aloneImage = test::imageOf(baseAlone);
    const uint32_t aloneAlpha = centre(aloneImage, mainRect(baseAlone, blockAt(runs.m_base, kBaseAlpha), 0));
    CHECK(test::channelDistance(aloneAlpha, render::toArgb(render::categoryColour(0))) <= 2);
}

TEST_CASE("compare page: one time scale from each run's start, each run on its own address axis") {
    const Runs runs;
    const ComparePage page = runs.page();
    CHECK(page.base().window() == page.next().window());
    CHECK(page.base().window().m_from == 0);
    CHECK(page.base().window().m_to == runs.m_new.extent(XAxis::Time).m_to);  // the longer run's end
    CHECK(page.nextTop() == 500);
    // Both runs begin a block at the same moment after their start: the same x on the page.
    const Rect baseAlpha = mainRect(page.base(), blockAt(runs.m_base, kBaseAlpha), 0);
    const Rect newBeta = mainRect(page.next(), blockAt(runs.m_new, kNewBeta), page.nextTop());
    CHECK(baseAlpha.m_x == Approx(newBeta.m_x).margin(1));
    // The base's block lives 20 events, the new one's 40: half as wide on the shared scale.
    CHECK(baseAlpha.m_width * 2 == Approx(newBeta.m_width).margin(2));
    // Each in its own half, on its own addresses (the new run's 0x7f00... are not on the base's axis).
    CHECK(baseAlpha.bottom() <= page.nextTop());
    CHECK(newBeta.m_y >= page.nextTop());
    CHECK_FALSE(page.base().scale(0).y(kNewBeta));
}

TEST_CASE("compare page: a --range window is both runs', and the headers say which run is which") {
    const Runs runs;
    ReportOptions base = flatOptions();
    const uint64_t end = runs.m_base.extent(XAxis::Time).m_to;
    base.m_window = timeline::XWindow{end / 4, end / 2};
    const ComparePage page({&runs.m_base, &runs.m_baseSites, base}, {&runs.m_new, &runs.m_newSites, flatOptions()});
    CHECK(page.next().window() == timeline::XWindow{end / 4, end / 2});
    CHECK(page.base().headerLines()[0].rfind("base: memlog", 0) == 0);
    CHECK(page.next().headerLines()[0].rfind("new: memlog", 0) == 0);
}

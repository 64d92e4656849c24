// Two runs in the window (memtimeline BASE --compare NEW, issue 40): both drawn, the base above
// the new, as the compare page draws them; one site in one colour in both halves; a zoom or pan
// in time moves both runs' time axes alike. Asserted on --trace lines and the screen's pixels.
#include <catch2/catch.hpp>

#include <cairo.h>

#include "render/raster/x_scale.hpp"
#include "render/report/compare_page.hpp"
#include "render/report/export.hpp"
#include "window_checks.hpp"

using namespace memlog;
using namespace memlog::test::gui;

namespace {

constexpr uint64_t kBaseAlpha = 0x1000'0000, kBaseBeta = 0x1000'4000;
constexpr uint64_t kNewAlpha = 0x7f00'0000'0000, kNewBeta = 0x7f00'0001'0000;

// One run: beta (its code at 0x402000) allocated 2 us in, alpha (0x401000, 4 KiB) 20 us in,
// each under its own stack id, freed when given (us).
void writeRun(const std::string& path, uint64_t alpha, uint32_t alphaStack, uint64_t alphaFreed, uint64_t beta,
              uint32_t betaStack, uint64_t betaBytes, uint64_t betaFreed) {
    LogBuilder log;
    LogBuilder::Thread& thread = log.thread(1).stack(alphaStack, {0x401000}).stack(betaStack, {0x402000});
    thread.malloc(2, beta, betaBytes, betaStack).malloc(20, alpha, 4096, alphaStack);
    if (betaFreed < alphaFreed)
        thread.free(betaFreed, beta, betaStack).free(alphaFreed, alpha, alphaStack);
    else
        thread.free(alphaFreed, alpha, alphaStack).free(betaFreed, beta, betaStack);
    log.write(path);
}

// The base: beta 8 KiB until 30 us, alpha until 40 us. The new run, rebuilt: other stack ids
// and addresses, alpha until 45 us, beta 16 KiB until 50 us. Sites are matched by name, never
// by stack id or address.
void writeRuns(const std::string& base, const std::string& next) {
    writeRun(base, kBaseAlpha, 1, 40, kBaseBeta, 2, 8192, 30);
    writeRun(next, kNewAlpha, 5, 45, kNewBeta, 7, 16384, 50);
}

struct Runs : Session {
    std::string m_next = m_dir.m_path + "/next.memlog";
    std::unique_ptr<render::LoadedLog> m_baseLog, m_nextLog;
    Runs() {
        writeRuns(m_log, m_next);
        m_baseLog = render::loadLog(m_log, timeline::XAxis::Time, render::ColourBy::Site);
        m_nextLog = render::loadLog(m_next, timeline::XAxis::Time, render::ColourBy::Site);
    }
    // The compare page as the window should show it over `window` (flat colours, as asked).
    std::unique_ptr<render::ComparePage> page(timeline::XWindow window) const {
        render::ReportOptions options;
        options.m_width = kWidth;
        options.m_height = kHeight;
        options.m_cushion = render::CushionStyle::None;
        options.m_alpha = 1;
        options.m_window = window;
        render::ReportOptions next = options;
        options.m_logPath = m_log;
        next.m_logPath = m_next;
        return std::make_unique<render::ComparePage>(
            render::ComparedRun{&m_baseLog->m_model, &m_baseLog->m_sites, options},
            render::ComparedRun{&m_nextLog->m_model, &m_nextLog->m_sites, next});
    }
};

const timeline::Block& blockAt(const timeline::BlockModel& model, uint64_t addr) {
    for (size_t i = 0; i < model.size(); ++i)
        if (model[i].addr() == addr) return model[i];
    throw std::runtime_error("no block at " + std::to_string(addr));
}

// Where a block is drawn on the page: its rectangle in the main view of the base's report (top
// 0) or of the new run's (top: the page's nextTop).
render::Rect drawnAt(const render::Report& report, const timeline::Block& block, int top) {
    render::Rect rect = report.blockRects(block).front();
    rect.m_y += top;
    return rect;
}

timeline::XWindow windowOf(const Frame& frame) {
    const auto [from, to] = span(frame["window"]);
    return {static_cast<uint64_t>(from), static_cast<uint64_t>(to)};
}

// Pixels of the page painted here that the window at `origin` does not show, in each run's
// main view, occupancy bar and context view. (Text is left out: drawn straight onto the
// window's surface, as every page is, its glyphs differ from an image's by a shade here and
// there.)
size_t differingFromScreen(const Screenshot& screen, std::pair<int, int> origin, const render::ComparePage& page) {
    cairo_surface_t* painted = render::renderPageImage(page);
    const auto* data = cairo_image_surface_get_data(painted);
    const int stride = cairo_image_surface_get_stride(painted);
    size_t differing = 0, compared = 0;
    for (const auto& [report, top] : {std::pair{&page.base(), 0}, std::pair{&page.next(), page.nextTop()}}) {
        const render::ReportLayout& layout = report->layout();
        for (const render::Rect& rect : {layout.m_cells.front().m_view, layout.m_cells.front().m_bar, layout.m_context})
            for (int y = static_cast<int>(rect.m_y); y < static_cast<int>(rect.bottom()); ++y)
                for (int x = static_cast<int>(rect.m_x); x < static_cast<int>(rect.right()); ++x) {
                    ++compared;
                    differing += (reinterpret_cast<const uint32_t*>(data + (top + y) * stride)[x] & 0xffffff) !=
                                 screen.at(origin.first + x, origin.second + top + y);
                }
    }
    REQUIRE(compared > 2 * 300 * 600);  // both runs' views, not an empty set of pixels
    if (differing) {
        screen.writePng("/tmp/memlog-gui-screen.png");
        cairo_surface_write_to_png(painted, "/tmp/memlog-gui-wanted.png");
    }
    cairo_surface_destroy(painted);
    return differing;
}

uint32_t pixelAt(const Screenshot& screen, std::pair<int, int> origin, double x, double y) {
    return screen.at(origin.first + static_cast<int>(x), origin.second + static_cast<int>(y));
}

}  // namespace

TEST_CASE(
    "memtimeline BASE --compare NEW opens the window on both runs: the compare page, one colour a site, "
    "and a zoom or pan in time moves both") {
    Runs s;
    WindowProcess window(s.m_x, s.m_log, sized({"--compare", s.m_next.c_str(), "--cushion", "none", "--alpha", "1"}),
                         s.m_dir.m_path);
    const Frame whole = window.lastFrame();  // the first picture: the two runs, not the timeline
    REQUIRE(whole["page"] == "compare");
    // Both runs from their start to the later end, in ns.
    const timeline::XWindow both = render::ComparePage::sharedWindow(s.m_baseLog->m_model, s.m_nextLog->m_model);
    CHECK(both.m_to >= 50000);
    CHECK(windowOf(whole) == both);
    CHECK(whole["base_blocks"] == "2");
    CHECK(whole["new_blocks"] == "2");
    const auto origin = windowOrigin(s.m_x, window.window());

    // Both halves drawn as the compare page draws them, their pictures pixel for pixel.
    auto expected = s.page(windowOf(whole));
    CHECK(std::to_string(expected->nextTop()) == whole["next_top"]);
    Screenshot screen = s.m_x.stableScreenshot();
    CHECK(differingFromScreen(screen, origin, *expected) == 0);

    // One site, one colour, in both halves though the stack ids differ; two sites, two colours.
    const timeline::Block& baseAlpha = blockAt(s.m_baseLog->m_model, kBaseAlpha);
    const timeline::Block& baseBeta = blockAt(s.m_baseLog->m_model, kBaseBeta);
    const timeline::Block& newAlpha = blockAt(s.m_nextLog->m_model, kNewAlpha);
    const timeline::Block& newBeta = blockAt(s.m_nextLog->m_model, kNewBeta);
    auto centreColour = [&](const render::Report& report, const timeline::Block& block, int top) {
        const render::Rect rect = drawnAt(report, block, top);
        return pixelAt(screen, origin, rect.m_x + rect.m_width / 2, rect.m_y + rect.m_height / 2);
    };
    const int nextTop = expected->nextTop();
    REQUIRE(baseAlpha.beginNs() == newAlpha.beginNs());  // 20 us into both runs
    CHECK(centreColour(expected->base(), baseAlpha, 0) == centreColour(expected->next(), newAlpha, nextTop));
    CHECK(centreColour(expected->base(), baseBeta, 0) == centreColour(expected->next(), newBeta, nextTop));
    CHECK(centreColour(expected->base(), baseAlpha, 0) != centreColour(expected->base(), baseBeta, 0));

    // Alpha begins 2 us into both runs: its left edge is one column in both halves, on screen,
    // where the window's time scale puts 2 us.
    auto alphaEdges = [&](const render::ComparePage& page) {
        const render::Rect view = page.base().layout().m_cells.front().m_view;
        const double x =
            view.m_x + render::XScale(page.base().window(), view.m_width).x(static_cast<double>(baseAlpha.beginNs()));
        const render::Rect top = drawnAt(page.base(), baseAlpha, 0),
                           bottom = drawnAt(page.next(), newAlpha, page.nextTop());
        const uint32_t alpha = centreColour(page.base(), baseAlpha, 0);
        // The first column of alpha's colour on a row through each half's block.
        auto edge = [&](const render::Rect& rect) {
            const double y = rect.m_y + rect.m_height / 2;
            for (int column = static_cast<int>(view.m_x); column < static_cast<int>(view.right()); ++column)
                if (pixelAt(screen, origin, column, y) == alpha) return column;
            return -1;
        };
        const int topEdge = edge(top), bottomEdge = edge(bottom);
        CHECK(topEdge == bottomEdge);
        CHECK(std::abs(topEdge - x) <= 1);
        return topEdge;
    };
    const int edgeWhole = alphaEdges(*expected);

    // t about a point a quarter across the views (the pointer over the new run's half): the
    // time window narrows about that moment, and both runs are drawn over it; alpha's beginning
    // stays in sight, a little to the right.
    const render::Rect view = expected->next().layout().m_cells.front().m_view;
    const int px = static_cast<int>(view.m_x + view.m_width / 4), py = static_cast<int>(nextTop + view.m_y + 20);
    s.m_x.moveMouse(window.window(), px, py);
    const double anchor = static_cast<double>(both.width()) * (px - view.m_x) / view.m_width;
    s.m_x.key(window.window(), "t");
    const Frame zoomed = window.waitForFrame([&](const Frame& f) { return f["window"] != whole["window"]; });
    const timeline::XWindow narrow = windowOf(zoomed);
    CHECK(static_cast<double>(narrow.width()) == Approx(both.width() / 1.25).epsilon(0.001));
    CHECK(narrow.m_from + narrow.width() * (px - view.m_x) / view.m_width == Approx(anchor).epsilon(0.001));
    screen = s.m_x.stableScreenshot();
    expected = s.page(narrow);
    CHECK(differingFromScreen(screen, origin, *expected) == 0);
    const int edgeZoomed = alphaEdges(*expected);
    CHECK(edgeZoomed != edgeWhole);  // 2 us moved on both axes, alike

    // Two notches of the wheel over the base's half, then a pan right: both again.
    s.m_x.wheel(window.window(), px, static_cast<int>(view.m_y + 20), 2);
    const Frame wheeled = window.waitForFrame(  // the notches may come a frame each
        [&](const Frame& f) { return windowOf(f).width() < narrow.width() / 1.5; });
    CHECK(static_cast<double>(windowOf(wheeled).width()) == Approx(both.width() / std::pow(1.25, 3)).epsilon(0.001));
    s.m_x.key(window.window(), "Left");
    const Frame panned = window.waitForFrame([&](const Frame& f) { return f["window"] != wheeled["window"]; });
    CHECK(windowOf(panned).width() == windowOf(wheeled).width());
    CHECK(static_cast<double>(windowOf(panned).m_from) ==
          Approx(static_cast<double>(windowOf(wheeled).m_from) - windowOf(wheeled).width() / 10.0).margin(1));
    screen = s.m_x.stableScreenshot();
    expected = s.page(windowOf(panned));
    CHECK(differingFromScreen(screen, origin, *expected) == 0);
    CHECK(alphaEdges(*expected) != edgeZoomed);

    // Esc: the base run's timeline alone; o: the two runs again, whole.
    s.m_x.key(window.window(), "Escape");
    const Frame timeline = frameWith(window, "page", "timeline");
    CHECK(timeline["blocks"] == "2");
    s.m_x.key(window.window(), "o");
    CHECK(windowOf(frameWith(window, "page", "compare")) == both);
}

TEST_CASE("memtimeline BASE --compare NEW in the window: a bad new log is one line and status 2, no window") {
    Runs s;
    const test::Outcome outcome = memtimeline(s, {s.m_log, "--compare", s.m_dir.m_path + "/missing.memlog"});
    CHECK(outcome.m_exitStatus == 2);
    CHECK(std::count(outcome.m_stderr.begin(), outcome.m_stderr.end(), '\n') == 1);
    CHECK(outcome.m_stderr.find("missing.memlog: offset 0: cannot open") != std::string::npos);
    CHECK(s.m_x.findWindow("memtimeline", 1).empty());
}

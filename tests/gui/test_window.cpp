// memtimeline's window, used as a person would: a real SDL2 window on a private X server,
// mouse and keys from xdotool, and assertions on what it drew (the framebuffer) and on the
// view its --trace lines report.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "render/window/control_strip.hpp"
#include "timeline/model/access_summary.hpp"
#include "timeline/model/bins.hpp"
#include "timeline/base/text_format.hpp"
#include "window_checks.hpp"

using namespace memlog;
using namespace memlog::test::gui;

TEST_CASE("the wheel zooms in time about the pointer, shift+wheel in addresses, arrows pan, 0 resets") {
    HeapWindow s;
    WindowProcess& window = s.m_window;
    const Geometry g(kWidth, kHeight);
    const Frame whole = window.lastFrame();
    const auto [from, to] = span(whole["x"]);
    // A quarter of the way across the view: that moment stays under the pointer.
    const int px = static_cast<int>(g.m_view.m_x + g.m_view.m_width / 4), py = static_cast<int>(g.m_view.m_y + 100);
    const double anchor = from + (to - from) * (px - g.m_view.m_x) / g.m_view.m_width;
    s.m_x.wheel(window.window(), px, py, 3);
    const Frame zoomed = window.waitForFrame(
        [&](const Frame& f) { return span(f["x"]).second - span(f["x"]).first < (to - from) / 1.9; });
    const auto [zfrom, zto] = span(zoomed["x"]);
    CHECK((zto - zfrom) == Approx((to - from) / std::pow(1.25, 3)).epsilon(0.01));
    CHECK(zfrom + (zto - zfrom) * (px - g.m_view.m_x) / g.m_view.m_width == Approx(anchor).epsilon(0.001));
    CHECK(zoomed["zoom"] == "1");  // the wheel alone leaves the addresses

    s.m_x.xdotool({"keydown", "shift"});
    s.m_x.wheel(window.window(), px, py, 4);
    s.m_x.xdotool({"keyup", "shift"});
    const Frame deeper = window.waitForFrame([](const Frame& f) { return f.number("zoom") > 2; });
    CHECK(deeper.number("zoom") == Approx(std::pow(1.25, 4)).epsilon(0.01));
    CHECK(deeper["x"] == zoomed["x"]);

    s.m_x.key(window.window(), "Right");
    const Frame panned = window.waitForFrame([&](const Frame& f) { return f["x"] != zoomed["x"]; });
    CHECK(span(panned["x"]).first == Approx(zfrom + (zto - zfrom) / 10).epsilon(0.001));
    s.m_x.key(window.window(), "0");
    const Frame reset = window.waitForFrame([&](const Frame& f) { return f["x"] == whole["x"] && f["zoom"] == "1"; });
    CHECK(reset["addr"] == whole["addr"]);
}

TEST_CASE("a dragged box becomes the view, and keys zoom as deep as single bytes") {
    HeapWindow s;
    WindowProcess& window = s.m_window;
    const Geometry g(kWidth, kHeight);
    const Frame whole = window.lastFrame();
    const auto [from, to] = span(whole["x"]);
    // Right-drag from 20 % to 60 % of the width.
    const int x0 = static_cast<int>(g.m_view.m_x + 0.2 * g.m_view.m_width),
              x1 = static_cast<int>(g.m_view.m_x + 0.6 * g.m_view.m_width);
    const int y0 = static_cast<int>(g.m_view.m_y + 0.5 * g.m_view.m_height),
              y1 = static_cast<int>(g.m_view.m_y + 0.7 * g.m_view.m_height);
    s.m_x.drag(window.window(), x0, y0, x1, y1, 3);
    const Frame boxed = window.waitForFrame([](const Frame& f) { return f.number("zoom") > 1; });
    const auto [bfrom, bto] = span(boxed["x"]);
    CHECK(bfrom == Approx(from + (to - from) * (x0 - g.m_view.m_x) / g.m_view.m_width).epsilon(0.01));
    CHECK(bto == Approx(from + (to - from) * (x1 - g.m_view.m_x) / g.m_view.m_width).epsilon(0.01));
    CHECK(boxed.number("zoom") == Approx(g.m_view.m_height / (y1 - y0)).epsilon(0.05));

    // Back to the whole log; then y zooms in addresses only, about the pointer (on block A),
    // until 16 bytes fill the view. Hiding accesses after the last y marks its frame.
    s.m_x.key(window.window(), "0");
    frameWith(window, "zoom", "1");
    const Aim aim(s.m_log);
    const auto [ax, ay] = aim.at(window.lastFrame(), 5000, 0x10000800);
    s.m_x.moveMouse(window.window(), ax, ay);
    for (int i = 0; i < 160; ++i) s.m_x.xdotool({"key", "y"});
    s.m_x.xdotool({"key", "a"});
    const Frame deep = frameWith(window, "accesses", "0");
    const auto [lo, hi] = addresses(deep);
    CHECK(hi - lo + 1 >= 16);
    CHECK(hi - lo + 1 < 32);
    CHECK(lo >= 0x10000000);  // inside block A, about where the pointer was
    CHECK(hi < 0x10001000);
    // Inside one block at that depth: the view is that block's colour from top to bottom.
    window.frameAfter([&] { s.m_x.moveMouse(window.window(), kWidth + 50, kHeight + 50); });
    const Screenshot screen = s.m_x.stableScreenshot();
    const auto [left, top] = windowOrigin(s.m_x, window.window());
    const int column = left + ax;
    const uint32_t colour = screen.at(column, top + static_cast<int>(g.m_view.m_y + g.m_view.m_height / 2));
    CHECK(colour != 0xffffff);  // not free memory
    for (int row : {10, 100, 300}) CHECK(screen.at(column, top + static_cast<int>(g.m_view.m_y) + row) == colour);
}

TEST_CASE("hovering a block shows its real size in a tooltip and outlines it in the view and the context view") {
    HeapWindow s;
    WindowProcess& window = s.m_window;
    const Aim aim(s.m_log);
    const Frame first = window.lastFrame();
    // Block A: 4 KiB at 0x10000000 from 1 us to 10 us; aim at 5 us, 1 KiB into it.
    const auto [x, y] = aim.at(first, 5000, 0x10000400);
    s.m_x.moveMouse(window.window(), x, y);
    const Frame hovered = window.waitForFrame([](const Frame& f) { return f["hover"] != "-"; });
    CHECK(hovered["hover"] == "0");  // the first block the log began
    const Screenshot screen = s.m_x.stableScreenshot();
    const auto [left, top] = windowOrigin(s.m_x, window.window());
    CHECK(tooltipShows(screen, left, top, x, y, "block 0x10000000, 4 KiB (4,096 bytes)", aim.m_geometry.m_font));
    // Outlined in the context view too: dark outline pixels appear at its edge there.
    const render::Rect& context = aim.m_geometry.m_context;
    int dark = 0;
    for (int row = static_cast<int>(context.m_y); row < static_cast<int>(context.bottom()); ++row)
        for (int column = static_cast<int>(context.m_x); column < static_cast<int>(context.right()); ++column)
            dark += (screen.at(left + column, top + row) & 0xffffff) <= 0x202020;
    CHECK(dark > 20);
    // The tooltip and outlines are drawn over the picture as it was: hovering redraws no report.
    CHECK(hovered["pictures"] == first["pictures"]);
    // Block B, 256 bytes, elsewhere: its own size.
    const auto [bx, by] = aim.at(first, 5000, 0x10002080);
    s.m_x.moveMouse(window.window(), bx, by);
    frameWith(window, "hover", "1");
    CHECK(tooltipShows(s.m_x.stableScreenshot(), left, top, bx, by, "block 0x10002000, 256 B", aim.m_geometry.m_font));
}

TEST_CASE("a click pins the block and shows its stacks in the side panel, Esc unpins") {
    HeapWindow s;
    WindowProcess& window = s.m_window;
    const Aim aim(s.m_log);
    const auto [x, y] = aim.at(window.lastFrame(), 5000, 0x10002080);
    const auto [left, top] = windowOrigin(s.m_x, window.window());
    const render::Rect& legend = aim.m_geometry.m_legend;
    auto redInLegend = [&](const Screenshot& screen) {
        int red = 0;
        for (int row = static_cast<int>(legend.m_y); row < static_cast<int>(legend.m_y + 40); ++row)
            for (int column = static_cast<int>(legend.m_x); column < static_cast<int>(legend.right()); ++column) {
                const uint32_t p = screen.at(left + column, top + row);
                red += ((p >> 16) & 255) > 180 && ((p >> 8) & 255) < 90 && (p & 255) < 90;
            }
        return red;
    };
    CHECK(redInLegend(s.m_x.stableScreenshot()) == 0);
    s.m_x.click(window.window(), x, y);
    frameWith(window, "pinned", "1");
    CHECK(redInLegend(s.m_x.stableScreenshot()) > 30);  // the panel's title, in the pinned colour
    window.frameAfter([&] { s.m_x.moveMouse(window.window(), 5, 5); });  // off the blocks: the pin stays
    CHECK(window.lastFrame()["pinned"] == "1");
    s.m_x.key(window.window(), "Escape");
    frameWith(window, "pinned", "-");
    CHECK(redInLegend(s.m_x.stableScreenshot()) == 0);
}

TEST_CASE("e exports exactly the view on screen, as --export draws it") {
    HeapWindow s;
    WindowProcess& window = s.m_window;
    s.m_x.key(window.window(), "t");  // zoomed in time: the export is of this view, not the whole log
    const Frame zoomed = window.waitForFrame([&](const Frame& f) { return f.m_number > 1 && f["zoom"] == "1"; });
    s.m_x.moveMouse(window.window(), kWidth + 50, kHeight + 50);  // no tooltip in the picture
    s.m_x.key(window.window(), "e");
    const std::string exported = s.m_dir.m_path + "/heap-view-1.png";
    window.waitForFrame([&](const Frame&) {
        return window.stderrText().find("exported the view to heap-view-1.png") != std::string::npos;
    });
    cairo_surface_t* png = cairo_image_surface_create_from_png(exported.c_str());
    REQUIRE(cairo_surface_status(png) == CAIRO_STATUS_SUCCESS);
    const Geometry g(kWidth, kHeight);
    CHECK(cairo_image_surface_get_width(png) == kWidth);
    CHECK(cairo_image_surface_get_height(png) == kHeight - static_cast<int>(g.m_strip));
    // Wait for the toast to go, then compare the report's pixels under the strip, one by one.
    window.waitForFrame([&](const Frame& f) { return f.m_number > zoomed.m_number + 1; }, 10);
    std::this_thread::sleep_for(std::chrono::milliseconds(4500));
    CHECK(pixelsOffScreen(s.m_x, window.window(), png) == 0);
    cairo_surface_destroy(png);
}

TEST_CASE("keys and the control strip switch colour, cushions, axis, views and accesses") {
    HeapWindow s;
    WindowProcess& window = s.m_window;
    const Geometry g(kWidth, kHeight);
    s.m_x.key(window.window(), "c");
    frameWith(window, "colour", "thread");
    s.m_x.key(window.window(), "u");
    frameWith(window, "cushion", "parabolic");
    s.m_x.key(window.window(), "x");
    const Frame events = frameWith(window, "axis", "events");
    CHECK(span(events["x"]).second <= 11);  // event numbers now, not nanoseconds
    s.m_x.key(window.window(), "b");
    // The bins are made behind the progress bar, then drawn.
    const Frame sorting =
        window.waitForFrame([](const Frame& f) { return f["bins"] == "size" && f["preparing"] == "1"; });
    const Frame binned =
        window.waitForFrame([](const Frame& f) { return f["bins"] == "size" && f["preparing"] == "0"; });
    CHECK(binned.m_number > sorting.m_number);
    CHECK(binned.number("pictures") > sorting.number("pictures"));
    s.m_x.key(window.window(), "l");
    frameWith(window, "layout", "address");
    // The first button of the strip is the colour: a click moves it on.
    s.m_x.click(window.window(), 20, static_cast<int>(g.m_strip / 2));
    frameWith(window, "colour", "size");
    const double alpha = window.lastFrame().number("alpha");
    s.m_x.key(window.window(), "bracketleft");
    const Frame lower = window.waitForFrame([&](const Frame& f) { return f.number("alpha") < alpha - 0.01; });
    CHECK(lower.number("alpha") == Approx(alpha - 0.05));
    // Correlated views have no context view to keep: no lagging frame, none drawn after it.
    CHECK(lower["context"] == "current");
    s.m_x.key(window.window(), "a");
    CHECK(frameWith(window, "accesses", "0").m_number == lower.m_number + 1);
}

TEST_CASE("the alpha slider, dragged live, makes a block thinner than a pixel stand out") {
    Session s;
    LogBuilder log;
    // A 1 MiB block, and 48 KiB above it (free memory, the same range) 16 bytes: a 100th of a
    // pixel tall, alone in its pixel.
    log.thread(1).malloc(1, 0x20000000, 1 << 20).malloc(2, 0x2010c000, 16).free(8, 0x2010c000).free(9, 0x20000000);
    log.write(s.m_log);
    WindowProcess window(s.m_x, s.m_log, sized(), s.m_dir.m_path);
    const Aim aim(s.m_log);
    const auto [x, y] = aim.at(window.lastFrame(), 5000, 0x2010c008);
    const auto [left, top] = windowOrigin(s.m_x, window.window());
    // Where the slider's ends are: the strip laid out as the window lays it out.
    cairo_surface_t* scratch = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 10, 10);
    cairo_t* cr = cairo_create(scratch);
    render::WindowState state;
    const render::ControlStrip strip(cr, state, {0, 0, static_cast<double>(kWidth), aim.m_geometry.m_strip},
                                     aim.m_geometry.m_font);
    cairo_destroy(cr);
    cairo_surface_destroy(scratch);
    double knob = 0, leftEnd = 0, rightEnd = 0;
    for (double at = 0; at < kWidth; at += 0.5) {
        if (!leftEnd && strip.alphaAt(at) > render::ControlStrip::kMinAlpha) leftEnd = at - 0.5;
        if (!knob && strip.alphaAt(at) >= state.m_alpha) knob = at;
        if (!rightEnd && strip.alphaAt(at) >= 1) rightEnd = at;
    }
    const int knobY = static_cast<int>(aim.m_geometry.m_strip / 2);
    auto darkness = [&]() {
        const Screenshot screen = s.m_x.stableScreenshot();
        const uint32_t p = screen.at(left + x, top + y);
        return 255 - (0.3 * ((p >> 16) & 255) + 0.59 * ((p >> 8) & 255) + 0.11 * (p & 255));
    };
    // The context view (the whole log) keeps its picture while the slider moves, and is drawn
    // for the alpha let go at once the button is up.
    const render::Rect& context = aim.m_geometry.m_context;
    auto contextPixels = [&]() {
        const Screenshot screen = s.m_x.stableScreenshot();
        std::vector<uint32_t> pixels;
        for (int row = static_cast<int>(context.m_y); row < static_cast<int>(context.bottom()); ++row)
            for (int column = static_cast<int>(context.m_x); column < static_cast<int>(context.right()); ++column)
                pixels.push_back(screen.at(left + column, top + row));
        return pixels;
    };
    s.m_x.drag(window.window(), static_cast<int>(knob), knobY, static_cast<int>(rightEnd) + 5, knobY);
    // One wait: the first frame at alpha 1 may already have the context view drawn for it (the
    // button was up before it was drawn), and then no other frame comes.
    window.waitForFrame([](const Frame& f) { return f["alpha"] == "1.00" && f["context"] == "current"; });
    const double atOne = darkness();
    const std::vector<uint32_t> contextAtOne = contextPixels();
    s.m_x.drag(window.window(), static_cast<int>(rightEnd), knobY, static_cast<int>(leftEnd) - 5, knobY);
    window.waitForFrame([](const Frame& f) { return f["alpha"] == "0.05" && f["context"] == "current"; });
    const double atLow = darkness();
    CHECK(atOne < 10);  // a hundredth of a pixel, weighed as such: barely there
    CHECK(atLow > atOne + 60);  // boosted by f^alpha: plainly visible
    const std::vector<uint32_t> contextAtLow = contextPixels();
    CHECK(contextAtLow != contextAtOne);  // there too, once the slider is let go
    // Alpha by key: a frame of the main view with the context view kept, then at once, with no
    // more input, one that draws the context view for the new alpha too.
    const Frame keyed = window.frameAfter([&] { s.m_x.key(window.window(), "bracketright"); });
    CHECK(keyed["alpha"] == "0.10");
    CHECK(keyed["context"] == "lagging");
    const Frame caught = window.waitForFrame([](const Frame& f) { return f["context"] == "current"; });
    CHECK(caught["alpha"] == "0.10");
    CHECK(caught.number("pictures") == keyed.number("pictures") + 1);
    CHECK(contextPixels() != contextAtLow);
}

TEST_CASE("cursors: k places one at the pointer, a drag moves it, a right click removes it") {
    HeapWindow s;
    WindowProcess& window = s.m_window;
    const Geometry g(kWidth, kHeight);
    const int x = static_cast<int>(g.m_view.m_x + g.m_view.m_width / 2), y = static_cast<int>(g.m_view.m_y + 20);
    const auto [left, top] = windowOrigin(s.m_x, window.window());
    const int barRow = top + static_cast<int>(g.m_bar.m_y + g.m_bar.m_height / 2);
    window.frameAfter([&] { s.m_x.moveMouse(window.window(), kWidth + 50, kHeight + 50); });
    const Screenshot before = s.m_x.stableScreenshot();
    s.m_x.moveMouse(window.window(), x, y);
    s.m_x.key(window.window(), "k");
    frameWith(window, "cursors", "1");
    window.frameAfter([&] { s.m_x.moveMouse(window.window(), kWidth + 50, kHeight + 50); });
    // A cushion across the views and bars: the picture changes where it stands, not 30 px away.
    const Screenshot placed = s.m_x.stableScreenshot();
    auto luminance = [](uint32_t p) { return 0.3 * ((p >> 16) & 255) + 0.59 * ((p >> 8) & 255) + 0.11 * (p & 255); };
    CHECK(std::fabs(luminance(placed.at(left + x, barRow)) - luminance(before.at(left + x, barRow))) > 1);
    CHECK(placed.at(left + x + 30, barRow) == before.at(left + x + 30, barRow));
    // Dragged 100 px right: the ridge moves with it.
    window.frameAfter([&] { s.m_x.drag(window.window(), x, y, x + 100, y); });
    window.frameAfter([&] { s.m_x.moveMouse(window.window(), kWidth + 50, kHeight + 50); });
    const Screenshot moved = s.m_x.stableScreenshot();
    CHECK(moved.at(left + x, barRow) == before.at(left + x, barRow));
    CHECK(std::fabs(luminance(moved.at(left + x + 100, barRow)) - luminance(before.at(left + x + 100, barRow))) > 1);
    s.m_x.click(window.window(), x + 100, y, 3);
    frameWith(window, "cursors", "0");
}

TEST_CASE("in correlated views a cursor goes where the pointer is in the view it is over") {
    HeapWindow s;
    WindowProcess& window = s.m_window;
    s.m_x.key(window.window(), "b");  // views by size class
    s.m_x.key(window.window(), "l");  // side by side: each view narrower than the main view was
    const Frame binned = frameWith(window, "layout", "address");
    const auto [from, to] = span(binned["x"]);
    // The views as the window lays them out: the report's layout for its size classes.
    const Aim aim(s.m_log);
    const auto bins = timeline::Bins::make(timeline::BinKind::Size, aim.m_log->m_model, timeline::XAxis::Time);
    const render::ReportLayout layout = render::binsLayout(kWidth, kHeight - static_cast<int>(aim.m_geometry.m_strip),
                                                           bins.count(), render::BinLayout::Address, true);
    REQUIRE(layout.m_cells.size() >= 2);
    const render::Rect second = layout.m_cells[1].m_view;
    const int x = static_cast<int>(second.m_x + second.m_width * 0.25);
    s.m_x.moveMouse(window.window(), x, static_cast<int>(aim.m_geometry.m_strip + second.m_y + second.m_height / 2));
    s.m_x.key(window.window(), "k");
    const Frame placed = window.waitForFrame([](const Frame& f) { return f["cursors"] == "1"; });
    const double at = std::stod(placed["at"]);
    const double wanted = from + (to - from) * (x - second.m_x) / second.m_width;
    CHECK(at == Approx(wanted).margin((to - from) / second.m_width));  // within a pixel's worth
}

TEST_CASE("a click in the context view moves the view there, keeping its zoom") {
    HeapWindow s;
    WindowProcess& window = s.m_window;
    const Geometry g(kWidth, kHeight);
    s.m_x.key(window.window(), "plus");
    s.m_x.key(window.window(), "plus");
    s.m_x.key(window.window(), "plus");
    const Frame zoomed = window.waitForFrame([](const Frame& f) { return f.number("zoom") > 1.9; });
    // Near the top of the context view: the high range (the 64 KiB block at 0x7f0000000000).
    s.m_x.click(window.window(), static_cast<int>(g.m_context.m_x + g.m_context.m_width * 0.9),
                static_cast<int>(g.m_context.m_y + 3));
    const Frame moved = window.waitForFrame([&](const Frame& f) { return f["addr"] != zoomed["addr"]; });
    CHECK(moved["zoom"] == zoomed["zoom"]);
    CHECK(addresses(moved).second >= 0x7f0000000000);
    const auto [from, to] = span(moved["x"]);
    const auto [zfrom, zto] = span(zoomed["x"]);
    CHECK(to - from == Approx(zto - zfrom).epsilon(0.001));
    CHECK(from > zfrom);  // towards the end of the log
}

TEST_CASE("hovering the occupancy bar tells the live bytes and blocks at that time") {
    HeapWindow s;
    WindowProcess& window = s.m_window;
    const Geometry g(kWidth, kHeight);
    const auto [from, to] = span(window.lastFrame()["x"]);
    // At 6 us: A (4,096), B (256) and D (65,536) are live; C ended at 4 us.
    const int x = static_cast<int>(std::ceil(g.m_bar.m_x + (6000 - from) / (to - from) * g.m_bar.m_width));
    const int y = static_cast<int>(g.m_bar.m_y + g.m_bar.m_height / 2);
    window.frameAfter([&] { s.m_x.moveMouse(window.window(), x, y); });
    const auto [left, top] = windowOrigin(s.m_x, window.window());
    const Screenshot screen = s.m_x.stableScreenshot();
    // The second line of the tooltip: one line further down than the first.
    const std::string line = timeline::bytesText(4096 + 256 + 65536) + " live in 3 blocks";
    CHECK(tooltipShows(screen, left, top, x, y, line, g.m_font, 1));
}

TEST_CASE("access samples are drawn, hidden with a, a hovered one names the access, a click pins its block") {
    Session s;
    LogBuilder log;
    log.header().m_accessSampler = format::AccessSampler::TickPerfClock;
    log.thread(1).malloc(1, 0x10000000, 4096).free(40, 0x10000000);
    log.thread(2).write(10, 0x10000100).read(30, 0x10000e00);
    log.write(s.m_log);
    WindowProcess window(s.m_x, s.m_log, sized(), s.m_dir.m_path);
    const Aim aim(s.m_log);
    const auto [x, y] = aim.at(window.lastFrame(), 10000, 0x10000100);
    const auto [left, top] = windowOrigin(s.m_x, window.window());
    auto writeColourNear = [&](const Screenshot& screen) {
        int found = 0;
        for (int dy = -2; dy <= 2; ++dy)
            for (int dx = -2; dx <= 2; ++dx) {
                const render::Rgb pixel = render::fromArgb(screen.at(left + x + dx, top + y + dy));
                found += pixel.m_r > pixel.m_b + 0.4 && pixel.m_r > pixel.m_g + 0.4;  // a write's red
            }
        return found;
    };
    CHECK(writeColourNear(s.m_x.stableScreenshot()) > 0);
    window.frameAfter([&] { s.m_x.moveMouse(window.window(), x, y); });
    CHECK(tooltipShows(s.m_x.stableScreenshot(), left, top, x, y, "write at 0x10000100", aim.m_geometry.m_font));
    CHECK(window.lastFrame()["pinned"] == "-");
    s.m_x.click(window.window(), x, y);  // on the sample: its block is pinned
    frameWith(window, "pinned", "0");
    s.m_x.moveMouse(window.window(), kWidth + 50, kHeight + 50);
    s.m_x.key(window.window(), "a");
    frameWith(window, "accesses", "0");
    CHECK(writeColourNear(s.m_x.stableScreenshot()) == 0);
}

// The --trace line of the first picture (the frame the window's start waited for); empty if none.
std::string firstPictureLine(const std::string& text) {
    const size_t firstPicture = text.find(" pictures=1 ");
    if (firstPicture == std::string::npos) return "";
    const size_t start = text.rfind("frame ", firstPicture);
    return text.substr(start, text.find('\n', firstPicture) - start);
}

TEST_CASE("a view with more blocks than --draft-above is drawn as a draft, then exactly once input pauses") {
    Session s;
    writeHeapLog(s.m_log, 20'000);
    WindowProcess window(s.m_x, s.m_log, {"--draft-above", "1000", "--size", "1200x800"}, s.m_dir.m_path);
    // The first picture (the frame the window's start waited for): a draft, then the exact
    // picture of the same view with no input.
    const std::string firstLine = firstPictureLine(window.stderrText());
    REQUIRE(!firstLine.empty());
    CHECK(firstLine.find(" draft=1 ") != std::string::npos);
    CHECK(firstLine.find(" view0.draft=1 ") != std::string::npos);  // the plan of the main view
    const Frame exact = window.waitForFrame([](const Frame& f) { return f["refined"] == "1"; });
    CHECK(exact["draft"] == "0");
    CHECK(exact["view0.draft"] == "0");
    CHECK(exact["view0.fold"] == "1");  // level of detail: what a pixel cannot tell apart
    CHECK(exact["context.draft"] == "0");
    CHECK(exact.number("pictures") == 2);
    CHECK(firstLine.find(" x=" + exact["x"] + " ") != std::string::npos);
    const Frame& first = exact;
    // A new view: a draft again, and its exact picture after it.
    s.m_x.key(window.window(), "t");
    const Frame zoomed = window.waitForFrame([&](const Frame& f) { return f["x"] != first["x"]; });
    CHECK(zoomed["draft"] == "1");
    CHECK(zoomed["view0.draft"] == "1");
    CHECK(zoomed.number("view0.fold") >= 8);  // a draft folds nodes of 8 pixels at least
    const Frame zoomedExact = window.waitForFrame([](const Frame& f) { return f["refined"] == "1"; });
    CHECK(zoomedExact["x"] == zoomed["x"]);
    CHECK(zoomedExact["draft"] == "0");

    // By default (drafts above 1.5 million blocks) this log is always drawn exactly.
    Session plain;
    writeHeapLog(plain.m_log, 20'000);
    WindowProcess always(plain.m_x, plain.m_log, {"--size", "1200x800"}, plain.m_dir.m_path);
    const Frame whole = always.lastFrame();
    plain.m_x.key(always.window(), "t");
    always.waitForFrame([&](const Frame& f) { return f["x"] != whole["x"]; });
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    CHECK(always.stderrText().find("draft=1") == std::string::npos);
}

// 100,000 blocks through a ring of 64 slots 4 KiB apart, each freed 64 allocations later:
// leaves of the index some 15 pixels wide and 20 rows tall in the whole view, which a draft
// folds and the exact picture does not.
void writeRingLog(const std::string& path) {
    LogBuilder log;
    auto& main = log.thread(1);
    uint64_t seq = 1, state = 12345;
    for (uint64_t i = 0; i < 100'000; ++i) {
        const uint64_t addr = 0x10000000 + (i % 64) * 4096;
        if (i >= 64) main.free(seq++, addr);
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        main.malloc(seq++, addr, 16 + (state >> 33) % 4000);
    }
    log.write(path);
}

TEST_CASE("e on a draft exports the exact picture, the one that replaces the draft on screen") {
    Session s;
    writeRingLog(s.m_log);
    WindowProcess window(s.m_x, s.m_log, {"--draft-above", "1000", "--size", "1200x800"}, s.m_dir.m_path);
    const Frame whole = window.waitForFrame([](const Frame& f) { return f["refined"] == "1"; });
    s.m_x.moveMouse(window.window(), kWidth + 50, kHeight + 50);  // no tooltip in the picture
    s.m_x.key(window.window(), "t");
    window.waitForFrame([&](const Frame& f) { return f["x"] != whole["x"] && f["draft"] == "1"; });
    s.m_x.key(window.window(), "e");  // within the 0.2 s before the draft is drawn exactly
    const Frame exported = window.waitForFrame([&](const Frame&) {
        return window.stderrText().find("exported the view to heap-view-1.png") != std::string::npos;
    });
    REQUIRE(exported["draft"] == "1");  // the export was of a draft on screen
    window.waitForFrame([](const Frame& f) { return f["refined"] == "1"; });
    std::this_thread::sleep_for(std::chrono::milliseconds(4500));  // the toast goes
    cairo_surface_t* png = cairo_image_surface_create_from_png((s.m_dir.m_path + "/heap-view-1.png").c_str());
    REQUIRE(cairo_surface_status(png) == CAIRO_STATUS_SUCCESS);
    CHECK(pixelsOffScreen(s.m_x, window.window(), png) == 0);
    cairo_surface_destroy(png);
}

TEST_CASE("correlated views with more blocks than --draft-above are drafts of each bin, then exact once input pauses") {
    Session s;
    writeRingLog(s.m_log);
    WindowProcess window(s.m_x, s.m_log, {"--draft-above", "1000", "--size", "1200x800"}, s.m_dir.m_path);
    window.waitForFrame([](const Frame& f) { return f["refined"] == "1"; });
    s.m_x.key(window.window(), "b");  // views by size class
    const Frame draft =
        window.waitForFrame([](const Frame& f) { return f["bins"] == "size" && f["preparing"] == "0"; });
    CHECK(draft["draft"] == "1");
    CHECK(draft.number("folded") > 0);
    CHECK(draft["view0.draft"] == "1");  // a plan each bin's view, no context view
    CHECK(draft["view1.draft"] == "1");
    CHECK(draft["context.draft"].empty());
    const Frame exact = window.waitForFrame([](const Frame& f) { return f["refined"] == "1"; });
    CHECK(exact["bins"] == "size");
    CHECK(exact["view0.fold"] == "0");  // a bin's view folds only as a draft
    CHECK(exact["draft"] == "0");
    CHECK(exact["folded"] == "0");
    CHECK(exact.number("drawn") >= 100'000);
}

TEST_CASE("a HiDPI scale: --scale 2 and GDK_SCALE=2 draw text and controls twice as large") {
    Session s;
    writeHeapLog(s.m_log);
    const Geometry g(kWidth, kHeight);
    auto stripRows = [&](const WindowProcess& window) {
        // The strip's grey runs down from the window's top to the first row of the page.
        const Screenshot screen = s.m_x.stableScreenshot();
        const auto [left, top] = windowOrigin(s.m_x, window.window());
        const uint32_t strip = screen.at(left + 2, top + 2);  // left of the first button
        int rows = 0;
        while (rows < kHeight && screen.at(left + 2, top + rows) == strip) ++rows;
        return rows;
    };
    double font = 0;
    int rows = 0;
    {
        WindowProcess plain(s.m_x, s.m_log, sized(), s.m_dir.m_path);
        font = plain.lastFrame().number("font");
        rows = stripRows(plain);
    }
    CHECK(font == Approx(g.m_font));
    CHECK(rows == static_cast<int>(g.m_strip));
    const std::vector<std::string> scaled = sized({"--scale", "2"});
    {
        WindowProcess big(s.m_x, s.m_log, scaled, s.m_dir.m_path);
        CHECK(big.lastFrame().number("font") == Approx(2 * font).epsilon(0.05));  // half points
        CHECK(std::abs(stripRows(big) - 2 * rows) <= 2);
    }
    setenv("GDK_SCALE", "2", 1);  // the desktop's way of saying it; WindowProcess passes the environment on
    {
        WindowProcess fromDesktop(s.m_x, s.m_log, sized(), s.m_dir.m_path);
        CHECK(fromDesktop.lastFrame().number("font") == Approx(2 * font).epsilon(0.05));
    }
    unsetenv("GDK_SCALE");
}

TEST_CASE("the window resizes, and the help overlay opens with h and closes with Esc") {
    HeapWindow s;
    WindowProcess& window = s.m_window;
    s.m_x.resize(window.window(), 900, 640);
    frameWith(window, "size", "900x640");
    s.m_x.key(window.window(), "h");
    frameWith(window, "help", "1");
    const auto [left, top] = windowOrigin(s.m_x, window.window());
    // The help's box over the middle of the picture: paper, with lines of text on it.
    const Screenshot screen = s.m_x.stableScreenshot();
    int paper = 0;
    for (int y = 300; y < 340; ++y)
        for (int x = 400; x < 500; ++x) paper += screen.at(left + x, top + y) == pixelOf(render::kPaperColour);
    CHECK(paper > 4000 * 6 / 10);
    s.m_x.key(window.window(), "Escape");
    frameWith(window, "help", "0");
    s.m_x.key(window.window(), "q");
    CHECK(window.waitForExit() == 0);
}

TEST_CASE("a view of more access samples than a frame draws is drafted from their summary, then drawn exactly") {
    Session s;
    {
        // One block read and written a little over a million times: its samples are drafted
        // whatever the blocks' draft threshold, as they hold no more blocks than a frame draws.
        LogBuilder log;
        auto& main = log.thread(1);
        const uint64_t block = 0x10000000, samples = timeline::AccessSummary::kWorthFrom + 1000;
        main.malloc(1, block, 1 << 16);
        for (uint64_t seq = 2; seq < samples + 2; ++seq)
            seq % 4 ? main.read(seq, block + (seq * 40503) % (1 << 16))
                    : main.write(seq, block + (seq * 8) % (1 << 16));
        main.free(samples + 2, block);
        log.write(s.m_log);
    }
    WindowProcess window(s.m_x, s.m_log, {"--size", "1200x800"}, s.m_dir.m_path);
    const std::string firstLine = firstPictureLine(window.stderrText());
    REQUIRE(!firstLine.empty());
    CHECK(firstLine.find(" draft=1 ") != std::string::npos);
    CHECK(firstLine.find(" accesses.draft=1 ") != std::string::npos);
    CHECK(firstLine.find(" view0.draft=0 ") != std::string::npos);  // the block is drawn exactly
    const Frame exact = window.waitForFrame([](const Frame& f) { return f["refined"] == "1"; });
    CHECK(exact["draft"] == "0");
    CHECK(exact["accesses.draft"] == "0");
    CHECK(exact.number("pictures") == 2);
    // Hidden, the samples ask for no draft: the picture of the block alone is exact at once.
    s.m_x.key(window.window(), "a");
    const Frame hidden = window.waitForFrame([](const Frame& f) { return f["accesses"] == "0"; });
    CHECK(hidden["draft"] == "0");
    CHECK(hidden["accesses.draft"] == "0");
}

// What the window tests share: a log of known blocks, the window's geometry as it computes it,
// the pointer aimed at a block, and text found on the screen as the window draws it.
#pragma once

#include <cairo.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "log_builder.hpp"
#include "render/report/cairo_draw.hpp"
#include "render/report/report_layout.hpp"
#include "render/window/loaded_log.hpp"
#include "render/window/overlays.hpp"
#include "render/window/viewport.hpp"
#include "scenario/run_program.hpp"
#include "window_process.hpp"

namespace memlog::test::gui {

using test::Frame;
using test::LogBuilder;
using test::Screenshot;
using test::WindowProcess;
using test::XvfbSession;
namespace fs = std::filesystem;

constexpr int kWidth = 1200, kHeight = 800;  // the window, in points (no HiDPI under Xvfb)

struct Directory {
    std::string m_path;
    Directory() {
        char pattern[] = "/tmp/memlog-gui-XXXXXX";
        if (!mkdtemp(pattern)) throw std::runtime_error("mkdtemp failed");
        m_path = pattern;
    }
    ~Directory() { fs::remove_all(m_path); }
};

// Four blocks in two address ranges: A 4 KiB and B 256 B side by side, C 24 B briefly, D a
// 64 KiB block far above that is never freed. Times are seq * 1 us.
inline void writeHeapLog(const std::string& path, uint64_t extraBlocks = 0) {
    LogBuilder log;
    auto& main = log.thread(1);
    main.malloc(1, 0x10000000, 4096).malloc(2, 0x10002000, 256).malloc(3, 0x10003000, 24).free(4, 0x10003000);
    log.thread(2).malloc(5, 0x7f0000000000, 65536);
    main.free(8, 0x10002000).free(10, 0x10000000);
    for (uint64_t i = 0; i < extraBlocks; ++i)
        main.malloc(11 + 2 * i, 0x10004000 + 64 * i, 48).free(12 + 2 * i, 0x10004000 + 64 * i);
    log.write(path);
}

// Where things are in the window, computed as the window computes them.
struct Geometry {
    double m_font = 0, m_strip = 0;
    render::Rect m_view, m_context, m_legend, m_bar;
    Geometry(int width, int height) {
        m_font = render::mainLayout(width, height).m_fontSize;
        m_strip = std::round(m_font * 2.6);
        const render::ReportLayout layout = render::mainLayout(width, height - static_cast<int>(m_strip));
        m_view = layout.m_cells.front().m_view;
        m_context = layout.m_context;
        m_legend = layout.m_legend;
        m_bar = layout.m_cells.front().m_bar;
        for (render::Rect* r : {&m_view, &m_context, &m_legend, &m_bar}) r->m_y += m_strip;
    }
};

inline Frame frameWith(const WindowProcess& window, const std::string& field, const std::string& value) {
    return window.waitForFrame([&](const Frame& f) { return f[field] == value; });
}

inline std::pair<double, double> span(const std::string& text) {  // "12:345" or "0x10:0x20"
    const size_t colon = text.find(':');
    return {std::stod(text.substr(0, colon)), std::stod(text.substr(colon + 1))};
}

inline std::pair<uint64_t, uint64_t> addresses(const Frame& frame) {
    const std::string& text = frame["addr"];
    const size_t colon = text.find(':');
    return {std::stoull(text.substr(0, colon), nullptr, 16), std::stoull(text.substr(colon + 1), nullptr, 16)};
}

// The window's own mapping for the log at its current zoom, to aim the pointer.
struct Aim {
    std::unique_ptr<render::LoadedLog> m_log;
    Geometry m_geometry;
    Aim(const std::string& log)
        : m_log(render::loadLog(log, timeline::XAxis::Time, render::ColourBy::Site)), m_geometry(kWidth, kHeight) {}
    // The point at (x value, address) for a frame's view.
    std::pair<int, int> at(const Frame& frame, double x, uint64_t addr) const {
        const auto [from, to] = span(frame["x"]);
        render::Viewport view(m_log->m_model.extent(timeline::XAxis::Time), m_log->m_ranges,
                              m_geometry.m_view.m_height);
        const double row = *view.addressScale().y(addr);
        return {static_cast<int>(m_geometry.m_view.m_x + (x - from) / (to - from) * m_geometry.m_view.m_width),
                static_cast<int>(m_geometry.m_view.m_y + row)};
    }
};

// `text` drawn as the window draws a tooltip's line (same font machinery), on `background`.
inline Screenshot renderedText(const std::string& text, double fontSize, bool bold, uint32_t background, int width,
                               int height, double baseline, double left = 0) {
    cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
    cairo_t* cr = cairo_create(surface);
    render::fillRect(
        cr, {0, 0, static_cast<double>(width), static_cast<double>(height)},
        {((background >> 16) & 255) / 255.0, ((background >> 8) & 255) / 255.0, (background & 255) / 255.0});
    render::setFont(cr, fontSize, bold);
    render::setColour(cr, render::kTextColour);
    render::drawText(cr, text, left, baseline);
    cairo_destroy(cr);
    cairo_surface_flush(surface);
    Screenshot shot;
    shot.m_width = width;
    shot.m_height = height;
    const auto* data = cairo_image_surface_get_data(surface);
    const int stride = cairo_image_surface_get_stride(surface);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            shot.m_pixels.push_back(reinterpret_cast<const uint32_t*>(data + y * stride)[x] & 0xffffff);
    cairo_surface_destroy(surface);
    return shot;
}

// Whole pixels that `text` spans in the window's font.
inline int textWidth(const std::string& text, double font, bool bold) {
    cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
    cairo_t* cr = cairo_create(surface);
    render::setFont(cr, font, bold);
    const double width = render::textWidth(cr, text);
    cairo_destroy(cr);
    cairo_surface_destroy(surface);
    return static_cast<int>(std::ceil(width));
}

// A colour as Cairo puts it in an RGB24 pixel.
inline uint32_t pixelOf(const render::Rgb& colour) {
    cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
    cairo_t* cr = cairo_create(surface);
    render::fillRect(cr, {0, 0, 1, 1}, colour);
    cairo_destroy(cr);
    cairo_surface_flush(surface);
    const uint32_t pixel = *reinterpret_cast<const uint32_t*>(cairo_image_surface_get_data(surface)) & 0xffffff;
    cairo_surface_destroy(surface);
    return pixel;
}

// True when the screen shows `text` as line `line` of a tooltip near the pointer at (x, y) of
// the window at (left, top). The box is found by its paper colour (it flips to stay on the
// screen), the line drawn as the window draws it and compared pixel by pixel.
inline bool tooltipShows(const Screenshot& screen, int left, int top, int x, int y, const std::string& text,
                         double font, int line = 0) {
    const uint32_t kPaper = pixelOf(render::kPaperColour);
    int boxX = -1, boxY = -1;
    for (int row = std::max(0, top + y - 400); row < std::min(screen.m_height, top + y + 400) && boxY < 0; ++row)
        for (int column = std::max(0, left + x - 600); column < std::min(screen.m_width, left + x + 600); ++column)
            if (screen.at(column, row) == kPaper) {
                boxX = column - 1;  // inside its one-pixel frame
                boxY = row - 1;
                break;
            }
    if (boxY < 0) {
        screen.writePng("/tmp/memlog-gui-screen.png");
        return false;
    }
    // The window draws the text at the box's corner plus a padding that is not a whole number
    // of pixels: the template is drawn at the same fraction of a pixel. The corner found from
    // the paper colour may be a pixel off (the frame's line blends into it): try around it.
    const double pad = font * 0.6, lineHeight = font * 1.35;
    size_t best = SIZE_MAX;
    Screenshot bestShown, bestWanted;
    for (int dy = -2; dy <= 2; ++dy)
        for (int dx = -2; dx <= 2; ++dx) {
            const double textX = boxX + dx + pad, baselineY = boxY + dy + pad / 2 + lineHeight * (line + 0.8);
            const int cropX = static_cast<int>(std::floor(textX)),
                      cropY = static_cast<int>(std::floor(baselineY - font));
            const int width = textWidth(text, font, line == 0) + 1, height = static_cast<int>(font * 1.3);
            Screenshot wanted =
                renderedText(text, font, line == 0, kPaper, width, height, baselineY - cropY, textX - cropX);
            Screenshot shown = screen.crop(cropX, cropY, width, height);
            size_t differing = 0;
            for (size_t i = 0; i < wanted.m_pixels.size(); ++i) differing += wanted.m_pixels[i] != shown.m_pixels[i];
            if (differing < best) {
                best = differing;
                bestShown = std::move(shown);
                bestWanted = std::move(wanted);
            }
        }
    const bool same = best <= bestWanted.m_pixels.size() / 200;  // the same pixels, but for a stray few
    if (!same) {
        screen.writePng("/tmp/memlog-gui-screen.png");
        bestShown.writePng("/tmp/memlog-gui-shown.png");
        bestWanted.writePng("/tmp/memlog-gui-wanted.png");
    }
    return same;
}

// Where the window's top-left corner is on the screen.
inline std::pair<int, int> windowOrigin(const XvfbSession& session, const std::string& window) {
    const std::string geometry = session.xdotool({"getwindowgeometry", "--shell", window});
    int x = 0, y = 0;
    for (size_t at = 0; at < geometry.size();) {
        const size_t end = geometry.find('\n', at);
        const std::string line = geometry.substr(at, end - at);
        if (line.rfind("X=", 0) == 0) x = std::stoi(line.substr(2));
        if (line.rfind("Y=", 0) == 0) y = std::stoi(line.substr(2));
        at = end == std::string::npos ? geometry.size() : end + 1;
    }
    return {x, y};
}

// How many pixels of an exported report `png` differ from the window's picture on the screen
// now (the report is drawn under the control strip).
inline size_t pixelsOffScreen(const XvfbSession& session, const std::string& window, cairo_surface_t* png) {
    const Geometry g(kWidth, kHeight);
    const Screenshot screen = session.stableScreenshot();
    const auto [left, top] = windowOrigin(session, window);
    const auto* data = cairo_image_surface_get_data(png);
    const int stride = cairo_image_surface_get_stride(png);
    size_t differing = 0;
    for (int y = 0; y < cairo_image_surface_get_height(png); ++y)
        for (int x = 0; x < cairo_image_surface_get_width(png); ++x)
            differing += (reinterpret_cast<const uint32_t*>(data + y * stride)[x] & 0xffffff) !=
                         screen.at(left + x, top + static_cast<int>(g.m_strip) + y);
    return differing;
}

struct Session {
    XvfbSession m_x{kWidth + 200, kHeight + 200};
    Directory m_dir;
    std::string m_log = m_dir.m_path + "/heap.memlog";
};

// The window's size, then `more` arguments.
inline std::vector<std::string> sized(std::initializer_list<const char*> more = {}) {
    std::vector<std::string> arguments{"--size", std::to_string(kWidth) + "x" + std::to_string(kHeight)};
    arguments.insert(arguments.end(), more.begin(), more.end());
    return arguments;
}

// The window on writeHeapLog's four blocks, in a session of its own.
struct HeapWindow : Session {
    WindowProcess m_window;
    explicit HeapWindow(const std::vector<std::string>& arguments = sized())
        : m_window(m_x, written(m_log), arguments, m_dir.m_path) {}
    static const std::string& written(const std::string& log) {
        writeHeapLog(log);
        return log;
    }
};

// memtimeline run to its end (an export, or a refusal), on the session's display.
inline test::Outcome memtimeline(const Session& s, const std::vector<std::string>& arguments) {
    test::Run run;
    run.m_preload = false;
    run.m_argv = {MEMLOG_TEST_TIMELINE};
    run.m_argv.insert(run.m_argv.end(), arguments.begin(), arguments.end());
    run.m_env["DISPLAY"] = s.m_x.display();
    test::Outcome outcome = test::runProgram(run);
    fs::remove_all(outcome.m_directory);
    return outcome;
}

}  // namespace memlog::test::gui

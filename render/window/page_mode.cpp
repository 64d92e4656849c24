// The window's pages and playback: opening an array view of a block (v, or the pinned panel's
// button), the cache's memory display (m) and working set (w) of a full trace, the prompt that
// takes an array's dimensions, the clocks that play samples back (space, steps, speed), the
// timeline's moving time line with its lit samples.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "render/raster/array_grid.hpp"
#include "render/raster/cache_display.hpp"
#include "render/raster/x_scale.hpp"
#include "render/window/overlays.hpp"
#include "render/window/timeline_window.hpp"
#include "timeline/trace/cache_report.hpp"
#include "timeline/trace/cache_views.hpp"
#include "timeline/base/diagnostics.hpp"
#include "timeline/base/text_format.hpp"

namespace memlog::render {

std::optional<size_t> TimelineWindow::blockOfHoveredMark() const {
    const std::optional<size_t> hovered = m_pointer.hover().m_mark;
    if (!hovered) return std::nullopt;
    const timeline::AccessMark& mark = log().m_model.accessMarks()[*hovered];
    if (!mark.m_blockSeq) return std::nullopt;
    return log().blockAt(timeline::markX(mark, m_state.m_axis), mark.m_addr);
}

void TimelineWindow::openArrayView(std::optional<size_t> block) {
    if (!hasLog()) return;
    if (!block) block = m_pointer.hover().m_block ? m_pointer.hover().m_block : blockOfHoveredMark();
    if (!block) block = m_state.m_pinned;
    if (!block) {
        toast("point at a block (or click one to pin it) for its array view");
        return;
    }
    const timeline::Block& chosen = log().m_model[*block];
    // No sample in it: said at once, not an empty page (and no walk of the log to find out).
    if (!timeline::sampledIn(log().m_model, chosen)) {
        toast("block " + timeline::hexText(chosen.addr()) +
              ": no access sample fell in it, so there is no array view to draw (record with MEMLOG_ACCESS=1)");
        return;
    }
    const std::string spec = "seq=" + std::to_string(chosen.beginSeq());
    std::string error;
    std::optional<timeline::SampledArray> array;
    try {
        array = timeline::findArray(*log().m_reader, *log().m_names, spec, &error);
    } catch (const timeline::LogError& problem) {
        error = problem.what();
    }
    if (!array) {
        toast("block " + timeline::hexText(chosen.addr()) + ": " + error);
        return;
    }
    std::vector<PhaseMark> phases;
    for (const timeline::Annotation& annotation : log().m_reader->annotations())
        if (annotation.m_what == format::AnnotationKind::Phase)
            phases.push_back({annotation.m_timeNs, annotation.m_text});
    auto page = std::make_unique<ArrayWindowPage>(std::move(*array), logName(), std::move(phases), &error);
    if (!error.empty()) {
        toast("block " + timeline::hexText(chosen.addr()) + ": " + error);
        return;
    }
    openPage(std::move(page));
}

void TimelineWindow::openCachePage(bool memory) {
    if (!hasLog()) return;
    const char* what = memory ? "the memory display" : "the working set";
    if (const std::string refusal = timeline::cacheRefusal(*log().m_reader); !refusal.empty()) {
        toast(std::string(what) + ": " + refusal);
        return;
    }
    if (log().m_model.accessMarks().empty()) {
        toast(std::string(what) + ": the log holds no accesses");
        return;
    }
    const timeline::CacheGeometry cache = m_options.m_cache.value_or(timeline::CacheGeometry{});
    if (memory)
        openPage(std::make_unique<MemoryWindowPage>(log().m_model, cache, m_options.m_log));
    else
        openPage(
            std::make_unique<WorkingSetWindowPage>(log().m_model, cache.m_line, m_options.m_idleNs, m_options.m_log));
}

// --compare: the two runs on one page, the base (the window's log) drawn with the window's
// choices; `range` (--range) the time window to start with.
void TimelineWindow::openComparePage(std::optional<timeline::XWindow> range) {
    if (!hasLog()) return;
    if (!m_options.m_compare) {
        toast("r shows two runs compared: open the window with LOG --compare NEW");
        return;
    }
    if (log().m_model.clock() != timeline::XAxis::Time) {
        toast("two runs are compared in time: x to the time axis first");
        return;
    }
    ReportOptions options;
    options.m_colourBy = m_state.m_colourBy;
    options.m_alpha = m_state.m_alpha;
    options.m_cushion = m_state.m_cushion;
    options.m_accessMarks = m_state.m_accessMarks;
    options.m_cursors = m_state.m_axis == timeline::XAxis::Time ? m_state.m_cursors : std::vector<uint64_t>{};
    options.m_logPath = m_options.m_log;
    options.m_fullPaths = m_options.m_fullPaths;
    options.m_uiScale = m_options.m_scale;
    options.m_suppressedBytes = log().m_suppressed.m_bytes;
    options.m_suppressedBlocks = log().m_suppressed.m_blocks;
    for (const timeline::Annotation& annotation : log().m_reader->annotations())
        if (annotation.m_what == format::AnnotationKind::Phase)
            options.m_phases.push_back({annotation.m_timeNs, annotation.m_text});
    openPage(std::make_unique<CompareWindowPage>(log().m_model, &log().m_sites, std::move(options), m_options.m_compare,
                                                 range));
}

// A page opened (made of the log read last) instead of the timeline or of another page: the
// log kept for the page before goes, and the prompt.
void TimelineWindow::openPage(std::unique_ptr<WindowPage> page) {
    m_page = std::move(page);
    m_log.pageChanged();
    m_prompt.reset();
    m_dirty = true;
    switchMode(ModeEvent::PageOpened);
}

void TimelineWindow::closePage() {
    m_page.reset();
    m_log.pageChanged();
    m_prompt.reset();
    m_dirty = true;
    switchMode(ModeEvent::PageClosed);
}

void TimelineWindow::drawPage(cairo_t* cr, int width, int height) {
    m_page->paint(cr, width, height);
    const Rect whole{0, 0, static_cast<double>(width), static_cast<double>(height)};
    // What gets the user back, always in sight, in the page's bottom-left corner.
    setFont(cr, m_fontSize * 0.9);
    setColour(cr, kMutedTextColour);
    const bool array = dynamic_cast<ArrayWindowPage*>(m_page.get()) != nullptr;
    const bool compare = dynamic_cast<CompareWindowPage*>(m_page.get()) != nullptr;
    drawText(cr,
             compare ? "Esc: the base run's timeline   wheel, t T, + -: zoom both runs in time   arrows: pan   0: "
                       "whole runs   h: every key"
                     : std::string("Esc: back to the timeline   space: play / pause   . , : step   < > : speed") +
                           (array ? "   d: dimensions   r: next row length   + -: tiles" : "") + "   h: every key",
             m_fontSize, height - m_fontSize * 0.6);
    if (m_prompt)
        drawTooltip(cr, m_fontSize * 2, height - m_fontSize * 9,
                    {"dimensions [element bytes]: " + *m_prompt + "_",
                     "such as 256x256 8, or 64x32x16 (rows x columns x planes) with the element size kept",
                     "Enter applies, Esc cancels; what is not given comes from the program or the inference"},
                    m_fontSize, whole);
    if (m_state.m_help) drawHelp(cr, whole, m_fontSize);
    if (m_toastUntil) drawToast(cr, whole, m_toast, m_fontSize);
}

bool TimelineWindow::handlePrompt(const SDL_Event& event) {
    if (!m_prompt) return false;
    if (event.type == SDL_TEXTINPUT) {
        // Digits, x and spaces only: the d that opened the prompt also comes as text.
        for (const char* c = event.text.text; *c; ++c) {
            const char ch = *c == 'X' || *c == '*' ? 'x' : *c;
            if ((ch >= '0' && ch <= '9') || ch == 'x' || ch == ' ') *m_prompt += ch;
        }
        m_dirty = true;
        return true;
    }
    if (event.type != SDL_KEYDOWN) return false;
    m_dirty = true;
    switch (event.key.keysym.sym) {
        case SDLK_RETURN:
        case SDLK_KP_ENTER:
            applyPrompt();
            break;
        case SDLK_ESCAPE:
            m_prompt.reset();
            break;
        case SDLK_BACKSPACE:
            if (!m_prompt->empty()) m_prompt->pop_back();
            break;
        default:
            break;  // typed characters arrive as text
    }
    return true;
}

void TimelineWindow::applyPrompt() {
    auto* page = dynamic_cast<ArrayWindowPage*>(m_page.get());
    if (!page) {
        m_prompt.reset();
        return;
    }
    std::vector<std::string> words;
    for (size_t at = 0; at < m_prompt->size();) {
        const size_t end = std::min(m_prompt->find(' ', at), m_prompt->size());
        if (end > at) words.push_back(m_prompt->substr(at, end - at));
        at = end + 1;
    }
    GivenShape given;
    bool valid = !words.empty() && words.size() <= 2 && parseArrayDims(words[0], given);
    if (valid && words.size() == 2) {
        char* end = nullptr;
        given.m_elementSize = std::strtoull(words[1].c_str(), &end, 10);
        valid = *end == '\0' && given.m_elementSize >= 1 && given.m_elementSize <= 4096;
    }
    if (!valid) {
        toast("give ROWSxCOLUMNS[xPLANES] and, if you like, an element size of 1 to 4096 bytes: such as 256x256 8");
        return;
    }
    if (const std::string problem = page->setShape(given); !problem.empty()) {
        toast(problem);
        return;
    }
    m_prompt.reset();
}

bool TimelineWindow::playing() const {
    return m_mode == WindowMode::Page ? m_page->clock().playing() : m_playback.clock().playing();
}

PlaybackClock& TimelineWindow::shownClock() {
    return m_mode == WindowMode::Page ? m_page->clock() : m_playback.clock();
}

void TimelineWindow::tickPlayback() {
    const double seconds = m_playback.tick(std::chrono::steady_clock::now());
    if (!playing()) return;
    shownClock().advance(seconds);
    m_dirty = true;
}

void TimelineWindow::performPlayback(Action action) {
    m_playback.restartTicks(std::chrono::steady_clock::now());
    if (m_mode == WindowMode::Page) {
        m_page->beginPlayback();
    } else {
        m_playback.prepare(log().m_model, m_state.m_axis, m_options.m_cache);
        if (!m_playback.begin()) {
            toast("no access samples to play in this log (record with MEMLOG_ACCESS=1)");
            return;
        }
    }
    PlaybackClock& clock = shownClock();
    switch (action) {
        case Action::PlayPause:
            clock.togglePlaying();
            break;
        case Action::StepForward:
            clock.step(1);
            break;
        case Action::StepBack:
            clock.step(-1);
            break;
        case Action::Faster:
            clock.faster();
            break;
        case Action::Slower:
            clock.slower();
            break;
        default:
            break;
    }
    m_dirty = true;
}

// The timeline played back: a line at the clock's moment over every view, and the samples of the
// last fade drawn as dots over the main view, larger and more opaque the newer (reads blue,
// writes red; with --cache, hits green and misses red).
void TimelineWindow::paintTimelinePlayback(cairo_t* cr) {
    m_playback.setLit(0);
    if (!m_playback.begun() || !report()) return;
    m_playback.prepare(log().m_model, m_state.m_axis, m_options.m_cache);
    const PlaybackClock& clock = m_playback.clock();
    const uint64_t now = clock.now();
    for (const ViewCell& cell : report()->layout().m_cells) {
        const Rect view{cell.m_view.m_x, cell.m_view.m_y + reportTop(), cell.m_view.m_width, cell.m_view.m_height};
        const XScale scale(m_view->xWindow(), view.m_width);
        const double x = view.m_x + scale.x(static_cast<double>(now));
        if (x < view.m_x || x > view.right()) continue;
        setColour(cr, kTextColour, 0.85);
        cairo_set_line_width(cr, 1.5);
        cairo_move_to(cr, std::round(x) + 0.25, view.m_y);
        cairo_line_to(cr, std::round(x) + 0.25, view.bottom());
        cairo_stroke(cr);
    }
    // The samples lit at the clock's time, each in the view that shows it (with --bins, its
    // block's bin's), clipped to that view.
    const std::span<const timeline::AccessMark> marks = log().m_model.accessMarks();
    const std::vector<uint8_t>& misses = m_playback.misses();
    size_t lit = 0;
    for (const LitSample& sample : m_playback.times().litAt(now, clock.fadeNs())) {
        const auto point = report()->markPoint(sample.m_index);
        if (!point) continue;
        const Rect& view = point->m_view;
        const Rgb colour = m_options.m_cache && sample.m_index < misses.size()
                               ? (misses[sample.m_index] ? kCellMissColour : kCellHitColour)
                               : (marks[sample.m_index].m_write ? kPlaybackWriteColour : kPlaybackReadColour);
        cairo_save(cr);
        cairo_rectangle(cr, view.m_x, view.m_y + reportTop(), view.m_width, view.m_height);
        cairo_clip(cr);
        cairo_arc(cr, point->m_x, point->m_y + reportTop(), 2 + 3 * sample.m_strength, 0, 2 * M_PI);
        setColour(cr, colour, 0.25 + 0.75 * sample.m_strength);
        cairo_fill(cr);
        cairo_restore(cr);
        ++lit;
    }
    m_playback.setLit(lit);
    const Rect view = mainView();
    char speed[16];
    std::snprintf(speed, sizeof speed, "%gx", clock.speed());
    drawTooltip(cr, view.m_x + m_fontSize, view.m_y + m_fontSize,
                {std::string(clock.playing() ? "playing" : "paused") + " at " +
                     timeline::xText(m_state.m_axis, static_cast<double>(now)) + ", speed " + speed,
                 timeline::countedText(lit, "sample") + " lit; space: play / pause, . , : step, < > : speed"},
                m_fontSize, view);
}

// Under a pinned block's panel: the way to its array view.
void TimelineWindow::paintArrayButton(cairo_t* cr, const Rect& panel) {
    const std::string label = "array view (v)";
    setFont(cr, m_fontSize, true);
    const double pad = m_fontSize * 0.7;
    const double width = textWidth(cr, label) + 2 * pad, height = m_fontSize * 2;
    m_arrayButton = {std::round(panel.m_x + m_fontSize * 0.8), std::round(panel.bottom() - height - m_fontSize * 0.8),
                     std::round(width), std::round(height)};
    fillRect(cr, m_arrayButton, {0.86, 0.9, 0.98});
    strokeRect(cr, m_arrayButton, kFrameColour);
    setColour(cr, kTextColour);
    drawText(cr, label, m_arrayButton.m_x + pad, m_arrayButton.m_y + height / 2 + m_fontSize * 0.35);
}

}  // namespace memlog::render

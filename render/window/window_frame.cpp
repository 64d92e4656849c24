// The window's frames, one kind a mode: the loading screen until the log is read, a page, the
// last picture dimmed under the preparer's bar, or the timeline: the kept picture (drawn again
// only when what it shows changes) below the control strip, with the overlays over it.
#include <chrono>
#include <cmath>

#include "render/window/loading_sketch.hpp"
#include "render/window/overlays.hpp"
#include "render/window/timeline_window.hpp"
#include "timeline/base/text_format.hpp"
#include "timeline/names/accessing_code.hpp"

namespace memlog::render {

using timeline::Block;
using timeline::XAxis;

namespace {

using Clock = std::chrono::steady_clock;

double millisecondsBetween(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double, std::milli>(to - from).count();
}

}  // namespace

void TimelineWindow::drawFrame() {
    const auto started = Clock::now();
    const int width = m_window.pixelWidth(), height = m_window.pixelHeight();
    m_fontSize = mainLayout(width, std::max(height, 150), m_options.m_scale).m_fontSize;
    m_stripHeight = std::round(m_fontSize * 2.6);
    Clock::time_point drawn;
    m_window.present([&](cairo_t* cr) {
        const int reportHeight = std::max(height - static_cast<int>(m_stripHeight), 150);
        switch (m_mode) {
            case WindowMode::Loading:
            case WindowMode::LoadFailed:
                drawLoading(cr, width, height);
                break;
            case WindowMode::Page:
                drawPage(cr, width, height);
                break;
            case WindowMode::Preparing:
                drawPreparing(cr, width, reportHeight);
                break;
            case WindowMode::Timeline:
                drawTimeline(cr, width, reportHeight);
                break;
        }
        drawn = Clock::now();
    });
    m_showMs = millisecondsBetween(drawn, Clock::now());
    m_dirty = m_contextBehind && m_contextLagged;  // the context view's own frame follows
    m_contextBehind = false;
    ++m_frames;
    if (m_options.m_trace) trace(millisecondsBetween(started, Clock::now()));
}

// The bar, over the heap as read so far while the log is walked.
void TimelineWindow::drawLoading(cairo_t* cr, int width, int height) {
    const double fraction = m_log.progress();
    const double elapsed = m_log.secondsReading(SDL_GetTicks());
    const Rect window{0, 0, static_cast<double>(width), static_cast<double>(height)};
    fillRect(cr, window, kPageColour);
    if (const auto sketch = m_log.sketch()) {
        const double margin = std::round(m_fontSize * 2);
        drawSketch(cr, {margin, margin, window.m_width - 2 * margin, window.m_height - 2 * margin}, *sketch);
    }
    drawProgress(cr, window, m_log.stage() + " " + logName() + " \u2026 " + progressText(fraction, elapsed), fraction,
                 m_fontSize, false);
}

// The last picture, dimmed, under the bar of what is being made ready.
void TimelineWindow::drawPreparing(cairo_t* cr, int width, int reportHeight) {
    if (cairo_surface_t* picture = m_picture.surface()) {
        cairo_set_source_surface(cr, picture, 0, m_stripHeight);
        cairo_paint_with_alpha(cr, 0.35);
    }
    const double fraction = m_preparer.progress();
    drawProgress(cr, {0, m_stripHeight, static_cast<double>(width), static_cast<double>(reportHeight)},
                 std::string(FramePreparer::text(m_preparer.making())) + " \u2026 " +
                     std::to_string(static_cast<int>(fraction * 100)) + " %",
                 fraction, m_fontSize, false);
    paintStrip(cr, width);
}

// Only what the report shows redraws it: hovering, tooltips, the help and a dragged box are
// drawn over the kept picture. And a draft, when its time to be drawn exactly has come: into a
// picture of its own, giving way to input.
void TimelineWindow::drawTimeline(cairo_t* cr, int width, int reportHeight) {
    ReportOptions options = reportOptions(width, reportHeight);
    m_contextLagged = options.m_contextMayLag;
    const KeptPicture::Work work = m_picture.workFor(options, m_log.reads());
    if (work == KeptPicture::Work::Reuse) {
        m_picture.reused();
        m_buildMs = m_paintMs = 0;
    } else {
        options.m_mayDraft = work == KeptPicture::Work::Draw;
        FrameContext& frame = *log().m_frame;
        const auto building = Clock::now();
        auto report = std::make_unique<Report>(log().m_model, &log().m_sites, std::move(options));
        const auto painting = Clock::now();
        cairo_surface_t* target = m_picture.target(work, width, reportHeight);
        if (work == KeptPicture::Work::Refine) frame.setInterrupt([this] { return m_window.inputWaiting(); });
        cairo_t* page = cairo_create(target);
        report->paint(page);
        cairo_destroy(page);
        frame.setInterrupt(nullptr);
        const bool draft = frame.drewDraft() || report->drewAccessDraft();
        if (frame.interrupted())
            m_picture.gaveWay(target, SDL_GetTicks());
        else
            m_picture.keep(target, std::move(report), m_log.reads(), work, draft, SDL_GetTicks());
        const auto painted = Clock::now();
        m_buildMs = millisecondsBetween(building, painting);
        m_paintMs = millisecondsBetween(painting, painted);
        if (!frame.interrupted() && !draft) frame.policy().exactFrame(frame.frameStats().m_items, m_paintMs);
    }
    // A copy, not a blend: the picture is opaque.
    cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
    cairo_set_source_surface(cr, m_picture.surface(), 0, m_stripHeight);
    cairo_paint(cr);
    cairo_set_operator(cr, CAIRO_OPERATOR_OVER);
    paintStrip(cr, width);
    paintOverlays(cr);
}

void TimelineWindow::paintStrip(cairo_t* cr, int width) {
    m_strip = ControlStrip(cr, m_state, {0, 0, static_cast<double>(width), m_stripHeight}, m_fontSize);
    m_strip.paint(cr, m_state);
}

Rect TimelineWindow::mainView() const {
    const int width = m_window.pixelWidth(), height = m_window.pixelHeight() - static_cast<int>(m_stripHeight);
    const ReportLayout layout = mainLayout(width, std::max(height, 150), m_options.m_scale);
    Rect view = layout.m_cells.front().m_view;
    view.m_y += m_stripHeight;
    return view;
}

ReportOptions TimelineWindow::reportOptions(int width, int height) {
    ReportOptions options;
    options.m_width = width;
    options.m_height = height;
    options.m_colourBy = m_state.m_colourBy;
    options.m_alpha = m_state.m_alpha;
    options.m_cushion = m_state.m_cushion;
    options.m_axis = m_state.m_axis;
    options.m_window = m_view->xWindow();
    options.m_bins = m_state.m_bins;
    options.m_layout = m_state.m_layout;
    options.m_cursors = m_state.m_cursors;
    options.m_logPath = m_options.m_log;
    options.m_fullPaths = m_options.m_fullPaths;
    options.m_suppressedBytes = log().m_suppressed.m_bytes;
    options.m_suppressedBlocks = log().m_suppressed.m_blocks;
    options.m_accessMarks = m_state.m_accessMarks;
    options.m_cache = m_options.m_cache;
    options.m_uiScale = m_options.m_scale;
    // Frames through the index, folding what is smaller than a pixel (correlated views fold only
    // in drafts).
    options.m_frame = log().m_frame.get();
    options.m_levelOfDetail = true;
    options.m_mayDraft = true;  // but not when drawTimeline draws a draft exactly
    // While the alpha slider is dragged, or for one frame after a key changed it, the context
    // view keeps its picture; the next frame (another picture key) draws it for this alpha.
    // Correlated views have no context view: nothing to keep, no frame to follow.
    options.m_contextMayLag = !m_state.m_bins && (m_pointer.drag() == Pointer::Drag::Alpha || m_contextBehind);
    if (!m_state.m_bins) {
        m_view->setViewHeight(mainView().m_height);
        options.m_addressScale = m_view->addressScale();
    }
    return options;
}

void TimelineWindow::paintOverlays(cairo_t* cr) {
    if (!report()) return;
    const Rect whole{0, 0, static_cast<double>(m_window.pixelWidth()), static_cast<double>(m_window.pixelHeight())};
    const Report& shown = *report();
    auto outline = [&](size_t index, bool pinned) {
        for (Rect rect : shown.blockRects(log().m_model[index])) {
            rect.m_y += m_stripHeight;
            drawOutline(cr, rect, pinned);
        }
    };
    if (m_state.m_pinned) {
        outline(*m_state.m_pinned, true);
        Rect panel = shown.layout().m_legend;
        panel.m_y += m_stripHeight;
        std::vector<std::string> lines = blockLines(*m_state.m_pinned, true);
        const std::string title = lines.front();
        lines.erase(lines.begin());
        drawPanel(cr, panel, title, lines, m_fontSize);
        paintArrayButton(cr, panel);
    } else {
        m_arrayButton = {};
    }
    const Pointer::Hover& hover = m_pointer.hover();
    if (hover.m_block && hover.m_block != m_state.m_pinned) outline(*hover.m_block, false);
    if (m_pointer.drag() == Pointer::Drag::Box && m_pointer.moved()) drawRubberBand(cr, m_pointer.box());
    paintTimelinePlayback(cr);
    std::vector<std::string> tip;
    if (hover.m_mark) {
        const timeline::AccessMark& mark = log().m_model.accessMarks()[*hover.m_mark];
        tip.push_back(std::string(mark.m_write ? "write" : "read") + " at " + timeline::hexText(mark.m_addr));
        tip.push_back("at " + timeline::durationText(static_cast<double>(mark.m_timeNs)) +
                      (mark.m_instructions ? ", " + timeline::xText(XAxis::Instructions, double(mark.m_instructions))
                                           : std::string()) +
                      ", event " + timeline::countText(mark.m_seq) + ", thread " + std::to_string(mark.m_tid));
        tip.push_back("in " + timeline::accessingCode(*log().m_names, mark.m_ip, mark.m_stack));
        if (mark.m_armedBy)
            tip.push_back("caught by a watchpoint a sample set at event " + timeline::countText(mark.m_armedBy));
        if (mark.m_useAfterFree) tip.push_back("use after free: the block was freed before this access");
        for (const std::string& line : stackLines(mark.m_stack)) tip.push_back(line);
        if (const std::optional<size_t> block = blockOfHoveredMark())
            tip.push_back(m_state.m_pinned == block ? "click to unpin its block" : "click to pin its block");
    } else if (hover.m_block && m_pointer.drag() == Pointer::Drag::None) {
        tip = blockLines(*hover.m_block, false);
        tip.push_back(m_state.m_pinned == hover.m_block ? "click to unpin"
                                                        : "click to pin: both call stacks in the panel");
    } else if (hover.m_bar) {
        const auto [bytes, blocks] = log().liveAt(hover.m_bar->first);
        tip.push_back("at " + timeline::xText(m_state.m_axis, static_cast<double>(hover.m_bar->first)));
        tip.push_back(timeline::bytesText(static_cast<double>(bytes)) + " live in " + timeline::countText(blocks) +
                      (blocks == 1 ? " block" : " blocks"));
    }
    if (!tip.empty() && m_pointer.inWindow()) drawTooltip(cr, m_pointer.x(), m_pointer.y(), tip, m_fontSize, whole);
    if (m_state.m_help) drawHelp(cr, whole, m_fontSize);
    if (m_toastUntil) drawToast(cr, whole, m_toast, m_fontSize);
}

std::string TimelineWindow::siteText(uint32_t stack) const {
    if (stack == 0) return "(no stack)";
    return timeline::siteLabel(log().m_names->site(stack));
}

std::vector<std::string> TimelineWindow::stackLines(uint32_t stack) const {
    std::vector<std::string> lines;
    for (const unwind::SourceFrame& frame : log().m_names->frames(stack))
        lines.push_back("  " + timeline::siteLabel(frame));
    if (lines.empty()) lines.push_back("  (no stack recorded)");
    return lines;
}

std::vector<std::string> TimelineWindow::blockLines(size_t index, bool full) const {
    const timeline::BlockModel& model = log().m_model;
    const Block& block = model[index];
    const uint32_t freeStack = model.freeStack(index);
    // The time words hold the model's clock: ns, or a full trace's instructions.
    auto at = [&](uint64_t ns, uint64_t seq) {
        return timeline::xText(model.clock(), static_cast<double>(ns)) + " (event " + timeline::countText(seq) + ")";
    };
    std::vector<std::string> lines;
    lines.push_back(std::string(block.mapping() ? "mapping " : "block ") + timeline::hexText(block.addr()) + ", " +
                    timeline::bytesText(static_cast<double>(block.size())) +
                    (block.size() >= 1024 ? " (" + timeline::countText(block.size()) + " bytes)" : ""));
    lines.push_back("allocated at " + at(block.beginNs(), block.beginSeq()) + " by thread " +
                    std::to_string(model.threads()[std::min<size_t>(block.thread(), model.threads().size() - 1)]));
    if (block.liveAtEnd())
        lines.push_back("never freed: live at the end of the log");
    else
        lines.push_back("freed at " + at(block.endNs(), block.endSeq()) + ", lived " +
                        timeline::xSpanText(model.clock(), static_cast<double>(block.endNs() - block.beginNs())));
    lines.push_back("allocated in " + siteText(block.stack()));
    if (!block.liveAtEnd()) lines.push_back("freed in " + siteText(freeStack));
    if (full) {
        lines.push_back("");
        lines.push_back("allocation stack:");
        for (const std::string& line : stackLines(block.stack())) lines.push_back(line);
        if (!block.liveAtEnd()) {
            lines.push_back("");
            lines.push_back("free stack:");
            for (const std::string& line : stackLines(freeStack)) lines.push_back(line);
        }
    }
    return lines;
}

}  // namespace memlog::render

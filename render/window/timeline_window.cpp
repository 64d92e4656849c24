// The window's frames: the loading screen until the log is read, then per frame a Report for
// the current view painted below the control strip, and the overlays. Also loading, following
// a growing log and export (the --trace lines: window_trace.cpp).
#include "render/window/timeline_window.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <utility>

#include "render/report/export.hpp"
#include "render/window/overlays.hpp"
#include "timeline/base/diagnostics.hpp"
#include "timeline/base/text_format.hpp"
#include "timeline/names/accessing_code.hpp"

namespace memlog::render {

using timeline::Block;
using timeline::XAxis;

namespace {

uint32_t s_wakeEvent = 0;  // an SDL user event: the loader has news

void wake() {
    SDL_Event event{};
    event.type = s_wakeEvent;
    SDL_PushEvent(&event);  // thread-safe
}

std::string baseName(const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

TimelineWindow::~TimelineWindow() {
    if (m_preparer.joinable()) m_preparer.join();
    if (m_picture) cairo_surface_destroy(m_picture);
}

int runWindow(const WindowOptions& options) {
    TimelineWindow window(options);
    return window.run();
}

TimelineWindow::TimelineWindow(const WindowOptions& options)
    : m_options(options),
      m_state(options.m_state),
      m_window("memtimeline \u00b7 " + baseName(options.m_log), options.m_width, options.m_height) {
    if (!s_wakeEvent) s_wakeEvent = SDL_RegisterEvents(1);
    startLoading();
}

int TimelineWindow::run() {
    for (;;) {
        SDL_Event event;
        // Wait for input, but wake now and then to follow a growing log and end a toast, and
        // when a draft is due to be drawn exactly. A frame still to draw (the context view's,
        // after a key changed alpha) does not wait.
        int wait = m_options.m_follow || m_toastUntil ? 250 : -1;
        if (playing()) wait = kPlaybackFrameMs;
        if (m_pictureState == PictureState::Draft) {
            const uint32_t now = SDL_GetTicks();
            const int untilRefine = m_refineAt > now ? static_cast<int>(m_refineAt - now) : 0;
            wait = wait < 0 ? untilRefine : std::min(wait, untilRefine);
        }
        const bool input = m_window.nextEvent(event, m_dirty ? 0 : wait);
        if (input) {
            do {
                if (!handle(event)) return 0;
            } while (m_window.nextEvent(event, 0));
        }
        // Not with input just handled: a new view gets its draft first (and a later time to
        // be drawn exactly), the same view its exact picture on the next turn.
        if (m_pictureState == PictureState::Draft && !input && SDL_GetTicks() >= m_refineAt) {
            m_pictureState = PictureState::DraftDue;
            m_dirty = true;
        }
        if (m_loader && m_loader->done()) finishLoading();
        if (preparing() && m_prepared.load()) finishPreparing();
        if (!m_loadError.empty() && !m_log) {
            std::fprintf(stderr, "memtimeline: %s\n", m_loadError.c_str());
            return 2;
        }
        if (m_toastUntil && SDL_GetTicks() > m_toastUntil) {
            m_toastUntil = 0;
            m_dirty = true;
        }
        if (m_options.m_follow) checkFollow();
        tickPlayback();
        if (m_dirty || !m_log || preparing()) drawFrame();
    }
}

// --- loading -------------------------------------------------------------------------------------

void TimelineWindow::startLoading() {
    m_loadStartedAt = SDL_GetTicks();
    m_loader =
        std::make_unique<LogLoader>(m_options.m_log, m_state.m_axis, m_state.m_colourBy, m_options.m_draftAbove, wake);
}

bool TimelineWindow::startPreparing() {
    FrameContext& frame = *m_log->m_frame;
    const bool contextReady = frame.axis() == m_state.m_axis && frame.colouring().by() == m_state.m_colourBy;
    if (contextReady && (!m_state.m_bins || frame.binsReady(*m_state.m_bins))) return false;
    m_preparing.store(frame.axis() != m_state.m_axis ? Preparing::Index
                      : !contextReady                ? Preparing::Colours
                                                     : Preparing::Bins);
    m_prepared.store(false);
    m_prepareProgress.store(0);
    m_hovered.reset();
    m_preparer = std::thread(
        [this, &frame, axis = m_state.m_axis, by = m_state.m_colourBy, bins = m_state.m_bins, contextReady] {
            // The context first, then the bins: a share of the bar each when both are made.
            const double contextShare = contextReady ? 0 : bins ? 0.7 : 1;
            frame.prepare(axis, by, [&](double fraction) {
                m_prepareProgress.store(fraction * contextShare);
                wake();
            });
            if (bins) m_preparing.store(Preparing::Bins);
            if (bins)
                frame.prepareBins(*bins, [&](double fraction) {
                    m_prepareProgress.store(contextShare + fraction * (1 - contextShare));
                    wake();
                });
            m_prepared.store(true);
            wake();
        });
    return true;
}

void TimelineWindow::finishPreparing() {
    m_preparer.join();
    m_preparing.store(Preparing::Nothing);
    m_dirty = true;
}

void TimelineWindow::finishLoading() {
    if (preparing()) finishPreparing();  // the old log's context must be left alone first
    std::unique_ptr<LoadedLog> log = m_loader->take();
    const std::string error = m_loader->error();
    m_loader.reset();
    m_loadFinishedAt = SDL_GetTicks();
    m_lastLoadMs = m_loadFinishedAt - m_loadStartedAt;
    if (!log) {
        if (m_reloading) {
            toast("could not re-read the log: " + error);  // keep showing what was read before
            warnOnce("could not re-read the log: " + error);  // the file and the offset, kept
            m_reloading = false;
        } else {
            m_loadError = error;
        }
        return;
    }
    for (const std::string& warning : log->m_warnings) warnOnce(warning);
    const bool first = !m_log;
    std::optional<Viewport> previous = m_view;
    const timeline::XWindow oldWhole = m_log ? m_log->m_model.extent(m_state.m_axis) : timeline::XWindow{};
    std::unique_ptr<LoadedLog> older = std::exchange(m_log, std::move(log));
    ++m_loads;
    m_reloading = false;
    resetView();
    if (m_page) keepPageOver(std::move(older));
    // The timeline's playback was made of the old model: made again on demand.
    m_markAxis.reset();
    m_markMisses.clear();
    std::optional<timeline::XWindow> range;
    if (first && m_options.m_resolve) m_options.m_resolve(m_log->m_model, m_state, range);
    if (first && m_options.m_startPage != WindowOptions::StartPage::Timeline)
        openCachePage(m_options.m_startPage == WindowOptions::StartPage::Memory);
    if (range) {
        m_view->showX(static_cast<double>(range->m_from), static_cast<double>(range->m_to));
    } else if (previous && (previous->x().m_from > static_cast<double>(oldWhole.m_from) ||
                            previous->x().m_to < static_cast<double>(oldWhole.m_to))) {
        // Following a zoomed view: its width stays, and if it reached the end of the log it
        // keeps reaching it. (A view of the whole log stays the whole, grown, log.)
        const bool atEnd = previous->x().m_to >= static_cast<double>(oldWhole.m_to);
        const double width = previous->x().width();
        const double from =
            atEnd ? static_cast<double>(m_log->m_model.extent(m_state.m_axis).m_to) - width : previous->x().m_from;
        m_view->showX(from, from + width);
    }
    if (previous && previous->addressZoom() > 1) {
        // The addresses a user zoomed into stay in view across a re-read.
        const double middle = previous->viewHeight() / 2;
        const auto centre = previous->addressScale().addressAt(middle);
        m_view->zoomAddress(previous->addressZoom(), middle);
        if (centre) m_view->centreAddress(*centre);
    }
    if (m_state.m_pinned && *m_state.m_pinned >= m_log->m_model.size()) m_state.m_pinned.reset();
    m_dirty = true;
}

// A page open over a re-read stays, showing the log as it was when it opened (a page of the
// cache replays every access of a full trace: made again at each read of a followed log, it
// would start over every few seconds). Said once; its key again shows the latest read.
void TimelineWindow::keepPageOver(std::unique_ptr<LoadedLog> older) {
    if (m_page->readsModel() && !m_pageLog) m_pageLog = std::move(older);
    if (m_pageOlderThanLog) return;
    m_pageOlderThanLog = true;
    toast("the log was read again; this page shows it as it was when it opened (Esc, then its key, for the latest)");
}

// A followed log is read again and again: what is wrong with it is said once, not at each read.
void TimelineWindow::warnOnce(const std::string& warning) {
    if (m_warned.insert(warning).second) diagnostics::warn(warning);
}

// A log whose program still runs (no clean end) is read again every so often: its recorder
// writes into chunks reserved ahead, so neither its size nor (until writeback) its time need
// change. The pause grows with the time a read takes, so following costs at most a fifth of a
// core. A finished log is read again only when the file changes (a new recording over it).
void TimelineWindow::checkFollow() {
    const uint32_t now = SDL_GetTicks();
    if (m_loader || !m_log) return;
    const uint32_t pause = std::max<uint32_t>(1000, 4 * m_lastLoadMs);
    if (now - m_loadFinishedAt < pause || now - m_lastFollowCheck < 1000) return;
    m_lastFollowCheck = now;
    const std::string version = fileVersion(m_options.m_log);
    if (version.empty()) return;
    if (m_log->m_reader->complete() && version == m_log->m_version) return;
    m_reloading = true;
    startLoading();
}

void TimelineWindow::resetView() {
    const Rect view = mainView();
    m_view.emplace(m_log->m_model.extent(m_state.m_axis), m_log->m_ranges, std::max(view.m_height, 1.0));
}

// --- frames --------------------------------------------------------------------------------------

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
    options.m_suppressedBytes = m_log->m_suppressed.m_bytes;
    options.m_suppressedBlocks = m_log->m_suppressed.m_blocks;
    options.m_accessMarks = m_state.m_accessMarks;
    options.m_cache = m_options.m_cache;
    options.m_uiScale = m_options.m_scale;
    // Frames through the index, folding what is smaller than a pixel (correlated views fold only
    // in drafts).
    options.m_frame = m_log->m_frame.get();
    options.m_levelOfDetail = true;
    options.m_mayDraft = true;  // but not when drawFrame draws a draft exactly
    // While the alpha slider is dragged, or for one frame after a key changed it, the context
    // view keeps its picture; the next frame (another picture key) draws it for this alpha.
    // Correlated views have no context view: nothing to keep, no frame to follow.
    options.m_contextMayLag = !m_state.m_bins && (m_drag == Drag::Alpha || m_contextBehind);
    if (!m_state.m_bins) {
        m_view->setViewHeight(mainView().m_height);
        options.m_addressScale = m_view->addressScale();
    }
    return options;
}

void TimelineWindow::drawFrame() {
    const auto started = std::chrono::steady_clock::now();
    const int width = m_window.pixelWidth(), height = m_window.pixelHeight();
    m_fontSize = mainLayout(width, std::max(height, 150), m_options.m_scale).m_fontSize;
    m_stripHeight = std::round(m_fontSize * 2.6);
    m_window.present([&](cairo_t* cr) {
        const Rect whole{0, 0, static_cast<double>(width), static_cast<double>(height)};
        if (!m_log) {
            const double fraction = m_loader ? m_loader->progress() : 0;
            const std::string stage = m_loader ? m_loader->stage() : "opening";
            drawProgress(cr, whole,
                         stage + " " + baseName(m_options.m_log) + " \u2026 " +
                             std::to_string(static_cast<int>(fraction * 100)) + " %",
                         fraction, m_fontSize);
            return;
        }
        if (m_page) {
            drawPage(cr, width, height);
            return;
        }
        const int reportHeight = std::max(height - static_cast<int>(m_stripHeight), 150);
        if (preparing() || startPreparing()) {
            // The last picture, dimmed, under the bar of what is being made ready.
            if (m_picture) {
                cairo_set_source_surface(cr, m_picture, 0, m_stripHeight);
                cairo_paint_with_alpha(cr, 0.35);
            }
            const std::string what = preparingText(m_preparing.load());
            drawProgress(cr, {0, m_stripHeight, static_cast<double>(width), static_cast<double>(reportHeight)},
                         what + " \u2026 " + std::to_string(static_cast<int>(m_prepareProgress.load() * 100)) + " %",
                         m_prepareProgress.load(), m_fontSize, false);
            m_strip = ControlStrip(cr, m_state, {0, 0, static_cast<double>(width), m_stripHeight}, m_fontSize);
            m_strip.paint(cr, m_state);
            return;
        }
        ReportOptions options = reportOptions(width, reportHeight);
        m_contextLagged = options.m_contextMayLag;
        // Only what the report shows redraws it: hovering, tooltips, the help and a dragged box
        // are drawn over the picture of the last frame, kept as an image. And a draft, when
        // its time to be drawn exactly has come: into a picture of its own, giving way to
        // input (the draft stays until it is done). A view that changed meanwhile gets its
        // draft first.
        const bool same = pictureShows(options);
        const bool refining = same && m_pictureState == PictureState::DraftDue;
        m_lastFrame = LastFrame::Reused;
        if (!same || refining) {
            options.m_mayDraft = !refining;
            FrameContext& frame = *m_log->m_frame;
            const auto building = std::chrono::steady_clock::now();
            const ReportOptions shown = options;
            auto report = std::make_unique<Report>(m_log->m_model, &m_log->m_sites, std::move(options));
            const auto painting = std::chrono::steady_clock::now();
            if (m_picture && (cairo_image_surface_get_width(m_picture) != width ||
                              cairo_image_surface_get_height(m_picture) != reportHeight)) {
                cairo_surface_destroy(m_picture);
                m_picture = nullptr;
            }
            cairo_surface_t* target = m_picture && !refining
                                          ? m_picture
                                          : cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, reportHeight);
            if (refining) frame.setInterrupt([this] { return m_window.inputWaiting(); });
            cairo_t* page = cairo_create(target);
            report->paint(page);
            cairo_destroy(page);
            frame.setInterrupt(nullptr);
            if (frame.interrupted()) {
                cairo_surface_destroy(target);
                m_lastFrame = LastFrame::GaveWay;
                m_pictureState = PictureState::Draft;
                m_refineAt = refineTime();
            } else {
                if (m_picture && m_picture != target) cairo_surface_destroy(m_picture);
                m_picture = target;
                m_lastPlans.clear();
                const char* names[] = {"view", "context"};
                size_t view = 0;
                for (const FramePlan& plan : report->plans()) {
                    const bool context = !m_state.m_bins && view + 1 == report->plans().size();
                    m_lastPlans +=
                        " " + plan.describe(context ? names[1] : std::string(names[0]) + std::to_string(view));
                    ++view;
                }
                m_report = std::move(report);
                m_pictureOptions = shown;
                m_pictureOptions->m_mayDraft = false;
                m_pictureLoads = m_loads;
                ++m_pictures;
                m_lastFrame = refining ? LastFrame::Refined : LastFrame::Drawn;
                m_pictureState = frame.drewDraft() ? PictureState::Draft : PictureState::Exact;
                if (frame.drewDraft()) m_refineAt = refineTime();
            }
            const auto painted = std::chrono::steady_clock::now();
            m_buildMs = std::chrono::duration<double, std::milli>(painting - building).count();
            m_paintMs = std::chrono::duration<double, std::milli>(painted - painting).count();
            if (!frame.interrupted() && !frame.drewDraft())
                frame.policy().exactFrame(frame.frameStats().m_items, m_paintMs);
        } else {
            m_buildMs = m_paintMs = 0;
        }
        // A copy, not a blend: the picture is opaque.
        cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
        cairo_set_source_surface(cr, m_picture, 0, m_stripHeight);
        cairo_paint(cr);
        cairo_set_operator(cr, CAIRO_OPERATOR_OVER);
        m_strip = ControlStrip(cr, m_state, {0, 0, static_cast<double>(width), m_stripHeight}, m_fontSize);
        m_strip.paint(cr, m_state);
        paintOverlays(cr);
        m_drawnAt = std::chrono::steady_clock::now();
    });
    m_showMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_drawnAt).count();
    m_dirty = m_contextBehind && m_contextLagged;  // the context view's own frame follows
    m_contextBehind = false;
    ++m_frames;
    if (m_options.m_trace) {
        const double milliseconds =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
        if (m_page && m_log)
            tracePage(milliseconds);
        else
            trace(milliseconds);
    }
}

bool TimelineWindow::pictureShows(const ReportOptions& options) const {
    if (!m_picture || !m_pictureOptions || m_pictureLoads != m_loads) return false;
    ReportOptions asked = options;
    asked.m_mayDraft = false;  // a draft or its exact picture: the same view
    return asked == *m_pictureOptions;
}

const char* TimelineWindow::preparingText(Preparing what) {
    switch (what) {
        case Preparing::Index:
            return "indexing for the new x axis";
        case Preparing::Colours:
            return "colouring every block";
        case Preparing::Bins:
            return "sorting the blocks into bins";
        case Preparing::Nothing:
            break;
    }
    return "";
}

void TimelineWindow::paintOverlays(cairo_t* cr) {
    const Rect whole{0, 0, static_cast<double>(m_window.pixelWidth()), static_cast<double>(m_window.pixelHeight())};
    auto outline = [&](size_t index, bool pinned) {
        for (Rect rect : m_report->blockRects(m_log->m_model[index])) {
            rect.m_y += m_stripHeight;
            drawOutline(cr, rect, pinned);
        }
    };
    if (m_state.m_pinned) {
        outline(*m_state.m_pinned, true);
        Rect panel = m_report->layout().m_legend;
        panel.m_y += m_stripHeight;
        std::vector<std::string> lines = blockLines(*m_state.m_pinned, true);
        const std::string title = lines.front();
        lines.erase(lines.begin());
        drawPanel(cr, panel, title, lines, m_fontSize);
        paintArrayButton(cr, panel);
    } else {
        m_arrayButton = {};
    }
    if (m_hovered && m_hovered != m_state.m_pinned) outline(*m_hovered, false);
    if (m_drag == Drag::Box && m_moved)
        drawRubberBand(cr, {std::min(m_pressX, m_pointerX), std::min(m_pressY, m_pointerY),
                            std::fabs(m_pointerX - m_pressX), std::fabs(m_pointerY - m_pressY)});
    paintTimelinePlayback(cr);
    std::vector<std::string> tip;
    if (m_hoveredMark) {
        const timeline::AccessMark& mark = m_log->m_model.accessMarks()[*m_hoveredMark];
        tip.push_back(std::string(mark.m_write ? "write" : "read") + " at " + timeline::hexText(mark.m_addr));
        tip.push_back("at " + timeline::durationText(static_cast<double>(mark.m_timeNs)) + ", event " +
                      timeline::countText(mark.m_seq) + ", thread " + std::to_string(mark.m_tid));
        tip.push_back("in " + timeline::accessingCode(*m_log->m_names, mark.m_ip, mark.m_stack));
        if (mark.m_armedBy)
            tip.push_back("caught by a watchpoint a sample set at event " + timeline::countText(mark.m_armedBy));
        if (mark.m_useAfterFree) tip.push_back("use after free: the block was freed before this access");
        for (const std::string& line : stackLines(mark.m_stack)) tip.push_back(line);
        if (const std::optional<size_t> block = blockOfHoveredMark())
            tip.push_back(m_state.m_pinned == block ? "click to unpin its block" : "click to pin its block");
    } else if (m_hovered && m_drag == Drag::None) {
        tip = blockLines(*m_hovered, false);
        tip.push_back(m_state.m_pinned == m_hovered ? "click to unpin" : "click to pin: both call stacks in the panel");
    } else if (m_hoveredBar) {
        const auto [bytes, blocks] = m_log->liveAt(m_hoveredBar->first);
        const bool time = m_state.m_axis == XAxis::Time;
        tip.push_back(time ? "at " + timeline::durationText(static_cast<double>(m_hoveredBar->first))
                           : "at event " + timeline::countText(m_hoveredBar->first));
        tip.push_back(timeline::bytesText(static_cast<double>(bytes)) + " live in " + timeline::countText(blocks) +
                      (blocks == 1 ? " block" : " blocks"));
    }
    if (!tip.empty() && m_pointerX >= 0) drawTooltip(cr, m_pointerX, m_pointerY, tip, m_fontSize, whole);
    if (m_state.m_help) drawHelp(cr, whole, m_fontSize);
    if (m_toastUntil) drawToast(cr, whole, m_toast, m_fontSize);
}

std::string TimelineWindow::siteText(uint32_t stack) const {
    if (stack == 0) return "(no stack)";
    return timeline::siteLabel(m_log->m_names->site(stack));
}

std::vector<std::string> TimelineWindow::stackLines(uint32_t stack) const {
    std::vector<std::string> lines;
    for (const unwind::SourceFrame& frame : m_log->m_names->frames(stack))
        lines.push_back("  " + timeline::siteLabel(frame));
    if (lines.empty()) lines.push_back("  (no stack recorded)");
    return lines;
}

std::vector<std::string> TimelineWindow::blockLines(size_t index, bool full) const {
    const timeline::BlockModel& model = m_log->m_model;
    const Block& block = model[index];
    const uint32_t freeStack = model.freeStack(index);
    auto at = [&](uint64_t ns, uint64_t seq) {
        return timeline::durationText(static_cast<double>(ns)) + " (event " + timeline::countText(seq) + ")";
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
                        timeline::durationText(static_cast<double>(block.endNs() - block.beginNs())));
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

void TimelineWindow::toast(const std::string& text) {
    m_toast = text;
    m_toastUntil = SDL_GetTicks() + 4000;
    m_dirty = true;
}

// `e`: the current view exactly, as --export would draw it, into a new file beside the log's
// name in the current directory.
void TimelineWindow::exportView() {
    if (!m_log || (!m_report && !m_page)) return;
    if (preparing()) {  // the report draws through the context being prepared on its thread
        toast("the view is being made ready: export it in a moment");
        return;
    }
    std::string stem = baseName(m_options.m_log);
    if (stem.size() > 7 && stem.ends_with(".memlog")) stem.resize(stem.size() - 7);
    std::string path;
    int fd = -1;
    for (int attempt = 0; attempt < 1000 && fd < 0; ++attempt) {
        path = stem + "-view-" + std::to_string(++m_exports) + ".png";
        fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    }
    std::FILE* out = fd >= 0 ? fdopen(fd, "wb") : nullptr;
    if (!out) {
        toast("cannot write an export here: " + std::string(std::strerror(errno)));
        if (fd >= 0) close(fd);
        return;
    }
    try {
        if (m_page) {  // the page as shown (at the clock's moment while it plays back), window-sized
            const int width = m_window.pixelWidth(), height = m_window.pixelHeight();
            exportPage(PaintedPage(width, height, [&](cairo_t* cr) { m_page->paint(cr, width, height); }),
                       OutputFormat::Png, out, path);
            std::fclose(out);
            diagnostics::info("exported the page to " + path);
            toast("exported the page to " + path);
            return;
        }
        // A draft on screen is exported as its exact picture (drawn now), as --export draws it.
        std::unique_ptr<Report> exact;
        if (m_pictureState != PictureState::Exact) {
            ReportOptions options = m_report->options();
            options.m_mayDraft = false;
            exact = std::make_unique<Report>(m_log->m_model, &m_log->m_sites, std::move(options));
        }
        exportReport(exact ? *exact : *m_report, OutputFormat::Png, out, path);
        std::fclose(out);
        diagnostics::info("exported the view to " + path);
        toast("exported the view to " + path);
    } catch (const ExportError& error) {
        std::fclose(out);
        unlink(path.c_str());
        toast(error.what());
    }
}

}  // namespace memlog::render

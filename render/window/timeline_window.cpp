// The window's coordination: its parts made, the loop that waits for input and news, the one
// place the mode switches, a log's arrival (first read or read again), the preparer started when
// the choices change, and `e`'s export. Frames: window_frame.cpp; input: window_input.cpp; pages
// and playback: page_mode.cpp; --trace: window_trace.cpp.
#include "render/window/timeline_window.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <utility>

#include "render/report/export.hpp"
#include "timeline/base/diagnostics.hpp"

namespace memlog::render {

using timeline::XAxis;

namespace {

uint32_t s_wakeEvent = 0;  // an SDL user event: the loader or the preparer has news

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

int runWindow(const WindowOptions& options) {
    TimelineWindow window(options);
    return window.run();
}

TimelineWindow::TimelineWindow(const WindowOptions& options)
    : m_options(options),
      m_state(options.m_state),
      m_window("memtimeline \u00b7 " + baseName(options.m_log), options.m_width, options.m_height),
      m_log(options.m_log, options.m_draftAbove, options.m_index, wake, options.m_follow),
      m_preparer(wake) {
    if (!s_wakeEvent) s_wakeEvent = SDL_RegisterEvents(1);
    m_log.read(readingAxis(), m_state.m_colourBy, SDL_GetTicks());
}

// The parts go in the reverse of their order in the class: the picture and the page before the
// log whose model they show, the preparer (its thread joined) before the log whose context it
// prepares.
TimelineWindow::~TimelineWindow() = default;

int TimelineWindow::run() {
    for (;;) {
        SDL_Event event;
        const bool input = m_window.nextEvent(event, m_dirty ? 0 : waitMs());
        if (input) {
            do {
                if (!handle(event)) return 0;
            } while (m_window.nextEvent(event, 0));
        }
        if (m_picture.tick(SDL_GetTicks(), input)) m_dirty = true;
        takeArrival();
        if (m_preparer.done()) finishPreparing();
        if (m_mode == WindowMode::LoadFailed) return 2;
        if (m_toastUntil && SDL_GetTicks() > m_toastUntil) {
            m_toastUntil = 0;
            m_dirty = true;
        }
        if (m_options.m_follow) m_log.follow(readingAxis(), m_state.m_colourBy, SDL_GetTicks());
        tickPlayback();
        prepareForChoices();
        if (m_dirty || m_mode == WindowMode::Loading || m_mode == WindowMode::Preparing) drawFrame();
    }
}

// Wait for input, but wake now and then to follow a growing log and end a message, every frame
// while playing, and when a draft is due to be drawn exactly.
int TimelineWindow::waitMs() const {
    int wait = m_options.m_follow || m_toastUntil ? 250 : -1;
    if (playing()) wait = kPlaybackFrameMs;
    if (const std::optional<uint32_t> due = m_picture.untilDue(SDL_GetTicks())) {
        const int untilDue = static_cast<int>(*due);
        wait = wait < 0 ? untilDue : std::min(wait, untilDue);
    }
    return wait;
}

std::string TimelineWindow::logName() const { return baseName(m_options.m_log); }

void TimelineWindow::switchMode(ModeEvent event) {
    const WindowMode before = m_mode;
    m_mode = nextMode(m_mode, event);
    if (m_mode == before) return;
    m_dirty = true;
    // The frame context is the preparer's until it is done: nothing hovered asks it.
    if (m_mode == WindowMode::Preparing) m_pointer.clearHover();
}

// --- the log ---------------------------------------------------------------------------------

void TimelineWindow::takeArrival() {
    FollowedLog::Arrival arrival = m_log.take(SDL_GetTicks());
    if (arrival.m_what == FollowedLog::Arrival::What::Nothing) return;
    // The log before (alive in the arrival) has its context prepared on the preparer's thread:
    // left alone first.
    if (m_preparer.busy()) finishPreparing();
    logArrived(std::move(arrival));
}

void TimelineWindow::logArrived(FollowedLog::Arrival arrival) {
    if (arrival.m_what == FollowedLog::Arrival::What::Unreadable) {
        if (arrival.m_first) {
            std::fprintf(stderr, "memtimeline: %s\n", arrival.m_error.c_str());
            switchMode(ModeEvent::LogUnreadable);
        } else {
            toast("could not re-read the log: " + arrival.m_error);  // keep showing what was read before
        }
        return;
    }
    const bool first = arrival.m_first;
    std::optional<Viewport> previous = m_view;
    const XAxis clock = log().m_model.clock();
    if (m_axisToCome && timeline::clockOf(*m_axisToCome) != clock) {
        // A read begun before the axis changed (--follow's): read again on the new clock.
        m_log.read(*m_axisToCome, m_state.m_colourBy, SDL_GetTicks());
    } else if (m_axisToCome) {
        m_state.m_axis = *m_axisToCome;
        m_axisToCome.reset();
        m_state.m_cursors.clear();  // in the old axis' units, as the view was: the whole log now
        previous.reset();
    }
    if (timeline::clockOf(m_state.m_axis) != clock) {  // the model that came decides
        m_state.m_axis = clock;
        m_state.m_cursors.clear();
        previous.reset();
    }
    const timeline::XWindow oldWhole =
        arrival.m_previous ? arrival.m_previous->m_model.extent(m_state.m_axis) : timeline::XWindow{};
    m_picture.logChanged();
    m_playback.forget();  // made of the old model: made again on demand
    switchMode(ModeEvent::LogRead);
    resetView();
    if (m_mode == WindowMode::Page && m_log.keepForPage(std::move(arrival.m_previous), m_page->readsModel()))
        toast(
            "the log was read again; this page shows it as it was when it opened (Esc, then its key, for the latest)");
    arrival.m_previous.reset();
    const timeline::BlockModel& model = log().m_model;
    std::optional<timeline::XWindow> range;
    if (first && m_options.m_resolve) m_options.m_resolve(model, m_state, range);
    if (first && m_options.m_startPage != WindowOptions::StartPage::Timeline)
        openCachePage(m_options.m_startPage == WindowOptions::StartPage::Memory);
    if (first && m_options.m_compare) openComparePage(range);
    if (range) {
        m_view->showX(static_cast<double>(range->m_from), static_cast<double>(range->m_to));
    } else if (previous && (previous->x().m_from > static_cast<double>(oldWhole.m_from) ||
                            previous->x().m_to < static_cast<double>(oldWhole.m_to))) {
        // Following a zoomed view: its width stays, and if it reached the end of the log it
        // keeps reaching it. (A view of the whole log stays the whole, grown, log.)
        const bool atEnd = previous->x().m_to >= static_cast<double>(oldWhole.m_to);
        const double width = previous->x().width();
        const double from =
            atEnd ? static_cast<double>(model.extent(m_state.m_axis).m_to) - width : previous->x().m_from;
        m_view->showX(from, from + width);
    }
    if (previous && previous->addressZoom() > 1) {
        // The addresses a user zoomed into stay in view across a re-read.
        const double middle = previous->viewHeight() / 2;
        const auto centre = previous->addressScale().addressAt(middle);
        m_view->zoomAddress(previous->addressZoom(), middle);
        if (centre) m_view->centreAddress(*centre);
    }
    if (m_state.m_pinned && *m_state.m_pinned >= model.size()) m_state.m_pinned.reset();
    m_dirty = true;
}

void TimelineWindow::resetView() {
    const Rect view = mainView();
    m_view.emplace(log().m_model.extent(m_state.m_axis), log().m_ranges, std::max(view.m_height, 1.0));
}

void TimelineWindow::nextAxis() {
    if (m_axisToCome) {
        toast(std::string("reading the log again for x: ") + timeline::xAxisName(*m_axisToCome) + "; a moment");
        return;
    }
    const XAxis from = m_state.m_axis;
    const bool counted = log().m_reader && log().m_reader->countsInstructions();
    const XAxis to = from == XAxis::Time                ? XAxis::Events
                     : from == XAxis::Events && counted ? XAxis::Instructions
                                                        : XAxis::Time;
    if (timeline::clockOf(to) != log().m_model.clock()) {
        m_axisToCome = to;
        m_log.read(to, m_state.m_colourBy, SDL_GetTicks());
        toast(std::string("x: ") + timeline::xAxisName(to) + ": reading the log again for it");
        return;
    }
    // The same stretch of the log on the other axis: its first and last block events.
    const timeline::XWindow shown = m_view->xWindow();
    const timeline::BlockModel& model = log().m_model;
    const bool whole = shown.m_from <= model.extent(from).m_from && shown.m_to >= model.extent(from).m_to;
    m_state.m_axis = to;
    m_state.m_cursors.clear();  // cursors are in the old axis' units
    resetView();
    if (!whole && to == XAxis::Events)
        m_view->showX(static_cast<double>(model.seqAtTime(shown.m_from)),
                      static_cast<double>(model.seqAtTime(shown.m_to)));
}

// --- preparing the frame context ---------------------------------------------------------------

void TimelineWindow::prepareForChoices() {
    if (m_mode != WindowMode::Timeline) return;
    if (m_preparer.busy() || m_preparer.start(*log().m_frame, choices())) switchMode(ModeEvent::PreparerBusy);
}

void TimelineWindow::finishPreparing() {
    m_preparer.finish();
    switchMode(ModeEvent::PreparerDone);
    m_dirty = true;
}

// --- messages and export ---------------------------------------------------------------------

void TimelineWindow::toast(const std::string& text) {
    m_toast = text;
    m_toastUntil = SDL_GetTicks() + 4000;
    m_dirty = true;
}

// `e`: the current view exactly, as --export would draw it, into a new file beside the log's
// name in the current directory.
void TimelineWindow::exportView() {
    const bool page = m_mode == WindowMode::Page;
    if (!hasLog() || (!report() && !page)) return;
    if (m_mode == WindowMode::Preparing) {  // the report draws through the context being prepared
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
        if (page) {  // the page as shown (at the clock's moment while it plays back), window-sized
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
        if (m_picture.state() != KeptPicture::State::Exact) {
            ReportOptions options = report()->options();
            options.m_mayDraft = false;
            exact = std::make_unique<Report>(log().m_model, &log().m_sites, std::move(options));
        }
        exportReport(exact ? *exact : *report(), OutputFormat::Png, out, path);
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

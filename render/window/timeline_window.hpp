// memtimeline's interactive window. Every frame is the report of render/report/report.hpp drawn for
// the current view (so the window shows what --export writes), with the control strip above
// and overlays on top: the block under the pointer outlined in every view with a tooltip, a
// pinned block's call stacks in a side panel, cursors, help, progress while a log loads.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "render/report/report.hpp"
#include "render/window/control_strip.hpp"
#include "render/window/loaded_log.hpp"
#include "render/window/playback_clock.hpp"
#include "render/window/sdl_window.hpp"
#include "render/window/viewport.hpp"
#include "render/window/window_pages.hpp"
#include "render/window/window_state.hpp"

namespace memlog::render {

struct WindowOptions {
    std::string m_log;
    WindowState m_state;  // the choices to start with
    // Called once the log is read: the x window to start with (--range) and cursors.
    std::function<void(const timeline::BlockModel&, WindowState&, std::optional<timeline::XWindow>&)> m_resolve;
    int m_width = 1600, m_height = 1000;  // window points
    double m_scale = 1;  // --scale: text and controls grown (HiDPI on X11)
    bool m_follow = false;  // re-read the log as it grows
    bool m_trace = false;  // one line per frame on stderr
    bool m_fullPaths = false;  // --paths full: the header's paths in full
    size_t m_draftAbove = DraftPolicy::kDraftAbove;  // --draft-above: see DraftPolicy
    std::optional<timeline::CacheGeometry> m_cache;  // --cache: hits and misses, the memory display's cache
    uint64_t m_idleNs = 0;  // --idle for the working set (0: a hundredth of the run)
    enum class StartPage { Timeline, Memory, WorkingSet };
    StartPage m_startPage = StartPage::Timeline;  // --view memory / working-set: open on that page
};

// Opens the window and runs until it is closed. Returns the exit status.
int runWindow(const WindowOptions& options);

class TimelineWindow {
public:
    explicit TimelineWindow(const WindowOptions& options);
    ~TimelineWindow();
    TimelineWindow(const TimelineWindow&) = delete;
    TimelineWindow& operator=(const TimelineWindow&) = delete;
    int run();

private:
    // Loading and following.
    void startLoading();
    void finishLoading();
    void checkFollow();
    void warnOnce(const std::string& warning);
    // A new x axis or colouring: the frame context is made ready for it on a thread of its
    // own (seconds for ten million blocks) while the window shows the last picture and a bar.
    bool startPreparing();
    void finishPreparing();

    // Frames (timeline_window.cpp).
    void drawFrame();
    ReportOptions reportOptions(int width, int height);
    // Whether the picture kept under the overlays shows what `options` would draw.
    bool pictureShows(const ReportOptions& options) const;
    void paintOverlays(cairo_t* cr);
    std::vector<std::string> blockLines(size_t index, bool full) const;
    std::vector<std::string> stackLines(uint32_t stack) const;
    std::string siteText(uint32_t stack) const;
    void exportView();
    void toast(const std::string& text);
    void trace(double milliseconds);

    // Input (window_input.cpp). Coordinates are drawable pixels.
    bool handle(const SDL_Event& event);  // false: quit
    void perform(Action action);
    void onPress(int button, double x, double y, uint16_t modifiers);
    void onRelease(int button, double x, double y);
    void onMotion(double x, double y);
    void onWheel(double notches, uint16_t modifiers);
    void clickControl(Control control, double x);
    void updateHover();
    void moveContext(double x, double y);
    std::optional<size_t> cursorAt(double x, double y) const;
    uint64_t xUnder(double x, double y) const;
    Rect areaUnder(double x, double y) const;
    std::optional<size_t> markAt(double x, double y) const;
    Rect mainView() const;  // in window pixels
    double reportTop() const { return m_stripHeight; }
    void resetView();

    // Pages and playback (page_mode.cpp): a page instead of the timeline, the playback's clocks.
    void openArrayView(std::optional<size_t> block);
    // The block the hovered access sample fell in: over a sampled block the pointer is often on
    // one of its samples, which the tooltip describes instead of the block.
    std::optional<size_t> blockOfHoveredMark() const;
    void openCachePage(bool memory);
    void closePage();
    void drawPage(cairo_t* cr, int width, int height);
    bool handlePrompt(const SDL_Event& event);  // true: the prompt took the event
    void applyPrompt();
    void performPlayback(Action action);
    bool playing() const;
    void tickPlayback();  // the clocks move by the time since the last frame
    void prepareTimelinePlayback();
    void paintTimelinePlayback(cairo_t* cr);
    void paintArrayButton(cairo_t* cr, const Rect& panel);
    std::string playbackTrace() const;  // the timeline's playback and the toast, for --trace
    std::string toastTrace() const;
    void tracePage(double milliseconds);
    void keepPageOver(std::unique_ptr<LoadedLog> older);  // a re-read with a page open
    void pageChanged();  // a page opened or closed

    std::unique_ptr<WindowPage> m_page;  // shown instead of the timeline when set
    std::optional<std::string> m_prompt;  // the array view's dimensions as typed
    // The timeline's playback: its access samples on the x axis they were made for.
    PlaybackClock m_clock;
    SampleTimes m_markTimes;
    std::optional<timeline::XAxis> m_markAxis;
    std::vector<uint8_t> m_markMisses;  // with --cache: per access mark, 1 if it missed
    bool m_timelinePlayback = false;  // begun: the time line and the lit samples are drawn
    size_t m_litMarks = 0;
    std::chrono::steady_clock::time_point m_lastTick;
    Rect m_arrayButton;  // in the pinned block's panel; empty when none is drawn

    WindowOptions m_options;
    WindowState m_state;
    SdlWindow m_window;
    std::unique_ptr<LogLoader> m_loader;
    std::unique_ptr<LoadedLog> m_log;
    // A followed log read again while a page that reads the model is open: the log the page was
    // made of, kept until the page closes or another opens (the page shows the log as it was).
    std::unique_ptr<LoadedLog> m_pageLog;
    bool m_pageOlderThanLog = false;  // told once per page
    std::optional<Viewport> m_view;
    std::unique_ptr<Report> m_report;  // the last picture's, for hit tests
    cairo_surface_t* m_picture = nullptr;  // the report as last drawn, under the overlays
    std::optional<ReportOptions> m_pictureOptions;  // what the picture shows
    uint64_t m_pictureLoads = 0;  // of the log as read this many times
    uint64_t m_pictures = 0;  // reports drawn (a frame may reuse the last)
    double m_buildMs = 0, m_paintMs = 0;  // the last frame's report: made, painted (0: reused)
    double m_showMs = 0;  // handing the frame to the display
    std::chrono::steady_clock::time_point m_drawnAt;
    uint64_t m_loads = 0;  // logs read (following re-reads)
    std::set<std::string> m_warned;  // the warnings said on stderr, each once
    std::thread m_preparer;
    std::atomic<double> m_prepareProgress{0};
    std::atomic<bool> m_prepared{false};
    // What the preparer thread is making, for the progress bar's words (set by that thread).
    enum class Preparing { Nothing, Index, Colours, Bins };
    std::atomic<Preparing> m_preparing{Preparing::Nothing};
    bool preparing() const { return m_preparing.load() != Preparing::Nothing; }
    static const char* preparingText(Preparing what);
    ControlStrip m_strip;
    double m_stripHeight = 30, m_fontSize = 11;
    std::string m_loadError;

    enum class Drag { None, Pan, Box, Context, Cursor, Alpha };
    Drag m_drag = Drag::None;
    double m_pointerX = -1, m_pointerY = -1, m_pressX = 0, m_pressY = 0;
    // The modifier keys as of the event being handled, from the key events in their order: SDL's
    // own state is that of the last event pumped, so on a slow frame a shift+wheel whose shift
    // was released later in the same batch read as a plain wheel (the gui test under TSan).
    // Unset until the first key event: SDL's state until then.
    std::optional<uint16_t> m_modifiers;
    uint16_t modifiersNow() const { return m_modifiers ? *m_modifiers : static_cast<uint16_t>(SDL_GetModState()); }
    bool m_moved = false;
    size_t m_dragCursor = 0;
    std::optional<size_t> m_hovered, m_hoveredMark;
    std::optional<std::pair<uint64_t, size_t>> m_hoveredBar;
    std::string m_toast;
    uint32_t m_toastUntil = 0;
    uint64_t m_frames = 0;
    uint32_t m_lastFollowCheck = 0;
    uint32_t m_loadStartedAt = 0, m_loadFinishedAt = 0, m_lastLoadMs = 0;
    int m_exports = 0;
    bool m_dirty = true;
    // The alpha changed by key: the next frame draws the main view and keeps the context
    // view's picture, the one after (at once, unless more input came) draws that too. Both
    // views of a ten-million-block log in one frame took half a second.
    bool m_contextBehind = false;
    bool m_contextLagged = false;  // the last frame kept the context view of another alpha
    // A view with more blocks than a frame can draw exactly is drawn as a draft (the frame
    // context's DraftPolicy), then exactly once input has paused for kRefineAfterMs.
    static constexpr uint32_t kRefineAfterMs = 200;
    static constexpr int kPlaybackFrameMs = 16;  // while playing, a frame about every 16 ms
    enum class PictureState {
        Exact,  // nothing to do
        Draft,  // a draft, to be drawn exactly at m_refineAt
        DraftDue,  // a draft whose time has come: the next frame draws it exactly
    };
    PictureState m_pictureState = PictureState::Exact;
    uint32_t m_refineAt = 0;  // SDL ticks, with PictureState::Draft
    // What the last frame did with the picture (for --trace).
    enum class LastFrame { Reused, Drawn, Refined, GaveWay };
    LastFrame m_lastFrame = LastFrame::Reused;
    std::string m_lastPlans;  // the plans of the last picture drawn, as --trace prints them
    // When a draft drawn now is to be drawn exactly (never 0).
    static uint32_t refineTime() { return std::max<uint32_t>(SDL_GetTicks() + kRefineAfterMs, 1); }
    bool m_reloading = false;
};

}  // namespace memlog::render

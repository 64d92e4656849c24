// memtimeline's interactive window. Every frame is the report of render/report/report.hpp drawn for
// the current view (so the window shows what --export writes), with the control strip above
// and overlays on top: the block under the pointer outlined in every view with a tooltip, a
// pinned block's call stacks in a side panel, cursors, help, progress while a log loads.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "render/report/report.hpp"
#include "render/window/compare_window_page.hpp"
#include "render/window/control_strip.hpp"
#include "render/window/followed_log.hpp"
#include "render/window/frame_preparer.hpp"
#include "render/window/kept_picture.hpp"
#include "render/window/pointer.hpp"
#include "render/window/sdl_window.hpp"
#include "render/window/timeline_playback.hpp"
#include "render/window/viewport.hpp"
#include "render/window/window_mode.hpp"
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
    timeline::IndexUse m_index = timeline::IndexUse::Off;  // the log read through its index on disk
    std::optional<timeline::CacheGeometry> m_cache;  // --cache: hits and misses, the memory display's cache
    uint64_t m_idleNs = 0;  // --idle for the working set (0: a hundredth of the run)
    enum class StartPage { Timeline, Memory, WorkingSet };
    StartPage m_startPage = StartPage::Timeline;  // --view memory / working-set: open on that page
    // --compare NEW: the run read beside the log; the window opens on the two (r shows them again).
    std::shared_ptr<const ComparedLog> m_compare;
};

// Opens the window and runs until it is closed. Returns the exit status.
int runWindow(const WindowOptions& options);

// The window: a coordinator over parts that each own their state (the log it follows, the
// preparer of its frame context, the picture it keeps, the pointer, the timeline's playback,
// the page shown instead of the timeline) and one mode (window_mode.hpp), switched in
// switchMode() alone. Frames draw what the mode says; input asks the mode, not which parts are
// there.
class TimelineWindow {
public:
    explicit TimelineWindow(const WindowOptions& options);
    ~TimelineWindow();
    TimelineWindow(const TimelineWindow&) = delete;
    TimelineWindow& operator=(const TimelineWindow&) = delete;
    int run();

private:
    // The mode and what moves it (timeline_window.cpp).
    void switchMode(ModeEvent event);
    bool hasLog() const { return m_mode != WindowMode::Loading && m_mode != WindowMode::LoadFailed; }
    // The time x address views are on screen: drawn, or dimmed while the context is prepared
    // (input moves the view then too; only hit tests wait for the context).
    bool timelineShown() const { return m_mode == WindowMode::Timeline || m_mode == WindowMode::Preparing; }
    LoadedLog& log() { return *m_log.log(); }
    const LoadedLog& log() const { return *m_log.log(); }
    const Report* report() const { return m_picture.report(); }
    FrameChoices choices() const { return {m_state.m_axis, m_state.m_colourBy, m_state.m_bins}; }
    int waitMs() const;
    std::string logName() const;  // the log's file name, without its folders
    void takeArrival();
    void logArrived(FollowedLog::Arrival arrival);
    // The axis the log is read for: the one shown, or one that needs a model on another clock
    // (time and a full trace's instructions), asked for and not yet read.
    timeline::XAxis readingAxis() const { return m_axisToCome.value_or(m_state.m_axis); }
    // x: the next axis; instructions on a full trace only. Into or out of instructions the log
    // is read again, the old picture shown meanwhile.
    void nextAxis();
    // A new x axis, colouring or bins: the frame context is made ready for them on the
    // preparer's thread while the last picture is shown dimmed under a bar. Asked after input
    // and after news, never while a frame paints.
    void prepareForChoices();
    void finishPreparing();
    void resetView();
    void toast(const std::string& text);
    void exportView();

    // Frames (window_frame.cpp).
    void drawFrame();
    void drawLoading(cairo_t* cr, int width, int height);
    void drawPreparing(cairo_t* cr, int width, int reportHeight);
    void drawTimeline(cairo_t* cr, int width, int reportHeight);
    void paintStrip(cairo_t* cr, int width);
    ReportOptions reportOptions(int width, int height);
    void paintOverlays(cairo_t* cr);
    std::vector<std::string> blockLines(size_t index, bool full) const;
    std::vector<std::string> stackLines(uint32_t stack) const;
    std::string siteText(uint32_t stack) const;
    Rect mainView() const;  // in window pixels
    double reportTop() const { return m_stripHeight; }

    // Input (window_input.cpp). Coordinates are drawable pixels.
    bool handle(const SDL_Event& event);  // false: quit
    void perform(Action action);
    void performOnTimeline(Action action);
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

    // Pages and playback (page_mode.cpp): a page instead of the timeline, the playback's clocks.
    void openArrayView(std::optional<size_t> block);
    // The block the hovered access sample fell in: over a sampled block the pointer is often on
    // one of its samples, which the tooltip describes instead of the block.
    std::optional<size_t> blockOfHoveredMark() const;
    void openCachePage(bool memory);
    void openComparePage(std::optional<timeline::XWindow> range);
    bool moveTimeOnPage(Action action);  // true: the page shown took a zoom or pan in time
    void openPage(std::unique_ptr<WindowPage> page);
    void closePage();
    void drawPage(cairo_t* cr, int width, int height);
    bool handlePrompt(const SDL_Event& event);  // true: the prompt took the event
    void applyPrompt();
    void performPlayback(Action action);
    PlaybackClock& shownClock();
    bool playing() const;
    void tickPlayback();  // the clock shown moves by the time since the last frame
    void paintTimelinePlayback(cairo_t* cr);
    void paintArrayButton(cairo_t* cr, const Rect& panel);

    // --trace (window_trace.cpp).
    void trace(double milliseconds);
    void traceTimeline(double milliseconds);
    void tracePage(double milliseconds);
    std::string toastTrace() const;

    WindowOptions m_options;
    WindowState m_state;
    SdlWindow m_window;
    WindowMode m_mode = WindowMode::Loading;
    FollowedLog m_log;
    FramePreparer m_preparer;
    KeptPicture m_picture;
    Pointer m_pointer;
    TimelinePlayback m_playback;
    std::unique_ptr<WindowPage> m_page;  // with WindowMode::Page
    std::optional<std::string> m_prompt;  // the array page's dimensions as typed
    std::optional<Viewport> m_view;  // once a log is read
    std::optional<timeline::XAxis> m_axisToCome;  // nextAxis: shown once a read on its clock arrives
    ControlStrip m_strip;
    double m_stripHeight = 30, m_fontSize = 11;
    Rect m_arrayButton;  // in the pinned block's panel; empty when none is drawn
    std::string m_toast;
    uint32_t m_toastUntil = 0;  // SDL ticks; 0: no message shown
    // The last frame: its report made, painted (0: the picture reused), handed to the display.
    double m_buildMs = 0, m_paintMs = 0, m_showMs = 0;
    uint64_t m_frames = 0;
    int m_exports = 0;
    bool m_dirty = true;
    // The alpha changed by key: the next frame draws the main view and keeps the context
    // view's picture, the one after (at once, unless more input came) draws that too. Both
    // views of a ten-million-block log in one frame took half a second.
    bool m_contextBehind = false;
    bool m_contextLagged = false;  // the last frame kept the context view of another alpha
    static constexpr int kPlaybackFrameMs = 16;  // while playing, a frame about every 16 ms
};

}  // namespace memlog::render

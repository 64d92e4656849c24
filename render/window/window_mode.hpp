// The window's one mode: what it shows and what may be asked of the log. Switched only by
// nextMode(), from the events the window's parts report; everything else asks the mode rather
// than which parts happen to be there. No SDL: tests/render/test_window_mode.cpp.
#pragma once

namespace memlog::render {

enum class WindowMode {
    Loading,  // the first read of the log, behind a progress bar: nothing to show or ask yet
    LoadFailed,  // the first read failed: the window says why and closes (status 2)
    Preparing,  // the frame context is being made ready for a new axis, colouring or bins on
                // its thread: the last picture dimmed under a bar; nothing may ask the context
    Timeline,  // the time x address views, drawn through the frame context
    Page,  // a page (an array's, the memory display, the working set) instead of the timeline
};

enum class ModeEvent {
    LogRead,  // a read of the log finished (the first, or a followed log's re-read)
    LogUnreadable,  // a read of the log failed
    PreparerBusy,  // the frame context is being prepared (begun, or still going)
    PreparerDone,  // its preparation finished
    PageOpened,
    PageClosed,
};

// The mode after `event` in `mode`. A failed re-read leaves the mode as it was (the log read
// before stays); the preparer may go on behind a page, which closes to the timeline (whose
// frames then find the preparer busy); a failed first read is final.
WindowMode nextMode(WindowMode mode, ModeEvent event);

}  // namespace memlog::render

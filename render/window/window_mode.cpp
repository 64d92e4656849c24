// The mode's transitions, one switch a mode: an event a mode does not expect leaves it as it is.
#include "render/window/window_mode.hpp"

namespace memlog::render {

WindowMode nextMode(WindowMode mode, ModeEvent event) {
    switch (mode) {
        case WindowMode::Loading:
            if (event == ModeEvent::LogRead) return WindowMode::Timeline;
            if (event == ModeEvent::LogUnreadable) return WindowMode::LoadFailed;
            return mode;  // no log yet: no page, nothing to prepare
        case WindowMode::LoadFailed:
            return mode;
        case WindowMode::Preparing:
            // A new log brings its own context (the window ends the preparer of the old one
            // first); its frames find out whether that needs preparing too.
            if (event == ModeEvent::PreparerDone || event == ModeEvent::LogRead) return WindowMode::Timeline;
            if (event == ModeEvent::PageOpened) return WindowMode::Page;
            return mode;
        case WindowMode::Timeline:
            if (event == ModeEvent::PreparerBusy) return WindowMode::Preparing;
            if (event == ModeEvent::PageOpened) return WindowMode::Page;
            return mode;
        case WindowMode::Page:
            if (event == ModeEvent::PageClosed) return WindowMode::Timeline;
            return mode;  // a page stays over a re-read and over a preparer finishing behind it
    }
    return mode;
}

}  // namespace memlog::render

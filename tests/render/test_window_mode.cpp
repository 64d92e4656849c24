// The window's mode: every transition of nextMode(), as a table, and the paths a window takes
// (a log read, a new axis prepared behind a page, a failed read again, a failed first read).
#include <catch2/catch.hpp>

#include <map>
#include <utility>

#include "render/window/window_mode.hpp"

using memlog::render::ModeEvent;
using memlog::render::nextMode;
using memlog::render::WindowMode;

namespace {

constexpr WindowMode kModes[] = {WindowMode::Loading, WindowMode::LoadFailed, WindowMode::Preparing,
                                 WindowMode::Timeline, WindowMode::Page};
constexpr ModeEvent kEvents[] = {ModeEvent::LogRead,      ModeEvent::LogUnreadable, ModeEvent::PreparerBusy,
                                 ModeEvent::PreparerDone, ModeEvent::PageOpened,    ModeEvent::PageClosed};

}  // namespace

TEST_CASE("every event in every mode leads where the window's rules say") {
    using M = WindowMode;
    using E = ModeEvent;
    // Only the transitions listed change the mode; every other event leaves it as it is.
    const std::map<std::pair<M, E>, M> changes = {
        {{M::Loading, E::LogRead}, M::Timeline},  // the first read: the timeline
        {{M::Loading, E::LogUnreadable}, M::LoadFailed},
        {{M::Timeline, E::PreparerBusy}, M::Preparing},  // a new axis, colouring or bins
        {{M::Timeline, E::PageOpened}, M::Page},
        {{M::Preparing, E::PreparerDone}, M::Timeline},
        {{M::Preparing, E::LogRead}, M::Timeline},  // the new log brings its own context
        {{M::Preparing, E::PageOpened}, M::Page},  // the preparer goes on behind the page
        {{M::Page, E::PageClosed}, M::Timeline},
    };
    for (const M mode : kModes)
        for (const E event : kEvents) {
            INFO("mode " << static_cast<int>(mode) << ", event " << static_cast<int>(event));
            const auto change = changes.find({mode, event});
            CHECK(nextMode(mode, event) == (change != changes.end() ? change->second : mode));
        }
}

TEST_CASE("a window's life: read, prepared behind a page, read again and failing, without leaving the log") {
    WindowMode mode = WindowMode::Loading;
    auto after = [&](ModeEvent event) { return mode = nextMode(mode, event); };
    CHECK(after(ModeEvent::PageOpened) == WindowMode::Loading);  // no log yet: no page
    CHECK(after(ModeEvent::LogRead) == WindowMode::Timeline);
    CHECK(after(ModeEvent::PreparerBusy) == WindowMode::Preparing);
    CHECK(after(ModeEvent::PageOpened) == WindowMode::Page);
    CHECK(after(ModeEvent::PreparerDone) == WindowMode::Page);  // finished behind the page
    CHECK(after(ModeEvent::LogRead) == WindowMode::Page);  // a followed log's read: the page stays
    CHECK(after(ModeEvent::PageClosed) == WindowMode::Timeline);
    CHECK(after(ModeEvent::LogUnreadable) == WindowMode::Timeline);  // a failed read again: what was read stays
    CHECK(after(ModeEvent::PreparerBusy) == WindowMode::Preparing);
    CHECK(after(ModeEvent::PageOpened) == WindowMode::Page);
    CHECK(after(ModeEvent::PageClosed) == WindowMode::Timeline);  // its frames find the preparer still busy...
    CHECK(after(ModeEvent::PreparerBusy) == WindowMode::Preparing);  // ...and say so
    CHECK(after(ModeEvent::PreparerDone) == WindowMode::Timeline);
}

TEST_CASE("a first read that fails is final") {
    WindowMode mode = nextMode(WindowMode::Loading, ModeEvent::LogUnreadable);
    REQUIRE(mode == WindowMode::LoadFailed);
    for (const ModeEvent event : kEvents) CHECK(nextMode(mode, event) == WindowMode::LoadFailed);
}

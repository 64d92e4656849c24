// The window's parts that hold logic and need no display: the pointer (clicks, drags, modifiers,
// hovering), the preparer of the frame context (what it makes, on its thread), the log it
// follows (reads, reads again, the log kept for a page), the timeline's playback and the loading
// screen's words.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "../log_builder.hpp"
#include "../random_heap.hpp"
#include "render/window/followed_log.hpp"
#include "render/window/loaded_log.hpp"
#include "render/window/frame_preparer.hpp"
#include "render/window/overlays.hpp"
#include "render/window/pointer.hpp"
#include "render/window/timeline_playback.hpp"

using namespace memlog;
using render::FramePreparer;
using render::Pointer;
using timeline::XAxis;

namespace {

// Waits (at most ten seconds) until `done` says yes.
template <typename Done>
bool waitFor(Done&& done) {
    for (int i = 0; i < 2000; ++i) {
        if (done()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
}

std::string temporaryLog(const char* name) {
    return (std::filesystem::temp_directory_path() /
            ("memlog-window-" + std::string(name) + "-" + std::to_string(getpid()) + ".memlog"))
        .string();
}

}  // namespace

TEST_CASE("a press that moves no more than the slop is a click, and a drag ends at its release") {
    Pointer pointer;
    CHECK_FALSE(pointer.inWindow());
    pointer.press(100, 50);
    pointer.beginDrag(Pointer::Drag::Pan);
    pointer.move(100 + Pointer::kClickSlop, 50 - Pointer::kClickSlop);
    CHECK_FALSE(pointer.moved());
    CHECK(pointer.release(103, 47) == Pointer::Drag::Pan);
    CHECK(pointer.drag() == Pointer::Drag::None);

    pointer.press(10, 10);
    pointer.beginDrag(Pointer::Drag::Box);
    const auto [dx, dy] = pointer.move(4, 30);
    CHECK(dx == -6);
    CHECK(dy == 20);
    CHECK(pointer.moved());
    const render::Rect box = pointer.box();  // from the press to the pointer, either way round
    CHECK(box.m_x == 4);
    CHECK(box.m_y == 10);
    CHECK(box.m_width == 6);
    CHECK(box.m_height == 20);
    CHECK(pointer.release(4, 30) == Pointer::Drag::Box);
    pointer.press(50, 50);  // a new press is a click again
    CHECK_FALSE(pointer.moved());
}

TEST_CASE("the pointer's modifiers are the keys' own, and leaving the window forgets what it hovered") {
    Pointer pointer;
    CHECK(pointer.modifiers(0x3) == 0x3);  // before any key event: the display's
    pointer.keys(0x1);
    CHECK(pointer.modifiers(0x3) == 0x1);  // a shift released later in the batch does not count yet
    pointer.keys(0);
    CHECK(pointer.modifiers(0x3) == 0);

    pointer.move(20, 20);
    Pointer::Hover block, mark;
    block.m_block = 4;
    mark.m_mark = 2;
    CHECK(pointer.setHover(block));
    CHECK_FALSE(pointer.setHover(block));  // no change
    CHECK(pointer.setHover(mark));
    CHECK(pointer.hover().any());
    pointer.leave();
    CHECK_FALSE(pointer.inWindow());
    CHECK_FALSE(pointer.hover().any());
}

TEST_CASE("the preparer makes on its thread what the frame context lacks, the biggest first") {
    const timeline::BlockModel model = test::randomHeap({.m_seed = 2, .m_events = 4000});
    render::FrameContext frame(model, nullptr);
    frame.prepare(XAxis::Time, render::ColourBy::Site);
    using Making = FramePreparer::Making;
    const render::FrameChoices ready{XAxis::Time, render::ColourBy::Site, std::nullopt};
    CHECK(FramePreparer::needed(frame, ready) == Making::Nothing);
    CHECK(FramePreparer::needed(frame, {XAxis::Events, render::ColourBy::Thread, timeline::BinKind::Size}) ==
          Making::Index);
    CHECK(FramePreparer::needed(frame, {XAxis::Time, render::ColourBy::Thread, std::nullopt}) == Making::Colours);
    CHECK(FramePreparer::needed(frame, {XAxis::Time, render::ColourBy::Site, timeline::BinKind::Size}) == Making::Bins);

    std::atomic<int> wakes{0};
    FramePreparer preparer([&] { ++wakes; });
    CHECK_FALSE(preparer.start(frame, ready));  // nothing to make
    CHECK_FALSE(preparer.busy());

    const render::FrameChoices wanted{XAxis::Time, render::ColourBy::Thread, timeline::BinKind::Size};
    REQUIRE(preparer.start(frame, wanted));
    CHECK(preparer.busy());
    CHECK_FALSE(preparer.start(frame, ready));  // one at a time
    REQUIRE(waitFor([&] { return preparer.done(); }));
    CHECK(preparer.making() == Making::Bins);  // the colours first, then the bins
    CHECK(preparer.progress() == Approx(1));
    CHECK(wakes.load() > 1);
    preparer.finish();
    CHECK_FALSE(preparer.busy());
    CHECK_FALSE(preparer.done());
    CHECK(preparer.making() == Making::Nothing);
    CHECK(FramePreparer::needed(frame, wanted) == Making::Nothing);
    CHECK(frame.colouring().by() == render::ColourBy::Thread);

    REQUIRE(preparer.start(frame, {XAxis::Events, render::ColourBy::Thread, timeline::BinKind::Size}));
    CHECK(preparer.making() != Making::Colours);  // the index (then the bins again, for it)
    REQUIRE(waitFor([&] { return preparer.done(); }));
    preparer.finish();
    CHECK(frame.axis() == XAxis::Events);
    CHECK(frame.binsReady(timeline::BinKind::Size));
}

TEST_CASE("the followed log is read once, again when the file changes, kept for a page, and failures told") {
    const std::string path = temporaryLog("followed");
    test::LogBuilder first;
    first.thread(1).malloc(1, 0x10000, 64).free(2, 0x10000);
    first.write(path);
    render::FollowedLog followed(path, render::DraftPolicy::kDraftAbove, timeline::IndexUse::Off, {});
    CHECK(followed.log() == nullptr);
    CHECK(followed.take(0).m_what == render::FollowedLog::Arrival::What::Nothing);  // nothing begun
    followed.read(XAxis::Time, render::ColourBy::Site, 0);
    CHECK(followed.reading());
    render::FollowedLog::Arrival arrival;
    REQUIRE(
        waitFor([&] { return (arrival = followed.take(10)).m_what != render::FollowedLog::Arrival::What::Nothing; }));
    REQUIRE(arrival.m_what == render::FollowedLog::Arrival::What::Read);
    CHECK(arrival.m_first);
    CHECK(arrival.m_previous == nullptr);
    CHECK_FALSE(followed.reading());
    REQUIRE(followed.log());
    CHECK(followed.log()->m_model.size() == 1);
    CHECK(followed.reads() == 1);

    // A finished log that did not change is not read again; not before the pause either.
    CHECK_FALSE(followed.follow(XAxis::Time, render::ColourBy::Site, 500));
    CHECK_FALSE(followed.follow(XAxis::Time, render::ColourBy::Site, 5000));
    test::LogBuilder grown;
    grown.thread(1).malloc(1, 0x10000, 64).free(2, 0x10000).malloc(3, 0x20000, 128);
    grown.write(path);
    CHECK_FALSE(followed.follow(XAxis::Time, render::ColourBy::Site, 5500));  // checked a second ago
    REQUIRE(followed.follow(XAxis::Time, render::ColourBy::Site, 6100));
    REQUIRE(
        waitFor([&] { return (arrival = followed.take(6200)).m_what != render::FollowedLog::Arrival::What::Nothing; }));
    REQUIRE(arrival.m_what == render::FollowedLog::Arrival::What::Read);
    CHECK_FALSE(arrival.m_first);
    REQUIRE(arrival.m_previous);
    CHECK(arrival.m_previous->m_model.size() == 1);
    CHECK(followed.log()->m_model.size() == 2);
    CHECK(followed.reads() == 2);
    // Under an open page: told once, until another page opens.
    CHECK(followed.keepForPage(std::move(arrival.m_previous), true));
    CHECK_FALSE(followed.keepForPage(nullptr, true));
    followed.pageChanged();
    CHECK(followed.keepForPage(nullptr, false));

    // A read again that fails keeps the log read before.
    { std::ofstream(path, std::ios::trunc) << "not a log"; }
    REQUIRE(followed.follow(XAxis::Time, render::ColourBy::Site, 20000));
    REQUIRE(waitFor(
        [&] { return (arrival = followed.take(20100)).m_what != render::FollowedLog::Arrival::What::Nothing; }));
    CHECK(arrival.m_what == render::FollowedLog::Arrival::What::Unreadable);
    CHECK_FALSE(arrival.m_first);
    CHECK(arrival.m_error.find(path) != std::string::npos);
    REQUIRE(followed.log());
    CHECK(followed.log()->m_model.size() == 2);
    CHECK(followed.reads() == 2);

    // A first read that fails: nothing to show.
    render::FollowedLog broken(path, render::DraftPolicy::kDraftAbove, timeline::IndexUse::Off, {});
    broken.read(XAxis::Time, render::ColourBy::Site, 0);
    REQUIRE(waitFor([&] { return (arrival = broken.take(1)).m_what != render::FollowedLog::Arrival::What::Nothing; }));
    CHECK(arrival.m_what == render::FollowedLog::Arrival::What::Unreadable);
    CHECK(arrival.m_first);
    CHECK(broken.log() == nullptr);
    std::filesystem::remove(path);
}

TEST_CASE("a followed log is read on from the read before, and anew once it is replaced") {
    const std::string path = temporaryLog("read-on");
    test::LogBuilder log;
    auto& thread = log.thread(1);
    for (uint64_t i = 0; i < 3000; ++i)
        thread.malloc(1 + 2 * i, 0x100000 + 64 * i, 48).free(2 + 2 * i, 0x100000 + 64 * i);
    const std::vector<uint8_t> bytes = log.bytes();
    auto writeUpTo = [&](size_t end) {
        std::ofstream(path, std::ios::binary | std::ios::trunc)
            .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(end));
    };
    auto appendUpTo = [&](size_t from, size_t end) {
        std::ofstream(path, std::ios::binary | std::ios::app)
            .write(reinterpret_cast<const char*>(bytes.data() + from), static_cast<std::streamsize>(end - from));
    };
    auto blocksOf = [](const std::string& file) {
        return render::loadLog(file, XAxis::Time, render::ColourBy::Site)->m_model.size();
    };
    const size_t half = bytes.size() / 2;
    writeUpTo(half);
    render::FollowedLog followed(path, render::DraftPolicy::kDraftAbove, timeline::IndexUse::Off, {}, true);
    uint32_t now = 0;
    auto readAgain = [&] {
        now += 100000;
        REQUIRE(followed.follow(XAxis::Time, render::ColourBy::Site, now));
        render::FollowedLog::Arrival arrival;
        REQUIRE(waitFor(
            [&] { return (arrival = followed.take(now)).m_what != render::FollowedLog::Arrival::What::Nothing; }));
        REQUIRE(arrival.m_what == render::FollowedLog::Arrival::What::Read);
    };
    followed.read(XAxis::Time, render::ColourBy::Site, now);
    REQUIRE(waitFor([&] { return followed.take(now).m_what != render::FollowedLog::Arrival::What::Nothing; }));
    const size_t firstBlocks = followed.log()->m_model.size();
    CHECK(firstBlocks == blocksOf(path));
    CHECK(followed.readsOn() == 0);

    appendUpTo(half, bytes.size());
    readAgain();
    CHECK(followed.reads() == 2);
    CHECK(followed.readsOn() == 1);
    CHECK(followed.log()->m_model.size() == 3000);
    CHECK(firstBlocks < 3000);

    // Another recording under the name: read from its start.
    test::LogBuilder other;
    other.thread(2).malloc(1, 0x500000, 32);
    other.write(path + ".new");
    std::filesystem::rename(path + ".new", path);
    readAgain();
    CHECK(followed.reads() == 3);
    CHECK(followed.readsOn() == 1);
    CHECK(followed.log()->m_model.size() == 1);
    std::filesystem::remove(path);
}

TEST_CASE("the timeline's playback places the samples on the axis shown and plays nothing without them") {
    timeline::BlockModel model = test::randomHeap({.m_seed = 4, .m_events = 200});
    render::TimelinePlayback playback;
    playback.prepare(model, XAxis::Time, std::nullopt);
    CHECK_FALSE(playback.begin());  // no samples
    CHECK_FALSE(playback.begun());

    std::vector<timeline::AccessMark> marks(3);
    marks[0].m_timeNs = 5000, marks[0].m_seq = 40;
    marks[1].m_timeNs = 2000, marks[1].m_seq = 10;
    marks[2].m_timeNs = 9000, marks[2].m_seq = 70;
    model.setAccessMarks(marks);
    playback.prepare(model, XAxis::Time, std::nullopt);
    CHECK_FALSE(playback.begin());  // placed for the model before: not again until forgotten
    playback.forget();
    playback.prepare(model, XAxis::Time, std::nullopt);
    REQUIRE(playback.begin());
    CHECK(playback.clock().from() == 2000);
    CHECK(playback.clock().to() == 9000);
    playback.prepare(model, XAxis::Events, std::nullopt);  // another axis: placed again
    CHECK(playback.clock().from() == 10);
    CHECK(playback.clock().to() == 70);
    CHECK(playback.misses().empty());

    const auto start = std::chrono::steady_clock::now();
    playback.restartTicks(start);
    CHECK(playback.tick(start + std::chrono::milliseconds(100)) == Approx(0.1));
    CHECK(playback.tick(start + std::chrono::seconds(5)) == render::TimelinePlayback::kLongestTick);  // a stall
    playback.setLit(2);
    CHECK(playback.traceFields().find(" page=timeline playback=1 playing=0 t=10 from=10 to=70 ") == 0);
    CHECK(playback.traceFields().find(" lit=2") != std::string::npos);
}

TEST_CASE("the loading screen says how far it got and, once it can guess, what is left") {
    CHECK(render::progressText(0.37, 0.5) == "37 %");  // too soon to guess
    CHECK_FALSE(render::secondsLeft(0.37, 1.9));
    CHECK_FALSE(render::secondsLeft(0.04, 30));  // too little done
    CHECK_FALSE(render::secondsLeft(1.0, 30));  // done
    // A quarter in 10 s: three quarters at that pace in 30 s.
    REQUIRE(render::secondsLeft(0.25, 10));
    CHECK(*render::secondsLeft(0.25, 10) == Approx(30));
    CHECK(render::progressText(0.25, 10) == "25 %, about 30 s left");
    CHECK(render::progressText(0.25, 11) == "25 %, about 35 s left");  // 33 s, in steps of 5
    CHECK(render::progressText(0.5, 4) == "50 %, a few seconds left");
    CHECK(render::progressText(0.1, 60) == "10 %, about 9 min left");  // 540 s
}

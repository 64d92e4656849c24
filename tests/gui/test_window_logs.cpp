// memtimeline's window and the log behind it: a log followed while it grows (rewritten, its
// program still running, replaced by damaged ones), logs that cannot be read at all, and a full
// trace read again for the axis of its instructions.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "scenario/run_program.hpp"
#include "timeline/model/block_model.hpp"
#include "timeline/read/log_reader.hpp"
#include "trace_streams.hpp"
#include "window_checks.hpp"

using namespace memlog;
using namespace memlog::test::gui;

TEST_CASE("following a growing log: re-read, the view keeps showing its end") {
    Session s;
    writeHeapLog(s.m_log);
    WindowProcess window(s.m_x, s.m_log, {"--follow", "--size", "1200x800"}, s.m_dir.m_path);
    CHECK(window.lastFrame()["blocks"] == "4");
    // The program goes on: a longer log replaces the file (written beside it, then renamed).
    writeHeapLog(s.m_log + ".new", 20);
    fs::rename(s.m_log + ".new", s.m_log);
    const Frame grown = frameWith(window, "blocks", "24");
    CHECK(span(grown["x"]).second >= 50 * 1000);  // the view reaches the new end
}

TEST_CASE("following a log while its program still runs: the window shows more blocks as they come") {
    Session s;
    const std::string log = s.m_dir.m_path + "/live.memlog";
    const pid_t recorder = fork();
    if (recorder == 0) {
        const std::string trickle = std::string(MEMLOG_TEST_SCENARIOS) + "/trickle";
        execl(MEMLOG_TEST_CLI, MEMLOG_TEST_CLI, "run", "-q", "-o", log.c_str(), "--", trickle.c_str(), "4",
              static_cast<char*>(nullptr));
        _exit(127);
    }
    // The log exists from the program's start; give it a few blocks first.
    for (int i = 0; i < 200 && !fs::exists(log); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    WindowProcess window(s.m_x, log, {"--follow", "--size", "1200x800"}, s.m_dir.m_path);
    const double first = window.lastFrame().number("blocks");
    const Frame later = window.waitForFrame([&](const Frame& f) { return f.number("blocks") >= first + 50; }, 10);
    const Frame latest =
        window.waitForFrame([&](const Frame& f) { return f.number("blocks") >= later.number("blocks") + 50; }, 10);
    CHECK(span(latest["x"]).second > span(later["x"]).second);  // the view follows the log's end
    // Each read after the first read the log on from the one before, not from its start.
    CHECK(latest.number("read_on") >= 1);
    CHECK(latest.number("read_on") == latest.number("loads") - 1);
    int status = 0;
    waitpid(recorder, &status, 0);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    // Read on to the program's end, the model is the one a read of the finished log makes: 400
    // blocks of the program's and the C library's few, each once.
    timeline::LogReader reader(log);
    const size_t whole = timeline::buildBlockModel(reader).size();
    REQUIRE(whole >= 400);
    const Frame last = frameWith(window, "blocks", std::to_string(whole));
    CHECK(last.number("read_on") == last.number("loads") - 1);
}

TEST_CASE(
    "following a log replaced by damaged ones: a skipped chunk is said, a log that cannot be read keeps the picture") {
    Session s;
    writeHeapLog(s.m_log);
    WindowProcess window(s.m_x, s.m_log, {"--follow", "--size", "1200x800"}, s.m_dir.m_path);
    CHECK(window.lastFrame()["blocks"] == "4");
    writeHeapLog(s.m_log + ".whole", 2000);  // chunks of 4 KiB: the main thread's second is at 12288
    std::ifstream in(s.m_log + ".whole", std::ios::binary);
    const std::vector<uint8_t> whole((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    REQUIRE(whole.size() > 16384);
    auto replaceWith = [&](std::vector<uint8_t> bytes) {
        std::ofstream(s.m_log + ".new", std::ios::binary)
            .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        fs::rename(s.m_log + ".new", s.m_log);
    };
    auto waitToSay = [&](const std::string& words) {
        for (int i = 0; i < 100 && window.stderrText().find(words) == std::string::npos; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        return window.stderrText().find(words) != std::string::npos;
    };
    // A damaged chunk header: the rest is read and shown, and the window says what it skipped.
    std::vector<uint8_t> skipped = whole;
    skipped[12288] ^= 0x40;
    replaceWith(skipped);
    const Frame grown = window.waitForFrame([](const Frame& f) { return f.number("blocks") > 4; });
    CHECK(grown.number("blocks") < 2004);  // one chunk's blocks are missing
    CHECK(waitToSay(s.m_log + ": offset 12288: a page that is neither a chunk nor empty"));
    // A corrupt record: nothing of that file is shown; the window says where and keeps its picture.
    std::vector<uint8_t> corrupt = whole;
    corrupt[4096 + 16] = 0x1f;  // the first record's tag: not a kind
    replaceWith(corrupt);
    CHECK(waitToSay("could not re-read the log: " + s.m_log + ": offset 4112: corrupt record"));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the frame with the toast
    CHECK(window.lastFrame()["blocks"] == grown["blocks"]);
}

TEST_CASE("a log that cannot be read: one line and exit status 2, before or after the window opens") {
    Session s;
    // memtimeline on the session's display, as a user starts it: its exit status and stderr.
    auto runToExit = [&](const std::string& log) {
        test::Run run;
        run.m_preload = false;
        run.m_argv = {MEMLOG_TEST_TIMELINE, log};
        run.m_env["DISPLAY"] = s.m_x.display();
        const test::Outcome outcome = test::runProgram(run);
        fs::remove_all(outcome.m_directory);
        return std::pair{outcome.m_exitStatus, outcome.m_stderr};
    };
    // Not a log at all: refused before any window.
    std::ofstream(s.m_log) << "not a memlog log at all, but long enough for a header";
    const auto [status, text] = runToExit(s.m_log);
    CHECK(status == 2);
    CHECK(text == "memtimeline: " + s.m_log + ": offset 0: not a memlog log (bad magic)\n");
    // A corrupt record inside: found while loading, behind the window's progress bar.
    LogBuilder log;
    log.thread(1).malloc(1, 0x1000, 10).malloc(2, 0x2000, 20);
    auto bytes = log.bytes();
    bytes[4096 + 16] = 0x1f;  // an unknown tag where the first record starts, data after it
    std::ofstream(s.m_log, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    const auto [corruptStatus, corruptText] = runToExit(s.m_log);
    CHECK(corruptStatus == 2);
    CHECK(corruptText == "memtimeline: " + s.m_log + ": offset 4112: corrupt record (unknown tag 31)\n");
}

TEST_CASE("following a damaged log whose program still runs: each warning is said once, not at every re-read") {
    Session s;
    LogBuilder log;
    log.header().m_flags = 0;  // no clean end: the window reads it again every second or so
    for (uint64_t i = 0; i < 2000; ++i)
        log.thread(1).malloc(1 + 2 * i, 0x10004000 + 64 * i, 48).free(2 + 2 * i, 0x10004000 + 64 * i);
    std::vector<uint8_t> bytes = log.bytes();
    REQUIRE(bytes.size() > 16384);
    bytes[12288] ^= 0x40;  // a damaged chunk header: skipped, and said
    std::ofstream(s.m_log, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    WindowProcess window(s.m_x, s.m_log, {"--follow", "--size", "1200x800"}, s.m_dir.m_path);
    window.waitForFrame([](const Frame& f) { return f.number("loads") >= 3; }, 15);
    const std::string said = window.stderrText();
    const std::string warning = s.m_log + ": offset 12288: a page that is neither a chunk nor empty";
    const size_t first = said.find(warning);
    CHECK(first != std::string::npos);
    CHECK(said.find(warning, first + 1) == std::string::npos);
}

TEST_CASE("a full trace opens on its instructions, and x reads it again for time, then events, then instructions") {
    Session s;
    test::writeTwoThreadTrace(s.m_log);  // blocks at 1102, 1652 and 2652 instructions; 5, 10, 15 us
    WindowProcess window(s.m_x, s.m_log, {"--size", "1200x800"}, s.m_dir.m_path);
    const Frame first = window.lastFrame();
    CHECK(first["axis"] == "instructions");
    CHECK(first["x"] == "1102:2652");
    s.m_x.key(window.window(), "x");
    const Frame time = frameWith(window, "axis", "time");
    CHECK(span(time["x"]).first == 5000);  // ns now: the first block began at 5 us
    s.m_x.key(window.window(), "x");
    CHECK(span(frameWith(window, "axis", "events")["x"]).first == 5);
    s.m_x.key(window.window(), "x");
    CHECK(frameWith(window, "axis", "instructions")["x"] == "1102:2652");
}

TEST_CASE("a log that is not a full trace cycles time and events alone") {
    HeapWindow s;
    const std::string whole = s.m_window.lastFrame()["x"];
    s.m_x.key(s.m_window.window(), "x");
    frameWith(s.m_window, "axis", "events");
    s.m_x.key(s.m_window.window(), "x");  // back to time: there are no instructions to go to
    CHECK(frameWith(s.m_window, "axis", "time")["x"] == whole);
}

TEST_CASE("a log read through its index on disk: the window draws what it draws without one") {
    Session s;
    writeHeapLog(s.m_log, 5000);
    const test::Outcome indexed = test::runWithoutRecorder({MEMLOG_TEST_CLI, "index", s.m_log});
    REQUIRE(indexed.m_exitStatus == 0);
    const std::string index = s.m_log + ".index";
    const auto written = fs::last_write_time(index);
    const std::string exported = s.m_dir.m_path + "/heap-view-1.png";
    {
        WindowProcess without(s.m_x, s.m_log, sized({"--no-index"}), s.m_dir.m_path);
        s.m_x.moveMouse(without.window(), kWidth + 50, kHeight + 50);  // no tooltip in the picture
        s.m_x.key(without.window(), "e");
        for (int wait = 0;
             wait < 100 && without.stderrText().find("exported the view to heap-view-1.png") == std::string::npos;
             ++wait)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        REQUIRE(fs::exists(exported));
    }
    WindowProcess through(s.m_x, s.m_log, sized({"-v"}), s.m_dir.m_path);
    s.m_x.moveMouse(through.window(), kWidth + 50, kHeight + 50);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the frame shown, whole
    cairo_surface_t* png = cairo_image_surface_create_from_png(exported.c_str());
    REQUIRE(cairo_surface_status(png) == CAIRO_STATUS_SUCCESS);
    CHECK(pixelsOffScreen(s.m_x, through.window(), png) == 0);
    cairo_surface_destroy(png);
    CHECK(fs::last_write_time(index) == written);  // read, not built again
    CHECK(through.stderrText().find(s.m_log + ": read through its index " + index) != std::string::npos);
    CHECK(through.stderrText().find("building the index") == std::string::npos);
}

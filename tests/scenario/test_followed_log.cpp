// A real program's log followed while it runs, through LogReader::followGrowth and readOn with the
// default cut (a second before now): every step gives only what is new, and the steps together
// give exactly the events one walk of the finished log gives, in its order.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <thread>

#include "run_program.hpp"
#include "timeline/read/log_reader.hpp"

using memlog::timeline::Event;
using memlog::timeline::LogReader;
namespace fs = std::filesystem;

namespace {

struct Seen {
    uint64_t m_seq, m_addr, m_size;
    uint32_t m_tid;
    memlog::format::Kind m_kind;
    bool operator==(const Seen&) const = default;
};

class Collect final : public memlog::timeline::RecordSink {
public:
    void events(const Event* events, size_t count) override {
        for (size_t i = 0; i < count; ++i)
            m_seen.push_back({events[i].m_seq, events[i].m_addr, events[i].m_size, events[i].m_tid, events[i].m_kind});
        if (count) m_newestNs = std::max(m_newestNs, events[count - 1].m_timeNs);
    }
    std::vector<Seen> m_seen;
    uint64_t m_newestNs = 0;  // since the recording started
};

}  // namespace

TEST_CASE("a program's log followed while it runs: each step reads what is new, all steps give one walk's events") {
    const fs::path dir = fs::temp_directory_path() / ("memlog-followed-" + std::to_string(getpid()));
    fs::create_directories(dir);
    const std::string log = (dir / "trickle.memlog").string();
    const std::string program = memlog::test::scenarioPath("trickle");
    const std::string preload = "LD_PRELOAD=" + memlog::test::recorderLibrary();
    const std::string out = "MEMLOG_OUT=" + log;
    const pid_t child = fork();
    if (child == 0) {
        char* argv[] = {const_cast<char*>(program.c_str()), const_cast<char*>("3"), const_cast<char*>("4"), nullptr};
        char* envp[] = {const_cast<char*>(preload.c_str()), const_cast<char*>(out.c_str()),
                        const_cast<char*>("MEMLOG_QUIET=1"), nullptr};
        execve(argv[0], argv, envp);
        _exit(127);
    }
    for (int i = 0; i < 300 && !fs::exists(log); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::this_thread::sleep_for(std::chrono::milliseconds(1300));  // past the first second's cut

    LogReader reader(log);
    reader.followGrowth();
    Collect followed;
    reader.forEachBatch(followed, {}, LogReader::Decoding::SecondThread);
    const size_t first = followed.m_seen.size();
    std::vector<size_t> steps;
    // While it runs, each step delivers nothing of the last second: on the log's clock (its start
    // on CLOCK_MONOTONIC), the newest event delivered is older than a second before the step's end.
    auto sinceStartNs = [&] {
        timespec now{};
        clock_gettime(CLOCK_MONOTONIC, &now);
        return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(now.tv_nsec) -
               reader.header().m_startNs;
    };
    size_t heldBack = 0, stepsWhileRunning = 0;
    int status = 0;
    for (bool running = true; running;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(150));
        running = waitpid(child, &status, WNOHANG) == 0;
        REQUIRE(reader.readOn(followed));
        steps.push_back(followed.m_seen.size());
        if (!running) break;
        ++stepsWhileRunning;
        heldBack += followed.m_newestNs + 980'000'000 < sinceStartNs();  // 2 % for the clock's rate
    }
    CHECK(heldBack == stepsWhileRunning);
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    REQUIRE(reader.complete() == false);  // the header as opened; the cut reads the clean end anew
    REQUIRE(reader.readOn(followed));  // the clean end: no cut, everything

    Collect whole;
    LogReader fresh(log);
    fresh.forEachBatch(whole, {}, LogReader::Decoding::CallingThread);
    // 4 threads, 300 mallocs of 64 bytes and 300 frees each (and the C library's own few).
    const auto trickled = std::count_if(whole.m_seen.begin(), whole.m_seen.end(), [](const Seen& seen) {
        return seen.m_kind == memlog::format::Kind::Malloc && seen.m_size == 64;
    });
    CHECK(trickled == 1200);
    CHECK(whole.m_seen.size() >= 2400);
    CHECK(followed.m_seen == whole.m_seen);
    // Read as it grew: the first walk had far from all (its cut some 0.3 s into a 3 s run; how
    // much came before it depends on how soon the program got going); the steps while it ran
    // gave more, often.
    CHECK(first < 1600);
    size_t stepsThatGave = 0;
    for (size_t i = 1; i < steps.size(); ++i) stepsThatGave += steps[i] > steps[i - 1];
    CHECK(stepsThatGave >= 5);
    fs::remove_all(dir);
}

// memtimeline through a log's index on disk, as a user meets it: `memlog index` builds it and
// then finds it there; an export through it is the export without it, byte for byte; a damaged
// index is said once and built again; and a log too big to draw in 512 MB of anonymous memory
// is drawn through its index within it.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "../anonymous_memory.hpp"
#include "full_trace_runs.hpp"

using namespace memlog::test;
namespace fs = std::filesystem;

namespace {

// The most anonymous memory a program held (RssAnon, looked at every 2 ms: the kernel keeps no
// peak of it), its mapped files left out, and its exit status.
struct AnonymousPeak {
    int m_status = -1;
    uint64_t m_peakKb = 0;
};

AnonymousPeak anonymousPeak(std::vector<std::string> argv) {
    std::vector<char*> pointers;
    for (std::string& argument : argv) pointers.push_back(argument.data());
    pointers.push_back(nullptr);
    const pid_t child = fork();
    if (child == 0) {
        freopen("/dev/null", "w", stdout);
        execv(pointers[0], pointers.data());
        _exit(127);
    }
    AnonymousPeak peak;
    int waited = 0;
    while (waitpid(child, &waited, WNOHANG) == 0) {
        peak.m_peakKb = std::max(peak.m_peakKb, anonymousKb(child));
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    peak.m_status = WIFEXITED(waited) ? WEXITSTATUS(waited) : -1;
    return peak;
}

}  // namespace

TEST_CASE("log index: memlog index builds it, finds it again, and memtimeline draws through it the same picture") {
    const Outcome recorded = recordQuietly({scenarioPath("random_churn")});
    REQUIRE(recorded.m_logs.size() == 1);
    const std::string log = recorded.m_logs[0], index = log + ".index";

    const Outcome built = memlogRun({"index", log});
    CHECK(built.m_exitStatus == 0);
    CHECK(built.m_stdout.rfind(log + ": " + index + ", ", 0) == 0);
    CHECK(built.m_stdout.find(" blocks, built in ") != std::string::npos);
    REQUIRE(fs::exists(index));
    const auto written = fs::last_write_time(index);
    const Outcome again = memlogRun({"index", log});
    CHECK(again.m_stdout.find(" blocks, already there\n") != std::string::npos);
    // The blocks the index holds are the ones stat counts begun.
    const std::string stat = memlogSays({"stat", log, "--json"});
    std::string blocks = std::to_string(jsonNumber(stat, "allocations"));
    for (size_t comma = blocks.size(); comma > 3; comma -= 3) blocks.insert(comma - 3, ",");
    CHECK(again.m_stdout.find(", " + blocks + " blocks, already there") != std::string::npos);

    const std::string through = recorded.m_directory + "/through.png", without = recorded.m_directory + "/without.png";
    const Outcome drawn = memtimeline({log, "--export", through});
    CHECK(drawn.m_exitStatus == 0);
    CHECK(drawn.m_stderr.empty());
    CHECK(fs::last_write_time(index) == written);  // read, not built again
    CHECK(memtimeline({log, "--no-index", "--export", without}).m_exitStatus == 0);
    CHECK(fileBytes(through).size() > 10'000);
    CHECK(fileBytes(through) == fileBytes(without));

    // A damaged index: one line naming it and why, then built again; the same picture.
    fs::resize_file(index, fs::file_size(index) / 2);
    const Outcome mended = memtimeline({log, "--export", through});
    CHECK(mended.m_exitStatus == 0);
    CHECK(mended.m_stderr.find(index + ": no index trailer at its end; building the index again\n") !=
          std::string::npos);
    CHECK(std::count(mended.m_stderr.begin(), mended.m_stderr.end(), '\n') == 1);
    CHECK(fileBytes(through) == fileBytes(without));
    CHECK(memlogRun({"index", log}).m_stdout.find("already there") != std::string::npos);
    fs::remove_all(recorded.m_directory);
}

TEST_CASE("log index: a log's phases, array names and access samples come back from the index, not the log") {
    // annotated_grid names its grid and marks its phases through memlog.h; sampled, its
    // accesses are marks over the blocks. All of it is in the picture.
    Run run;
    run.m_argv = {scenarioPath("annotated_grid")};
    run.m_env = {{"MEMLOG_QUIET", "1"}, {"MEMLOG_ACCESS", "1"}, {"MEMLOG_ACCESS_RATE", "20000"}};
    const Outcome recorded = runProgram(run);
    REQUIRE(recorded.m_logs.size() == 1);
    const std::string log = recorded.m_logs[0];
    REQUIRE(memlogRun({"index", log}).m_exitStatus == 0);
    const std::string through = recorded.m_directory + "/through.png", without = recorded.m_directory + "/without.png";
    for (const char* colours : {"site", "lifetime"}) {
        CHECK(memtimeline({log, "--export", through, "--color-by", colours}).m_exitStatus == 0);
        CHECK(memtimeline({log, "--no-index", "--export", without, "--color-by", colours}).m_exitStatus == 0);
        CHECK(fileBytes(through).size() > 10'000);
        CHECK(fileBytes(through) == fileBytes(without));
    }
    fs::remove_all(recorded.m_directory);
}

TEST_CASE("log index: memlog index refuses what is no log, and instructions where none were counted") {
    const Outcome missing = memlogRun({"index", "/nonexistent/x.memlog"});
    CHECK(missing.m_exitStatus == 2);
    CHECK(missing.m_stderr.find("/nonexistent/x.memlog") != std::string::npos);
    const Outcome none = memlogRun({"index"});
    CHECK(none.m_exitStatus == 2);
    CHECK(none.m_stderr.find("which logs?") != std::string::npos);

    const Outcome recorded = recordQuietly({scenarioPath("random_churn")});
    REQUIRE(recorded.m_logs.size() == 1);
    const Outcome refused = memlogRun({"index", recorded.m_logs[0], "--x", "instructions"});
    CHECK(refused.m_exitStatus == 2);
    CHECK(refused.m_stderr.find("index: --x instructions: " + recorded.m_logs[0] +
                                " carries no instruction counts (memlog run --full-trace records them;") !=
          std::string::npos);
    CHECK_FALSE(fs::exists(recorded.m_logs[0] + ".instructions.index"));
    // Cut inside its records: the index of what reads, as every reader reads up to the tear.
    const std::string cut = recorded.m_directory + "/cut.memlog";
    std::string bytes = fileBytes(recorded.m_logs[0]);
    bytes.resize(bytes.size() * 2 / 3);
    std::ofstream(cut, std::ios::binary) << bytes;
    const Outcome torn = memlogRun({"index", cut});
    CHECK(torn.m_exitStatus == 0);
    CHECK(torn.m_stderr.find(cut) != std::string::npos);  // the tear, said
    CHECK(fs::exists(cut + ".index"));
    fs::remove_all(recorded.m_directory);
}

TEST_CASE("log index: a log of 12 million blocks, 600 MB in memory, is drawn through its index in under 512 MB") {
    // bench_alloc without stacks: 12 M malloc/free pairs in about 5 s, a 170 MB log.
    Run run;
    run.m_argv = {scenarioPath("bench_alloc"), "12000000"};
    run.m_env = {{"MEMLOG_QUIET", "1"}, {"MEMLOG_UNWIND", "none"}};
    const Outcome recorded = runProgram(run);
    REQUIRE(recorded.m_logs.size() == 1);
    const std::string log = recorded.m_logs[0], png = recorded.m_directory + "/big.png";
    constexpr uint64_t kBoundKb = 512 * 1024;

    const AnonymousPeak inMemory = anonymousPeak({MEMLOG_TEST_TIMELINE, log, "--no-index", "--export", png});
    CHECK(inMemory.m_status == 0);
    CHECK(inMemory.m_peakKb > kBoundKb);  // the log is big enough: held whole, it passes the bound
    const std::string picture = fileBytes(png);
    // The first openings build the index (the log is over 16 MiB): two programs at once, each
    // into a file of its own, renamed into place; the next opening reads it back.
    REQUIRE_FALSE(fs::exists(log + ".index"));
    const std::string other = recorded.m_directory + "/other.png";
    AnonymousPeak beside;
    std::thread second([&] { beside = anonymousPeak({MEMLOG_TEST_TIMELINE, log, "--export", other}); });
    const AnonymousPeak building = anonymousPeak({MEMLOG_TEST_TIMELINE, log, "--export", png});
    second.join();
    CHECK(building.m_status == 0);
    CHECK(beside.m_status == 0);
    CHECK(building.m_peakKb < kBoundKb);
    CHECK(fileBytes(png) == picture);
    CHECK(fileBytes(other) == picture);
    REQUIRE(fs::exists(log + ".index"));
    size_t parts = 0;
    for (const auto& entry : fs::directory_iterator(recorded.m_directory))
        parts += entry.path().string().find(".index.part.") != std::string::npos;
    CHECK(parts == 0);
    const auto written = fs::last_write_time(log + ".index");
    const AnonymousPeak drawn = anonymousPeak({MEMLOG_TEST_TIMELINE, log, "--export", png});
    CHECK(drawn.m_status == 0);
    CHECK(drawn.m_peakKb < kBoundKb);
    CHECK(fileBytes(png) == picture);
    CHECK(fs::last_write_time(log + ".index") == written);
    INFO("anonymous peaks: " << inMemory.m_peakKb << " KiB in memory, " << building.m_peakKb
                             << " KiB building the index, " << drawn.m_peakKb << " KiB through it");
    CHECK(drawn.m_peakKb * 3 < inMemory.m_peakKb);
    fs::remove_all(recorded.m_directory);
}

TEST_CASE(
    "log index: a full trace of 10^7 accesses is indexed on its first opening and drawn with them mapped, not held") {
    requireTraceTool();
    // 1000 elements written and read 5000 times: 10^7 accesses, a log of about 19 MiB (so
    // indexed unasked), 720 MB of access samples held in memory.
    const Outcome traced = fullTrace({scenarioPath("known_accesses"), "1000", "0", "5000"});
    REQUIRE(traced.m_logs.size() == 1);
    const std::string log = traced.m_logs[0], png = traced.m_directory + "/trace.png";
    const std::string index = log + ".instructions.index";  // a full trace is drawn on its instructions
    REQUIRE(fs::file_size(log) >= 16u << 20);
    constexpr uint64_t kBoundKb = 512 * 1024;

    const AnonymousPeak inMemory = anonymousPeak({MEMLOG_TEST_TIMELINE, log, "--no-index", "--export", png});
    CHECK(inMemory.m_status == 0);
    CHECK(inMemory.m_peakKb > 10'000'000 * 72 / 1024);  // every access held
    CHECK_FALSE(fs::exists(index));
    const std::string picture = fileBytes(png);

    const AnonymousPeak building = anonymousPeak({MEMLOG_TEST_TIMELINE, log, "--export", png});
    CHECK(building.m_status == 0);
    REQUIRE(fs::exists(index));
    CHECK(fs::file_size(index) > 10'000'000u * 72);  // the accesses are in it
    CHECK(building.m_peakKb < kBoundKb);  // the walk's samples were in a scratch file
    CHECK(fileBytes(png) == picture);
    size_t others = 0;  // the scratch file is gone with the walk
    for (const auto& entry : fs::directory_iterator(traced.m_directory))
        others += entry.path() != log && entry.path() != index && entry.path() != png;
    CHECK(others == 0);

    const AnonymousPeak drawn = anonymousPeak({MEMLOG_TEST_TIMELINE, log, "--export", png});
    CHECK(drawn.m_status == 0);
    CHECK(fileBytes(png) == picture);
    INFO("anonymous peaks: " << inMemory.m_peakKb << " KiB in memory, " << building.m_peakKb
                             << " KiB building the index, " << drawn.m_peakKb << " KiB through it");
    CHECK(drawn.m_peakKb * 5 < inMemory.m_peakKb);
    fs::remove_all(traced.m_directory);
}

TEST_CASE("log index: a disk too full for the index: memlog index fails in one line, memtimeline draws without one") {
    // A tmpfs of 24 MiB holds the 18 MB log but not its index (about 60 MB).
    const std::string folder = "/tmp/memlog-full-disk-" + std::to_string(getpid());
    fs::create_directories(folder);
    if (std::system(("mount -t tmpfs -o size=24m tmpfs " + folder + " 2>/dev/null").c_str()) != 0) {
        fs::remove_all(folder);
        std::printf("skipped: no tmpfs could be mounted to fill (this test needs root)\n");
        std::fflush(stdout);
        std::_Exit(77);
    }
    Run run;
    run.m_argv = {scenarioPath("bench_alloc"), "1300000"};
    run.m_env = {{"MEMLOG_QUIET", "1"}, {"MEMLOG_UNWIND", "none"}, {"MEMLOG_OUT", folder + "/full.memlog"}};
    const Outcome recorded = runProgram(run);
    const std::string log = folder + "/full.memlog";
    const bool whole = recorded.m_exitStatus == 0 && fs::exists(log) && fs::file_size(log) > (16u << 20);

    const Outcome asked = memlogRun({"index", log});
    const std::string png = recorded.m_directory + "/full.png", without = recorded.m_directory + "/without.png";
    const Outcome drawn = memtimeline({log, "--export", png});
    const Outcome plain = memtimeline({log, "--no-index", "--export", without});
    size_t left = 0;
    for (const auto& entry : fs::directory_iterator(folder)) left += entry.path().filename() != "full.memlog";
    const std::string picture = fileBytes(png), reference = fileBytes(without);
    std::system(("umount " + folder).c_str());
    fs::remove_all(folder);
    fs::remove_all(recorded.m_directory);

    REQUIRE(whole);
    CHECK(asked.m_exitStatus == 1);
    CHECK(asked.m_stderr.find(log + ".index.part.") != std::string::npos);
    CHECK(asked.m_stderr.find(": cannot grow the index: No space left on device") != std::string::npos);
    CHECK(left == 0);  // no part file, no index
    CHECK(drawn.m_exitStatus == 0);
    CHECK(drawn.m_stderr.find("No space left on device; reading the log without an index") != std::string::npos);
    CHECK(picture.size() > 10'000);
    CHECK(picture == reference);
}

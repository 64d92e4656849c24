// The instruction axis on a real full trace (memlog run --full-trace): a program that sleeps
// between two allocations and then works between the next two. Wall time sees the sleep, the
// program's instructions see the work; memtimeline draws either, instructions by default.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>

#include "full_trace_runs.hpp"
#include "timeline/model/block_model.hpp"
#include "timeline/read/log_reader.hpp"

using namespace memlog;
using namespace memlog::test;
using timeline::XAxis;
namespace fs = std::filesystem;

namespace {

constexpr uint64_t kTurns = 3000000;  // of sleep_then_work's loop: at least two instructions each

// Where blocks A, B and C (sleep_then_work's 1111, 2222 and 3333 bytes) begin on a model's clock.
struct Beginnings {
    uint64_t m_a = 0, m_b = 0, m_c = 0;
};

Beginnings beginningsOn(const std::string& log, XAxis clock) {
    timeline::LogReader reader(log);
    const timeline::BlockModel model = timeline::buildBlockModel(reader, {}, false, clock);
    std::optional<uint64_t> a, b, c;
    model.forEach([&](const timeline::Block& block) {
        std::optional<uint64_t>* found = block.size() == 1111   ? &a
                                         : block.size() == 2222 ? &b
                                         : block.size() == 3333 ? &c
                                                                : nullptr;
        if (found && !*found) *found = block.from(clock);
    });
    REQUIRE(a);
    REQUIRE(b);
    REQUIRE(c);
    return {*a, *b, *c};
}

}  // namespace

TEST_CASE("full trace: the sleep is the long gap in time, the busy loop in instructions") {
    requireTraceTool();
    const Outcome traced = fullTrace({scenarioPath("sleep_then_work"), "1000", std::to_string(kTurns)});
    INFO(traced.m_stderr);
    REQUIRE(traced.m_exitStatus == 0);
    CHECK(traced.m_stdout == "slept, then worked\n");
    REQUIRE(traced.m_logs.size() == 1);
    const std::string log = traced.m_logs[0];

    const Beginnings time = beginningsOn(log, XAxis::Time);
    INFO("ns: A " << time.m_a << ", B " << time.m_b << ", C " << time.m_c);
    CHECK(time.m_b - time.m_a >= 900'000'000);  // the sleep, at least most of its second
    CHECK(time.m_b - time.m_a > time.m_c - time.m_b);

    const Beginnings instructions = beginningsOn(log, XAxis::Instructions);
    INFO("instructions: A " << instructions.m_a << ", B " << instructions.m_b << ", C " << instructions.m_c);
    CHECK(instructions.m_a > 0);  // the program's start-up ran before A
    CHECK(instructions.m_c - instructions.m_b >= 2 * kTurns);  // every turn of the loop counted
    // The sleep: the call, the recorder's own work around B's malloc, next to nothing.
    CHECK(instructions.m_b - instructions.m_a < (instructions.m_c - instructions.m_b) / 100);

    // memtimeline draws it on either axis, instructions unless told otherwise.
    const fs::path pictures = fs::path(traced.m_directory);
    const std::string onInstructions = (pictures / "instructions.png").string(),
                      onTime = (pictures / "time.png").string(), byDefault = (pictures / "default.png").string();
    const std::vector<std::string> size = {"--size", "800x500"};
    auto draw = [&](const std::string& picture, std::vector<std::string> axis) {
        std::vector<std::string> arguments = {log, "--export", picture};
        arguments.insert(arguments.end(), size.begin(), size.end());
        arguments.insert(arguments.end(), axis.begin(), axis.end());
        return memtimeline(arguments);
    };
    const Outcome drawnOnInstructions = draw(onInstructions, {"--x", "instructions"});
    INFO(drawnOnInstructions.m_stderr);
    CHECK(drawnOnInstructions.m_exitStatus == 0);
    CHECK(draw(onTime, {"--x", "time"}).m_exitStatus == 0);
    CHECK(draw(byDefault, {}).m_exitStatus == 0);
    REQUIRE(fs::exists(onInstructions));
    REQUIRE(fs::exists(onTime));
    CHECK(fileBytes(onInstructions) != fileBytes(onTime));
    CHECK(fileBytes(byDefault) == fileBytes(onInstructions));
    // A range on the instruction axis is a count of instructions; a time there is a mistake.
    const Outcome ranged = draw((pictures / "ranged.png").string(),
                                {"--range", std::to_string(instructions.m_b) + ":" + std::to_string(instructions.m_c)});
    CHECK(ranged.m_exitStatus == 0);
    const Outcome timed = draw((pictures / "timed.png").string(), {"--range", "1s:2s"});
    CHECK(timed.m_exitStatus == 2);
    CHECK(timed.m_stderr.find("give a count of instructions") != std::string::npos);
    fs::remove_all(traced.m_directory);
}

TEST_CASE("memtimeline --x instructions refuses a log that is not a full trace") {
    const Outcome recorded = recordQuietly({scenarioPath("sleep_then_work"), "1", "1000"});
    REQUIRE(recorded.m_logs.size() == 1);
    const std::string picture = recorded.m_directory + "/r.png";
    const Outcome refused = memtimeline({recorded.m_logs[0], "--export", picture, "--x", "instructions"});
    CHECK(refused.m_exitStatus == 2);
    CHECK(refused.m_stderr == "memtimeline: --x instructions: " + recorded.m_logs[0] +
                                  " carries no instruction counts (memlog run --full-trace records them; an "
                                  "imported trace and one of Valgrind's lackey have none): draw it with --x time or "
                                  "--x events\n");
    CHECK_FALSE(fs::exists(picture));
    // Without --x the same log is drawn on time.
    CHECK(memtimeline({recorded.m_logs[0], "--export", picture}).m_exitStatus == 0);
    CHECK(fs::exists(picture));
    fs::remove_all(recorded.m_directory);
}

TEST_CASE("an imported trace is a full trace without instruction counts: drawn on time, --x instructions refused") {
    const fs::path directory = fs::temp_directory_path() / ("memlog-imported-axis-" + std::to_string(getpid()));
    fs::create_directories(directory);
    const std::string trace = (directory / "t.din").string(), log = (directory / "t.memlog").string();
    std::ofstream(trace) << "0 1000 8\n1 1008 8\n0 1010 4\n";
    REQUIRE(runMemlog({"import", trace, "-o", log}).m_exitStatus == 0);
    const std::string picture = (directory / "t.png").string();
    // Instructions by default would put every access at 0: time it is.
    const Outcome drawn = memtimeline({log, "--export", picture});
    INFO(drawn.m_stderr);
    CHECK(drawn.m_exitStatus == 0);
    CHECK(fs::exists(picture));
    fs::remove(picture);
    const Outcome refused = memtimeline({log, "--export", picture, "--x", "instructions"});
    CHECK(refused.m_exitStatus == 2);
    CHECK(refused.m_stderr.find("carries no instruction counts") != std::string::npos);
    CHECK_FALSE(fs::exists(picture));
    fs::remove_all(directory);
}

TEST_CASE("a full trace of format 4 (Valgrind's lackey) counted no instructions: drawn on time") {
    const fs::path directory = fs::temp_directory_path() / ("memlog-lackey-axis-" + std::to_string(getpid()));
    fs::create_directories(directory);
    const std::string log = (directory / "mm_full.memlog").string(), picture = (directory / "mm.png").string();
    const std::string fixture = std::string(MEMLOG_TEST_SOURCE_DIR) + "/tests/golden/logs/mm_full.memlog.gz";
    REQUIRE(runWithoutRecorder({"/bin/sh", "-c", "gzip -dc '" + fixture + "' > '" + log + "'"}).m_exitStatus == 0);
    REQUIRE(timeline::LogReader(log).header().m_version == 4);
    CHECK(memtimeline({log, "--export", picture, "--size", "800x500"}).m_exitStatus == 0);
    CHECK(fs::exists(picture));
    const Outcome refused = memtimeline({log, "--export", picture, "--x", "instructions"});
    CHECK(refused.m_exitStatus == 2);
    CHECK(refused.m_stderr.find("carries no instruction counts") != std::string::npos);
    fs::remove_all(directory);
}

// The incremental unwinder against the full walk, under the real preload: with
// MEMLOG_UNWIND_CHECK=1 every stack it gives is compared with unw_backtrace's, and the log says how
// many were compared and how many differed. The shapes are those where reuse is easy to get wrong.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>

#include "run_program.hpp"
#include "timeline/read/log_reader.hpp"

using namespace memlog::test;
namespace fs = std::filesystem;

namespace {

// Blocks the scenario counts itself (main thread): see scenarios/unwind_shapes.cpp.
constexpr uint64_t kMainThreadBlocks = 1000 + 300 + 300 + 5 * 600 + 994 + 400 + 300 + 50 + 300 + 3 * (50 + 4);
constexpr uint64_t kThreadBlocks = 4 * 20 * (50 + 80);

Outcome recordShapes(const std::map<std::string, std::string>& env) {
    Run run;
    run.m_argv = {scenarioPath("unwind_shapes")};
    run.m_env = env;
    run.m_env["MEMLOG_QUIET"] = "1";
    return runProgram(run);
}

}  // namespace

TEST_CASE("the incremental unwinder gives every stack a full walk gives") {
    const Outcome outcome = recordShapes({{"MEMLOG_UNWIND_CHECK", "1"}});
    REQUIRE(outcome.m_exitStatus == 0);
    CHECK(outcome.m_stdout == std::to_string(kMainThreadBlocks) + " blocks in the main thread\n");
    CHECK(outcome.m_stderr.empty());
    REQUIRE(outcome.m_logs.size() == 1);
    const auto summary = summaryOf(outcome.m_logs[0]);
    CHECK(summary.m_lostEvents == 0);
    CHECK(summary.m_unwindMismatches == 0);
    // Allocations and frees both have stacks, and each is either compared or left to the full
    // walk. At least the 150 signal handlers' blocks (a signal frame is not modelled) go to the
    // full walk; everything else may be compared.
    const uint64_t stacks = 2 * (kMainThreadBlocks + kThreadBlocks);
    CHECK(summary.m_unwindChecked + summary.m_unwindFullWalks >= stacks);
    CHECK(summary.m_unwindFullWalks >= 2 * 150);
    CHECK(summary.m_unwindChecked >= stacks - 2 * (150 + 300));  // signals, the coroutine's rounds
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("the frame-pointer mode's reused stacks are those of a full rbp walk") {
    const Outcome outcome = recordShapes({{"MEMLOG_UNWIND_CHECK", "1"}, {"MEMLOG_UNWIND", "fp"}});
    REQUIRE(outcome.m_exitStatus == 0);
    CHECK(outcome.m_stdout == std::to_string(kMainThreadBlocks) + " blocks in the main thread\n");
    REQUIRE(outcome.m_logs.size() == 1);
    const auto summary = summaryOf(outcome.m_logs[0]);
    CHECK(summary.m_unwindMismatches == 0);
    // An rbp walk has nothing it cannot model: every stack is compared, none left over.
    CHECK(summary.m_unwindChecked >= 2 * (kMainThreadBlocks + kThreadBlocks));
    CHECK(summary.m_unwindFullWalks == 0);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("incremental stacks are the ones the full walk writes") {
    // The same run with and without the incremental unwinder: the main thread's allocations, in
    // order, must carry the same stacks, each frame as (module, offset) since addresses move.
    auto stacksOf = [](const std::map<std::string, std::string>& env) {
        const Outcome outcome = recordShapes(env);
        REQUIRE(outcome.m_exitStatus == 0);
        REQUIRE(outcome.m_logs.size() == 1);
        memlog::timeline::LogReader reader(outcome.m_logs[0]);
        std::vector<std::pair<uint64_t, uint32_t>> allocations;  // size, stack id
        reader.forEachEvent([&](const memlog::timeline::Event& event) {
            if (event.m_kind == memlog::format::Kind::Malloc && event.m_tid == reader.header().m_pid)
                allocations.emplace_back(event.m_size, event.m_stack);
        });
        auto place = [&](uint64_t address) {
            for (const memlog::timeline::Module& module : reader.modules())
                if (address >= module.m_lo && address < module.m_hi)
                    return fs::path(module.m_path).filename().string() + "+" + std::to_string(address - module.m_base);
            return std::string("?");
        };
        std::vector<std::string> stacks;
        for (const auto& [size, id] : allocations) {
            std::string text = std::to_string(size) + ":";
            for (const uint64_t frame : reader.stacks().at(id)) text += " " + place(frame);
            stacks.push_back(text);
        }
        fs::remove_all(outcome.m_directory);
        return stacks;
    };
    const std::vector<std::string> incremental = stacksOf({});
    const std::vector<std::string> full = stacksOf({{"MEMLOG_UNWIND_INCREMENTAL", "0"}});
    CHECK(incremental.size() > kMainThreadBlocks);
    REQUIRE(incremental.size() == full.size());
    uint64_t differences = 0;
    for (size_t i = 0; i < full.size(); ++i)
        if (incremental[i] != full[i] && ++differences < 5) CHECK(incremental[i] == full[i]);
    CHECK(differences == 0);
}

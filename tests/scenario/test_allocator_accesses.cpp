// The allocator's own accesses under the real LD_PRELOAD: scenarios/allocator_at_work frees half
// its blocks and lets glibc walk them (malloc_trim, which memlog does not hook, and mallocs that
// consolidate), never touching them itself. Every sample there is the allocator's: a region of
// its own, never a freed block, never a use after free.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <set>

#include "run_program.hpp"
#include "timeline/names/stack_names.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/replay/access_attribution.hpp"
#include "timeline/replay/block_observer.hpp"
#include "unwind/allocator_code.hpp"

using namespace memlog::test;
using memlog::timeline::Region;
namespace fs = std::filesystem;

namespace {

// Follows the blocks itself (what is freed and not handed out again) so that the test knows
// which samples touched freed memory, whatever the attribution says.
class FreedMemory final : public memlog::timeline::BlockObserver {
public:
    void begin(const memlog::timeline::BlockChange& change) override {
        auto it = m_freed.lower_bound(change.m_addr);
        while (it != m_freed.end() && it->first < change.m_addr + change.m_size) it = m_freed.erase(it);
        m_live[change.m_addr] = change.m_size;
    }
    void end(const memlog::timeline::BlockChange& change) override {
        m_live.erase(change.m_addr);
        m_freed[change.m_addr] = change.m_size;
    }
    void access(const memlog::timeline::AccessSample& sample, const memlog::timeline::Attribution& where) override {
        ++m_byRegion[where.m_region];
        if (where.m_region == Region::Heap) m_programInstructions.insert(sample.m_ip);
        if (where.m_region != Region::Allocator) return;
        if (!sample.m_inAllocator) {
            ++m_byAddress;  // no hook was running: found by the instruction's address alone
            m_instructions.insert(sample.m_ip);
        }
        auto it = m_freed.upper_bound(sample.m_addr);
        if (it != m_freed.begin() && sample.m_addr < std::prev(it)->first + std::prev(it)->second) ++m_inFreedBlocks;
    }
    std::map<uint64_t, uint64_t> m_live, m_freed;
    std::map<Region, uint64_t> m_byRegion;
    uint64_t m_byAddress = 0;  // allocator samples the recorder did not flag
    uint64_t m_inFreedBlocks = 0;  // allocator samples inside a freed block
    std::set<uint64_t> m_instructions;  // of the first kind
    std::set<uint64_t> m_programInstructions;  // of samples in live blocks
};

}  // namespace

TEST_CASE("a program whose freed blocks only the allocator touches: no use after free, no freed-block sample") {
    Run run;
    run.m_argv = {scenarioPath("allocator_at_work")};
    run.m_env["MEMLOG_QUIET"] = "1";
    run.m_env["MEMLOG_ACCESS"] = "1";
    run.m_env["MEMLOG_ACCESS_RATE"] = "10000";
    const Outcome outcome = runProgram(run);
    INFO("stderr: " << outcome.m_stderr);
    REQUIRE(outcome.m_exitStatus == 0);
    REQUIRE(outcome.m_logs.size() == 1);
    const std::string& path = outcome.m_logs[0];

    memlog::timeline::LogReader reader(path);
    FreedMemory follow;
    const memlog::timeline::Summary summary = memlog::timeline::summarize(reader, {}, &follow);
    CHECK(summary.m_calls[static_cast<size_t>(memlog::format::Kind::Malloc)] == 20'300);
    CHECK(summary.m_calls[static_cast<size_t>(memlog::format::Kind::Free)] == 10'300);
    // The case is there: the allocator sampled at work inside the freed blocks, from code no hook
    // ran (malloc_trim's walk of its bins: about 2,200 samples of 2,400 at this rate).
    CHECK(summary.m_accessAllocator >= 200);
    CHECK(follow.m_inFreedBlocks >= 100);
    CHECK(follow.m_byAddress >= 100);
    // ... and none of it is the program's.
    CHECK(summary.m_accessFreed == 0);
    CHECK(follow.m_byRegion[Region::Freed] == 0);
    CHECK(follow.m_byRegion[Region::Allocator] == summary.m_accessAllocator);
    CHECK(summary.m_anomalies.m_useAfterFree == 0);
    CHECK(summary.m_blocksUsedAfterFree == 0);
    // The program's own work (one byte a block) is too short to sample often; a tick that lands
    // in it finds a live block, from the two functions that write one.
    CHECK(summary.m_blocksSampled <= 20);
    CHECK(follow.m_byRegion[Region::Heap] == summary.m_accessHeap);
    memlog::timeline::StackNames names(reader, {});
    for (const uint64_t ip : follow.m_programInstructions) {
        const auto& frames = names.instruction(ip);
        REQUIRE(!frames.empty());
        INFO("ip " << ip << " in " << frames.back().m_function);
        CHECK((frames.back().m_function == "keep_blocks" || frames.back().m_function == "large_again_and_again"));
    }

    // The unflagged samples are in glibc's allocator functions as its debug information names
    // them (malloc_trim inlines mtrim; malloc_consolidate, systrim, ...).
    std::set<std::string> functions;
    for (const uint64_t ip : follow.m_instructions) {
        const auto& frames = names.instruction(ip);
        if (!frames.empty()) functions.insert(frames.back().m_function);
    }
    INFO("functions: " << Catch::Detail::stringify(functions));
    CHECK((functions.count("__malloc_trim") + functions.count("malloc_trim")) == 1);
    for (const std::string& function : functions) CHECK(memlog::unwind::isAllocatorFunction(function));

    const Outcome uaf = runMemlog({"uaf", path});
    CHECK(uaf.m_exitStatus == 0);
    CHECK(uaf.m_stdout.find(": 0 blocks used after free (0 accesses sampled)") != std::string::npos);
    const Outcome json = runMemlog({"stat", path, "--json"});
    CHECK(json.m_stdout.find("\"access_freed\":0,\"access_allocator\":" + std::to_string(summary.m_accessAllocator) +
                             ",") != std::string::npos);
    const Outcome dump = runMemlog({"dump", path, "--accesses", "--csv"});
    CHECK(dump.m_stdout.find(",freed,") == std::string::npos);
    CHECK(dump.m_stdout.find(",allocator,,,,") != std::string::npos);  // no block, no offset, no symbol
    fs::remove_all(outcome.m_directory);
}

// The tick sampler under the real LD_PRELOAD: programs whose accesses are known (scenarios/
// access_*.c, own_sigtrap.c) run with MEMLOG_ACCESS=1, and the samples in their logs must be
// where, what and whose the programs say; the programs' output must not change.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "run_program.hpp"
#include "timeline/replay/access_attribution.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/replay/block_observer.hpp"
#include "timeline/names/accessing_code.hpp"
#include "timeline/names/stack_names.hpp"

using namespace memlog::test;
using memlog::format::AccessSampler;
using memlog::timeline::Region;
namespace fs = std::filesystem;

namespace {

int countLines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

// One sample as a test looks at it: what, where, by which function, and who owns the block.
struct Sample {
    memlog::timeline::AccessSample m_access;
    memlog::timeline::Attribution m_where;
    std::string m_function;      // the accessing instruction's function
    std::string m_code;          // the same as the window names it: function (file:line)
    uint32_t m_blockOwner = 0;   // heap: the thread that allocated the block
    std::string m_global;        // global: its symbol
};

struct SampledLog {
    memlog::format::FileHeader m_header{};
    memlog::timeline::Summary m_summary;
    std::vector<Sample> m_samples;
};

class Collect final : public memlog::timeline::BlockObserver {
public:
    void begin(const memlog::timeline::BlockChange& change) override { m_owner[change.m_seq] = change.m_tid; }
    void end(const memlog::timeline::BlockChange&) override {}
    void access(const memlog::timeline::AccessSample& sample, const memlog::timeline::Attribution& where) override {
        Sample collected{sample, where, {}, {}, 0, {}};
        if (where.m_region == Region::Heap) collected.m_blockOwner = m_owner[where.m_blockSeq];
        m_samples.push_back(collected);
    }
    std::map<uint64_t, uint32_t> m_owner;
    std::vector<Sample> m_samples;
};

SampledLog readSamples(const std::string& path) {
    memlog::timeline::LogReader reader(path);
    Collect collect;
    SampledLog log;
    log.m_header = reader.header();
    log.m_summary = memlog::timeline::summarize(reader, {}, &collect);
    memlog::timeline::StackNames names(reader, {});
    for (Sample& sample : collect.m_samples) {
        const auto& frames = names.instruction(sample.m_access.m_ip);
        if (!frames.empty()) sample.m_function = frames.front().m_function;
        sample.m_code = memlog::timeline::accessingCode(names, sample.m_access.m_ip, sample.m_access.m_stack);
        if (sample.m_where.m_region == Region::Global) sample.m_global = names.globalName(sample.m_access.m_addr);
    }
    log.m_samples = std::move(collect.m_samples);
    return log;
}

void askForSamples(Run& run, uint32_t rate) {
    run.m_env["MEMLOG_QUIET"] = "1";
    run.m_env["MEMLOG_ACCESS"] = "1";
    run.m_env["MEMLOG_ACCESS_RATE"] = std::to_string(rate);
}

// A scenario run bare and with sampling at `rate` ticks a CPU-second: the same output and exit
// status, and one log.
struct SampledRun {
    Outcome m_outcome;
    SampledLog m_log;
};

SampledRun sampleScenario(const std::string& scenario, uint32_t rate = 5000) {
    Run bare;
    bare.m_argv = {scenarioPath(scenario)};
    bare.m_preload = false;
    Run sampled = bare;
    sampled.m_preload = true;
    askForSamples(sampled, rate);
    const Outcome expected = runProgram(bare);
    SampledRun run{runProgram(sampled), {}};
    INFO(scenario << " stderr: " << run.m_outcome.m_stderr);
    CHECK(run.m_outcome.m_exitStatus == expected.m_exitStatus);
    CHECK(run.m_outcome.m_stdout == expected.m_stdout);
    CHECK(run.m_outcome.m_stderr.empty());
    REQUIRE(run.m_outcome.m_logs.size() == 1);
    run.m_log = readSamples(run.m_outcome.m_logs[0]);
    fs::remove_all(expected.m_directory);
    fs::remove_all(run.m_outcome.m_directory);
    return run;
}

// Every sample is one record the sampler counted, and every tick ended somewhere.
void requireConsistentCounters(const SampledLog& log) {
    const memlog::format::AccessCounters& counters = log.m_header.m_accessCounters;
    CHECK(log.m_summary.m_accessSamples == counters.m_samples);
    CHECK(counters.m_ticks >= counters.dropped());
    CHECK(counters.m_droppedLost == 0);
}

}  // namespace

TEST_CASE("a write phase then a read phase: the array's samples are writes, then reads, in the right functions and lines") {
    const SampledRun run = sampleScenario("access_phases");
    const SampledLog& log = run.m_log;
    CHECK(log.m_header.m_accessSampler == AccessSampler::TickPerfClock);
    CHECK(log.m_header.m_accessRate == 5000);
    requireConsistentCounters(log);
    uint64_t writes = 0, writePhase = 0, reads = 0, readPhase = 0, lastWrite = 0, firstRead = UINT64_MAX;
    uint64_t writeLine = 0, readLine = 0;  // samples named by the store's and the load's source line
    for (const Sample& sample : log.m_samples) {
        if (sample.m_where.m_region != Region::Heap || sample.m_where.m_blockSize != (8u << 20)) continue;
        if (sample.m_function == "write_phase") {
            ++writePhase;
            if (sample.m_access.writes() && !sample.m_access.reads()) ++writes;
            writeLine += sample.m_code == "write_phase (access_phases.c:14)";
            lastWrite = std::max(lastWrite, sample.m_access.m_seq);
        } else if (sample.m_function == "read_phase") {
            ++readPhase;
            if (sample.m_access.reads() && !sample.m_access.writes()) ++reads;
            readLine += sample.m_code == "read_phase (access_phases.c:21)";
            firstRead = std::min(firstRead, sample.m_access.m_seq);
        }
    }
    INFO("write_phase " << writes << " of " << writePhase << ", read_phase " << reads << " of " << readPhase);
    CHECK(writePhase >= 50);
    CHECK(readPhase >= 50);
    CHECK(writes * 100 >= writePhase * 95);
    CHECK(reads * 100 >= readPhase * 95);
    CHECK(lastWrite < firstRead);  // the phases do not overlap in the log's order
    CHECK(writeLine * 100 >= writePhase * 90);
    CHECK(readLine * 100 >= readPhase * 90);
}

TEST_CASE("four threads each sweeping their own block: each block's samples come from its thread") {
    const SampledRun run = sampleScenario("access_threads");
    const SampledLog& log = run.m_log;
    requireConsistentCounters(log);
    std::map<uint64_t, uint64_t> perBlock;
    uint64_t foreign = 0;
    for (const Sample& sample : log.m_samples) {
        if (sample.m_where.m_region != Region::Heap || sample.m_function != "sweep_own") continue;
        ++perBlock[sample.m_where.m_blockSeq];
        if (sample.m_access.m_tid != sample.m_blockOwner) ++foreign;
    }
    CHECK(perBlock.size() == 4);
    for (const auto& [block, samples] : perBlock) {
        INFO("block " << block);
        CHECK(samples >= 10);
    }
    CHECK(foreign == 0);
    CHECK(log.m_summary.m_threads == 5);
}

TEST_CASE("a global array, a heap array and a stack array: each sample is classified as such") {
    const SampledRun run = sampleScenario("access_regions");
    const SampledLog& log = run.m_log;
    requireConsistentCounters(log);
    std::map<std::string, std::map<Region, uint64_t>> byFunction;
    uint64_t grid = 0, ownStack = 0;
    for (const Sample& sample : log.m_samples) {
        ++byFunction[sample.m_function][sample.m_where.m_region];
        if (sample.m_function == "sweep_global" && sample.m_global.starts_with("grid")) ++grid;
        if (sample.m_function == "sweep_stack" && sample.m_where.m_stackOwner == sample.m_access.m_tid) ++ownStack;
    }
    for (const auto& [function, region] :
         {std::pair{"sweep_global", Region::Global}, {"sweep_heap", Region::Heap}, {"sweep_stack", Region::Stack}}) {
        INFO(function);
        uint64_t total = 0;
        for (const auto& [place, count] : byFunction[function]) total += count;
        CHECK(total >= 20);
        CHECK(byFunction[function][region] == total);
    }
    uint64_t global = 0, stack = 0;
    for (const auto& [place, count] : byFunction["sweep_global"]) global += count;
    for (const auto& [place, count] : byFunction["sweep_stack"]) stack += count;
    CHECK(grid == global);       // every sample of the global sweep names grid
    CHECK(ownStack == stack);    // and of the stack sweep, the thread's own stack
}

TEST_CASE("a program with SIGTRAP handlers of its own: each of its traps reaches them, none of the sampler's") {
    const SampledRun run = sampleScenario("own_sigtrap");
    CHECK(run.m_outcome.m_stdout == "caught 215 traps; installed 1, reported 1, kept 1; swept\n");
    CHECK(run.m_log.m_summary.m_accessSamples >= 10);
    requireConsistentCounters(run.m_log);
}

TEST_CASE("fork and exec: the fork child and the exec'd image each sample into their own log") {
    Run run;
    run.m_argv = {scenarioPath("access_fork_exec")};
    askForSamples(run, 5000);
    const Outcome outcome = runProgram(run);
    CHECK(outcome.m_exitStatus == 0);
    CHECK(outcome.m_stdout == "parent, child and image swept\n");
    REQUIRE(outcome.m_logs.size() == 3);
    int forkChildren = 0;
    for (const std::string& path : outcome.m_logs) {
        INFO(path);
        const SampledLog log = readSamples(path);
        CHECK(log.m_header.m_accessSampler == AccessSampler::TickPerfClock);
        if (log.m_header.m_parentPid) ++forkChildren;
        uint64_t inBlocks = 0;
        for (const Sample& sample : log.m_samples)
            if (sample.m_where.m_region == Region::Heap && sample.m_function == "sweep_block") ++inBlocks;
        CHECK(inBlocks >= 20);
        requireConsistentCounters(log);
    }
    CHECK(forkChildren == 1);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("perf_event_open refused, as in a container: thread CPU timers tick instead, in every thread") {
    Run run;
    // The launcher installs the filter, then env starts the scenario with the recorder loaded.
    run.m_preload = false;
    run.m_argv = {MEMLOG_TEST_DENY_PERF_EVENTS, "env", "LD_PRELOAD=" + recorderLibrary(), scenarioPath("access_threads")};
    askForSamples(run, 5000);
    const Outcome outcome = runProgram(run);
    CHECK(outcome.m_exitStatus == 0);
    CHECK(outcome.m_stdout == "four threads swept their blocks\n");
    CHECK(outcome.m_stderr.empty());
    REQUIRE(outcome.m_logs.size() == 1);
    const SampledLog log = readSamples(outcome.m_logs[0]);
    CHECK(log.m_header.m_accessSampler == AccessSampler::TickThreadTimers);
    CHECK(memlog::timeline::accessSamplerText(log.m_summary) == "ticks (thread CPU timers)");
    std::map<uint64_t, uint64_t> perBlock;
    for (const Sample& sample : log.m_samples)
        if (sample.m_where.m_region == Region::Heap && sample.m_function == "sweep_own" &&
            sample.m_access.m_tid == sample.m_blockOwner)
            ++perBlock[sample.m_where.m_blockSeq];
    CHECK(perBlock.size() == 4);  // each new thread started its own timer
    requireConsistentCounters(log);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("under a debugger: sampling stands aside and the debugger's breakpoints work") {
    Run run;
    run.m_preload = false;  // gdb itself is not recorded; its inferior is
    run.m_argv = {"gdb", "-q", "-nx", "-batch",
                  "-ex", "set startup-with-shell off",
                  "-ex", "set environment LD_PRELOAD=" + recorderLibrary(),
                  "-ex", "set environment MEMLOG_ACCESS=1",
                  "-ex", "set environment MEMLOG_QUIET=1",
                  "-ex", "break leak_one",
                  "-ex", "run",
                  "-ex", "delete",
                  "-ex", "continue",
                  "--args", scenarioPath("leaks")};
    const Outcome outcome = runProgram(run);
    CHECK(outcome.m_exitStatus == 0);
    CHECK(outcome.m_stdout.find("Breakpoint 1, leak_one") != std::string::npos);
    CHECK(outcome.m_stdout.find("exited normally") != std::string::npos);
    CHECK(outcome.m_stderr.find("memlog: access sampling unavailable: the process is traced by pid ") !=
          std::string::npos);
    REQUIRE(outcome.m_logs.size() == 1);
    const SampledLog log = readSamples(outcome.m_logs[0]);
    CHECK(log.m_header.m_accessSampler == AccessSampler::Unavailable);
    CHECK(std::string(log.m_header.m_accessStatus).starts_with("the process is traced by pid "));
    CHECK(log.m_summary.m_leakedBlocks == 10);
    CHECK(log.m_summary.m_complete);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("sampling changes nothing of the heap: random_churn's events are the same with and without it") {
    Run plain;
    plain.m_argv = {scenarioPath("random_churn")};
    plain.m_env["MEMLOG_QUIET"] = "1";
    Run sampled = plain;
    askForSamples(sampled, 20000);
    const Outcome without = runProgram(plain);
    const Outcome with = runProgram(sampled);
    CHECK(with.m_exitStatus == 0);
    CHECK(with.m_stdout == without.m_stdout);
    REQUIRE(with.m_logs.size() == 1);
    REQUIRE(without.m_logs.size() == 1);
    const auto a = summaryOf(without.m_logs[0]);
    const auto b = summaryOf(with.m_logs[0]);
    CHECK(a.m_calls == b.m_calls);  // random_churn's seed is fixed
    CHECK(a.m_peakBytes == b.m_peakBytes);
    CHECK(a.m_leakedBytes == b.m_leakedBytes);
    CHECK(b.m_anomalies.total() == 0);
    CHECK(a.m_accessSampler == AccessSampler::Off);
    CHECK(b.m_accessSampler == AccessSampler::TickPerfClock);
    fs::remove_all(with.m_directory);
    fs::remove_all(without.m_directory);
}

TEST_CASE("memlog run --access-rate samples at that rate") {
    Run run;
    run.m_preload = false;
    run.m_argv = {memlogCli(), "run", "-q", "--access-rate", "4000", "-o", "out.memlog", "--", scenarioPath("access_phases"),
                  "10"};
    const Outcome outcome = runProgram(run);
    CHECK(outcome.m_exitStatus == 0);
    CHECK(outcome.m_stderr.empty());
    REQUIRE(outcome.m_logs.size() == 1);
    const SampledLog log = readSamples(outcome.m_logs[0]);
    CHECK(log.m_header.m_accessSampler == AccessSampler::TickPerfClock);
    CHECK(log.m_header.m_accessRate == 4000);
    CHECK(log.m_summary.m_accessSamples > 0);
    CHECK(countLines(outcome.m_stdout) == 1);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("memlog accesses on a real log: the global grid, the heap block's site and the stack, by name") {
    Run run;
    run.m_argv = {scenarioPath("access_regions")};
    askForSamples(run, 5000);
    const Outcome outcome = runProgram(run);
    REQUIRE(outcome.m_logs.size() == 1);
    auto accesses = [&](const std::string& by) {
        Run command;
        command.m_preload = false;
        command.m_argv = {memlogCli(), "accesses", outcome.m_logs[0], "--by", by, "--csv"};
        const Outcome printed = runProgram(command);
        CHECK(printed.m_exitStatus == 0);
        fs::remove_all(printed.m_directory);
        return printed.m_stdout;
    };
    const std::string globals = accesses("global");
    // grid first: the program's only global swept (the C library's own may follow, rarely).
    CHECK(globals.substr(globals.find('\n') + 1).starts_with("grid,"));
    const std::string functions = accesses("function");
    for (const char* function : {"\nsweep_global,access_regions.c:", "\nsweep_heap,access_regions.c:",
                                 "\nsweep_stack,access_regions.c:"}) {
        INFO(function);
        CHECK(functions.find(function) != std::string::npos);
    }
    const std::string sites = accesses("site");
    CHECK(sites.find("\nglobal grid,,") != std::string::npos);
    CHECK(sites.find("\n(stack),,") != std::string::npos);
    CHECK(sites.find("\nmain,access_regions.c:") != std::string::npos);  // the calloc in main
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("dump --accesses --csv: a global's rows name the global and give the offset in it, in bytes") {
    Run run;
    run.m_argv = {scenarioPath("access_regions")};
    askForSamples(run, 5000);
    const Outcome outcome = runProgram(run);
    REQUIRE(outcome.m_logs.size() == 1);
    memlog::timeline::LogReader reader(outcome.m_logs[0]);
    reader.forEachEvent([](const memlog::timeline::Event&) {});
    memlog::timeline::StackNames names(reader, {});
    const auto grid = names.dataSymbolNamed("grid");
    REQUIRE(grid.has_value());
    Run dump;
    dump.m_preload = false;
    dump.m_argv = {memlogCli(), "dump", outcome.m_logs[0], "--accesses", "--csv"};
    const Outcome rows = runProgram(dump);
    CHECK(rows.m_exitStatus == 0);
    // seq,time_ns,tid,kind,addr,size,region,block_seq,offset,symbol,ip,stack_id,source
    std::istringstream lines(rows.m_stdout);
    size_t inGrid = 0;
    for (std::string line; std::getline(lines, line);) {
        std::vector<std::string> field;
        std::istringstream cells(line);
        for (std::string cell; std::getline(cells, cell, ',');) field.push_back(cell);
        if (field.size() < 13 || field[6] != "global") continue;
        INFO(line);
        CHECK(field[9].find("+0x") == std::string::npos);  // never "grid+0x1b1fa0"
        CHECK(field[7].empty());  // no block
        if (field[9] != "grid") continue;
        ++inGrid;
        const uint64_t addr = std::stoull(field[4], nullptr, 16);
        CHECK(field[8] == std::to_string(addr - grid->m_start));
    }
    CHECK(inGrid >= 50);  // sweep_global's samples: about a third of the run's
    for (const Outcome* done : {&outcome, &rows}) fs::remove_all(done->m_directory);
}

TEST_CASE("a shell forking hundreds of times while sampled: every log reads whole, every sample counted once") {
    // A fork made while the sampler stepped over the system call would start the child with a
    // step pending, and the child would write into the parent's log before it has its own.
    Run run;
    run.m_argv = {"bash", "-c", "for i in $(seq 300); do x=$(echo $i); done; echo done"};
    askForSamples(run, 20000);
    const Outcome outcome = runProgram(run);
    CHECK(outcome.m_exitStatus == 0);
    CHECK(outcome.m_stdout == "done\n");
    CHECK(outcome.m_logs.size() >= 301);  // the shell, and a child per command substitution
    uint64_t samples = 0;
    for (const std::string& path : outcome.m_logs) {
        INFO(path);
        memlog::timeline::LogReader reader(path);
        const auto summary = memlog::timeline::summarize(reader);
        CHECK(summary.m_accessSamples == reader.header().m_accessCounters.m_samples);
        CHECK(summary.m_lostEvents == 0);
        samples += summary.m_accessSamples;
    }
    CHECK(samples > 0);
    fs::remove_all(outcome.m_directory);
}

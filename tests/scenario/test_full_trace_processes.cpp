// memlog run --full-trace across threads and processes: each access by the thread that made it,
// each thread's stack told apart, forks and execs traced into logs of their own, and a trace
// killed with SIGKILL read up to where it stops.
#include <catch2/catch.hpp>

#include <signal.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "full_trace_runs.hpp"
#include "timeline/read/log_reader.hpp"

using namespace memlog::test;
namespace fs = std::filesystem;

TEST_CASE("full trace: four threads, each array's accesses exact and all by its owner, each tally on its stack") {
    requireTraceTool();
    const uint64_t passes = 3;
    const Outcome outcome = fullTrace({scenarioPath("thread_arrays"), std::to_string(passes)});
    INFO(outcome.m_stderr);
    REQUIRE(outcome.m_exitStatus == 0);
    REQUIRE(outcome.m_logs.size() == 1);
    const std::string& log = outcome.m_logs[0];
    const uint32_t pid = memlog::timeline::LogReader(log).header().m_pid;
    // Thread t's array: 1000 + 100 t doubles, allocated by t itself.
    std::map<uint64_t, uint64_t> elementsOf;  // block seq -> elements
    std::map<uint64_t, uint32_t> ownerOf;     // block seq -> the allocating thread
    std::map<uint64_t, uint32_t> ownerOfIndex;
    for (const EventRow& event : dumpedEvents(log))
        for (uint64_t t = 0; t < 4; ++t)
            if (event.m_kind == "malloc" && event.m_size == (1000 + 100 * t) * 8) {
                elementsOf[event.m_seq] = 1000 + 100 * t;
                ownerOf[event.m_seq] = event.m_tid;
                ownerOfIndex[t] = event.m_tid;
            }
    REQUIRE(elementsOf.size() == 4);
    std::set<uint32_t> owners;
    for (const auto& [seq, tid] : ownerOf) owners.insert(tid);
    CHECK(owners.size() == 4);
    CHECK(owners.count(pid) == 0);  // none of them the main thread
    // The tallies, where each thread says its stack array is.
    std::map<uint64_t, uint64_t> tallyAt;  // thread index -> address
    std::stringstream said(outcome.m_stdout);
    for (std::string word, address; said >> word && word == "tally";) {
        uint64_t index;
        said >> index >> address;
        tallyAt[index] = std::stoull(address, nullptr, 16);
    }
    REQUIRE(tallyAt.size() == 4);

    std::map<uint64_t, std::map<std::string, uint64_t>> byBlock;  // block seq -> kind -> accesses
    std::map<uint64_t, uint64_t> strangers;                       // block seq -> accesses by another thread
    std::map<uint64_t, std::map<std::string, uint64_t>> byTally;  // thread index -> kind -> accesses
    std::map<uint64_t, uint64_t> tallyStrangers, tallyOffStack;
    for (const AccessRow& row : dumpedAccesses(log, true)) {
        if (elementsOf.count(row.m_blockSeq)) {
            ++byBlock[row.m_blockSeq][row.m_kind + std::to_string(row.m_size)];
            strangers[row.m_blockSeq] += row.m_tid != ownerOf[row.m_blockSeq];
        }
        // The tally's words: its own accesses are work()'s; the thread's other frames that lay
        // there before and after (its start and its end in the C library) are on its stack too.
        for (const auto& [index, address] : tallyAt)
            if (row.m_addr >= address && row.m_addr < address + 64 * 8) {
                if (row.m_site == "work") ++byTally[index][row.m_kind + std::to_string(row.m_size)];
                tallyStrangers[index] += row.m_tid != ownerOfIndex[index];
                tallyOffStack[index] += row.m_region != "stack";
            }
    }
    for (const auto& [seq, elements] : elementsOf) {
        INFO("array of " << elements << " doubles");
        const std::map<std::string, uint64_t> expected = {{"write8", passes * elements}, {"read8", elements}};
        CHECK(byBlock[seq] == expected);
        CHECK(strangers[seq] == 0);
    }
    for (uint64_t index = 0; index < 4; ++index) {
        INFO("thread " << index << "'s tally");
        const std::map<std::string, uint64_t> expected = {{"write8", 64}, {"read8", 64}};
        CHECK(byTally[index] == expected);
        CHECK(tallyStrangers[index] == 0);
        CHECK(tallyOffStack[index] == 0);
    }
    const Outcome stat = memlogRun({"stat", log, "--json"});
    CHECK(jsonNumber(stat.m_stdout, "threads") == 5);
    // Each thread counts its own instructions: from its own start, never backwards.
    std::map<uint32_t, uint64_t> first, last;
    uint64_t backwards = 0;
    memlog::timeline::LogReader reader(log);
    reader.forEachRecord({}, [&](const memlog::timeline::AccessSample& sample) {
        first.try_emplace(sample.m_tid, sample.m_instructions);
        backwards += sample.m_instructions < last[sample.m_tid];
        last[sample.m_tid] = sample.m_instructions;
    });
    CHECK(backwards == 0);
    REQUIRE(first.size() == 5);
    for (const uint32_t owner : owners) {
        INFO("thread " << owner << ": instructions " << first[owner] << " to " << last[owner]);
        CHECK(first[owner] < 1000);  // a few hundred of the C library's before the thread's first access
        CHECK(last[owner] > 3 * 4 * 1000);  // its loops: at least 3 instructions an access, 4,000 accesses or more
    }
    CHECK(first[pid] < last[pid]);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("full trace: a fork and an exec are traced too, each process into its own log, each exact") {
    requireTraceTool();
    // One sweep of 131,072 doubles in each of the three images: a read and a write of each.
    const Outcome outcome = fullTrace({scenarioPath("access_fork_exec"), "1"}, "trace.%p.memlog");
    INFO(outcome.m_stderr);
    CHECK(outcome.m_exitStatus == 0);
    CHECK(outcome.m_stdout == "parent, child and image swept\n");
    REQUIRE(outcome.m_logs.size() == 3);
    std::set<uint32_t> pids;
    int forkChildren = 0, images = 0;
    for (const std::string& log : outcome.m_logs) {
        INFO(log);
        {
            memlog::timeline::LogReader reader(log);
            const memlog::format::FileHeader& header = reader.header();
            CHECK(header.m_accessSampler == memlog::format::AccessSampler::FullTrace);
            pids.insert(header.m_pid);
            forkChildren += (header.m_flags & memlog::format::kFlagForkChild) != 0;
            images += std::string(header.m_commandLine).find(" image ") != std::string::npos;
        }
        uint64_t blockSeq = 0;
        for (const EventRow& event : dumpedEvents(log))
            if (event.m_kind == "calloc" && event.m_size == 131072 * 8) blockSeq = event.m_seq;
        REQUIRE(blockSeq != 0);
        std::map<std::string, uint64_t> sweep;
        for (const AccessRow& row : dumpedAccesses(log))
            if (row.m_blockSeq == blockSeq) ++sweep[row.m_kind + std::to_string(row.m_size)];
        const std::map<std::string, uint64_t> expected = {{"read8", 131072}, {"write8", 131072}};
        CHECK(sweep == expected);
    }
    CHECK(pids.size() == 2);  // the exec'd image keeps its process's pid
    CHECK(forkChildren == 1);
    CHECK(images == 1);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("full trace: killed with SIGKILL halfway, the log reads up to where its trace stops, and says so") {
    requireTraceTool();
    Run run;
    run.m_preload = false;
    run.m_argv = {memlogCli(), "run", "-q", "--full-trace", "-o", "trace.%p.memlog", "--", scenarioPath("forever"),
                  "progress"};
    run.m_killWhenFile = "progress";
    run.m_killAfterSeconds = 0.5;
    // The traced process itself (memlog run passes the signal on as its own status).
    run.m_whileRunning = [](const std::string& directory) {
        for (const auto& entry : fs::directory_iterator(directory)) {
            const std::string name = entry.path().filename().string();
            if (name.starts_with("trace.") && name.ends_with(".memlog"))
                kill(static_cast<pid_t>(std::stol(name.substr(6))), SIGKILL);
        }
    };
    const Outcome outcome = runProgram(run);
    REQUIRE(outcome.m_logs.size() == 1);
    const std::string& log = outcome.m_logs[0];
    const Outcome stat = memlogRun({"stat", log, "--json"});
    INFO(stat.m_stderr);
    CHECK(stat.m_exitStatus == 0);
    // One warning: the file, the offset where the main thread's trace stops, and why.
    const std::string name = fs::path(log).filename().string();
    CHECK(stat.m_stderr.find(name + ": offset ") != std::string::npos);
    CHECK(stat.m_stderr.find("stops without its end (the traced process was killed?)") != std::string::npos);
    // What was written before the kill is there: the 100,000 pairs the program had reported,
    // and the accesses of the chunks the tool had written by then.
    CHECK(jsonNumber(stat.m_stdout, "access_samples") > 100000);
    const Outcome dumped = memlogRun({"dump", log, "--csv"});
    uint64_t mallocs = 0;
    for (size_t at = dumped.m_stdout.find(",malloc,"); at != std::string::npos;
         at = dumped.m_stdout.find(",malloc,", at + 1))
        ++mallocs;
    CHECK(mallocs >= 100000);
    fs::remove_all(outcome.m_directory);
}

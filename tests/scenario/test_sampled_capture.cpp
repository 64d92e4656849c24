// Sampled capture (MEMLOG_SAMPLE) under the real recorder: each site sampled as often as its
// probability says, the large blocks always, a sample's end always recorded (freed, reallocated in
// place or moved, or leaked), nothing else of the heap, the same samples from the same seed, and
// the set of live samples full without a block misattributed.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <tuple>
#include <vector>

#include "record/sample_gaps.hpp"
#include "run_program.hpp"
#include "timeline/read/log_reader.hpp"

using namespace memlog::test;
using memlog::format::Kind;
using memlog::timeline::Event;
namespace fs = std::filesystem;

namespace {

struct SampledRun {
    memlog::format::FileHeader m_header{};
    std::vector<Event> m_events;
    memlog::timeline::Summary m_summary;
};

SampledRun recordSampled(std::vector<std::string> arguments, std::map<std::string, std::string> settings,
                         const std::string& scenario = "sampled_sites") {
    Run run;
    run.m_argv = {scenarioPath(scenario)};
    run.m_argv.insert(run.m_argv.end(), arguments.begin(), arguments.end());
    run.m_env = std::move(settings);
    run.m_env["MEMLOG_QUIET"] = "1";
    const Outcome outcome = runProgram(run);
    INFO(scenario << " stderr: " << outcome.m_stderr);
    REQUIRE(outcome.m_exitStatus == 0);
    REQUIRE(outcome.m_logs.size() == 1);
    SampledRun sampled;
    {
        memlog::timeline::LogReader reader(outcome.m_logs[0]);
        sampled.m_header = reader.header();
        reader.forEachEvent([&](const Event& event) { sampled.m_events.push_back(event); });
    }
    sampled.m_summary = summaryOf(outcome.m_logs[0]);
    fs::remove_all(outcome.m_directory);
    return sampled;
}

uint64_t allocationsOfSize(const SampledRun& run, uint64_t size) {
    uint64_t count = 0;
    for (const Event& event : run.m_events)
        count += event.m_kind == Kind::Malloc && event.m_size == size;
    return count;
}

// k samples of n allocations each sampled with p: within five standard deviations of n p (a
// fixed seed makes this exact for a run; a wrong p or a countdown that never restarts misses it
// by far more).
void requireBinomial(uint64_t samples, uint64_t allocations, uint64_t size, double meanBytes) {
    const double p = -std::expm1(-static_cast<double>(size) / meanBytes);
    const double expected = allocations * p, deviation = std::sqrt(allocations * p * (1 - p));
    INFO(size << " bytes: " << samples << " samples of " << allocations << ", expected " << expected);
    CHECK(std::abs(static_cast<double>(samples) - expected) <= 5 * deviation + 1);
}

}  // namespace

TEST_CASE("sampled capture: each site sampled by its probability, the large ones always, frees only of samples") {
    const SampledRun run = recordSampled({"sites"}, {{"MEMLOG_SAMPLE", "64K"}, {"MEMLOG_SAMPLE_SEED", "7"}});
    CHECK(run.m_header.m_sampleMeanBytes == 65536);
    CHECK(run.m_header.m_sampleSeed == 7);
    CHECK(run.m_header.m_sampleSetOverflow == 0);
    CHECK(run.m_header.m_sampleSetSlots == 262144);
    requireBinomial(allocationsOfSize(run, 64), 20000, 64, 65536);
    requireBinomial(allocationsOfSize(run, 4096), 2000, 4096, 65536);
    requireBinomial(allocationsOfSize(run, 512), 1000, 512, 65536);
    CHECK(allocationsOfSize(run, 1 << 20) == 20);  // p = 1 - e^-16
    // A full log has 46,040 events; this one the samples and their frees.
    CHECK(run.m_summary.m_allocations < 400);
    // Every free the log has is a sample's: none of an address it never saw begin.
    CHECK(run.m_summary.m_anomalies.total() == 0);
    // What is live at the end is the leaking site's samples, all of them.
    CHECK(run.m_summary.m_leakedBlocks == allocationsOfSize(run, 512));
    CHECK(run.m_summary.m_leakedBytes == 512 * allocationsOfSize(run, 512));
    CHECK(run.m_summary.m_frees == run.m_summary.m_allocations - run.m_summary.m_leakedBlocks);
}

TEST_CASE("sampled capture: the same seed samples the same allocations, another seed others") {
    auto sequence = [](const SampledRun& run) {
        std::vector<std::tuple<Kind, uint64_t>> kinds;
        for (const Event& event : run.m_events) kinds.emplace_back(event.m_kind, event.m_size);
        return kinds;
    };
    const std::map<std::string, std::string> seven = {{"MEMLOG_SAMPLE", "64K"}, {"MEMLOG_SAMPLE_SEED", "7"}};
    const auto first = sequence(recordSampled({"sites"}, seven));
    const auto again = sequence(recordSampled({"sites"}, seven));
    const auto other = sequence(recordSampled({"sites"}, {{"MEMLOG_SAMPLE", "64K"}, {"MEMLOG_SAMPLE_SEED", "8"}}));
    CHECK(first == again);
    CHECK(first != other);
}

TEST_CASE("sampled capture: the samples are exactly the allocations whose bytes cross the seed's gaps") {
    // sampled_sites' allocations in their order, counted down from the first thread's stream as
    // the recorder does it (record/sampled_capture.cpp): the first allocation draws the first gap,
    // a sample draws the next, the overshoot dropped. A hook that skipped the countdown, spent an
    // allocation twice, or sampled at zero bytes left would pick other allocations.
    std::vector<uint64_t> sizes;
    sizes.insert(sizes.end(), 20000, 64);
    sizes.insert(sizes.end(), 2000, 4096);
    sizes.insert(sizes.end(), 20, 1 << 20);
    sizes.insert(sizes.end(), 1000, 512);
    const uint64_t mean = 65536;
    uint64_t random = memlog::preload::streamStart(7, 0);
    int64_t left = memlog::preload::drawGap(random, mean);
    std::vector<uint64_t> expected;
    for (const uint64_t size : sizes) {
        left -= static_cast<int64_t>(size);
        if (left > 0) continue;
        expected.push_back(size);
        left = memlog::preload::drawGap(random, mean);
    }
    const SampledRun run = recordSampled({"sites"}, {{"MEMLOG_SAMPLE", "64K"}, {"MEMLOG_SAMPLE_SEED", "7"}});
    std::vector<uint64_t> sampled;
    for (const Event& event : run.m_events)
        if (event.m_kind == Kind::Malloc) sampled.push_back(event.m_size);
    CHECK(expected.size() > 100);
    CHECK(sampled == expected);
}

TEST_CASE("sampled capture: a sampled block reallocated in place and moved, ended by a shrink, and leaked") {
    const SampledRun run = recordSampled({"realloc"}, {{"MEMLOG_SAMPLE", "1K"}, {"MEMLOG_SAMPLE_SEED", "3"}});
    const Event* inPlace = nullptr;
    const Event* moved = nullptr;
    const Event* grownFromSmall = nullptr;
    for (const Event& event : run.m_events) {
        if (event.m_kind != Kind::Realloc) continue;
        if (event.m_size == 65520) inPlace = &event;
        if (event.m_size == 100000) moved = &event;
        if (event.m_size == 65536) grownFromSmall = &event;
    }
    REQUIRE(inPlace);
    CHECK(inPlace->m_addr == inPlace->m_oldAddr);
    REQUIRE(moved);
    CHECK(moved->m_oldAddr == inPlace->m_addr);
    CHECK(moved->m_addr != moved->m_oldAddr);
    // 8 bytes grown to 64 KiB: the old block a sample (p = 0.8 %) or, to the log, none.
    REQUIRE(grownFromSmall);
    CHECK((grownFromSmall->m_oldAddr == 0 || allocationsOfSize(run, 8) == 1));
    // 64 KiB shrunk to 8 ended the sample: whatever came of it, only leak_site's block is live.
    CHECK(run.m_summary.m_anomalies.total() == 0);
    CHECK(run.m_summary.m_leakedBlocks == 1);
    CHECK(run.m_summary.m_leakedBytes == 65536);
}

TEST_CASE("sampled capture: samples the full set cannot hold are counted, not recorded, and nothing is misattributed") {
    // A mean of one byte samples every allocation; 64 slots hold at most 64 of the 1000 live blocks.
    const std::map<std::string, std::string> settings = {
        {"MEMLOG_SAMPLE", "1"}, {"MEMLOG_SAMPLE_SEED", "1"}, {"MEMLOG_SAMPLE_SLOTS", "64"}};
    const SampledRun empty = recordSampled({"empty"}, settings);
    const SampledRun run = recordSampled({"live", "1000"}, settings);
    CHECK(run.m_header.m_sampleSetSlots == 64);
    CHECK(run.m_header.m_sampleSetOverflow > 0);
    CHECK(run.m_summary.m_allocations <= 64 + empty.m_summary.m_allocations);
    CHECK(run.m_summary.m_allocations + run.m_header.m_sampleSetOverflow ==
          1000 + empty.m_summary.m_allocations + empty.m_header.m_sampleSetOverflow);
    CHECK(run.m_summary.m_anomalies.total() == 0);
    CHECK(run.m_summary.m_leakedBlocks == empty.m_summary.m_leakedBlocks);
}

TEST_CASE("sampled capture: mmap, munmap and mremap are always recorded") {
    const SampledRun run = recordSampled({}, {{"MEMLOG_SAMPLE", "4M"}}, "mapped_region");
    CHECK(callsOf(run.m_summary, "mmap") == 1);
    CHECK(callsOf(run.m_summary, "munmap") == 3);
    CHECK(callsOf(run.m_summary, "mremap") == 1);
    CHECK(run.m_summary.m_peakBytes == 524288 + 917504);
    CHECK(run.m_summary.m_anomalies.total() == 0);
}

TEST_CASE("sampled capture: a log without MEMLOG_SAMPLE says it is not sampled") {
    const SampledRun run = recordSampled({"realloc"}, {});
    CHECK(run.m_header.m_sampleMeanBytes == 0);
    CHECK(run.m_header.m_sampleSetSlots == 0);
    CHECK(callsOf(run.m_summary, "realloc") == 4);
}

TEST_CASE("sampled capture: memlog run --sample, and every command reads the log and memtimeline draws it") {
    Run run;
    run.m_preload = false;
    run.m_argv = {memlogCli(), "run", "-q", "--sample", "64K", "--sample-seed", "5", "-o", "sampled.memlog", "--",
                  scenarioPath("sampled_sites"), "sites"};
    const Outcome recorded = runProgram(run);
    INFO(recorded.m_stderr);
    REQUIRE(recorded.m_exitStatus == 0);
    REQUIRE(recorded.m_logs.size() == 1);
    const std::string log = recorded.m_logs[0];
    auto command = [](std::vector<std::string> argv) {
        Run call;
        call.m_preload = false;
        call.m_argv = std::move(argv);
        Outcome outcome = runProgram(call);
        INFO(call.m_argv[1] << ": " << outcome.m_stderr);
        CHECK(outcome.m_exitStatus == 0);
        fs::remove_all(outcome.m_directory);
        return outcome.m_stdout;
    };
    const std::string json = command({memlogCli(), "stat", log, "--json"});
    CHECK(json.find("\"sampling_mean_bytes\":65536") != std::string::npos);
    CHECK(json.find("\"estimated\":{\"calls\":{\"value\":") != std::string::npos);
    CHECK(json.find("\"ci95_low\":") != std::string::npos);
    // large_site: 20 blocks of 1 MiB, each sampled but for e^-16, estimated to the byte.
    const size_t large = json.find("\"function\":\"large_site\"");
    REQUIRE(large != std::string::npos);
    CHECK(json.find("\"value\":20,\"ci95_low\":20,\"ci95_high\":20,", large) < json.find('}', large));
    CHECK(command({memlogCli(), "stat", log}).find("estimated from ") != std::string::npos);
    const std::string sites = command({memlogCli(), "sites", log});
    CHECK(sites.starts_with("sampled: one allocation per 65536 bytes on average"));
    const std::string csv = command({memlogCli(), "sites", log, "--csv"});
    CHECK(csv.find(",calls_ci95_low,calls_ci95_high,") != std::string::npos);
    const std::string flame = command({memlogCli(), "flame", log, "--metric", "calls"});
    CHECK(flame.find("large_site 20\n") != std::string::npos);
    CHECK(!command({memlogCli(), "dump", log, "--csv"}).empty());
    const fs::path picture = fs::path(recorded.m_directory) / "sampled.png";
    command({MEMLOG_TEST_TIMELINE, log, "--export", picture.string()});
    CHECK(fs::exists(picture));
    CHECK(fs::file_size(picture) > 10000);
    fs::remove_all(recorded.m_directory);
}

TEST_CASE("sampled capture: threads and a fork and an exec make the logs and threads of a full recording") {
    auto logsOf = [](std::map<std::string, std::string> settings, const std::string& scenario) {
        Run run;
        run.m_argv = {scenarioPath(scenario)};
        run.m_env = std::move(settings);
        run.m_env["MEMLOG_QUIET"] = "1";
        const Outcome outcome = runProgram(run);
        REQUIRE(outcome.m_exitStatus == 0);
        std::vector<memlog::timeline::Summary> summaries;
        for (const std::string& path : outcome.m_logs) summaries.push_back(summaryOf(path));
        fs::remove_all(outcome.m_directory);
        return summaries;
    };
    const auto fullThreads = logsOf({}, "many_threads");
    const auto sampledThreads = logsOf({{"MEMLOG_SAMPLE", "512K"}}, "many_threads");
    REQUIRE(fullThreads.size() == 1);
    REQUIRE(sampledThreads.size() == 1);
    // Each of the 2000 threads' ends is recorded; the main thread's records are its samples (the
    // process's end is no thread's end).
    CHECK(fullThreads[0].m_threads == 2001);
    CHECK(sampledThreads[0].m_threads >= 2000);
    CHECK(sampledThreads[0].m_allocations < fullThreads[0].m_allocations / 10);
    const auto sampledProcesses = logsOf({{"MEMLOG_SAMPLE", "512K"}}, "fork_exec");
    CHECK(sampledProcesses.size() == 3);
    for (const auto& summary : sampledProcesses) CHECK(summary.m_formatVersion == memlog::format::kFormatVersion);
}

// memlog trace-events on hand-made logs: the counters per process and per allocating thread, the
// peak and the troughs kept through the thinning, the instants (anomalies, fork, exec), JSON that
// python3's json module reads with timestamps that never decrease, and a size that a log a
// hundred times longer does not change.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <random>
#include <sstream>
#include <vector>

#include "log_builder.hpp"
#include "run_memlog.hpp"
#include "timeline/export/trace_events.hpp"

using memlog::test::LogBuilder;
using memlog::test::Result;
using memlog::test::runMemlog;

namespace {

std::string scratch(const char* name) { return "/tmp/memlog-trace-" + std::to_string(getpid()) + "-" + name; }

// What python3 makes of the file: "valid", whether timestamps never decrease, each counter
// track's highest and lowest value and point count, each instant's name with its count summed.
std::map<std::string, std::string> readWithPython(const std::string& json) {
    const char* script = R"(
import json, sys
d = json.load(open(sys.argv[1]))
events = d["traceEvents"]
ts = [e["ts"] for e in events if "ts" in e]
print("valid yes")
print("ordered", "yes" if all(a <= b for a, b in zip(ts, ts[1:])) else "no")
tracks = {}
for e in events:
    if e["ph"] == "C":
        value = list(e["args"].values())[0]
        t = tracks.setdefault(e["name"], [value, value, 0])
        t[0] = max(t[0], value); t[1] = min(t[1], value); t[2] += 1
    elif e["ph"] == "i":
        key = "instant " + e["name"]
        tracks.setdefault(key, [0])[0] += e["args"].get("count", 1)
for name, t in tracks.items():
    print(name.replace(" ", "_"), " ".join(str(x) for x in t))
print("threads_left_out", d["otherData"]["threads_left_out"])
print("events", len(events))
)";
    const std::string scriptPath = scratch("check.py");
    FILE* file = std::fopen(scriptPath.c_str(), "w");
    std::fputs(script, file);
    std::fclose(file);
    FILE* pipe = popen(("python3 " + scriptPath + " " + json + " 2>&1").c_str(), "r");
    std::string output;
    char buffer[4096];
    for (size_t got; (got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, got);
    pclose(pipe);
    unlink(scriptPath.c_str());
    INFO(output);
    std::map<std::string, std::string> said;
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);) {
        const size_t space = line.find(' ');
        if (space != std::string::npos) said[line.substr(0, space)] = line.substr(space + 1);
    }
    REQUIRE(said["valid"] == "yes");
    return said;
}

uint64_t peakBytesOf(const std::string& log) {
    const std::string json = runMemlog("stat " + log + " --json").m_stdout;
    const size_t at = json.find("\"peak_bytes\":");
    REQUIRE(at != std::string::npos);
    return std::stoull(json.substr(at + 13));
}

uint64_t fileBytes(const std::string& path) {
    struct stat info {};
    REQUIRE(::stat(path.c_str(), &info) == 0);
    return static_cast<uint64_t>(info.st_size);
}

// A long churn over `threads` threads, each thread's blocks freed by any thread: live bytes wander
// around 1 MiB; at the middle everything is freed at once (a trough of 0), and at three quarters
// one 64 MiB block lives for one event (the peak).
void writeChurn(const std::string& path, uint64_t events, uint32_t threads) {
    LogBuilder log;
    std::mt19937_64 random(11);
    std::vector<std::pair<uint64_t, uint64_t>> live;  // address, size
    uint64_t seq = 1, nextAddress = 0x10000;
    const auto allocate = [&](uint64_t size) {
        log.thread(1 + static_cast<uint32_t>(random() % threads), 1 << 16).malloc(seq++, nextAddress, size);
        live.push_back({nextAddress, size});
        nextAddress += 0x10000;
    };
    const auto release = [&](size_t index) {
        log.thread(1 + static_cast<uint32_t>(random() % threads), 1 << 16).free(seq++, live[index].first);
        live[index] = live.back();
        live.pop_back();
    };
    while (seq < events) {
        if (seq >= events / 2 && seq < events / 2 + 1 && !live.empty()) {
            while (!live.empty()) release(live.size() - 1);
        } else if (seq == events * 3 / 4) {
            allocate(64 << 20);
            release(live.size() - 1);
        } else if (live.size() < 500 || (live.size() < 1500 && random() % 2)) {
            allocate(16 + random() % 4000);
        } else {
            release(random() % live.size());
        }
    }
    log.write(path);
}

}  // namespace

TEST_CASE("trace-events: a block counts for the thread that allocated it until any thread frees it") {
    const std::string path = scratch("threads.memlog"), out = scratch("threads.json");
    LogBuilder log;
    log.thread(1).malloc(1, 0x1000, 100).malloc(2, 0x2000, 50);
    log.thread(2).free(3, 0x1000).malloc(4, 0x3000, 7);
    log.thread(1).free(5, 0x3000);
    log.write(path);
    const Result r = runMemlog("trace-events " + path + " -o " + out);
    REQUIRE(r.m_status == 0);
    auto said = readWithPython(out);
    CHECK(said["ordered"] == "yes");
    CHECK(said["live_bytes"] == "150 50 5");  // 100, 150, 50, 57, 50
    CHECK(said["live_bytes,_thread_1"] == "150 50 3");  // 100, 150, 50
    CHECK(said["live_bytes,_thread_2"] == "7 0 2");  // its own block: 7, then 0 when thread 1 freed it
    CHECK(said["live_blocks,_thread_1"] == "2 1 3");
    unlink(path.c_str());
    unlink(out.c_str());
}

TEST_CASE("trace-events: anomalies, the fork before the log and the exec that ended it are instants") {
    const std::string path = scratch("instants.memlog");
    LogBuilder log;
    log.header().m_flags |= memlog::format::kFlagForkChild;
    log.header().m_parentPid = 77;
    log.header().m_endReason = memlog::format::EndReason::Exec;
    log.thread(1).malloc(1, 0x1000, 10).free(2, 0x1000).free(3, 0x1000).free(4, 0x1000).free(5, 0x5555);
    log.write(path);
    const Result r = runMemlog("trace-events " + path + " -o -");
    REQUIRE(r.m_status == 0);
    const std::string& json = r.m_stdout;
    CHECK(json.find("{\"name\":\"fork\",\"cat\":\"process\",\"ph\":\"i\",\"s\":\"p\",\"pid\":4242,\"tid\":4242,"
                    "\"ts\":0.000,\"args\":{\"parent_pid\":77}}") != std::string::npos);
    CHECK(json.find("{\"name\":\"exec\",\"cat\":\"process\"") != std::string::npos);
    // Two double frees 1 us apart: an interval (1 us at first) each, each told with its count.
    CHECK(json.find("{\"name\":\"double free\",\"cat\":\"anomaly\",\"ph\":\"i\",\"s\":\"t\",\"pid\":4242,\"tid\":1,"
                    "\"ts\":3.000,\"args\":{\"address\":\"0x1000\",\"count\":1}}") != std::string::npos);
    CHECK(json.find("\"name\":\"unknown free\"") != std::string::npos);
    const std::string out = scratch("instants.json");
    REQUIRE(runMemlog("trace-events " + path + " -o " + out).m_status == 0);
    auto said = readWithPython(out);
    CHECK(said["instant_double_free"] == "2");
    CHECK(said["instant_unknown_free"] == "1");
    CHECK(said["instant_fork"] == "1");
    CHECK(said["ordered"] == "yes");
    unlink(path.c_str());
    unlink(out.c_str());
}

TEST_CASE("trace-events: at most 16 threads have tracks, those with the highest peaks of their own") {
    const std::string path = scratch("many.memlog"), out = scratch("many.json");
    LogBuilder log;
    for (uint32_t tid = 1; tid <= 20; ++tid) log.thread(tid).malloc(tid, 0x1000 * tid, tid * 10);
    log.write(path);
    REQUIRE(runMemlog("trace-events " + path + " -o " + out).m_status == 0);
    auto said = readWithPython(out);
    CHECK(said["threads_left_out"] == "4");
    CHECK(said.count("live_bytes,_thread_5") == 1);
    CHECK(said.count("live_bytes,_thread_4") == 0);  // 40 bytes: among the four lowest
    unlink(path.c_str());
    unlink(out.c_str());
}

TEST_CASE("trace-events of a long log: the peak as stat says it, the trough, ordered times, a bounded size") {
    const std::string small = scratch("small.memlog"), large = scratch("large.memlog");
    writeChurn(small, 20'000, 4);
    writeChurn(large, 2'000'000, 4);
    const memlog::timeline::TraceEventBounds bounds;
    // The counters can hold at most three points an interval: the process's two series and four
    // threads' two each.
    const uint64_t mostCounterEvents =
        3 * (2 * bounds.m_processIntervals + 4 * 2 * bounds.m_threadIntervals);
    std::map<std::string, uint64_t> sizes;
    for (const std::string& log : {small, large}) {
        INFO(log);
        const std::string out = log + ".json";
        const Result r = runMemlog("trace-events " + log + " -o " + out);
        REQUIRE(r.m_status == 0);
        auto said = readWithPython(out);
        CHECK(said["ordered"] == "yes");
        std::istringstream process(said["live_bytes"]);
        uint64_t highest = 0, lowest = 0, points = 0;
        process >> highest >> lowest >> points;
        CHECK(highest == peakBytesOf(log));
        CHECK(highest > (64u << 20));
        CHECK(lowest == 0);  // the middle, when everything was freed
        CHECK(std::stoull(said["events"]) <= mostCounterEvents + 10);
        sizes[log] = fileBytes(out);
        unlink(out.c_str());
    }
    // A hundred times the events, and a file no larger than the bound allows: about 100 bytes an event.
    CHECK(fileBytes(large) > 50 * fileBytes(small));
    CHECK(sizes[large] < mostCounterEvents * 110);
    CHECK(sizes[large] < 2'500'000);
    unlink(small.c_str());
    unlink(large.c_str());
}

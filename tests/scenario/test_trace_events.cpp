// memlog trace-events on real runs: the fork child of fork_exec (its parent's pid, the exec that
// ended its log, the free of a block it inherited) and annotated_grid's memlog_phase() marks at
// their moments; valid JSON, times that never decrease, and the peak `memlog stat` gives.
#include <catch2/catch.hpp>

#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>

#include "run_program.hpp"
#include "timeline/read/log_reader.hpp"

using namespace memlog::test;
namespace fs = std::filesystem;

namespace {

std::string traceEventsOf(const std::string& log) {
    const Outcome outcome = runWithoutRecorder({memlogCli(), "trace-events", log, "-o", "-"});
    INFO(outcome.m_stderr);
    REQUIRE(outcome.m_exitStatus == 0);
    return outcome.m_stdout;
}

// The file as python3's json module reads it: exit status 0 when it parses.
bool validJson(const std::string& json, const std::string& directory) {
    const std::string path = directory + "/events.json";
    FILE* file = std::fopen(path.c_str(), "w");
    std::fwrite(json.data(), 1, json.size(), file);
    std::fclose(file);
    return std::system(("python3 -c 'import json, sys; json.load(open(sys.argv[1]))' " + path).c_str()) == 0;
}

// Each event is a line: its "ts" in order, and the highest "live bytes" of the process.
void checkTimesAndPeak(const std::string& json, uint64_t peakBytes) {
    std::istringstream lines(json);
    double last = -1;
    uint64_t highest = 0;
    for (std::string line; std::getline(lines, line);) {
        const size_t ts = line.find("\"ts\":");
        if (ts == std::string::npos) continue;
        const double time = std::stod(line.substr(ts + 5));
        CHECK(time >= last);
        last = time;
        if (line.find("{\"name\":\"live bytes\",") == 0)
            highest = std::max<uint64_t>(highest, std::stoull(line.substr(line.find("\"bytes\":") + 8)));
    }
    CHECK(highest == peakBytes);
}

}  // namespace

TEST_CASE("trace-events of a fork child: its parent, the exec that ended its log, the free it could not place") {
    const Outcome outcome = recordQuietly({scenarioPath("fork_exec")});
    REQUIRE(outcome.m_exitStatus == 0);
    REQUIRE(outcome.m_logs.size() == 3);
    int children = 0;
    for (const std::string& log : outcome.m_logs) {
        memlog::timeline::LogReader reader(log);
        const memlog::format::FileHeader header = reader.header();
        if (!(header.m_flags & memlog::format::kFlagForkChild)) continue;
        ++children;
        const std::string json = traceEventsOf(log);
        CHECK(validJson(json, outcome.m_directory));
        CHECK(json.find("{\"name\":\"fork\",\"cat\":\"process\",\"ph\":\"i\",\"s\":\"p\",\"pid\":" +
                        std::to_string(header.m_pid) + ",\"tid\":" + std::to_string(header.m_pid) +
                        ",\"ts\":0.000,\"args\":{\"parent_pid\":" + std::to_string(header.m_parentPid) + "}}") !=
              std::string::npos);
        CHECK(json.find("{\"name\":\"exec\",\"cat\":\"process\",\"ph\":\"i\",\"s\":\"p\"") != std::string::npos);
        CHECK(json.find("{\"name\":\"unknown free\",\"cat\":\"anomaly\"") != std::string::npos);
        CHECK(json.find("\"count\":1}}") != std::string::npos);
        checkTimesAndPeak(json, summaryOf(log).m_peakBytes);
    }
    CHECK(children == 1);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("trace-events: memlog_phase() marks are instants at their moments, named as the program named them") {
    const Outcome outcome = recordQuietly({scenarioPath("annotated_grid")});
    REQUIRE(outcome.m_exitStatus == 0);
    REQUIRE(outcome.m_logs.size() == 1);
    const std::string json = traceEventsOf(outcome.m_logs[0]);
    CHECK(validJson(json, outcome.m_directory));
    memlog::timeline::LogReader reader(outcome.m_logs[0]);
    reader.forEachEvent([](const memlog::timeline::Event&) {});
    int phases = 0;
    for (const auto& annotation : reader.annotations()) {
        if (annotation.m_what != memlog::format::AnnotationKind::Phase) continue;
        ++phases;
        char ts[48];
        std::snprintf(ts, sizeof ts, "%" PRIu64 ".%03" PRIu64, annotation.m_timeNs / 1000, annotation.m_timeNs % 1000);
        INFO(annotation.m_text);
        CHECK(json.find("{\"name\":\"" + annotation.m_text + "\",\"cat\":\"phase\",\"ph\":\"i\",\"s\":\"p\"") !=
              std::string::npos);
        CHECK(json.find("\"ts\":" + std::string(ts) + ",\"args\":{\"count\":1}}") != std::string::npos);
    }
    CHECK(phases == 2);  // fill, smooth
    checkTimesAndPeak(json, summaryOf(outcome.m_logs[0]).m_peakBytes);
    fs::remove_all(outcome.m_directory);
}

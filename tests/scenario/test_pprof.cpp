// memlog pprof read back by pprof itself (`go tool pprof -raw`, Debian's golang-go) and compared
// with `memlog sites` and `memlog stat` on the same log of profile_sites: the four sample types,
// a C++ inline helper's frames, a leak in use at the end; a sampled log of sampled_sites, its
// period and its estimates. Without go the tests say skipped (77).
#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "run_program.hpp"
#include "timeline/read/log_reader.hpp"

using namespace memlog::test;
namespace fs = std::filesystem;

namespace {

void skipWithoutGo() {
    if (std::system("go version >/dev/null 2>&1") == 0) return;
    std::printf("skipped: no go to run `go tool pprof` (scripts/deps installs golang-go)\n");
    std::fflush(stdout);  // _Exit flushes nothing: the reason would be lost
    std::_Exit(77);
}

std::string baseName(const std::string& path) { return fs::path(path).filename().string(); }

// What `go tool pprof -raw` prints of a profile.
struct RawProfile {
    struct Line {
        std::string m_function, m_file;
        uint32_t m_line = 0;
    };
    struct Sample {
        std::array<uint64_t, 4> m_values{};
        std::vector<uint64_t> m_locations;  // leaf first
    };
    std::string m_comment, m_types, m_time, m_duration;  // Time: and Duration: as pprof prints them
    std::string m_periodType, m_period;  // PeriodType: and Period:, printed when set
    std::vector<Sample> m_samples;
    std::map<uint64_t, std::vector<Line>> m_locations;  // lines innermost first
    std::vector<std::string> m_mappings;
};

RawProfile readProfile(const std::string& file) {
    const Outcome pprof = runWithoutRecorder({"go", "tool", "pprof", "-raw", "-symbolize=none", file});
    INFO(pprof.m_stderr);
    REQUIRE(pprof.m_exitStatus == 0);
    RawProfile raw;
    static const std::regex sample(R"(^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+):((?: \d+)*) ?$)");
    static const std::regex location(R"(^\s*(\d+): 0x[0-9a-f]+ (?:M=\d+ )?(.*) (\S*):(\d+) s=\d+$)");
    static const std::regex inlined(R"(^\s+(.*) (\S*):(\d+) s=\d+$)");
    std::istringstream lines(pprof.m_stdout);
    std::string section;
    uint64_t lastLocation = 0;
    for (std::string line; std::getline(lines, line);) {
        std::smatch m;
        if (line.rfind("Comment: ", 0) == 0) {
            raw.m_comment = line.substr(9);
        } else if (line.rfind("Time: ", 0) == 0) {
            raw.m_time = line.substr(6);
        } else if (line.rfind("Duration: ", 0) == 0) {
            raw.m_duration = line.substr(10);
        } else if (line.rfind("PeriodType: ", 0) == 0) {
            raw.m_periodType = line.substr(12);
        } else if (line.rfind("Period: ", 0) == 0) {
            raw.m_period = line.substr(8);
        } else if (line == "Samples:" || line == "Locations" || line == "Mappings") {
            section = line;
        } else if (section == "Samples:" && raw.m_types.empty()) {
            raw.m_types = line;
        } else if (section == "Samples:" && std::regex_match(line, m, sample)) {
            RawProfile::Sample s;
            for (size_t i = 0; i < 4; ++i) s.m_values[i] = std::stoull(m[i + 1]);
            std::istringstream ids(m[5].str());
            for (uint64_t id; ids >> id;) s.m_locations.push_back(id);
            raw.m_samples.push_back(s);
        } else if (section == "Locations" && std::regex_match(line, m, location)) {
            lastLocation = std::stoull(m[1]);
            raw.m_locations[lastLocation].push_back({m[2], m[3], static_cast<uint32_t>(std::stoul(m[4]))});
        } else if (section == "Locations" && std::regex_match(line, m, inlined)) {
            raw.m_locations[lastLocation].push_back({m[1], m[2], static_cast<uint32_t>(std::stoul(m[3]))});
        } else if (section == "Mappings") {
            raw.m_mappings.push_back(line);
        }
    }
    return raw;
}

// The sample values per site, keyed as `memlog sites --csv` names a row of a function with a line:
// "function|file:line|inlined_in", the site being the leaf location's innermost line.
std::map<std::string, std::array<uint64_t, 4>> valuesBySite(const RawProfile& raw) {
    std::map<std::string, std::array<uint64_t, 4>> sites;
    for (const RawProfile::Sample& sample : raw.m_samples) {
        REQUIRE(!sample.m_locations.empty());
        const auto& lines = raw.m_locations.at(sample.m_locations.front());
        REQUIRE(!lines.empty());
        const RawProfile::Line& site = lines.front();
        // pprof keeps the outer function's parameter list (build_table()); `memlog sites` writes
        // inlined_in as the site's function is written, here without one.
        const std::string outer =
            lines.size() > 1 && lines.back().m_function != site.m_function ? lines.back().m_function : "";
        const std::string inlinedIn = outer.substr(0, outer.find('('));
        auto& values = sites[site.m_function + "|" + baseName(site.m_file) + ":" + std::to_string(site.m_line) + "|" +
                             inlinedIn];
        for (size_t i = 0; i < 4; ++i) values[i] += sample.m_values[i];
    }
    return sites;
}

struct SiteLine {
    uint64_t m_calls, m_bytes, m_peak, m_leaked, m_leakedBlocks, m_suppressed, m_suppressedBlocks;
};

// `memlog sites --csv --top 0`, the rows of the program's own module, keyed as valuesBySite().
std::map<std::string, SiteLine> programSites(const std::string& log, const std::string& program = "profile_sites") {
    const Outcome sites = runWithoutRecorder({memlogCli(), "sites", log, "--csv", "--top", "0"});
    REQUIRE(sites.m_exitStatus == 0);
    std::map<std::string, SiteLine> rows;
    std::istringstream lines(sites.m_stdout);
    for (std::string line; std::getline(lines, line);) {
        std::vector<std::string> f;
        std::istringstream fields(line);
        for (std::string field; std::getline(fields, field, ',');) f.push_back(field);
        if (line.back() == ',') f.push_back("");
        // Up to mapped_at_exit_regions (a sampled log's intervals follow).
        if ((f.size() != 13 && f.size() != 21) || f[2] != program) continue;
        REQUIRE(line.find('"') == std::string::npos);  // no quoted fields among these rows
        rows[f[0] + "|" + f[1] + "|" + f[10]] = {std::stoull(f[3]), std::stoull(f[4]), std::stoull(f[5]),
                                                std::stoull(f[6]), std::stoull(f[7]), std::stoull(f[8]),
                                                std::stoull(f[9])};
    }
    return rows;
}

struct Recorded {
    std::string m_directory, m_log;
    Recorded() {
        const Outcome outcome = recordQuietly({scenarioPath("profile_sites")});
        REQUIRE(outcome.m_exitStatus == 0);
        REQUIRE(outcome.m_logs.size() == 1);
        m_directory = outcome.m_directory;
        m_log = outcome.m_logs[0];
    }
    ~Recorded() { fs::remove_all(m_directory); }
    RawProfile profile(const std::vector<std::string>& options) const {
        const std::string file = m_directory + "/heap.pb.gz";
        std::vector<std::string> argv = {memlogCli(), "pprof", m_log, "-o", file};
        argv.insert(argv.end(), options.begin(), options.end());
        const Outcome written = runWithoutRecorder(argv);
        INFO(written.m_stderr);
        REQUIRE(written.m_exitStatus == 0);
        return readProfile(file);
    }
};

std::string site(const char* function, const char* marker, const char* inlinedIn = "") {
    return std::string(function) + "|profile_sites.cpp:" + std::to_string(scenarioLine("profile_sites.cpp", marker)) +
           "|" + inlinedIn;
}

template <typename Pick>
uint64_t total(const RawProfile& raw, Pick pick) {
    uint64_t sum = 0;
    for (const auto& sample : raw.m_samples) sum += pick(sample.m_values);
    return sum;
}

}  // namespace

TEST_CASE("pprof at the end: the four sample types equal memlog sites row by row, the leak in use") {
    skipWithoutGo();
    const Recorded recorded;
    const RawProfile raw = recorded.profile({});
    CHECK(raw.m_types == "alloc_objects/count alloc_space/bytes inuse_objects/count inuse_space/bytes[dflt]");
    CHECK(raw.m_comment.find("in use at the end of the log") != std::string::npos);
    // time_nanos and duration_nanos: pprof prints each only when it is set (not 0).
    CHECK(raw.m_time.rfind("20", 0) == 0);  // a date: the recording's start
    CHECK(!raw.m_duration.empty());
    CHECK(raw.m_duration.find_first_of("123456789") != std::string::npos);
    const auto profiled = valuesBySite(raw);
    const auto sites = programSites(recorded.m_log);
    REQUIRE(sites.size() == 4);  // churn, grab_bytes in two functions, leak_nodes
    for (const auto& [key, row] : sites) {
        INFO(key);
        REQUIRE(profiled.count(key) == 1);
        const auto& values = profiled.at(key);
        CHECK(values[0] == row.m_calls);
        CHECK(values[1] == row.m_bytes);
        CHECK(values[2] == row.m_leakedBlocks + row.m_suppressedBlocks);
        CHECK(values[3] == row.m_leaked + row.m_suppressed);
    }
    // The numbers the scenario states.
    CHECK(profiled.at(site("grab_bytes", "site:grab_bytes", "build_table")) == std::array<uint64_t, 4>{4, 4096, 0, 0});
    CHECK(profiled.at(site("grab_bytes", "site:grab_bytes", "build_index")) == std::array<uint64_t, 4>{2, 1024, 0, 0});
    CHECK(profiled.at(site("churn()", "site:churn")) == std::array<uint64_t, 4>{100, 6400, 0, 0});
    CHECK(profiled.at(site("leak_nodes()", "site:leak_nodes")) == std::array<uint64_t, 4>{7, 336, 7, 336});
    // The whole log: every block begun, and what was live at the end, suppressed or not.
    const auto summary = summaryOf(recorded.m_log);
    CHECK(total(raw, [](const auto& v) { return v[0]; }) == summary.m_allocations);
    CHECK(total(raw, [](const auto& v) { return v[2]; }) == summary.m_leakedBlocks + summary.m_suppressedBlocks);
    CHECK(total(raw, [](const auto& v) { return v[3]; }) == summary.m_leakedBytes + summary.m_suppressedBytes);
}

TEST_CASE("pprof at the peak: inuse_space is memlog sites' peak, inuse_objects adds up to the blocks then") {
    skipWithoutGo();
    const Recorded recorded;
    const RawProfile raw = recorded.profile({"--at", "peak"});
    CHECK(raw.m_comment.find("in use at the byte peak") != std::string::npos);
    const auto profiled = valuesBySite(raw);
    for (const auto& [key, row] : programSites(recorded.m_log)) {
        INFO(key);
        CHECK(profiled.at(key)[3] == row.m_peak);
    }
    CHECK(profiled.at(site("grab_bytes", "site:grab_bytes", "build_table")) == std::array<uint64_t, 4>{4, 4096, 4, 4096});
    CHECK(profiled.at(site("churn()", "site:churn"))[2] == 0);  // each deleted before the peak
    const auto summary = summaryOf(recorded.m_log);
    CHECK(total(raw, [](const auto& v) { return v[3]; }) == summary.m_peakBytes);
    CHECK(total(raw, [](const auto& v) { return v[2]; }) == summary.m_blocksAtPeak);
}

TEST_CASE("pprof at a time: nothing in use before the first block, the end's values after the last") {
    skipWithoutGo();
    const Recorded recorded;
    const RawProfile before = recorded.profile({"--at", "0ns"});
    CHECK(total(before, [](const auto& v) { return v[2] + v[3]; }) == 0);
    CHECK(total(before, [](const auto& v) { return v[0]; }) == summaryOf(recorded.m_log).m_allocations);
    const auto after = valuesBySite(recorded.profile({"--at", "1000s"}));
    CHECK(after == valuesBySite(recorded.profile({"--at", "end"})));
}

TEST_CASE("pprof locations: an inline helper is a line of its caller's location, innermost first, and modules are mappings with build ids") {
    skipWithoutGo();
    const Recorded recorded;
    const RawProfile raw = recorded.profile({});
    const uint32_t helperLine = scenarioLine("profile_sites.cpp", "site:grab_bytes");
    int inlinedLocations = 0;
    for (const auto& [id, lines] : raw.m_locations) {
        if (lines.front().m_function != "grab_bytes") continue;
        ++inlinedLocations;
        REQUIRE(lines.size() == 2);
        CHECK(lines[0].m_line == helperLine);
        CHECK((lines[1].m_function == "build_table()" || lines[1].m_function == "build_index()"));
        CHECK(baseName(lines[1].m_file) == "profile_sites.cpp");
    }
    CHECK(inlinedLocations >= 2);  // one return address at least in each function
    // No allocator frame is left: every sample starts at a site of the program or a library's own.
    for (const auto& sample : raw.m_samples) {
        const std::string& leaf = raw.m_locations.at(sample.m_locations.front()).front().m_function;
        CHECK(leaf.find("operator new") == std::string::npos);
        CHECK(leaf.find("malloc") == std::string::npos);
    }
    // The program's mapping: its path and the build id the log recorded.
    memlog::timeline::LogReader reader(recorded.m_log);
    reader.forEachEvent([](const memlog::timeline::Event&) {});
    std::string buildId, path;
    for (const auto& module : reader.modules())
        if (baseName(module.m_path) == "profile_sites") buildId = module.m_buildId, path = module.m_path;
    REQUIRE(!buildId.empty());
    bool mapped = false;
    for (const std::string& mapping : raw.m_mappings)
        mapped |= mapping.find(" " + path + " " + buildId + " ") != std::string::npos;
    CHECK(mapped);
}

TEST_CASE("pprof of a sampled log: the period is the mean gap, the values memlog sites' estimates") {
    skipWithoutGo();
    Run run;
    run.m_argv = {scenarioPath("sampled_sites"), "sites"};
    run.m_env = {{"MEMLOG_QUIET", "1"}, {"MEMLOG_SAMPLE", "64K"}, {"MEMLOG_SAMPLE_SEED", "7"}};
    const Outcome recorded = runProgram(run);
    REQUIRE(recorded.m_exitStatus == 0);
    REQUIRE(recorded.m_logs.size() == 1);
    const std::string log = recorded.m_logs[0], file = recorded.m_directory + "/heap.pb.gz";
    auto profile = [&](const char* at) {
        const Outcome written = runWithoutRecorder({memlogCli(), "pprof", log, "-o", file, "--at", at});
        INFO(written.m_stderr);
        REQUIRE(written.m_exitStatus == 0);
        return readProfile(file);
    };
    const RawProfile end = profile("end");
    CHECK(end.m_periodType == "space bytes");
    CHECK(end.m_period == "65536");
    CHECK(end.m_comment.find("sampled, one allocation per 65536 bytes on average: estimates from ") !=
          std::string::npos);
    const auto sites = programSites(log, "sampled_sites");
    const auto atEnd = valuesBySite(end), atPeak = valuesBySite(profile("peak"));
    REQUIRE(sites.size() == 4);  // small, medium, large and leak_site
    for (const auto& [key, row] : sites) {
        INFO(key);
        REQUIRE(atEnd.count(key) == 1);
        CHECK(atEnd.at(key)[0] == row.m_calls);
        CHECK(atEnd.at(key)[1] == row.m_bytes);
        CHECK(atEnd.at(key)[2] == row.m_leakedBlocks + row.m_suppressedBlocks);
        CHECK(atEnd.at(key)[3] == row.m_leaked + row.m_suppressed);
        CHECK(atPeak.at(key)[3] == row.m_peak);
    }
    // Estimates, not the samples: medium_site's 2000 blocks of 4096 bytes, of which about 121 are
    // sampled (p = 6 %), count for about 2000 (five standard deviations: 2000 +- 870).
    const auto medium = atEnd.at("medium_site|sampled_sites.c:" +
                                 std::to_string(scenarioLine("sampled_sites.c", "medium_site(void)")) + "|");
    CHECK(medium[0] > 1130);
    CHECK(medium[0] < 2870);
    CHECK(medium[1] + 4096 > medium[0] * 4096);  // each rounded on its own
    CHECK(medium[1] < medium[0] * 4096 + 4096);
    fs::remove_all(recorded.m_directory);
}

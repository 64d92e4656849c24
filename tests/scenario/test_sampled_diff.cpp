// memlog diff on sampled logs of sampled_sites (scenarios/sampled_sites.c, fixed seeds): two
// samplings of one program change nothing significantly; medium_site allocating twice as much is
// a significant change whose interval holds the truth; the head says which run is sampled, and
// the whole logs' estimated peak and leaks change with their intervals too.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "run_program.hpp"

using namespace memlog::test;
namespace fs = std::filesystem;

namespace {

// The runs' logs, each left where its run wrote it; every run's directory removed at the end.
struct Logs {
    std::vector<std::string> m_directories;
    ~Logs() {
        for (const std::string& directory : m_directories) fs::remove_all(directory);
    }

    // sampled_sites with `arguments`, sampled at a 64 KiB mean gap from `seed` (none: a full log).
    std::string record(std::vector<std::string> arguments, const char* seed) {
        Run run;
        run.m_argv = {scenarioPath("sampled_sites")};
        run.m_argv.insert(run.m_argv.end(), arguments.begin(), arguments.end());
        run.m_env["MEMLOG_QUIET"] = "1";
        if (seed) {
            run.m_env["MEMLOG_SAMPLE"] = "64K";
            run.m_env["MEMLOG_SAMPLE_SEED"] = seed;
        }
        const Outcome outcome = runProgram(run);
        m_directories.push_back(outcome.m_directory);
        INFO(outcome.m_stderr);
        REQUIRE(outcome.m_exitStatus == 0);
        REQUIRE(outcome.m_logs.size() == 1);
        return outcome.m_logs[0];
    }
};

// `memlog diff --csv --top 0`: each row's fields by column name, rows by function.
std::map<std::string, std::map<std::string, std::string>> csvRows(const std::string& base, const std::string& newer) {
    std::istringstream lines(memlogSays({"diff", base, newer, "--csv", "--top", "0"}));
    auto split = [](const std::string& line) {
        std::vector<std::string> fields;
        std::istringstream in(line);
        for (std::string field; std::getline(in, field, ',');) fields.push_back(field);
        if (!line.empty() && line.back() == ',') fields.push_back("");
        return fields;
    };
    std::string head;
    std::getline(lines, head);
    const auto names = split(head);
    std::map<std::string, std::map<std::string, std::string>> rows;
    for (std::string line; std::getline(lines, line);) {
        if (line.find('"') != std::string::npos) continue;  // a runtime's row with a quoted name
        const auto fields = split(line);
        REQUIRE(fields.size() == names.size());
        auto& row = rows[fields[0]];
        for (size_t i = 0; i < names.size(); ++i) row[names[i]] = fields[i];
    }
    return rows;
}

const char* const kColumns[] = {"calls", "bytes", "peak_bytes", "leaked_bytes", "leaked_blocks"};
const char* const kSites[] = {"small_site", "medium_site", "large_site", "leak_site"};

}  // namespace

TEST_CASE("sampled diff: two samplings of the same run (seeds 7 and 8) change no site significantly") {
    Logs logs;
    const std::string base = logs.record({"sites"}, "7"), newer = logs.record({"sites"}, "8");
    const auto rows = csvRows(base, newer);
    for (const char* site : kSites) REQUIRE(rows.count(site) == 1);
    for (const auto& [function, row] : rows)
        for (const char* column : kColumns) {
            INFO(function << " " << column << ": " << row.at(std::string(column) + "_delta") << " in ["
                          << row.at(std::string(column) + "_delta_ci95_low") << ", "
                          << row.at(std::string(column) + "_delta_ci95_high") << "]");
            CHECK(row.at(std::string(column) + "_significant") == "false");
        }
    // The seeds sampled differently: the estimates differ, and the intervals are wide enough to
    // say so (a variance left out would make them points, and these changes significant).
    const auto& medium = rows.at("medium_site");
    CHECK(medium.at("bytes_delta") != "0");
    CHECK(std::stoll(medium.at("bytes_delta_ci95_low")) < 0);
    CHECK(std::stoll(medium.at("bytes_delta_ci95_high")) > 0);
    // 1 MiB blocks are sampled but for e^-16: the same 20 in both, to within a few bytes.
    CHECK(rows.at("large_site").at("calls_delta") == "0");
    CHECK(rows.at("large_site").at("calls_delta_ci95_low") == "0");
    CHECK(rows.at("large_site").at("calls_delta_ci95_high") == "0");
    // The whole logs' estimates neither.
    const std::string json = memlogSays({"diff", base, newer, "--json"});
    CHECK(json.find("\"estimated_peak_bytes_significant\":false") != std::string::npos);
    CHECK(json.find("\"estimated_leaked_bytes_significant\":false") != std::string::npos);
}

TEST_CASE("sampled diff: a site allocating twice as much is a significant change, its interval holding the truth") {
    Logs logs;
    const std::string base = logs.record({"sites"}, "7"), newer = logs.record({"sites", "2"}, "8");
    const auto rows = csvRows(base, newer);
    const auto& medium = rows.at("medium_site");
    CHECK(medium.at("bytes_significant") == "true");
    CHECK(medium.at("calls_significant") == "true");
    CHECK(medium.at("peak_bytes_significant") == "true");  // all of it live at the peak
    CHECK(medium.at("leaked_bytes_significant") == "false");  // nothing leaks, in either run
    // The truth: 2000 more blocks of 4096 bytes.
    CHECK(std::stoll(medium.at("bytes_delta_ci95_low")) <= 2000 * 4096);
    CHECK(std::stoll(medium.at("bytes_delta_ci95_high")) >= 2000 * 4096);
    CHECK(std::stoll(medium.at("calls_delta_ci95_low")) <= 2000);
    CHECK(std::stoll(medium.at("calls_delta_ci95_high")) >= 2000);
    // The text: the head says both runs are sampled, medium_site's row that the change is significant.
    const std::string text = memlogSays({"diff", base, newer});
    CHECK(text.find("base  sampled: one allocation per 65536 bytes on average, ") != std::string::npos);
    CHECK(text.find("new   sampled: one allocation per 65536 bytes on average, ") != std::string::npos);
    std::istringstream lines(text);
    bool shown = false;
    for (std::string line; std::getline(lines, line);)
        if (line.find(" medium_site ") != std::string::npos) {
            shown = true;
            CHECK(line.find(" yes | both ") != std::string::npos);
        }
    CHECK(shown);
    // JSON: the sampled logs and each change's interval.
    const std::string json = memlogSays({"diff", base, newer, "--json"});
    CHECK(json.find("\"sampling_mean_bytes\":65536,\"samples\":") != std::string::npos);
    CHECK(json.find("\"bytes_significant\":true") != std::string::npos);
    CHECK(json.find("\"estimated_peak_bytes_significant\":true") != std::string::npos);  // 8 MB more at once
}

TEST_CASE("sampled diff: a full log against a sampled one, only the sampled side's variance") {
    Logs logs;
    const std::string full = logs.record({"sites"}, nullptr), sampled = logs.record({"sites"}, "7");
    const std::string text = memlogSays({"diff", full, sampled});
    CHECK(text.find("base  sampled") == std::string::npos);
    CHECK(text.find("new   sampled: one allocation per 65536 bytes on average, ") != std::string::npos);
    const auto rows = csvRows(full, sampled);
    // The full log's values are exact: the intervals are the sampled run's alone, and hold the truth.
    for (const char* site : kSites) {
        INFO(site);
        const auto& row = rows.at(site);
        CHECK(std::stoll(row.at("bytes_delta_ci95_low")) <= 0);
        CHECK(std::stoll(row.at("bytes_delta_ci95_high")) >= 0);
    }
    CHECK(rows.at("medium_site").at("bytes_base") == std::to_string(2000 * 4096));
}

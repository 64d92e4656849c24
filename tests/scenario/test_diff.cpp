// memlog diff on two real runs of diff_runs (scenarios/diff_runs.c): a site changed, one steady,
// one only in each run, a leak added, with exact numbers in text, JSON and CSV; and the same
// sites matched when the new run's program was rebuilt with its code moved.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "run_program.hpp"
#include "timeline/read/log_reader.hpp"

using namespace memlog::test;
namespace fs = std::filesystem;

namespace {

// One run of a diff_runs build ("diff_runs" or "rebuilt/diff_runs") with "base" or "new"; the log
// is moved to `into`/NAME.memlog so that both runs' logs sit side by side.
std::string recordRun(const std::string& program, const std::string& which, const std::string& into) {
    const Outcome outcome = recordQuietly({scenarioPath(program), which});
    REQUIRE(outcome.m_exitStatus == 0);
    REQUIRE(outcome.m_logs.size() == 1);
    const std::string log = into + "/" + which + ".memlog";
    fs::rename(outcome.m_logs[0], log);
    fs::remove_all(outcome.m_directory);
    return log;
}

struct TwoRuns {
    std::string m_directory, m_base, m_new;
    explicit TwoRuns(const std::string& newProgram) {
        m_directory = fs::temp_directory_path() / ("memlog-diff-" + std::to_string(getpid()));
        fs::create_directories(m_directory);
        m_base = recordRun("diff_runs", "base", m_directory);
        m_new = recordRun(newProgram, "new", m_directory);
    }
    ~TwoRuns() { fs::remove_all(m_directory); }
};

std::string memlog(std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), memlogCli());
    const Outcome outcome = runWithoutRecorder(arguments);
    INFO(outcome.m_stderr);
    REQUIRE(outcome.m_exitStatus == 0);
    return outcome.m_stdout;
}

std::vector<std::string> words(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> out;
    for (std::string word; in >> word;) out.push_back(word);
    return out;
}

// The text rows by function (the word before the location, the last).
std::map<std::string, std::vector<std::string>> textRows(const std::string& text) {
    std::map<std::string, std::vector<std::string>> rows;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        const auto w = words(line);
        if (w.size() == 12 && w[2] == "|" && w[8] == "|" && w[11].find("diff_runs.c:") == 0) rows[w[10]] = w;
    }
    return rows;
}

std::string line(const char* marker) { return std::to_string(scenarioLine("diff_runs.c", marker)); }

// What every form of the output must say of the five sites, whichever diff_runs built the new run.
void checkEveryForm(const TwoRuns& runs) {
    SECTION("text: the sorted value of each run, every change, and where each row is") {
        const std::string text = memlog({"diff", runs.m_base, runs.m_new});
        const auto rows = textRows(text);
        using W = std::vector<std::string>;
        CHECK(rows.at("changed") == W{"10000", "30000", "|", "+20", "+20000", "+20000", "0", "0", "|", "both",
                                      "changed", "diff_runs.c:" + line("site:changed")});
        CHECK(rows.at("added") == W{"0", "1280", "|", "+5", "+1280", "+1280", "0", "0", "|", "new", "added",
                                    "diff_runs.c:" + line("site:added")});
        CHECK(rows.at("removed") == W{"384", "0", "|", "-3", "-384", "-384", "0", "0", "|", "base", "removed",
                                      "diff_runs.c:" + line("site:removed")});
        CHECK(rows.at("leaky") == W{"2000", "2000", "|", "0", "0", "0", "+1000", "+2", "|", "both", "leaky",
                                    "diff_runs.c:" + line("site:leaky")});
        CHECK(rows.at("steady") == W{"1280", "1280", "|", "0", "0", "0", "0", "0", "|", "both", "steady",
                                     "diff_runs.c:" + line("site:steady")});
        // Largest change of bytes first, up or down: changed, added, removed, then the rest.
        CHECK(text.find(" changed ") < text.find(" added "));
        CHECK(text.find(" added ") < text.find(" removed "));
        CHECK(text.find(" removed ") < text.find(" leaky "));
        // The head: the whole logs, as `memlog stat` reads each.
        const auto base = summaryOf(runs.m_base), newer = summaryOf(runs.m_new);
        std::istringstream lines(text);
        std::map<std::string, std::vector<std::string>> head;
        for (std::string l; std::getline(lines, l);)
            if (l.rfind("peak bytes", 0) == 0 || l.rfind("leaked blocks", 0) == 0 || l.rfind("events", 0) == 0)
                head[l.substr(0, l.find("  "))] = words(l);
        CHECK(head.at("peak bytes") == std::vector<std::string>{"peak", "bytes", std::to_string(base.m_peakBytes),
                                                                std::to_string(newer.m_peakBytes), "+20896"});
        CHECK(base.m_peakBytes == 13664);  // 1280 + 10000 + 384 + 2000: everything live at once
        CHECK(head.at("leaked blocks") == std::vector<std::string>{"leaked", "blocks", "0", "2", "+2"});
        CHECK(head.at("events") == std::vector<std::string>{"events", "74", "116", "+42"});
    }
    SECTION("--sort leaked puts the leak first; --top 2 keeps two rows") {
        const auto rows = textRows(memlog({"diff", runs.m_base, runs.m_new, "--sort", "leaked", "--top", "2"}));
        CHECK(rows.size() == 2);
        CHECK(rows.count("leaky") == 1);
    }
    SECTION("CSV: base, new and delta of every value, and which run a row is only in") {
        const std::string csv = memlog({"diff", runs.m_base, runs.m_new, "--csv", "--top", "0"});
        CHECK(csv.find("function,location,module,inlined_in,only_in,calls_base,calls_new,calls_delta,bytes_base,"
                       "bytes_new,bytes_delta,peak_bytes_base,peak_bytes_new,peak_bytes_delta,leaked_bytes_base,"
                       "leaked_bytes_new,leaked_bytes_delta,leaked_blocks_base,leaked_blocks_new,"
                       "leaked_blocks_delta\n") == 0);
        for (const std::string& row :
             {"changed,diff_runs.c:" + line("site:changed") +
                  ",diff_runs,,,10,30,20,10000,30000,20000,10000,30000,20000,0,0,0,0,0,0\n",
              "added,diff_runs.c:" + line("site:added") + ",diff_runs,,new,0,5,5,0,1280,1280,0,1280,1280,0,0,0,0,0,0\n",
              "removed,diff_runs.c:" + line("site:removed") +
                  ",diff_runs,,base,3,0,-3,384,0,-384,384,0,-384,0,0,0,0,0,0\n",
              "leaky,diff_runs.c:" + line("site:leaky") + ",diff_runs,,,4,4,0,2000,2000,0,2000,2000,0,0,1000,1000,0,2,2\n",
              "steady,diff_runs.c:" + line("site:steady") + ",diff_runs,,,20,20,0,1280,1280,0,1280,1280,0,0,0,0,0,0,0\n"}) {
            INFO(row);
            CHECK(csv.find("\n" + row) != std::string::npos);
        }
    }
    SECTION("JSON: the totals and each row's fields") {
        const std::string json = memlog({"diff", runs.m_base, runs.m_new, "--json", "--by", "function"});
        CHECK(json.find("\"by\":\"function\",\"sort\":\"bytes\"") != std::string::npos);
        CHECK(json.find("\"peak_bytes_base\":13664,\"peak_bytes_new\":34560,\"peak_bytes_delta\":20896") !=
              std::string::npos);
        CHECK(json.find("\"leaked_bytes_base\":0,\"leaked_bytes_new\":1000,\"leaked_bytes_delta\":1000,"
                        "\"leaked_blocks_base\":0,\"leaked_blocks_new\":2,\"leaked_blocks_delta\":2}") !=
              std::string::npos);
        CHECK(json.find("{\"function\":\"changed\",\"file\":") != std::string::npos);
        CHECK(json.find(",\"line\":0,\"module\":\"diff_runs\",\"inlined_in\":null,\"only_in\":null,\"calls_base\":10,"
                        "\"calls_new\":30,\"calls_delta\":20,\"bytes_base\":10000,\"bytes_new\":30000,"
                        "\"bytes_delta\":20000,\"peak_bytes_base\":10000,\"peak_bytes_new\":30000,"
                        "\"peak_bytes_delta\":20000,\"leaked_bytes_base\":0,\"leaked_bytes_new\":0,"
                        "\"leaked_bytes_delta\":0,\"leaked_blocks_base\":0,\"leaked_blocks_new\":0,"
                        "\"leaked_blocks_delta\":0}") != std::string::npos);
        CHECK(json.find("\"only_in\":\"new\",\"calls_base\":0,\"calls_new\":5,\"calls_delta\":5") != std::string::npos);
        CHECK(json.find("\"only_in\":\"base\",\"calls_base\":3,\"calls_new\":0,\"calls_delta\":-3") !=
              std::string::npos);
    }
}

// The build id the log recorded for the program's own module.
std::string programBuildId(const std::string& log) {
    memlog::timeline::LogReader reader(log);
    reader.forEachEvent([](const memlog::timeline::Event&) {});
    for (const auto& module : reader.modules())
        if (fs::path(module.m_path).filename() == "diff_runs") return module.m_buildId;
    return "";
}

// Where the program's `steady` is, as nm prints it (an offset in the PIE).
std::string symbolOffset(const std::string& program, const std::string& symbol) {
    std::istringstream lines(runWithoutRecorder({"nm", scenarioPath(program)}).m_stdout);
    for (std::string l; std::getline(lines, l);) {
        const auto w = words(l);
        if (w.size() == 3 && w[2] == symbol) return w[0];
    }
    return "";
}

// diff's head on a run that maps and never unmaps beside a real leak (mapped_at_exit.c: 12,000
// bytes leaked in 3 blocks; 3 MiB + 1 MiB - 64 KiB mapped at exit in 3 regions; the heap peaks
// at 12,500 bytes, the mappings at 4 MiB).
void checkMappedApart(const TwoRuns& runs) {
    const std::string mapped = recordRun("mapped_at_exit", "mapped", runs.m_directory);
    const std::string json = memlog({"diff", runs.m_base, mapped, "--json"});
    CHECK(json.find("\"leaked_bytes_new\":12000,") != std::string::npos);
    CHECK(json.find("\"leaked_blocks_new\":3,") != std::string::npos);
    CHECK(json.find("\"mapped_at_exit_bytes_base\":0,\"mapped_at_exit_bytes_new\":4128768,"
                    "\"mapped_at_exit_bytes_delta\":4128768") != std::string::npos);
    CHECK(json.find("\"mapped_at_exit_regions_new\":3,") != std::string::npos);
    CHECK(json.find("\"peak_heap_bytes_new\":12500,") != std::string::npos);
    CHECK(json.find("\"peak_mapped_bytes_new\":4194304,") != std::string::npos);
    CHECK(memlog({"diff", runs.m_base, mapped}).find("mapped at exit bytes") != std::string::npos);
}

}  // namespace

TEST_CASE("diff of two runs: a site changed, one steady, one only in each run and a leak added, exactly") {
    const TwoRuns runs("diff_runs");
    checkEveryForm(runs);
}

TEST_CASE("diff matches the sites of a program rebuilt between the runs: new build id, moved code, same lines") {
    // The premise: the rebuilt program's code is elsewhere and its build id differs.
    const std::string before = symbolOffset("diff_runs", "steady"), after = symbolOffset("rebuilt/diff_runs", "steady");
    REQUIRE(!before.empty());
    REQUIRE(!after.empty());
    CHECK(before != after);
    const TwoRuns runs("rebuilt/diff_runs");
    const std::string baseId = programBuildId(runs.m_base), newId = programBuildId(runs.m_new);
    CHECK(!baseId.empty());
    CHECK(!newId.empty());
    CHECK(baseId != newId);
    checkEveryForm(runs);
}

TEST_CASE("diff's head: mappings alive at exit apart from the leaks, the peak split, as the scenario states") {
    const TwoRuns runs("diff_runs");
    checkMappedApart(runs);
}

// Stacks become names: the site table, flame graph lines and top sites of a scenario whose
// allocation sites are known by name, count and source line (found by "site:" markers).
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "run_program.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/names/site_table.hpp"
#include "timeline/names/stack_names.hpp"
#include "timeline/names/site_index.hpp"

using namespace memlog::test;
using memlog::timeline::Metric;
namespace fs = std::filesystem;

namespace {

// The line of `marker` in a scenario's source file.
uint32_t markerLine(const std::string& file, const std::string& marker) {
    const uint32_t line = scenarioLine(file, marker);
    if (line == 0) FAIL("no marker " << marker << " in " << file);
    return line;
}

struct Recorded {
    Outcome m_outcome;
    std::string m_log;
    ~Recorded() { fs::remove_all(m_outcome.m_directory); }
};

std::unique_ptr<Recorded> record(const std::string& scenario) {
    auto recorded = std::make_unique<Recorded>();
    Run run;
    run.m_argv = {scenarioPath(scenario)};
    run.m_env["MEMLOG_QUIET"] = "1";
    recorded->m_outcome = runProgram(run);
    REQUIRE(recorded->m_outcome.m_exitStatus == 0);
    REQUIRE(recorded->m_outcome.m_logs.size() == 1);
    recorded->m_log = recorded->m_outcome.m_logs[0];
    return recorded;
}

// `environment`: assignments put before the command ("NAME=value ...").
std::string runCli(const std::string& arguments, const std::string& environment = "") {
    std::string output;
    FILE* pipe = popen((environment + " " + memlogCli() + " " + arguments + " 2>/dev/null").c_str(), "r");
    char buffer[4096];
    size_t got;
    while ((got = fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, got);
    REQUIRE(pclose(pipe) == 0);
    return output;
}

std::map<std::string, memlog::timeline::SiteRow> sitesByName(const std::string& log) {
    memlog::timeline::LogReader reader(log);
    const auto measured = memlog::timeline::measureStacks(reader);
    memlog::timeline::StackNames names(reader, {});
    std::map<std::string, memlog::timeline::SiteRow> rows;
    for (auto& row : memlog::timeline::siteTable(names, measured.m_stacks, Metric::Calls, 0))
        rows[row.m_site.m_function] = row;
    return rows;
}

// Flame lines from "main;" on, with their values.
std::map<std::string, uint64_t> flameFromMain(const std::string& log, const char* metric) {
    std::map<std::string, uint64_t> lines;
    std::istringstream flame(runCli("flame " + log + " --metric " + metric));
    std::string line;
    while (std::getline(flame, line)) {
        const size_t space = line.rfind(' ');
        size_t main = line.find(";main;");  // not __libc_start_call_main
        if (main == std::string::npos) continue;
        ++main;
        lines[line.substr(main, space - main)] += std::stoull(line.substr(space + 1));
    }
    return lines;
}

}  // namespace

TEST_CASE("the site table names functions, inlined helpers and dlopen'd code with exact numbers") {
    const auto recorded = record("allocation_sites");
    auto rows = sitesByName(recorded->m_log);
    struct Expected {
        const char* m_function;
        const char* m_file;
        uint64_t m_calls, m_bytes, m_leaked;
    };
    for (const Expected& e : {Expected{"make_small", "allocation_sites.c", 10, 1000, 0},
                              Expected{"grab", "allocation_sites.c", 3, 15000, 0},
                              Expected{"leak_some", "allocation_sites.c", 4, 1200, 1200},
                              Expected{"plugin_allocate", "plugin.c", 2, 8484, 0}}) {
        INFO(e.m_function);
        REQUIRE(rows.count(e.m_function) == 1);
        const auto& row = rows[e.m_function];
        CHECK(row.m_metrics.m_calls == e.m_calls);
        CHECK(row.m_metrics.m_bytes == e.m_bytes);
        CHECK(row.m_metrics.m_peakBytes == e.m_bytes);  // everything is live at the peak
        CHECK(row.m_metrics.m_leakedBytes == e.m_leaked);
        CHECK(fs::path(row.m_site.m_file).filename() == e.m_file);
        CHECK(row.m_site.m_line == markerLine(e.m_file, std::string("site:") + e.m_function));
    }
    CHECK(rows["grab"].m_site.m_inlined);
    CHECK(rows["plugin_allocate"].m_site.m_module == "libscenario_plugin.so");
}

TEST_CASE("collapsed stacks: outermost first, inlined helpers as frames of their own") {
    const auto recorded = record("allocation_sites");
    const auto calls = flameFromMain(recorded->m_log, "calls");
    CHECK(calls.at("main;make_small") == 10);
    CHECK(calls.at("main;make_large;grab") == 3);
    CHECK(calls.at("main;leak_some") == 4);
    CHECK(calls.at("main;plugin_allocate") == 2);
    const auto leaked = flameFromMain(recorded->m_log, "leaked");
    CHECK(leaked.at("main;leak_some") == 1200);
    CHECK(leaked.count("main;make_small") == 0);  // nothing of it leaked: no line
}

TEST_CASE("flame totals equal the totals of memlog stat, for every metric") {
    const auto recorded = record("allocation_sites");
    auto total = [&](const char* metric) {
        uint64_t sum = 0;
        std::istringstream flame(runCli("flame " + recorded->m_log + " --metric " + metric));
        std::string line;
        while (std::getline(flame, line)) sum += std::stoull(line.substr(line.rfind(' ') + 1));
        return sum;
    };
    const auto summary = summaryOf(recorded->m_log);
    CHECK(total("calls") == summary.m_allocations);
    CHECK(total("peak") == summary.m_peakBytes);
    // Leaked: what no suppression matches, as stat says it (the replay alone counts the runtime's
    // kept blocks too, such as the loader's state of the plugin left open).
    const std::string json = runCli("stat " + recorded->m_log + " --json");
    const size_t at = json.find("\"leaked_bytes\":");
    REQUIRE(at != std::string::npos);
    CHECK(total("leaked") == std::stoull(json.substr(at + 15)));
    CHECK(total("leaked") < summary.m_leakedBytes);
    // Bytes: the same total as the site table's, which sums the same blocks by site.
    uint64_t siteBytes = 0;
    for (const auto& [name, row] : sitesByName(recorded->m_log)) siteBytes += row.m_metrics.m_bytes;
    CHECK(total("bytes") == siteBytes);
}

TEST_CASE("a stripped build is still named, from its dynamic symbol table") {
    const auto recorded = record("allocation_sites_stripped");
    auto rows = sitesByName(recorded->m_log);
    CHECK(rows["make_small"].m_metrics.m_calls == 10);
    CHECK(rows["make_large"].m_metrics.m_calls == 3);  // grab was inlined, and no DWARF says so
    CHECK(rows["leak_some"].m_metrics.m_leakedBytes == 1200);
    CHECK(rows.count("grab") == 0);
}

TEST_CASE("stat lists top sites and dump --symbolize adds the site of every event") {
    const auto recorded = record("allocation_sites");
    const std::string json = runCli("stat " + recorded->m_log + " --json");
    CHECK(json.find("\"top_sites\":{\"calls\":[{\"function\":\"make_small\"") != std::string::npos);
    // The loader keeps some of dlopen's allocations after dlclose: main leaks more than leak_some.
    const size_t leaked = json.find("\"leaked\":[");
    REQUIRE(leaked != std::string::npos);
    CHECK(json.find("{\"function\":\"leak_some\"", leaked) < json.find("]", leaked));
    const std::string text = runCli("stat " + recorded->m_log);
    CHECK(text.find("top sites by calls") != std::string::npos);
    std::istringstream dump(runCli("dump " + recorded->m_log + " --csv --symbolize"));
    std::string line;
    std::getline(dump, line);
    CHECK(line == "seq,time_ns,tid,kind,addr,size,old_addr,stack_id,site");
    int makeSmall = 0;
    while (std::getline(dump, line))
        if (line.find(",malloc,") != std::string::npos && line.find(",100,") != std::string::npos &&
            line.size() > 11 && line.compare(line.size() - 11, 11, ",make_small") == 0)
            ++makeSmall;
    CHECK(makeSmall == 10);
}

// The names kept between runs (unwind/name_cache.hpp) give what libdw gives: the same output
// with none kept, kept by this run, read from an earlier run's files, and after those files
// were damaged. A run that found every name kept writes nothing: its files keep their inodes
// (a file is written aside and renamed over the old one).
TEST_CASE("stat and sites print the same from names kept by an earlier run as from the debug information") {
    const auto recorded = record("allocation_sites");
    const fs::path cache = fs::path(recorded->m_outcome.m_directory) / "cache";
    const std::string kept = "MEMLOG_CACHE_DIR=" + cache.string();
    const std::string commands[] = {"stat " + recorded->m_log + " --json", "sites " + recorded->m_log + " --by caller",
                                    "dump " + recorded->m_log + " --csv --symbolize"};
    auto inodes = [&] {
        std::map<std::string, uint64_t> found;
        for (const auto& entry : fs::directory_iterator(cache / "names")) {
            struct stat info {};
            REQUIRE(::stat(entry.path().c_str(), &info) == 0);
            found[entry.path().filename().string()] = info.st_ino;
        }
        return found;
    };
    for (const std::string& command : commands) {
        INFO(command);
        const std::string reference = runCli(command, "MEMLOG_CACHE_DIR=");
        fs::remove_all(cache);
        CHECK(runCli(command, kept) == reference);
        REQUIRE(fs::exists(cache / "names"));
        const auto written = inodes();
        CHECK(written.size() >= 2);  // the program and its libraries
        CHECK(runCli(command, kept) == reference);
        CHECK(inodes() == written);
        for (const auto& [name, inode] : written) std::ofstream(cache / "names" / name, std::ios::trunc) << "damaged";
        CHECK(runCli(command, kept) == reference);
        for (const auto& [name, inode] : inodes()) CHECK(fs::file_size(cache / "names" / name) > 64);
    }
}

TEST_CASE("a changed binary is reported once, not silently mis-named") {
    const auto recorded = record("allocation_sites");
    // Rewrite the build id recorded for the program: the binary on disk no longer matches.
    std::fstream log(recorded->m_log, std::ios::in | std::ios::out | std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(log)), {});
    memlog::timeline::LogReader reader(recorded->m_log);
    reader.forEachEvent([](const memlog::timeline::Event&) {});
    std::string buildId;
    for (const auto& module : reader.modules())
        if (module.m_path == reader.header().m_exe) buildId = module.m_buildId;
    REQUIRE(buildId.size() == 40);
    std::string raw;
    for (size_t i = 0; i < buildId.size(); i += 2) raw += static_cast<char>(std::stoi(buildId.substr(i, 2), nullptr, 16));
    size_t at = 0;
    int rewritten = 0;
    while ((at = bytes.find(raw, at)) != std::string::npos) {
        bytes[at] = static_cast<char>(bytes[at] ^ 0xff);
        ++rewritten;
    }
    REQUIRE(rewritten >= 1);
    log.seekp(0);
    log.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    log.close();
    std::vector<std::string> warnings;
    memlog::timeline::LogReader changed(recorded->m_log);
    changed.forEachEvent([](const memlog::timeline::Event&) {});
    memlog::timeline::StackNames names(changed, [&](const std::string& w) { warnings.push_back(w); });
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].find("has changed since the recording") != std::string::npos);
    CHECK(warnings[0].find(reader.header().m_exe) != std::string::npos);

    // The command line says it once, as a warning: -q and MEMLOG_LOG_LEVEL=error hide it, -v adds
    // what was read; the results on stdout stay the same.
    auto stat = [&](std::vector<std::string> options, const std::string& level) {
        Run run;
        run.m_preload = false;
        run.m_argv = {memlogCli()};
        run.m_argv.insert(run.m_argv.end(), options.begin(), options.end());
        if (!level.empty()) run.m_env["MEMLOG_LOG_LEVEL"] = level;
        const Outcome outcome = runProgram(run);
        fs::remove_all(outcome.m_directory);
        return outcome;
    };
    const Outcome plain = stat({"stat", recorded->m_log, "--json"}, "");
    CHECK(plain.m_exitStatus == 0);
    CHECK(plain.m_stderr == "memlog: " + warnings[0] + "\n");
    const Outcome quiet = stat({"-q", "stat", recorded->m_log, "--json"}, "");
    CHECK(quiet.m_stderr.empty());
    CHECK(quiet.m_stdout == plain.m_stdout);
    CHECK(stat({"stat", recorded->m_log, "--json", "--quiet"}, "").m_stderr.empty());
    CHECK(stat({"stat", recorded->m_log, "--json"}, "error").m_stderr.empty());
    const Outcome verbose = stat({"stat", recorded->m_log, "-v"}, "");
    CHECK(verbose.m_stderr.find("memlog: " + warnings[0] + "\n") != std::string::npos);
    CHECK(verbose.m_stderr.find("memlog: read " + std::to_string(summaryOf(recorded->m_log).m_events) + " events in ") !=
          std::string::npos);
    CHECK(stat({"stat", recorded->m_log}, "debug").m_stderr.find("memlog: read ") != std::string::npos);
    CHECK(plain.m_stderr.find("memlog: read ") == std::string::npos);
    const Outcome bogus = stat({"stat", recorded->m_log, "--json"}, "loud");
    CHECK(bogus.m_stderr.find("MEMLOG_LOG_LEVEL=loud is not one of") != std::string::npos);

    // memtimeline alike: the warning once, none with -q.
    auto draw = [&](std::vector<std::string> options) {
        Run run;
        run.m_preload = false;
        run.m_argv = {MEMLOG_TEST_TIMELINE, recorded->m_log, "--export", "r.png"};
        run.m_argv.insert(run.m_argv.end(), options.begin(), options.end());
        const Outcome outcome = runProgram(run);
        fs::remove_all(outcome.m_directory);
        return outcome;
    };
    const Outcome drawn = draw({});
    CHECK(drawn.m_exitStatus == 0);
    CHECK(drawn.m_stderr == "memtimeline: " + warnings[0] + "\n");
    const Outcome drawnQuietly = draw({"-q"});
    CHECK(drawnQuietly.m_exitStatus == 0);
    CHECK(drawnQuietly.m_stderr.empty());
}

TEST_CASE("an inlined allocation names the function it was inlined into, in text, CSV and JSON") {
    const auto recorded = record("allocation_sites");
    auto rows = sitesByName(recorded->m_log);
    CHECK(rows["grab"].m_inlinedIn == "make_large");
    CHECK(rows["make_small"].m_inlinedIn.empty());
    const std::string line = std::to_string(markerLine("allocation_sites.c", "site:grab"));
    const std::string text = runCli("sites " + recorded->m_log);
    CHECK(text.find("grab (inlined in make_large)") != std::string::npos);
    const std::string csv = runCli("sites " + recorded->m_log + " --csv");
    CHECK(csv.find("grab,allocation_sites.c:" + line + ",allocation_sites,3,15000,15000,0,0,0,0,make_large,0,0\n") !=
          std::string::npos);
    CHECK(csv.find("make_small,allocation_sites.c:" + std::to_string(markerLine("allocation_sites.c", "site:make_small")) +
                   ",allocation_sites,10,1000,1000,0,0,0,0,,0,0\n") != std::string::npos);
    const std::string json = runCli("stat " + recorded->m_log + " --json");
    CHECK(json.find("{\"function\":\"grab\",\"inlined_in\":\"make_large\",") != std::string::npos);
    CHECK(json.find("{\"function\":\"make_small\",\"inlined_in\":null,") != std::string::npos);
    const std::string stat = runCli("stat " + recorded->m_log);
    CHECK(stat.find("grab (inlined in make_large)  allocation_sites.c:" + line) != std::string::npos);
}

TEST_CASE("a C++ helper inlined into functions with parameter lists: inlined_in written as the site is, in every output") {
    // make_obj has no linkage name in the DWARF (internal linkage): its name has no parameter
    // list, and the functions it was inlined into are written without theirs too.
    const auto recorded = record("inlined_cxx");
    const std::string& log = recorded->m_log;
    const std::string line = std::to_string(markerLine("inlined_cxx.cpp", "site:make_obj"));
    const std::string text = runCli("sites " + log);
    CHECK(text.find("make_obj (inlined in gamma_site) ") != std::string::npos);
    CHECK(text.find("make_obj (inlined in delta_site) ") != std::string::npos);
    const std::string csv = runCli("sites " + log + " --csv");
    CHECK(csv.find("make_obj,inlined_cxx.cpp:" + line + ",inlined_cxx,4,192,192,192,4,0,0,gamma_site,0,0\n") !=
          std::string::npos);
    CHECK(csv.find("make_obj,inlined_cxx.cpp:" + line + ",inlined_cxx,2,96,48,0,0,0,0,delta_site,0,0\n") !=
          std::string::npos);
    const std::string json = runCli("stat " + log + " --json");
    CHECK(json.find("{\"function\":\"make_obj\",\"inlined_in\":\"gamma_site\",") != std::string::npos);
    const std::string stat = runCli("stat " + log);
    CHECK(stat.find("make_obj (inlined in gamma_site)  inlined_cxx.cpp:" + line) != std::string::npos);
    CHECK(stat.find("make_obj (inlined in delta_site)  inlined_cxx.cpp:" + line) != std::string::npos);
    CHECK(runCli("dump " + log + " --csv --symbolize").find(",make_obj\n") != std::string::npos);
    for (const std::string* output : {&text, &csv, &json, &stat}) CHECK(output->find("_site(int)") == std::string::npos);
}

TEST_CASE("sites --by caller groups an inline helper's blocks under the function it was inlined into") {
    const auto recorded = record("allocation_sites");
    const std::string csv = runCli("sites " + recorded->m_log + " --by caller --csv --top 0");
    CHECK(csv.find("make_large,allocation_sites,allocation_sites,3,15000,15000,0,0,0,0,,0,0\n") != std::string::npos);
    CHECK(csv.find("make_small,allocation_sites,allocation_sites,10,1000,1000,0,0,0,0,,0,0\n") != std::string::npos);
    CHECK(csv.find("\ngrab,") == std::string::npos);
    CHECK(csv.find("leak_some,allocation_sites,allocation_sites,4,1200,1200,1200,4,0,0,,0,0\n") != std::string::npos);
}

TEST_CASE("a site reached by several stacks is one row and an inline helper one row per function") {
    // alloc_node's malloc is reached from build_left and build_right: two stacks, and the second
    // takes the row the first one's naming decided (nameSiteRows). take is inlined into fill_a
    // and fill_b: the same line, two rows.
    const auto recorded = record("shared_sites");
    memlog::timeline::LogReader reader(recorded->m_log);
    reader.forEachEvent([](const memlog::timeline::Event&) {});
    memlog::timeline::StackNames names(reader, [](const std::string&) {});
    std::set<uint64_t> nodeCalls;  // alloc_node's call of malloc, by the stacks through it
    std::set<uint32_t> nodeStacks;
    for (uint32_t id = 1; id < reader.stacks().size(); ++id) {
        if (names.siteOf(id).m_site.m_function != "alloc_node") continue;
        nodeCalls.insert(names.firstOutsidePlumbing(id));
        nodeStacks.insert(id);
    }
    CHECK(nodeCalls.size() == 1);
    CHECK(nodeStacks.size() >= 2);
    const std::string node = std::to_string(markerLine("shared_sites.c", "site:alloc_node"));
    const std::string take = std::to_string(markerLine("shared_sites.c", "site:take"));
    const std::string csv = runCli("sites " + recorded->m_log + " --csv --top 0");
    CHECK(csv.find("\nalloc_node,shared_sites.c:" + node + ",shared_sites,12,768,768,0,0,0,0,,0,0\n") != std::string::npos);
    CHECK(csv.find("\ntake,shared_sites.c:" + take + ",shared_sites,3,1536,1536,0,0,0,0,fill_a,0,0\n") != std::string::npos);
    CHECK(csv.find("\ntake,shared_sites.c:" + take + ",shared_sites,5,2560,2560,0,0,0,0,fill_b,0,0\n") != std::string::npos);
    const std::string callers = runCli("sites " + recorded->m_log + " --by caller --csv --top 0");
    CHECK(callers.find("\nalloc_node,shared_sites,shared_sites,12,768,768,0,0,0,0,,0,0\n") != std::string::npos);
    CHECK(callers.find("\nfill_a,shared_sites,shared_sites,3,1536,1536,0,0,0,0,,0,0\n") != std::string::npos);
    CHECK(callers.find("\nfill_b,shared_sites,shared_sites,5,2560,2560,0,0,0,0,,0,0\n") != std::string::npos);
}

TEST_CASE("legends and site bins name an inline helper with the function it was inlined into") {
    const auto recorded = record("allocation_sites");
    memlog::timeline::LogReader reader(recorded->m_log);
    reader.forEachEvent([](const memlog::timeline::Event&) {});
    memlog::timeline::StackNames names(reader, [](const std::string&) {});
    const auto index = memlog::timeline::indexSites(names, static_cast<uint32_t>(reader.stacks().size()));
    std::set<std::string> labels;
    for (const auto& site : index.m_sites) labels.insert(memlog::timeline::siteLabel(site));
    const std::string line = std::to_string(markerLine("allocation_sites.c", "site:grab"));
    CHECK(labels.count("grab (inlined in make_large) (allocation_sites.c:" + line + ")") == 1);
    CHECK(labels.count("make_small (allocation_sites.c:" +
                       std::to_string(markerLine("allocation_sites.c", "site:make_small")) + ")") == 1);
}

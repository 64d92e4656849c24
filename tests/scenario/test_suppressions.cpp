// Leak suppressions on real logs: a C++ program without a leak reports none (the runtime's
// emergency pool counted apart), a suppressions file moves a program's leaks apart, never away.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "render/report/report.hpp"
#include "run_program.hpp"
#include "timeline/model/block_model.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/names/site_table.hpp"
#include "timeline/names/stack_names.hpp"
#include "timeline/names/sites_beside_suppressions.hpp"
#include "timeline/model/suppressed_leaks.hpp"
#include "timeline/names/suppressions.hpp"
#include "timeline/base/text_format.hpp"

using namespace memlog::test;
namespace fs = std::filesystem;

namespace {

Outcome memlogCommand(const std::vector<std::string>& arguments) {
    Run run;
    run.m_preload = false;
    run.m_argv = {memlogCli()};
    run.m_argv.insert(run.m_argv.end(), arguments.begin(), arguments.end());
    return runProgram(run);
}

// "name":123 in a JSON object.
uint64_t jsonNumber(const std::string& json, const std::string& name) {
    const size_t at = json.find("\"" + name + "\":");
    REQUIRE(at != std::string::npos);
    return std::stoull(json.substr(at + name.size() + 3));
}

}  // namespace

TEST_CASE("a C++ program with no leak reports no leak and the runtime's one suppressed block") {
    Run run;
    run.m_argv = {scenarioPath("cxx_containers")};
    const Outcome outcome = runProgram(run);
    REQUIRE(outcome.m_logs.size() == 1);
    const auto raw = summaryOf(outcome.m_logs[0]);  // the reader alone: no suppression
    REQUIRE(raw.m_leakedBlocks == 1);                // libstdc++'s emergency pool
    const Outcome json = memlogCommand({"stat", outcome.m_logs[0], "--json"});
    CHECK(json.m_exitStatus == 0);
    CHECK(jsonNumber(json.m_stdout, "leaked_bytes") == 0);
    CHECK(jsonNumber(json.m_stdout, "leaked_blocks") == 0);
    CHECK(jsonNumber(json.m_stdout, "suppressed_blocks") == 1);
    CHECK(jsonNumber(json.m_stdout, "suppressed_bytes") == raw.m_leakedBytes);
    CHECK(json.m_stdout.find("\"leaked\":[]") != std::string::npos);  // no top site by leaked
    const Outcome text = memlogCommand({"stat", outcome.m_logs[0]});
    CHECK(text.m_stdout.find("leaked       0 B in 0 blocks (besides ") != std::string::npos);
    const Outcome sites = memlogCommand({"sites", outcome.m_logs[0], "--csv", "--top", "0"});
    CHECK(sites.m_stdout.find(",0,0," + std::to_string(raw.m_leakedBytes) + ",1,,0,0\n") != std::string::npos);
    for (const Outcome* o : {&json, &text, &sites}) fs::remove_all(o->m_directory);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("a suppressions file moves the leaks of matching stacks apart, and only those") {
    Run run;
    run.m_argv = {scenarioPath("leaks")};
    const Outcome outcome = runProgram(run);
    REQUIRE(outcome.m_logs.size() == 1);
    const std::string file = outcome.m_directory + "/mine.supp";
    std::ofstream(file) << "# the leak is known\nleak:^leak_one$\n";
    const Outcome plain = memlogCommand({"stat", outcome.m_logs[0], "--json"});
    CHECK(jsonNumber(plain.m_stdout, "leaked_bytes") == 1000);
    CHECK(jsonNumber(plain.m_stdout, "suppressed_bytes") == 0);
    const Outcome suppressed = memlogCommand({"stat", outcome.m_logs[0], "--json", "--suppressions", file});
    CHECK(suppressed.m_exitStatus == 0);
    CHECK(jsonNumber(suppressed.m_stdout, "leaked_bytes") == 0);
    CHECK(jsonNumber(suppressed.m_stdout, "suppressed_bytes") == 1000);
    CHECK(jsonNumber(suppressed.m_stdout, "suppressed_blocks") == 10);
    const Outcome sites = memlogCommand({"sites", outcome.m_logs[0], "--csv", "--suppressions", file});
    CHECK(sites.m_stdout.find("leak_one,leaks.c:7,leaks,10,1000,1000,0,0,1000,10,,0,0\n") != std::string::npos);
    std::ofstream(file) << "leak:nothing_like_it\n";
    const Outcome unmatched = memlogCommand({"stat", outcome.m_logs[0], "--json", "--suppressions", file});
    CHECK(jsonNumber(unmatched.m_stdout, "leaked_bytes") == 1000);
    std::ofstream(file) << "leak:fine\nbroken line\n";
    const Outcome bad = memlogCommand({"stat", outcome.m_logs[0], "--suppressions", file});
    CHECK(bad.m_exitStatus == 2);
    CHECK(bad.m_stderr == "memlog: " + file + ": offset 10: line 2 is not a 'leak:PATTERN' line (the only kind memlog reads)\n");
    const Outcome listed = memlogCommand({"stat", "--suppressions"});
    CHECK(listed.m_exitStatus == 0);
    CHECK(listed.m_stdout.find("emergency exception pool") != std::string::npos);
    CHECK(listed.m_stdout.find("_IO_file_doallocate") != std::string::npos);
    for (const Outcome* o : {&plain, &suppressed, &sites, &unmatched, &bad, &listed}) fs::remove_all(o->m_directory);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("sqlite3's stdio buffer and passwd lookup are suppressed, the total of what stayed live kept") {
    Run run;
    run.m_argv = {"sqlite3", ":memory:", "select 1"};
    const Outcome outcome = runProgram(run);
    REQUIRE(outcome.m_exitStatus == 0);
    REQUIRE(outcome.m_logs.size() == 1);
    const auto raw = summaryOf(outcome.m_logs[0]);
    const Outcome json = memlogCommand({"stat", outcome.m_logs[0], "--json"});
    const uint64_t leaked = jsonNumber(json.m_stdout, "leaked_bytes");
    const uint64_t suppressed = jsonNumber(json.m_stdout, "suppressed_bytes");
    CHECK(leaked + suppressed == raw.m_leakedBytes);
    CHECK(jsonNumber(json.m_stdout, "leaked_blocks") + jsonNumber(json.m_stdout, "suppressed_blocks") ==
          raw.m_leakedBlocks);
    CHECK(suppressed >= 4096);  // stdout's buffer
    const Outcome flame = memlogCommand({"flame", outcome.m_logs[0], "--metric", "leaked"});
    CHECK(flame.m_stdout.find("_IO_file_doallocate") == std::string::npos);
    fs::remove_all(json.m_directory);
    fs::remove_all(flame.m_directory);
    fs::remove_all(outcome.m_directory);
}

// `memlog stat` names the sites on a second thread, with a symboliser of its own, while the
// suppressions name the C library's frames (timeline/names/sites_beside_suppressions.hpp): two libdw sessions on
// the same real debug information at once. What they leave must be what one thread leaves.
TEST_CASE("on a real log, suppressions and sites named side by side leave what one after the other leaves") {
    using namespace memlog::timeline;
    Run run;
    run.m_argv = {"sqlite3", ":memory:", "create table t(a, b); insert into t values (1, 'x'); select * from t"};
    const Outcome outcome = runProgram(run);
    REQUIRE(outcome.m_exitStatus == 0);
    REQUIRE(outcome.m_logs.size() == 1);
    LogReader reader(outcome.m_logs[0]);
    auto rowsText = [](const std::vector<SiteRow>& rows) {
        std::string text;
        for (const SiteRow& row : rows)
            text += siteFunctionText(row) + " " + siteLocation(row.m_site) + " " + std::to_string(row.m_metrics.m_calls) +
                    " " + std::to_string(row.m_metrics.m_leakedBytes) + " " +
                    std::to_string(row.m_metrics.m_suppressedBytes) + "\n";
        return text;
    };
    for (const SiteGrouping grouping : {SiteGrouping::Site, SiteGrouping::Caller}) {
        MeasuredLog alone = measureStacks(reader);
        StackNames aloneNames(reader, {});
        const std::string expected =
            rowsText(suppressAndNameSites(reader, alone, aloneNames, Suppressions(), grouping, Naming::CallingThread));
        REQUIRE(alone.m_summary.m_suppressedBytes >= 4096);  // stdout's buffer: the C library's frames were named
        MeasuredLog measured = measureStacks(reader);
        StackNames names(reader, {});
        CHECK(rowsText(suppressAndNameSites(reader, measured, names, Suppressions(), grouping, Naming::SecondThread)) ==
              expected);
        CHECK(measured.m_summary.m_leakedBytes == alone.m_summary.m_leakedBytes);
        CHECK(measured.m_summary.m_suppressedBytes == alone.m_summary.m_suppressedBytes);
        CHECK(measured.m_summary.m_suppressedBlocks == alone.m_summary.m_suppressedBlocks);
    }
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("a report's header counts the runtime's one-time block apart from the leaks") {
    Run run;
    run.m_argv = {scenarioPath("cxx_containers")};
    const Outcome outcome = runProgram(run);
    REQUIRE(outcome.m_logs.size() == 1);
    memlog::timeline::LogReader reader(outcome.m_logs[0]);
    const memlog::timeline::BlockModel model = memlog::timeline::buildBlockModel(reader);
    REQUIRE(model.summary().m_leakedBlocks == 1);
    memlog::timeline::StackNames names(reader, [](const std::string&) {});
    const auto suppressed = memlog::timeline::suppressedLeaks(model, names, memlog::timeline::Suppressions());
    CHECK(suppressed.m_blocks == 1);
    CHECK(suppressed.m_bytes == model.summary().m_leakedBytes);
    memlog::render::ReportOptions options;
    options.m_logPath = outcome.m_logs[0];
    options.m_suppressedBytes = suppressed.m_bytes;
    options.m_suppressedBlocks = suppressed.m_blocks;
    const memlog::render::Report report(model, nullptr, options);
    const std::string numbers = report.headerLines()[1];
    CHECK(numbers.find("leaked 0 B in 0 blocks (+ " +
                       memlog::timeline::bytesText(static_cast<double>(suppressed.m_bytes)) + " in 1 block suppressed)") !=
          std::string::npos);
    fs::remove_all(outcome.m_directory);
}

TEST_CASE("a report's header puts the mappings alive at exit beside the leaks, not in them, and splits the peak") {
    Run run;
    run.m_argv = {scenarioPath("mapped_at_exit")};
    run.m_env["MEMLOG_QUIET"] = "1";
    const Outcome outcome = runProgram(run);
    REQUIRE(outcome.m_logs.size() == 1);
    memlog::timeline::LogReader reader(outcome.m_logs[0]);
    const memlog::timeline::BlockModel model = memlog::timeline::buildBlockModel(reader);
    memlog::render::ReportOptions options;
    options.m_logPath = outcome.m_logs[0];
    const memlog::render::Report report(model, nullptr, options);
    const std::string numbers = report.headerLines()[1];
    INFO(numbers);
    // 3 x 4000 bytes never freed; 3 MiB + 1 MiB - 64 KiB in 3 regions never unmapped.
    CHECK(numbers.find("leaked 11.7 KiB in 3 blocks \u00b7 mapped at exit 3.94 MiB in 3 regions \u00b7") !=
          std::string::npos);
    CHECK(
        numbers.find("peak 4.01 MiB in 5 blocks (heap 12.2 KiB, mapped 4 MiB, each at its own peak) \u00b7 at most") !=
        std::string::npos);
    fs::remove_all(outcome.m_directory);
}

// The readers keep what they report, never the log's events. Of accesses: on two full traces of
// the same program over the same array, one ten times as long as the other (10^6 and 10^7
// accesses), each command's peak resident memory stays put, and their totals agree with each
// other and with the program's exact counts (scripts/bench-readers measures the same at 10^8).
// Of blocks: the heap readers on logs of 10^6 and 4x10^6 blocks, the same (docs/BENCHMARKS.md
// gives them at 10^8).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "full_trace_runs.hpp"

using namespace memlog::test;
namespace fs = std::filesystem;

namespace {

struct Measured {
    int m_status = -1;
    std::string m_stdout;  // up to 1 MiB
    uint64_t m_lines = 0;  // of all of it
    uint64_t m_peakKb = 0;  // the process's own peak resident size (wait4's rusage)
};

// memlog with `arguments`, its stdout kept in a file: the peak is this child's alone, where
// getrusage(RUSAGE_CHILDREN) would give the largest of every child so far. A forked child
// starts with this process's resident pages, which its peak counts: this process keeps no
// large output (a dump of 10^7 accesses is a gigabyte), so that its size stays what it was.
Measured measured(const std::vector<std::string>& arguments, const std::string& directory) {
    const std::string out = directory + "/stdout";
    std::vector<std::string> argv{memlogCli()};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    std::vector<char*> pointers;
    for (std::string& argument : argv) pointers.push_back(argument.data());
    pointers.push_back(nullptr);
    const pid_t child = fork();
    if (child == 0) {
        const int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 1);
        execv(pointers[0], pointers.data());
        _exit(127);
    }
    Measured result;
    int status = 0;
    rusage usage{};
    REQUIRE(wait4(child, &status, 0, &usage) == child);
    result.m_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.m_peakKb = static_cast<uint64_t>(usage.ru_maxrss);
    std::ifstream file(out, std::ios::binary);
    std::vector<char> buffer(1 << 20);
    while (file.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || file.gcount() > 0) {
        const auto got = static_cast<size_t>(file.gcount());
        if (result.m_stdout.size() < buffer.size()) result.m_stdout.append(buffer.data(), got);
        result.m_lines += static_cast<uint64_t>(std::count(buffer.data(), buffer.data() + got, '\n'));
    }
    fs::remove(out);
    return result;
}

// Each command (its words, "{log}" for the log) run on the smaller log and on the larger: both
// succeed, and the larger's peak is less than `boundKb` above the smaller's. The larger runs'
// outcomes, by the commands' names.
using Commands = std::vector<std::pair<std::string, std::vector<std::string>>>;
std::map<std::string, Measured> peaksStayPut(const Commands& commands, const std::string& smaller,
                                             const std::string& larger, const std::string& directory,
                                             uint64_t boundKb) {
    std::map<std::string, Measured> ofLarger;
    for (const auto& [name, command] : commands) {
        std::vector<std::string> forSmaller = command, forLarger = command;
        for (std::string& word : forSmaller)
            if (word == "{log}") word = smaller;
        for (std::string& word : forLarger)
            if (word == "{log}") word = larger;
        const Measured small = measured(forSmaller, directory), large = measured(forLarger, directory);
        INFO(name << ": " << small.m_peakKb << " KiB on the smaller log, " << large.m_peakKb << " KiB on the larger");
        CHECK(small.m_status == 0);
        CHECK(large.m_status == 0);
        CHECK(large.m_peakKb < small.m_peakKb + boundKb);
        ofLarger[name] = large;
    }
    return ofLarger;
}

// The rows of a CSV text (header left out), each as its cells.
std::vector<std::vector<std::string>> csvRows(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    std::stringstream in(text);
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) rows.push_back(csvCells(line));
    return rows;
}

}  // namespace

TEST_CASE("access readers: ten times the accesses, the same memory, and totals that agree") {
    requireTraceTool();
    constexpr uint64_t kElements = 1000;  // 8000 bytes, written and read each round
    const Outcome shorter = fullTrace({scenarioPath("known_accesses"), std::to_string(kElements), "0", "500"});
    const Outcome longer = fullTrace({scenarioPath("known_accesses"), std::to_string(kElements), "0", "5000"});
    REQUIRE(shorter.m_logs.size() == 1);
    REQUIRE(longer.m_logs.size() == 1);
    const std::string directory = longer.m_directory;

    // Each command on both traces. A reader that held every access, at even 8 bytes each, would
    // grow by 72 MB from the shorter to the longer; the bound leaves room for the page cache of
    // the mapped log (dropped as it is read) and the allocator's slack.
    const Commands commands{
        {"stat", {"stat", "{log}", "--json"}},
        {"by site", {"accesses", "{log}", "--top", "0", "--csv"}},
        {"by function", {"accesses", "{log}", "--by", "function", "--top", "0", "--csv"}},
        {"by block", {"accesses", "{log}", "--by", "block", "--top", "0", "--csv"}},
        {"by global", {"accesses", "{log}", "--by", "global", "--top", "0", "--csv"}},
        {"cache", {"cache", "{log}", "--json"}},
        {"compare", {"compare", "{log}", "{log}", "--top", "0", "--csv"}},
        {"uaf", {"uaf", "{log}"}},
        {"arrays", {"arrays", "{log}", "--csv"}},
        {"dump", {"dump", "{log}", "--accesses", "--csv"}},
    };
    std::map<std::string, Measured> ofLonger =
        peaksStayPut(commands, shorter.m_logs[0], longer.m_logs[0], directory, 24 * 1024);

    // The totals: the program's exact counts at its site, and the same sum everywhere.
    const uint64_t rounds = 5000, each = kElements * rounds;
    const std::string& stat = ofLonger["stat"].m_stdout;
    CHECK(jsonNumber(stat, "access_heap") == 2 * each);
    uint64_t siteTotal = 0, siteReads = 0, siteWrites = 0;
    bool arrayRow = false;
    for (const auto& row : csvRows(ofLonger["by site"].m_stdout)) {
        REQUIRE(row.size() >= 12);
        siteTotal += number(row[2]);
        siteReads += number(row[3]);
        siteWrites += number(row[4]);
        if (row[0] == "main" && row[1].find("known_accesses.c") != std::string::npos) {
            arrayRow = true;
            CHECK(number(row[2]) == 2 * each);
            CHECK(number(row[3]) == each);
            CHECK(number(row[4]) == each);
            CHECK(number(row[5]) == kElements * 8);  // the distinct bytes: the array, once
            CHECK(number(row[8]) == 1);  // one block allocated there
            CHECK(number(row[9]) == 1);  // and sampled
        }
    }
    CHECK(arrayRow);
    CHECK(siteTotal == jsonNumber(stat, "access_samples"));
    CHECK(siteReads == jsonNumber(stat, "access_reads"));
    CHECK(siteWrites == jsonNumber(stat, "access_writes"));
    uint64_t blockTotal = 0;
    for (const auto& row : csvRows(ofLonger["by block"].m_stdout)) blockTotal += number(row[4]);
    CHECK(blockTotal == 2 * each);  // by block: the heap's alone
    uint64_t functionTotal = 0;
    for (const auto& row : csvRows(ofLonger["by function"].m_stdout)) functionTotal += number(row[2]);
    CHECK(functionTotal == siteTotal);
    uint64_t exactTotal = 0;
    for (const auto& row : csvRows(ofLonger["compare"].m_stdout)) exactTotal += number(row[4]);
    CHECK(exactTotal == siteTotal);
    CHECK(jsonNumber(ofLonger["cache"].m_stdout, "memory_accesses") == siteTotal);
    CHECK(jsonNumber(ofLonger["cache"].m_stdout, "accesses") >= siteTotal);  // line accesses
    CHECK(ofLonger["dump"].m_lines == siteTotal + 1);  // and the header
    bool array = false;  // the array counts every access, though it keeps only its first ones
    for (const auto& row : csvRows(ofLonger["arrays"].m_stdout))
        if (row.size() >= 8 && number(row[4]) == kElements * 8) {
            array = true;
            CHECK(number(row[5]) == 2 * each);
            CHECK(number(row[6]) == 8);  // the element size, from every access
        }
    CHECK(array);
    fs::remove_all(shorter.m_directory);
    fs::remove_all(longer.m_directory);
}

TEST_CASE("heap readers: four times the blocks, the same memory, and every block counted") {
    // bench_alloc: malloc/free pairs, each freed 1024 pairs later; stacks on, so that sites,
    // flame graphs and profiles have stacks to fold.
    constexpr uint64_t kFewer = 1'000'000, kMore = 4'000'000;
    const Outcome fewer = recordQuietly({scenarioPath("bench_alloc"), std::to_string(kFewer)});
    const Outcome more = recordQuietly({scenarioPath("bench_alloc"), std::to_string(kMore)});
    REQUIRE(fewer.m_logs.size() == 1);
    REQUIRE(more.m_logs.size() == 1);
    const std::string directory = more.m_directory;

    // A reader that kept every block, at even the picture's 40 bytes, would grow by 120 MB.
    const Commands commands{
        {"stat", {"stat", "{log}", "--json"}},
        {"sites", {"sites", "{log}", "--csv"}},
        {"flame", {"flame", "{log}"}},
        {"dump", {"dump", "{log}", "--csv"}},
        {"pprof", {"pprof", "{log}", "-o", directory + "/profile.pb"}},
        {"trace-events", {"trace-events", "{log}", "-o", directory + "/events.json"}},
        {"diff", {"diff", "{log}", "{log}", "--csv"}},
    };
    std::map<std::string, Measured> ofMore =
        peaksStayPut(commands, fewer.m_logs[0], more.m_logs[0], directory, 24 * 1024);

    // Every block was read: the program's pairs (its output goes through write(2)).
    const std::string& stat = ofMore["stat"].m_stdout;
    CHECK(jsonNumber(stat, "allocations") == kMore);
    CHECK(jsonNumber(stat, "frees") == kMore);
    CHECK(ofMore["dump"].m_lines >= 2 * kMore + 1);  // each malloc and free, and the header
    fs::remove_all(fewer.m_directory);
    fs::remove_all(more.m_directory);
}

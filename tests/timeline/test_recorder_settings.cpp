// The recorder's settings table (memlog/recorder_settings.hpp) against what people read and what
// the code reads: README.md's settings table lists the same variables with the same defaults and
// ranges, every MEMLOG_ name the programs read is a row (so the recorder never calls one
// misspelt), and `memlog run --help` lists every variable a person sets and every option of it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "memlog/recorder_settings.hpp"
#include "run_memlog.hpp"

using namespace memlog;
namespace fs = std::filesystem;

namespace {

std::string readAll(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// README.md's settings table: variable -> {meaning, default}, as written (without the backquotes).
std::map<std::string, std::pair<std::string, std::string>> readmeSettings() {
    std::map<std::string, std::pair<std::string, std::string>> rows;
    std::istringstream readme(readAll(fs::path(MEMLOG_TEST_SOURCE_DIR) / "README.md"));
    const std::regex row(R"(^\| `(MEMLOG_[A-Z_]+)` \| (.*) \| `?([^`|]*)`? \|$)");
    for (std::string line; std::getline(readme, line);)
        if (std::smatch match; std::regex_match(line, match, row)) rows[match[1]] = {match[2], match[3]};
    return rows;
}

}  // namespace

TEST_CASE("README.md's settings table lists the recorder's settings with their defaults and ranges") {
    const auto readme = readmeSettings();
    std::set<std::string> people;
    for (const options::RecorderSetting& setting : options::kRecorderSettings) {
        if (setting.m_audience != options::Audience::Person) continue;
        const options::Row& row = setting.m_row;
        people.insert(row.m_name);
        INFO(row.m_name);
        const auto found = readme.find(row.m_name);
        REQUIRE(found != readme.end());
        const auto& [meaning, byDefault] = found->second;
        CHECK(byDefault == (row.m_default ? row.m_default : ""));
        if (row.m_kind == options::Kind::Count)
            CHECK(meaning.find(std::to_string(row.m_low) + ".." + std::to_string(row.m_high)) != std::string::npos);
        if (row.m_kind == options::Kind::Choice)
            for (const std::string choice : {"libunwind", "fp", "none"})
                if (options::choiceIndex(row.m_choices, choice.c_str()) >= 0)
                    CHECK(meaning.find("`" + choice + "`") != std::string::npos);
    }
    for (const auto& [name, row] : readme) CHECK(people.count(name) == 1);  // no row README alone has
    CHECK(people.size() == readme.size());
}

TEST_CASE("every MEMLOG_ variable the programs and the tests read is a row of the recorder's table") {
    // A name the code reads but the table lacks would be called misspelt by every recorder that
    // sees it in its environment: once per process image, twice for a launcher that execs.
    const std::regex literal(R"re("(MEMLOG_[A-Z_]+)")re"), read(R"re(getenv\("(MEMLOG_[A-Z_]+)"\))re");
    std::set<std::string> names;
    for (const char* folder : {"preload", "timeline", "render", "unwind", "tests"}) {
        for (const auto& entry : fs::recursive_directory_iterator(fs::path(MEMLOG_TEST_SOURCE_DIR) / folder)) {
            const std::string extension = entry.path().extension();
            if (extension != ".cpp" && extension != ".hpp" && extension != ".h") continue;
            const std::string text = readAll(entry.path());
            // In the tests, only what they read: they also set misspelt names on purpose.
            const std::regex& pattern = std::string(folder) == "tests" ? read : literal;
            for (std::sregex_iterator match(text.begin(), text.end(), pattern), end; match != end; ++match)
                names.insert((*match)[1]);
        }
    }
    CHECK(names.count("MEMLOG_LOG_LEVEL") == 1);  // the scan finds what it looks for
    CHECK(names.count("MEMLOG_OUT") == 1);
    for (const std::string& name : names) {
        INFO(name);
        CHECK(options::findRecorderSetting(name.c_str(), name.size()) != nullptr);
    }
}

TEST_CASE("memlog run --help lists each setting a person gives, as an option and as a variable") {
    const test::Result help = test::runMemlog("run --help");
    REQUIRE(help.m_status == 0);
    for (const options::RecorderSetting& setting : options::kRecorderSettings) {
        if (setting.m_audience != options::Audience::Person) continue;
        const options::Row& row = setting.m_row;
        INFO(row.m_name);
        const std::string label = std::string(row.m_name) + "=";
        CHECK(help.m_stdout.find("\n  " + label) != std::string::npos);
        if (setting.m_runOption)
            CHECK(help.m_stdout.find("\n  " + std::string(setting.m_runOption)) != std::string::npos);
        if (const options::Phrase range = options::rangeText(row); range.m_length)
            CHECK(help.m_stdout.find(range.m_text) != std::string::npos);
    }
    // The launcher's own variables are not for people: not offered.
    CHECK(help.m_stdout.find("MEMLOG_RUN_LIST=") == std::string::npos);
}

TEST_CASE("memlog run's options check their values against the same rows the recorder reads") {
    const options::Row& depth = options::recorderSetting(options::Setting::StackDepth).m_row;
    const test::Result tooDeep = test::runMemlog("run --depth 257 -- true");
    CHECK(tooDeep.m_status == 2);
    CHECK(tooDeep.m_stderr == "memlog: run: --depth 257: " + std::string(options::expectedText(depth).m_text) +
                                  "\nTry 'memlog run --help'.\n");
    CHECK(std::string(options::expectedText(depth).m_text) == "a number from 1 to 256");
    const test::Result rate = test::runMemlog("run --access-rate fast -- true");
    CHECK(rate.m_status == 2);
    CHECK(rate.m_stderr.rfind("memlog: run: --access-rate fast: a number from 1 to 100000\n", 0) == 0);
    const test::Result unwind = test::runMemlog("run --unwind magic -- true");
    CHECK(unwind.m_stderr.rfind("memlog: run: --unwind magic: libunwind, fp or none\n", 0) == 0);
}

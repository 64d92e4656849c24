// The option table: a command line read against rows of plain data (memlog/option_row.hpp,
// timeline/base/option_table.hpp), one-line mistakes naming the option and what it takes, and
// help written from the same rows.
#include <catch2/catch.hpp>

#include "memlog/option_row.hpp"
#include "timeline/base/option_table.hpp"

using namespace memlog;
using options::Kind;
using options::Row;

namespace {

const char* evenMistake(const char* text) { return text[0] && (text[0] - '0') % 2 == 0 ? nullptr : "an even digit"; }

constexpr Row kRows[] = {
    {.m_name = "--top", .m_kind = Kind::Count, .m_default = "20", .m_valueName = "N", .m_help = "at most N rows"},
    {.m_name = "--depth", .m_kind = Kind::Count, .m_low = 1, .m_high = 256, .m_default = "64", .m_valueName = "N"},
    {.m_name = "--csv", .m_help = "rows of CSV"},
    {.m_name = "--output", .m_short = "-o", .m_kind = Kind::Path, .m_valueName = "FILE", .m_help = "where"},
    {.m_name = "--unwind",
     .m_kind = Kind::Choice,
     .m_choices = "libunwind|fp|none",
     .m_default = "libunwind",
     .m_valueName = "MODE",
     .m_help = "call stacks"},
    {.m_name = "--alpha",
     .m_kind = Kind::Real,
     .m_realLow = 0,
     .m_realHigh = 1,
     .m_aboveLow = true,
     .m_default = "0.3",
     .m_valueName = "A"},
    {.m_name = "--idle", .m_kind = Kind::Duration, .m_low = 1, .m_valueName = "T"},
    {.m_name = "--cache", .m_kind = Kind::ByteSize, .m_low = 1024, .m_high = 1u << 30, .m_valueName = "SIZE"},
    {.m_name = "--even", .m_kind = Kind::Text, .m_valueName = "D", .m_check = evenMistake},
    {.m_name = "--cursor", .m_kind = Kind::Text, .m_valueName = "T", .m_repeatable = true},
    {.m_name = "--array", .m_kind = Kind::Text, .m_valueName = "SPEC"},
    {.m_name = "--elem", .m_kind = Kind::Count, .m_valueName = "N", .m_needs = "--array"},
    {.m_name = "--suppressions", .m_kind = Kind::Path, .m_valueName = "FILE", .m_valueOptional = true},
    {.m_name = "--a-rather-long-option", .m_kind = Kind::Text, .m_valueName = "VALUE", .m_help = "long"},
};

const timeline::CommandSyntax kSyntax{.m_usage = "test FILE", .m_about = "About it.\n", .m_options = kRows};

timeline::ParseResult parse(std::vector<std::string> arguments) { return timeline::parseOptions(kSyntax, arguments); }

std::string mistake(std::vector<std::string> arguments) { return parse(std::move(arguments)).m_error; }

// The line of `text` that starts with `start`, without its newline; empty when there is none.
std::string lineStarting(const std::string& text, const std::string& start) {
    const size_t at = text.find("\n" + start);
    if (at == std::string::npos) return {};
    return text.substr(at + 1, text.find('\n', at + 1) - at - 1);
}

}  // namespace

TEST_CASE("option table: values as given, else the rows' defaults") {
    const timeline::ParseResult bare = parse({"a.memlog"});
    REQUIRE(bare.m_error.empty());
    const timeline::ParsedOptions& defaults = bare.m_options;
    CHECK(defaults.operands() == std::vector<std::string>{"a.memlog"});
    CHECK(defaults.number("--top") == 20);
    CHECK(defaults.real("--alpha") == 0.3);
    CHECK(defaults.text("--unwind") == "libunwind");
    CHECK(!defaults.given("--csv"));
    CHECK(!defaults.given("--top"));
    CHECK(defaults.text("--output").empty());
    CHECK_THROWS_AS(defaults.given("--nothing"), std::logic_error);  // a name that is no row: a bug

    const timeline::ParseResult given =
        parse({"--top",  "0",     "-o",      "out.memlog", "a.memlog", "--csv", "--unwind", "fp", "--alpha", "1",
               "--idle", "1.5ms", "--cache", "32K",        "--cursor", "1s",    "--cursor", "2s", "--top",   "7"});
    REQUIRE(given.m_error.empty());
    const timeline::ParsedOptions& options = given.m_options;
    CHECK(options.number("--top") == 7);  // the last one given
    CHECK(options.text("--output") == "out.memlog");
    CHECK(options.given("--output"));
    CHECK(options.given("--csv"));
    CHECK(options.text("--unwind") == "fp");
    CHECK(options.real("--alpha") == 1.0);
    CHECK(options.number("--idle") == 1'500'000);
    CHECK(options.number("--cache") == 32768);
    CHECK(options.texts("--cursor") == std::vector<std::string>{"1s", "2s"});
    CHECK(options.operands() == std::vector<std::string>{"a.memlog"});
}

TEST_CASE("option table: each mistake is one line naming the option, its value and what it takes") {
    CHECK(mistake({"a", "--frobnicate"}) == "unknown option '--frobnicate'");
    CHECK(mistake({"a", "--top"}) == "--top needs a value");
    CHECK(mistake({"a", "--top", "-3"}) == "--top -3: a number, 0 or more");
    CHECK(mistake({"a", "--depth", "0"}) == "--depth 0: a number from 1 to 256");
    CHECK(mistake({"a", "--depth", "257"}) == "--depth 257: a number from 1 to 256");
    CHECK(mistake({"a", "--depth", "8x"}) == "--depth 8x: a number from 1 to 256");
    CHECK(mistake({"a", "--unwind", "magic"}) == "--unwind magic: libunwind, fp or none");
    CHECK(mistake({"a", "--alpha", "0"}) == "--alpha 0: a number above 0, at most 1");
    CHECK(mistake({"a", "--idle", "0"}) ==
          "--idle 0: a time above 0, with a unit (ns, us, ms, s: such as 50us) or in nanoseconds");
    CHECK(mistake({"a", "--cache", "512"}) ==
          "--cache 512: a size in bytes, K, M or G allowed (such as 4096, 32K or 8M), 1024 to 1073741824");
    CHECK(mistake({"a", "--even", "3"}) == "--even 3: an even digit");  // the row's own check
    CHECK(mistake({"a", "--elem", "8"}) == "--elem goes with --array");
    CHECK(mistake({"a", "--elem", "8", "--array", "seq=1"}).empty());
    CHECK(mistake({}) == "which log?");
    CHECK(mistake({"a", "b"}) == "one log at a time");
    CHECK(parse({}).m_operandError);
    CHECK(!parse({"a", "b"}).m_operandError);
    CHECK(!parse({"a", "--top", "x"}).m_operandError);
    // --help stops the reading wherever it is, even after a mistake would come.
    CHECK(parse({"--help", "--frobnicate"}).m_help);
    CHECK(parse({"a", "-h"}).m_help);
}

TEST_CASE("option table: an optional value, `--`, and operands that end the options") {
    const auto alone = parse({"--suppressions"});  // no file: given, empty
    CHECK(alone.m_error == "which log?");  // the syntax wants a log; the option itself was fine
    const auto bare = parse({"a", "--suppressions", "--csv"});
    REQUIRE(bare.m_error.empty());
    CHECK(bare.m_options.given("--suppressions"));
    CHECK(bare.m_options.text("--suppressions").empty());
    CHECK(bare.m_options.given("--csv"));
    const auto file = parse({"--suppressions", "my.supp", "a"});
    CHECK(file.m_options.text("--suppressions") == "my.supp");
    CHECK(file.m_options.operands() == std::vector<std::string>{"a"});
    CHECK(parse({"--", "-odd.memlog"}).m_options.operands() == std::vector<std::string>{"-odd.memlog"});

    const timeline::CommandSyntax program{.m_usage = "run PROGRAM [ARGS]",
                                          .m_about = "",
                                          .m_options = kRows,
                                          .m_operand = "program",
                                          .m_operandEndsOptions = true};
    const auto run = timeline::parseOptions(program, {"--csv", "ls", "-l", "--top", "x"});
    REQUIRE(run.m_error.empty());
    CHECK(run.m_options.operands() == std::vector<std::string>{"ls", "-l", "--top", "x"});
    CHECK(!run.m_options.given("--top"));
    CHECK(timeline::parseOptions(program, {"--csv"}).m_error == "which program?");
}

TEST_CASE("option table: --help lines come from the rows, with range, choices and default") {
    const std::string help = timeline::helpText(kSyntax);
    CHECK(help.rfind("usage: test FILE\n\nAbout it.\n\n", 0) == 0);
    // The help column: two spaces after the widest label, a label counting 24 at the most.
    const size_t column = 2 + 24 + 2;
    // A label's help, its wrapped lines (those indented to the column) joined again.
    auto helpOf = [&](const std::string& label) {
        const std::string line = lineStarting(help, "  " + label + " ");
        INFO(label << ": " << line);
        CHECK(line.find_first_not_of(' ', 2 + label.size()) == column);
        std::string text = line.size() > column ? line.substr(column) : std::string();
        for (size_t at = help.find(line) + line.size() + 1;
             at + column < help.size() && help.compare(at, column, std::string(column, ' ')) == 0 &&
             help[at + column] != ' ';
             at = help.find('\n', at) + 1)
            text += " " + help.substr(at + column, help.find('\n', at) - at - column);
        return text;
    };
    CHECK(helpOf("--top N") == "at most N rows (default 20)");
    CHECK(helpOf("--depth N") == "1 to 256; default 64");
    CHECK(helpOf("-o, --output FILE") == "where");
    CHECK(helpOf("--unwind MODE") == "call stacks (libunwind, fp or none; default libunwind)");
    CHECK(helpOf("--alpha A") == "above 0, at most 1; default 0.3");
    CHECK(helpOf("--elem N").rfind("with --array:", 0) == 0);
    CHECK(helpOf("--cursor T") == "repeatable");
    CHECK(helpOf("-h, --help") == "this text");
    // A label wider than the column: its help on the next line, at the column.
    CHECK(help.find("  --a-rather-long-option VALUE\n" + std::string(column, ' ') + "long\n") != std::string::npos);
    for (const std::string_view line : {std::string_view(help)})
        for (size_t at = 0, next; at < line.size(); at = next + 1) {
            next = line.find('\n', at);
            CHECK(next - at <= 79);
        }
    // A variable's label: the value to set, for a switch the one that is not its default.
    const Row variables[] = {{.m_name = "MEMLOG_FREE_STACKS", .m_default = "1", .m_help = "no stacks on frees"},
                             {.m_name = "MEMLOG_DEPTH", .m_kind = Kind::Count, .m_valueName = "N"}};
    const std::string lines = timeline::optionLines(variables, timeline::RowLabel::Variable);
    CHECK(lines.find("  MEMLOG_FREE_STACKS=0  no stacks on frees\n") != std::string::npos);
    CHECK(lines.find("  MEMLOG_DEPTH=N") != std::string::npos);
}

TEST_CASE("option rows: reading one value by kind, and saying what is expected") {
    constexpr Row depth{.m_name = "MEMLOG_STACK_DEPTH", .m_kind = Kind::Count, .m_low = 1, .m_high = 256};
    options::Value value;
    CHECK(options::readValue(depth, "256", value));
    CHECK(value.m_number == 256);
    CHECK(!options::readValue(depth, "", value));
    CHECK(!options::readValue(depth, "257", value));
    constexpr Row onOff{.m_name = "MEMLOG_ACCESS", .m_default = "0"};
    CHECK(options::readValue(onOff, "1", value));
    CHECK(value.m_number == 1);
    CHECK(!options::readValue(onOff, "yes", value));
    CHECK(std::string(options::expectedText(onOff).m_text) == "0 or 1");
    constexpr Row path{.m_name = "MEMLOG_OUT", .m_kind = Kind::Path, .m_high = 8};
    CHECK(options::readValue(path, "12345678", value));
    CHECK(!options::readValue(path, "123456789", value));
    CHECK(std::string(options::expectedText(path).m_text) == "a path of at most 8 bytes");
    CHECK(options::choiceIndex("libunwind|fp|none", "fp") == 1);
    CHECK(options::choiceIndex("libunwind|fp|none", "f") == -1);
    CHECK(options::choiceIndex("libunwind|fp|none", "none") == 2);
    CHECK(options::choiceIndex("libunwind|fp|none", "nonee") == -1);
    CHECK(std::string(options::Phrase().addChoices("a|b").m_text) == "a or b");
    CHECK(std::string(options::Phrase().addReal(0.5).add(" ").addReal(4).add(" ").addReal(0.125).m_text) ==
          "0.5 4 0.125");
    static_assert(options::defaultValue(Row{.m_name = "x", .m_kind = Kind::Count, .m_default = "64"}).m_number == 64);
}

TEST_CASE("option table: an option a command cannot do without is refused when absent or empty, in its words") {
    constexpr Row kRequired[] = {
        {.m_name = "--output",
         .m_short = "-o",
         .m_kind = Kind::Path,
         .m_valueName = "FILE",
         .m_whenMissing = "where to? (-o FILE)"},
    };
    const timeline::CommandSyntax syntax{.m_usage = "test LOG -o FILE", .m_about = "", .m_options = kRequired};
    auto mistakeOf = [&](std::vector<std::string> arguments) {
        return timeline::parseOptions(syntax, arguments).m_error;
    };
    CHECK(mistakeOf({"a.memlog"}) == "where to? (-o FILE)");
    CHECK(mistakeOf({"a.memlog", "-o", ""}) == "where to? (-o FILE)");
    CHECK(mistakeOf({"a.memlog", "-o", "out.pb"}).empty());
    CHECK(mistakeOf({}) == "which log?");  // a missing operand is said first
}

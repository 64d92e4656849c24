// A command line read through a table of option rows (memlog/option_row.hpp): memlog's commands
// and memtimeline declare their options as rows, and this reads their arguments against the rows,
// says a mistake in one line naming the option and what it takes, and writes the option list of
// --help from the same rows, so that what is accepted and what is told never part.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "memlog/option_row.hpp"

namespace memlog::timeline {

// A command's syntax: its operands, its options, and the prose of its --help around them.
struct CommandSyntax {
    const char* m_usage;  // the usage lines, after "usage: "
    const char* m_about;  // the prose between the usage and the options ("" for none)
    std::span<const options::Row> m_options;
    const char* m_notes = "";  // the prose after the options ("" for none)
    const char* m_operand = "log";  // what an operand is: "which log?", "one log at a time"
    size_t m_minOperands = 1, m_maxOperands = 1;
    // The first operand begins words that are not ours (memlog run's program and its arguments).
    bool m_operandEndsOptions = false;
    const char* m_wrongOperands = nullptr;  // said instead of "which log?" and "one log at a time"
};

class ParsedOptions {
public:
    bool given(std::string_view name) const;
    // The last value given, else the row's default (0 or "" for a row without one).
    uint64_t number(std::string_view name) const;  // Count, ByteSize, Duration (ns)
    double real(std::string_view name) const;
    std::string text(std::string_view name) const;  // Choice, Text, Path
    std::vector<std::string> texts(std::string_view name) const;  // every value given, in order
    // The operands in order; with m_operandEndsOptions, the first and every word after it.
    const std::vector<std::string>& operands() const { return m_operands; }

private:
    friend struct OptionReader;
    struct Given {
        const options::Row* m_row;
        std::string m_text;
        uint64_t m_number = 0;
        double m_real = 0;
    };
    const options::Row& row(std::string_view name) const;  // a name that is no row: std::logic_error
    const Given* last(std::string_view name) const;

    std::span<const options::Row> m_rows;
    std::vector<Given> m_given;
    std::vector<std::string> m_operands;
};

struct ParseResult {
    ParsedOptions m_options;
    bool m_help = false;  // --help or -h: print helpText and stop with status 0
    std::string m_error;  // not empty: the mistake as one line ("--top x: a number, 0 or more")
    bool m_operandError = false;  // the mistake is a missing operand: the usage is the hint
};

// Reads `arguments` in order: an option's value is the next argument whatever it is (but for
// m_valueOptional rows), `--` ends the options, the first mistake stops the reading.
ParseResult parseOptions(const CommandSyntax& syntax, const std::vector<std::string>& arguments);

// The options of a program with nothing to undo before it ends (the benches): after --help
// (printed on stdout) it exits with 0, after a mistake ("PROGRAM: mistake" on stderr) with 2.
ParsedOptions programOptions(const char* program, const CommandSyntax& syntax, int argc, char** argv);

// "usage: " and m_usage, m_about, the options as optionLines writes them, m_notes.
std::string helpText(const CommandSyntax& syntax);

// How a row is named at the left of its help line.
enum class RowLabel {
    Option,  // "-o, --output FILE"
    Variable,  // "MEMLOG_OUT=FILE"; a switch with the value that is not its default: "MEMLOG_QUIET=1"
};
// One row a line, "  LABEL   help (range; choices; default)", wrapped at 79 columns.
std::string optionLines(std::span<const options::Row> rows, RowLabel label = RowLabel::Option);

// `text` cut at spaces into lines of at most `width` characters, each but the first indented.
std::string wrapText(const std::string& text, size_t indent, size_t width);

// The value a Switch row is set to when it is not left at its default: "1", or "0".
const char* switchedValue(const options::Row& row);

}  // namespace memlog::timeline

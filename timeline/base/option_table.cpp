// Reading arguments against option rows, and the option list of --help from the same rows.
#include "timeline/base/option_table.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace memlog::timeline {

using options::Kind;
using options::Row;

namespace {

constexpr size_t kLineWidth = 79;
constexpr size_t kWidestLabel = 24;  // a longer label puts its help on the next line

const Row* findRow(std::span<const Row> rows, std::string_view name) {
    for (const Row& row : rows)
        if (name == row.m_name || (row.m_short && name == row.m_short)) return &row;
    return nullptr;
}

std::string label(const Row& row, RowLabel style) {
    if (style == RowLabel::Variable)
        return std::string(row.m_name) + "=" + (row.m_kind == Kind::Switch ? switchedValue(row) : row.m_valueName);
    std::string text = row.m_short ? std::string(row.m_short) + ", " : std::string();
    text += row.m_name;
    if (row.m_kind != Kind::Switch && row.m_valueName) text += std::string(" ") + row.m_valueName;
    return text;
}

// Whether `help` names every choice of a Choice row already (then the list is not added).
bool namesEveryChoice(const std::string& help, const char* choices) {
    std::string_view rest = choices;
    while (!rest.empty()) {
        const size_t bar = std::min(rest.find('|'), rest.size());
        if (help.find(rest.substr(0, bar)) == std::string::npos) return false;
        rest.remove_prefix(std::min(bar + 1, rest.size()));
    }
    return true;
}

// The help of a row with what the row itself says: "with --array: at most N frames (1 to 64)".
std::string fullHelp(const Row& row) {
    std::string help = row.m_needs ? std::string("with ") + row.m_needs + ": " + row.m_help : row.m_help;
    std::vector<std::string> notes;
    if (const options::Phrase range = options::rangeText(row); range.m_length) notes.emplace_back(range.m_text);
    if (row.m_kind == Kind::Choice && !namesEveryChoice(help, row.m_choices))
        notes.emplace_back(options::Phrase().addChoices(row.m_choices).m_text);
    if (row.m_default && row.m_kind != Kind::Switch) notes.push_back(std::string("default ") + row.m_default);
    if (row.m_repeatable) notes.emplace_back("repeatable");
    if (notes.empty()) return help;
    std::string joined;
    for (const std::string& note : notes) joined += (joined.empty() ? "" : "; ") + note;
    return help.empty() ? joined : help + " (" + joined + ")";
}

}  // namespace

std::string wrapText(const std::string& text, size_t indent, size_t width) {
    // The words, a word longer than a line cut after its commas (a list of CSV columns).
    std::vector<std::string> words;
    for (size_t at = 0; at < text.size();) {
        const size_t space = std::min(text.find(' ', at), text.size());
        std::string word = text.substr(at, space - at);
        while (word.size() > width && word.find(',') < word.size() - 1) {
            const size_t comma = word.rfind(',', width - 1);
            const size_t cut = (comma == std::string::npos ? word.find(',') : comma) + 1;
            words.push_back(word.substr(0, cut));
            word.erase(0, cut);
            words.back() += '\n';  // no space after the comma: joined as written
        }
        words.push_back(word);
        at = space + 1;
    }
    std::string out, line;
    bool glued = false;  // the previous word was cut from this one's list
    for (const std::string& word : words) {
        const bool cut = !word.empty() && word.back() == '\n';
        const std::string bare = cut ? word.substr(0, word.size() - 1) : word;
        const size_t joint = line.empty() || glued ? 0 : 1;
        if (!line.empty() && line.size() + joint + bare.size() > width) {
            out += line + "\n" + std::string(indent, ' ');
            line.clear();
        } else if (joint) {
            line += ' ';
        }
        line += bare;
        glued = cut;
    }
    return out + line;
}

const char* switchedValue(const Row& row) { return row.m_default && options::sameText(row.m_default, "1") ? "0" : "1"; }

const Row& ParsedOptions::row(std::string_view name) const {
    const Row* found = findRow(m_rows, name);
    if (!found) throw std::logic_error("no option row named " + std::string(name));
    return *found;
}

const ParsedOptions::Given* ParsedOptions::last(std::string_view name) const {
    const Row* wanted = &row(name);
    for (auto given = m_given.rbegin(); given != m_given.rend(); ++given)
        if (given->m_row == wanted) return &*given;
    return nullptr;
}

bool ParsedOptions::given(std::string_view name) const { return last(name) != nullptr; }

uint64_t ParsedOptions::number(std::string_view name) const {
    const Given* given = last(name);
    return given ? given->m_number : options::defaultValue(row(name)).m_number;
}

double ParsedOptions::real(std::string_view name) const {
    const Given* given = last(name);
    return given ? given->m_real : options::defaultValue(row(name)).m_real;
}

std::string ParsedOptions::text(std::string_view name) const {
    const Given* given = last(name);
    if (given) return given->m_text;
    const Row& found = row(name);
    return found.m_default ? found.m_default : "";
}

std::vector<std::string> ParsedOptions::texts(std::string_view name) const {
    const Row* wanted = &row(name);
    std::vector<std::string> values;
    for (const Given& given : m_given)
        if (given.m_row == wanted) values.push_back(given.m_text);
    return values;
}

// The reading itself: ParsedOptions's parts are filled here and nowhere else.
struct OptionReader {
    static ParseResult read(const CommandSyntax& syntax, const std::vector<std::string>& arguments) {
        ParseResult result;
        ParsedOptions& parsed = result.m_options;
        parsed.m_rows = syntax.m_options;
        bool optionsEnded = false;
        for (size_t i = 0; i < arguments.size(); ++i) {
            const std::string& argument = arguments[i];
            const bool option = !optionsEnded && argument.size() > 1 && argument[0] == '-';
            if (!option) {
                parsed.m_operands.push_back(argument);
                optionsEnded = optionsEnded || syntax.m_operandEndsOptions;
                continue;
            }
            if (argument == "--") {
                optionsEnded = true;
                continue;
            }
            if (argument == "--help" || argument == "-h") {
                result.m_help = true;
                return result;
            }
            const Row* row = findRow(syntax.m_options, argument);
            if (!row) {
                result.m_error = "unknown option '" + argument + "'";
                return result;
            }
            ParsedOptions::Given given{row, {}};
            if (row->m_kind == Kind::Switch) {
                given.m_number = 1;
            } else if (row->m_valueOptional) {
                if (i + 1 < arguments.size() && !arguments[i + 1].starts_with("-")) given.m_text = arguments[++i];
            } else if (i + 1 >= arguments.size()) {
                result.m_error = argument + " needs a value";
                return result;
            } else {
                given.m_text = arguments[++i];
            }
            if (row->m_kind != Kind::Switch && !(row->m_valueOptional && given.m_text.empty())) {
                options::Value value;
                if (!options::readValue(*row, given.m_text.c_str(), value)) {
                    result.m_error = argument + " " + given.m_text + ": " +
                                     (value.m_problem ? value.m_problem : options::expectedText(*row).m_text);
                    return result;
                }
                given.m_number = value.m_number;
                given.m_real = value.m_real;
            }
            parsed.m_given.push_back(std::move(given));
        }
        const size_t operands = parsed.m_operands.size();
        if (operands < syntax.m_minOperands || (!syntax.m_operandEndsOptions && operands > syntax.m_maxOperands)) {
            result.m_operandError = operands < syntax.m_minOperands && !syntax.m_wrongOperands;
            result.m_error = syntax.m_wrongOperands            ? syntax.m_wrongOperands
                             : operands < syntax.m_minOperands ? std::string("which ") + syntax.m_operand + "?"
                                                               : std::string("one ") + syntax.m_operand + " at a time";
            return result;
        }
        for (const ParsedOptions::Given& given : parsed.m_given)
            if (given.m_row->m_needs && !parsed.given(given.m_row->m_needs)) {
                result.m_error = std::string(given.m_row->m_name) + " goes with " + given.m_row->m_needs;
                return result;
            }
        for (const Row& row : syntax.m_options)
            if (row.m_whenMissing && parsed.text(row.m_name).empty()) {
                result.m_error = row.m_whenMissing;
                return result;
            }
        return result;
    }
};

ParseResult parseOptions(const CommandSyntax& syntax, const std::vector<std::string>& arguments) {
    return OptionReader::read(syntax, arguments);
}

ParsedOptions programOptions(const char* program, const CommandSyntax& syntax, int argc, char** argv) {
    ParseResult parsed = parseOptions(syntax, {argv + 1, argv + argc});
    if (parsed.m_help) {
        std::fputs(helpText(syntax).c_str(), stdout);
        std::exit(0);
    }
    if (!parsed.m_error.empty()) {
        std::fprintf(stderr, "%s: %s\n", program, parsed.m_error.c_str());
        std::exit(2);
    }
    return std::move(parsed.m_options);
}

std::string optionLines(std::span<const Row> rows, RowLabel style) {
    size_t width = 0;
    for (const Row& row : rows) width = std::max(width, std::min(label(row, style).size(), kWidestLabel));
    const size_t indent = 2 + width + 2;
    std::string out;
    for (const Row& row : rows) {
        const std::string name = label(row, style);
        out += "  " + name;
        out += name.size() > width ? "\n" + std::string(indent, ' ') : std::string(indent - 2 - name.size(), ' ');
        out += wrapText(fullHelp(row), indent, kLineWidth - indent) + "\n";
    }
    return out;
}

std::string helpText(const CommandSyntax& syntax) {
    static constexpr Row kHelp{.m_name = "--help", .m_short = "-h", .m_help = "this text"};
    std::vector<Row> rows(syntax.m_options.begin(), syntax.m_options.end());
    rows.push_back(kHelp);
    std::string text = std::string("usage: ") + syntax.m_usage + "\n";
    if (*syntax.m_about) text += std::string("\n") + syntax.m_about;
    text += "\n" + optionLines(rows);
    if (*syntax.m_notes) text += std::string("\n") + syntax.m_notes;
    return text;
}

}  // namespace memlog::timeline

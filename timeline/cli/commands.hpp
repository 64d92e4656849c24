// The `memlog` subcommands. Each takes its arguments after the command name and returns the exit
// status: 0 success, 1 failure of the work, 2 bad usage or bad input (after one line on stderr).
#pragma once

#include <string>
#include <vector>

#include "timeline/base/option_table.hpp"
#include "timeline/base/text_format.hpp"
#include "timeline/open/opened_log.hpp"

namespace memlog::timeline {
class Suppressions;
}  // namespace memlog::timeline

namespace memlog::cli {

using Arguments = std::vector<std::string>;

int runCommand(const Arguments& arguments);
int statCommand(const Arguments& arguments);
int dumpCommand(const Arguments& arguments);
int sitesCommand(const Arguments& arguments);
int flameCommand(const Arguments& arguments);
int accessesCommand(const Arguments& arguments);
int uafCommand(const Arguments& arguments);
int arraysCommand(const Arguments& arguments);
int importCommand(const Arguments& arguments);
int cacheCommand(const Arguments& arguments);
int compareCommand(const Arguments& arguments);
int diffCommand(const Arguments& arguments);
int pprofCommand(const Arguments& arguments);
int traceEventsCommand(const Arguments& arguments);
// memlog run --full-trace (full_trace_command.cpp): `program` becomes the command line that runs
// it under memlog's Valgrind tool, and the environment says where the tool is. -1 when ready;
// else the exit status after one line on stderr (Valgrind or the tool missing).
int prepareFullTrace(std::vector<std::string>& program);
// One line on the full traces among `logs`: their accesses and those left out.
void printFullTraces(const std::vector<std::string>& logs);
// A file in memlog's library folder, beside this executable (build/lib, or PREFIX/<libdir>).
std::string findBesideMemlog(const std::string& relative);
int lsCommand(const Arguments& arguments);
int indexCommand(const Arguments& arguments);

// A log opened for a command (timeline/open/opened_log.hpp): a progress bar on stderr while the
// walk reads and while every stack is named, the warnings (the walk's, a changed binary) on
// stderr. Throws LogError.
timeline::OpenedLog openLog(const std::string& path, timeline::OpenedLog::Parts parts);

// The built-in suppressions plus those of `file` (when not empty); throws LogError on a bad file.
timeline::Suppressions loadSuppressions(const std::string& file);
// The rules, one paragraph each, as `memlog stat --suppressions` prints them.
void printSuppressions(const timeline::Suppressions& suppressions);

// A CSV field, quoted when it holds a comma, a quote or a newline (C++ names do).
std::string csvField(const std::string& text);

// A JSON string literal: quoted, with quotes, backslashes and control characters escaped.
using timeline::jsonString;

// Writes `data` to `path` (stdout for "-") once it is whole: 0, or 1 after one line on stderr.
int writeOutput(const std::string& path, const std::string& data);

// One line on stderr, "memlog: <message>", and the exit status for bad usage.
int usageError(const std::string& message, const char* hint);

// A command's arguments read through its syntax (timeline/base/option_table.hpp): --help prints
// the help; a mistake prints "memlog: COMMAND: mistake" and the hint (the usage for a missing
// operand, else "Try 'memlog COMMAND --help'."). Either way m_exit is then the status.
struct CommandLine {
    timeline::ParsedOptions m_options;
    int m_exit = -1;  // >= 0: stop and exit with this
};
CommandLine readCommandLine(const std::string& command, const timeline::CommandSyntax& syntax,
                            const Arguments& arguments);

// Rows more than one command has.
constexpr options::Row topRow(const char* byDefault, const char* help) {
    return {
        .m_name = "--top", .m_kind = options::Kind::Count, .m_default = byDefault, .m_valueName = "N", .m_help = help};
}
// -o, --output FILE: where a command writes what it made; `whenMissing` refuses its absence
// ("where to? (-o FILE)").
constexpr options::Row outputRow(const char* valueName, const char* help, const char* whenMissing) {
    return {.m_name = "--output",
            .m_short = "-o",
            .m_kind = options::Kind::Path,
            .m_valueName = valueName,
            .m_help = help,
            .m_whenMissing = whenMissing};
}
inline constexpr options::Row kSuppressionsRow{
    .m_name = "--suppressions",
    .m_kind = options::Kind::Path,
    .m_valueName = "FILE",
    .m_help = "more suppressions, LeakSanitizer's way (see `memlog stat --help`)"};

// A progress bar on stderr for long reads; silent unless stderr is a terminal.
class ProgressBar {
public:
    explicit ProgressBar(const std::string& label);
    ~ProgressBar();
    void update(double fraction);

private:
    std::string m_label;
    bool m_enabled;
    bool m_drawn = false;
};

}  // namespace memlog::cli

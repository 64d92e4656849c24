// The command-line tools' diagnostics (memlog, memtimeline): warnings, progress, details and the
// window's trace lines, through spdlog with levels. Results (tables, JSON) go to stdout and
// refusals (bad usage, a log that cannot be read) stay one plain line each: neither is here.
// The recorder (libmemlog.so) never uses this: it keeps its own allocation-free lines.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace memlog::diagnostics {

enum class Verbosity { Quiet, Normal, Verbose };

// Takes -v/--verbose and -q/--quiet out of `arguments` (the last one wins).
std::optional<Verbosity> takeVerbosity(std::vector<std::string>& arguments);

// The level: MEMLOG_LOG_LEVEL (trace, debug, info, warn, error, critical, off; default info),
// then -q (errors only) or -v (debug) over it. Lines read "PROGRAM: message" on stderr.
void setup(const std::string& program, std::optional<Verbosity> verbosity);

void warn(const std::string& message);  // something is missing or changed; the work goes on
void info(const std::string& message);  // what was done, when it is worth a line
void debug(const std::string& message);  // how: timings, counts (-v)

// Progress bars are drawn at the info level and below (not with -q).
bool showsProgress();

// memtimeline --trace: one line per frame, as written (no prefix), whatever the level.
void enableTrace();
void trace(const std::string& line);

}  // namespace memlog::diagnostics

// Diagnostics of the command-line tools through spdlog: one logger for the program's lines and
// one for the window's trace lines, which tests and scripts parse and which must keep their form.
#include "timeline/base/diagnostics.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>

namespace memlog::diagnostics {
namespace {

std::shared_ptr<spdlog::logger> s_log;
std::shared_ptr<spdlog::logger> s_trace;

spdlog::logger& log() {
    if (!s_log) setup("memlog", std::nullopt);
    return *s_log;
}

}  // namespace

std::optional<Verbosity> takeVerbosity(std::vector<std::string>& arguments) {
    std::optional<Verbosity> verbosity;
    std::erase_if(arguments, [&](const std::string& argument) {
        if (argument == "-v" || argument == "--verbose")
            verbosity = Verbosity::Verbose;
        else if (argument == "-q" || argument == "--quiet")
            verbosity = Verbosity::Quiet;
        else
            return false;
        return true;
    });
    return verbosity;
}

void setup(const std::string& program, std::optional<Verbosity> verbosity) {
    // Unsynchronised sinks: the tools write diagnostics from one thread at a time.
    s_log = std::make_shared<spdlog::logger>(program, std::make_shared<spdlog::sinks::stderr_sink_st>());
    s_log->set_pattern("%n: %v");
    spdlog::level::level_enum level = spdlog::level::info;
    if (const char* text = std::getenv("MEMLOG_LOG_LEVEL"); text && *text) {
        level = spdlog::level::from_str(text);  // unknown names read as off: say so
        if (level == spdlog::level::off && std::string(text) != "off") {
            level = spdlog::level::info;
            s_log->warn("MEMLOG_LOG_LEVEL={} is not one of trace, debug, info, warn, error, critical, off; using info",
                        text);
        }
    }
    if (verbosity == Verbosity::Quiet) level = spdlog::level::err;
    if (verbosity == Verbosity::Verbose) level = spdlog::level::debug;
    s_log->set_level(level);
    s_trace = std::make_shared<spdlog::logger>(program + "-trace", std::make_shared<spdlog::sinks::stderr_sink_st>());
    s_trace->set_pattern("%v");
    s_trace->set_level(spdlog::level::off);
}

void warn(const std::string& message) { log().warn("{}", message); }
void info(const std::string& message) { log().info("{}", message); }
void debug(const std::string& message) { log().debug("{}", message); }

bool showsProgress() { return log().should_log(spdlog::level::info); }

void enableTrace() {
    log();
    s_trace->set_level(spdlog::level::info);
}

void trace(const std::string& line) {
    if (s_trace) s_trace->info("{}", line);
}

}  // namespace memlog::diagnostics

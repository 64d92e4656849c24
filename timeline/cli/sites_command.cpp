// memlog sites: the allocation-site table, and memlog flame: collapsed stacks for flame graphs.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "commands.hpp"
#include "timeline/log_reader.hpp"
#include "timeline/sites.hpp"

namespace memlog::cli {
namespace {

constexpr const char* kSitesHelp = R"(usage: memlog sites FILE [--by calls|bytes|peak|leaked] [--top N] [--csv]

The allocation sites of a .memlog log: for each function that allocated (its
innermost frame that is not allocator plumbing such as operator new, strdup or
std::allocator), how many blocks it allocated, how many bytes, how many bytes
were still live when the whole heap peaked, and how many leaked.

  --by METRIC   sort by calls, bytes (default), peak or leaked
  --top N       at most N rows (default 20; 0 for all)
  --csv         rows of function,location,module,calls,bytes,peak_bytes,leaked_bytes,leaked_blocks
)";

constexpr const char* kFlameHelp = R"(usage: memlog flame FILE [--metric calls|bytes|peak|leaked]

Collapsed stacks of a .memlog log for flame graphs (flamegraph.pl, inferno,
speedscope): one line per distinct call stack, frames outermost first separated
by ';', then a space and the metric (default bytes). Inlined functions appear
as frames of their own.
)";

// Flame graph tools split frames at ';' and the count at the last space.
std::string flameFrame(const std::string& name) {
    std::string cleaned = name;
    std::replace(cleaned.begin(), cleaned.end(), ';', ':');
    std::replace(cleaned.begin(), cleaned.end(), '\n', ' ');
    return cleaned;
}

}  // namespace

std::unique_ptr<timeline::StackNames> nameStacks(timeline::LogReader& reader) {
    auto names = std::make_unique<timeline::StackNames>(
        reader, [](const std::string& problem) { std::fprintf(stderr, "memlog: %s\n", problem.c_str()); });
    ProgressBar bar("symbolising");
    names->resolveAll([&](double f) { bar.update(f); });
    return names;
}

int sitesCommand(const Arguments& arguments) {
    std::string path;
    timeline::Metric by = timeline::Metric::Bytes;
    size_t top = 20;
    bool csv = false;
    for (size_t i = 0; i < arguments.size(); ++i) {
        const std::string& argument = arguments[i];
        if (argument == "--help" || argument == "-h") {
            std::fputs(kSitesHelp, stdout);
            return 0;
        }
        if (argument == "--csv") {
            csv = true;
        } else if (argument == "--by") {
            if (i + 1 >= arguments.size() || !timeline::parseMetric(arguments[++i], by))
                return usageError("sites: --by takes calls, bytes, peak or leaked", "Try 'memlog sites --help'.");
        } else if (argument == "--top") {
            char* end = nullptr;
            const long n = i + 1 < arguments.size() ? std::strtol(arguments[++i].c_str(), &end, 10) : -1;
            if (n < 0 || !end || *end) return usageError("sites: --top takes a number", "Try 'memlog sites --help'.");
            top = static_cast<size_t>(n);
        } else if (!argument.empty() && argument[0] == '-') {
            return usageError("sites: unknown option '" + argument + "'", "Try 'memlog sites --help'.");
        } else if (path.empty()) {
            path = argument;
        } else {
            return usageError("sites: one log at a time", "Try 'memlog sites --help'.");
        }
    }
    if (path.empty()) return usageError("sites: which log?", "usage: memlog sites FILE [--by METRIC] [--top N] [--csv]");
    try {
        timeline::LogReader reader(path);
        ProgressBar bar("reading " + path);
        const timeline::MeasuredLog measured = timeline::measureStacks(reader, [&](double f) { bar.update(f); });
        auto names = nameStacks(reader);
        const auto table = timeline::siteTable(*names, measured.m_stacks, by, top);
        if (csv) {
            std::puts("function,location,module,calls,bytes,peak_bytes,leaked_bytes,leaked_blocks");
            for (const auto& row : table)
                std::printf("%s,%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
                            csvField(row.m_site.m_function).c_str(), csvField(timeline::siteLocation(row.m_site)).c_str(),
                            csvField(row.m_site.m_module).c_str(), row.m_metrics.m_calls, row.m_metrics.m_bytes,
                            row.m_metrics.m_peakBytes, row.m_metrics.m_leakedBytes, row.m_metrics.m_leakedBlocks);
        } else {
            std::printf("%12s %14s %12s %12s  %-40s %s\n", "calls", "bytes", "peak", "leaked", "function", "location");
            for (const auto& row : table)
                std::printf("%12" PRIu64 " %14" PRIu64 " %12" PRIu64 " %12" PRIu64 "  %-40s %s\n", row.m_metrics.m_calls,
                            row.m_metrics.m_bytes, row.m_metrics.m_peakBytes, row.m_metrics.m_leakedBytes,
                            row.m_site.m_function.c_str(), timeline::siteLocation(row.m_site).c_str());
        }
    } catch (const timeline::LogError& error) {
        std::fprintf(stderr, "memlog: %s\n", error.what());
        return 2;
    }
    return 0;
}

int flameCommand(const Arguments& arguments) {
    std::string path;
    timeline::Metric metric = timeline::Metric::Bytes;
    for (size_t i = 0; i < arguments.size(); ++i) {
        const std::string& argument = arguments[i];
        if (argument == "--help" || argument == "-h") {
            std::fputs(kFlameHelp, stdout);
            return 0;
        }
        if (argument == "--metric") {
            if (i + 1 >= arguments.size() || !timeline::parseMetric(arguments[++i], metric))
                return usageError("flame: --metric takes calls, bytes, peak or leaked", "Try 'memlog flame --help'.");
        } else if (!argument.empty() && argument[0] == '-') {
            return usageError("flame: unknown option '" + argument + "'", "Try 'memlog flame --help'.");
        } else if (path.empty()) {
            path = argument;
        } else {
            return usageError("flame: one log at a time", "Try 'memlog flame --help'.");
        }
    }
    if (path.empty()) return usageError("flame: which log?", "usage: memlog flame FILE [--metric METRIC]");
    try {
        timeline::LogReader reader(path);
        ProgressBar bar("reading " + path);
        const timeline::MeasuredLog measured = timeline::measureStacks(reader, [&](double f) { bar.update(f); });
        auto names = nameStacks(reader);
        // Different raw stacks can name the same frames (two return addresses on one line):
        // add them up under one line.
        std::map<std::string, uint64_t> lines;
        for (size_t id = 0; id < measured.m_stacks.size(); ++id) {
            const uint64_t value = timeline::metricValue(measured.m_stacks[id], metric);
            if (value == 0) continue;
            const auto frames = names->frames(static_cast<uint32_t>(id));
            std::string line;
            for (auto frame = frames.rbegin(); frame != frames.rend(); ++frame)
                line += (line.empty() ? "" : ";") + flameFrame(frame->m_function);
            lines[line.empty() ? "[no stack]" : line] += value;
        }
        for (const auto& [line, value] : lines) std::printf("%s %" PRIu64 "\n", line.c_str(), value);
    } catch (const timeline::LogError& error) {
        std::fprintf(stderr, "memlog: %s\n", error.what());
        return 2;
    }
    return 0;
}

}  // namespace memlog::cli

// The list of logs that `memlog run` prints at its end and `memlog ls` prints for a folder.
#include "log_list.hpp"

#include <algorithm>
#include <cstdio>

#include "timeline/read/log_reader.hpp"
#include "timeline/open/opened_log.hpp"
#include "timeline/replay/summary.hpp"
#include "timeline/base/text_format.hpp"

namespace memlog::cli {

LogLine describeLog(const std::string& path) {
    LogLine line;
    line.m_path = path;
    try {
        // Quietly: a list says a log is unreadable in its line, and nothing of a torn tail. A full
        // trace's accesses are not counted here: its events are.
        timeline::OpenedLog log(path, {.m_walk = timeline::OpenedLog::Walk::Summary, .m_heapOnly = true});
        const format::FileHeader& header = log.reader().header();
        const std::string exe(header.m_exe, strnlen(header.m_exe, sizeof header.m_exe));
        line.m_program = exe.substr(exe.rfind('/') + 1);
        if (line.m_program.empty()) line.m_program = "?";
        line.m_pid = header.m_pid;
        line.m_startNs = header.m_startRealtimeNs;
        line.m_events = log.summary().m_events;
        line.m_peakBytes = log.summary().m_peakBytes;
    } catch (const timeline::LogError& error) {
        line.m_error = error.what();
    }
    return line;
}

void orderLogLines(std::vector<LogLine>& lines, size_t first) {
    if (first < lines.size()) std::rotate(lines.begin(), lines.begin() + first, lines.begin() + first + 1);
    const auto rest = lines.begin() + (first < lines.size() ? 1 : 0);
    // Ties keep the order they came in (the order the logs were made).
    std::stable_sort(rest, lines.end(), [](const LogLine& a, const LogLine& b) { return a.m_events > b.m_events; });
}

std::string logLinesText(const std::vector<LogLine>& lines, const std::string& indent) {
    struct Cells {
        std::string m_program, m_pid, m_events, m_peak;
    };
    std::vector<Cells> cells;
    size_t widths[4] = {0, 0, 0, 0};
    for (const LogLine& line : lines) {
        Cells c;
        if (line.m_error.empty()) {
            c = {line.m_program, "pid " + std::to_string(line.m_pid), timeline::countedText(line.m_events, "event"),
                 "peak " + timeline::bytesText(double(line.m_peakBytes))};
            widths[0] = std::max(widths[0], c.m_program.size());
            widths[1] = std::max(widths[1], c.m_pid.size());
            widths[2] = std::max(widths[2], c.m_events.size());
            widths[3] = std::max(widths[3], c.m_peak.size());
        }
        cells.push_back(c);
    }
    std::string text;
    for (size_t i = 0; i < lines.size(); ++i) {
        text += indent;
        if (!lines[i].m_error.empty()) {
            text += "unreadable: " + lines[i].m_error + "\n";
            continue;
        }
        char row[512];
        std::snprintf(row, sizeof row, "%-*s  %-*s  %*s  %-*s  ", int(widths[0]), cells[i].m_program.c_str(),
                      int(widths[1]), cells[i].m_pid.c_str(), int(widths[2]), cells[i].m_events.c_str(), int(widths[3]),
                      cells[i].m_peak.c_str());
        text += row + lines[i].m_path + "\n";
    }
    return text;
}

}  // namespace memlog::cli

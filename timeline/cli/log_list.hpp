// One line per log, for `memlog run`'s closing list and `memlog ls`: the program, its pid, its
// events and byte peak, the log's path.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace memlog::cli {

struct LogLine {
    std::string m_path;
    std::string m_program;  // the image's executable, without its directory
    uint32_t m_pid = 0;
    uint64_t m_startNs = 0;  // wall time when recording began: orders the images of one pid
    uint64_t m_events = 0;
    uint64_t m_peakBytes = 0;
    std::string m_error;  // the log could not be read: why (path and offset); the rest is zero
};

// Reads the whole log for its events and peak. Never throws: a bad log comes back with m_error.
LogLine describeLog(const std::string& path);

// Puts `first` (an index into `lines`, or lines.size() for none) at the top and the others after
// it, most events first.
void orderLogLines(std::vector<LogLine>& lines, size_t first);

// The lines as aligned columns, each beginning with `indent`. Unreadable logs get their reason.
std::string logLinesText(const std::vector<LogLine>& lines, const std::string& indent);

}  // namespace memlog::cli

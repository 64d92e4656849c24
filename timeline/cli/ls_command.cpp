// memlog ls: the logs in a folder, one line each, as `memlog run` lists them at its end.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "commands.hpp"
#include "log_list.hpp"

namespace memlog::cli {
namespace {

constexpr timeline::CommandSyntax kSyntax{
    .m_usage = "memlog ls [DIR]",
    .m_about = R"(Lists the .memlog logs in DIR (default: the current folder), one line each:
the program, its pid, its heap events, its byte peak and the log's name, the
logs with the most events first. A log that cannot be read is listed with the
reason (its path and the offset), and the exit status is then 2.
)",
    .m_options = {},
    .m_operand = "folder",
    .m_minOperands = 0};

}  // namespace

int lsCommand(const Arguments& arguments) {
    const CommandLine line = readCommandLine("ls", kSyntax, arguments);
    if (line.m_exit >= 0) return line.m_exit;
    const std::string folder = line.m_options.operands().empty() ? "." : line.m_options.operands()[0];
    std::error_code error;
    std::vector<std::string> paths;
    for (std::filesystem::directory_iterator entry(folder, error), end; !error && entry != end; entry.increment(error))
        if (entry->path().extension() == ".memlog" && entry->is_regular_file())
            paths.push_back(folder == "." ? entry->path().filename().string() : entry->path().string());
    if (error) return usageError("ls: cannot read the folder '" + folder + "': " + error.message(), nullptr);
    std::sort(paths.begin(), paths.end());
    std::vector<LogLine> lines;
    bool unreadable = false;
    for (const std::string& path : paths) {
        lines.push_back(describeLog(path));
        unreadable |= !lines.back().m_error.empty();
    }
    orderLogLines(lines, lines.size());
    std::fputs(logLinesText(lines, "").c_str(), stdout);
    return unreadable ? 2 : 0;
}

}  // namespace memlog::cli

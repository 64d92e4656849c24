// memlog index: a log's index on disk built ahead of time (timeline/open/log_index.hpp), so that
// memtimeline's first picture of a big log need not wait for it.
#include <chrono>
#include <cstdint>
#include <cstdio>

#include "commands.hpp"
#include "timeline/base/text_format.hpp"
#include "timeline/model/x_axis.hpp"
#include "timeline/read/log_reader.hpp"

namespace memlog::cli {
namespace {

constexpr options::Row kOptions[] = {
    {.m_name = "--x",
     .m_kind = options::Kind::Choice,
     .m_choices = "time|instructions",
     .m_valueName = "AXIS",
     .m_help = "the clock of the index's blocks, as memtimeline --x draws them (default: instructions for a log "
               "of memlog's full trace, else time; events are drawn from either)"},
};

constexpr timeline::CommandSyntax kSyntax{
    .m_usage = "memlog index LOG... [--x AXIS]",
    .m_about = R"(Builds the index memtimeline reads a log through: every block of the log, the
window's tree of them on the index's clock (their boxes, sums per node and
sorted ends), and what reading the log leaves (its stacks, modules and phases),
kept on disk and mapped when drawn, so that opening the log again reads nothing
of the log itself and builds nothing. The index is written beside the log
(LOG.index, or LOG.instructions.index on a full trace's instructions) when its
folder is writable, else in $XDG_CACHE_HOME/memlog (~/.cache/memlog). It names
the log it was built from (the recording's pid and start, the file's size and
modification time): an index of a log that changed since, or of another log, is
built again, as is a damaged one (said in one line). memtimeline builds an index
itself on the first opening of a log of 16 MiB or more; this command builds one
whatever the log. A full trace's index holds its every access (72 bytes each),
mapped when drawn, not read into memory.
Prints one line a log: the index, its blocks, and whether it was built now or
was already there.)",
    .m_options = kOptions,
    .m_maxOperands = SIZE_MAX,
    .m_wrongOperands = "which logs?"};

}  // namespace

int indexCommand(const Arguments& arguments) {
    const CommandLine line = readCommandLine("index", kSyntax, arguments);
    if (line.m_exit >= 0) return line.m_exit;
    int status = 0;
    for (const std::string& path : line.m_options.operands()) {
        try {
            const auto started = std::chrono::steady_clock::now();
            // The header says whether the log counts instructions (the default clock then).
            const bool counts = openLog(path, {}).reader().countsInstructions();
            const std::string axis = line.m_options.text("--x");
            const bool instructions = axis.empty() ? counts : axis == "instructions";
            if (instructions && !counts) {
                status =
                    usageError("index: " + timeline::noInstructionCounts(path) + ": index it on --x time", nullptr);
                continue;
            }
            const timeline::OpenedLog log =
                openLog(path, {.m_walk = timeline::OpenedLog::Walk::Model,
                               .m_clock = instructions ? timeline::XAxis::Instructions : timeline::XAxis::Time,
                               .m_index = timeline::IndexUse::Always});
            const double ns =
                std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - started).count();
            if (log.indexPath().empty()) {
                status = 1;  // said by the opening: nowhere to write
                continue;
            }
            std::printf("%s: %s, %s blocks, %s\n", path.c_str(), log.indexPath().c_str(),
                        timeline::countText(log.model().size()).c_str(),
                        log.indexBuilt() ? ("built in " + timeline::durationText(ns)).c_str() : "already there");
        } catch (const timeline::LogError& error) {
            status = usageError(error.what(), nullptr);
        } catch (const timeline::IndexError& error) {
            std::fprintf(stderr, "memlog: %s\n", error.what());
            status = 1;
        }
    }
    return status;
}

}  // namespace memlog::cli

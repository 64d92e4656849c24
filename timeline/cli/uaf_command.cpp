// memlog uaf: each use after free in a log (timeline/accesses/use_after_free.hpp) with the stacks of the
// block's allocation, its free and the access that came after.
#include <cinttypes>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "timeline/names/site_table.hpp"
#include "timeline/names/stack_names.hpp"
#include "timeline/base/text_format.hpp"
#include "timeline/accesses/use_after_free.hpp"

namespace memlog::cli {
namespace {

constexpr options::Row kOptions[] = {topRow("20", "at most N blocks, 0 for all")};

constexpr timeline::CommandSyntax kSyntax{
    .m_usage = "memlog uaf FILE [--top N]",
    .m_about = R"(The uses after free in a .memlog log: accesses by the program to a heap block
after its free and before its memory was handed out again, found by access
samples (MEMLOG_ACCESS=1) and by watchpoints that stayed on the sampled words of
freed blocks (MEMLOG_WATCH=1, where the debug registers work). For each block,
in the order of the first use: its address and size, how long after the free,
how many samples fell in it, and three stacks: where it was allocated, where it
was freed, and where it was used after that. The allocator's own writes into
the blocks it frees are not counted.
)",
    .m_options = kOptions,
    .m_notes = R"(Exit status 0 whether or not any was found; memlog stat --json counts them
(anomalies.use_after_free).
)"};

void printStack(timeline::StackNames& names, const char* label, uint32_t stack, uint64_t ip = 0) {
    std::vector<unwind::SourceFrame> frames;
    if (ip) frames = names.instruction(ip);
    const auto callers = names.frames(stack);
    frames.insert(frames.end(), callers.begin(), callers.end());
    if (frames.empty()) {
        std::printf("  %-12s (no stack recorded)\n", label);
        return;
    }
    constexpr size_t kFrames = 8;
    for (size_t i = 0; i < frames.size() && i < kFrames; ++i)
        std::printf("  %-12s %s%s  %s\n", i == 0 ? label : "", frames[i].m_function.c_str(),
                    frames[i].m_inlined ? " (inlined)" : "", timeline::siteLocation(frames[i]).c_str());
    if (frames.size() > kFrames) std::printf("  %-12s ... %zu more\n", "", frames.size() - kFrames);
}

}  // namespace

int uafCommand(const Arguments& arguments) {
    const CommandLine line = readCommandLine("uaf", kSyntax, arguments);
    if (line.m_exit >= 0) return line.m_exit;
    const std::string& path = line.m_options.operands()[0];
    const size_t top = line.m_options.number("--top");
    try {
        std::vector<timeline::UseAfterFree> uses;
        timeline::OpenedLog log =
            openLog(path, {.m_ownWalk = [&](timeline::LogReader& reader, const std::function<void(double)>&) {
                        uses = timeline::findUsesAfterFree(reader);
                    }});
        uint64_t accesses = 0;
        for (const auto& use : uses) accesses += use.m_accesses;
        std::printf("%s: %s used after free (%s accesses sampled)\n", path.c_str(),
                    uses.size() == 1 ? "1 block" : (timeline::countText(uses.size()) + " blocks").c_str(),
                    timeline::countText(accesses).c_str());
        if (uses.empty()) return 0;
        timeline::StackNames& names = log.names();  // only for a log with uses to show
        size_t shown = 0;
        for (const auto& use : uses) {
            if (top && shown++ == top) {
                std::printf("\n... %zu more (--top 0 lists all)\n", uses.size() - top);
                break;
            }
            const timeline::AccessSample& first = use.m_first;
            std::printf(
                "\nblock %" PRIu64
                " at %s, %s: %s %s after its free, at %s (thread %u, %s); %s in it, %s by "
                "watchpoint\n",
                use.m_blockSeq, timeline::hexText(use.m_addr).c_str(),
                timeline::bytesText(static_cast<double>(use.m_size)).c_str(), format::accessKindName(first.m_kind),
                timeline::durationText(static_cast<double>(first.m_timeNs - std::min(first.m_timeNs, use.m_freeNs)))
                    .c_str(),
                timeline::hexText(first.m_addr).c_str(), first.m_tid, format::accessSourceName(first.m_source),
                timeline::countText(use.m_accesses).c_str(), timeline::countText(use.m_byWatchpoint).c_str());
            printStack(names, "allocated", use.m_allocationStack);
            printStack(names, "freed", use.m_freeStack);
            // A watchpoint's trap reports the instruction after the access: its function is the one.
            printStack(names, "used", first.m_stack, first.m_ipAfter ? first.m_ip - 1 : first.m_ip);
        }
    } catch (const timeline::LogError& error) {
        std::fprintf(stderr, "memlog: %s\n", error.what());
        return 2;
    }
    return 0;
}

}  // namespace memlog::cli

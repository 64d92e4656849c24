// memlog import: a trace from another tool as a .memlog log of accesses (timeline/trace/dinero_import).
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "timeline/trace/dinero_import.hpp"
#include "timeline/base/text_format.hpp"

namespace memlog::cli {
namespace {

constexpr options::Row kOptions[] = {
    outputRow("OUT", "the log to write (replaced if it exists)", "where to? (-o OUT.memlog)"),
};

constexpr timeline::CommandSyntax kSyntax{
    .m_usage = "memlog import TRACE.din -o OUT.memlog",
    .m_about = R"(Reads a Dinero trace (the .din format of the Dinero IV cache simulator and of
many trace tools: one reference a line, "LABEL ADDRESS [SIZE]", LABEL 0 a read,
1 a write, 2 an instruction fetch, 3 or 4 other; ADDRESS in hex; SIZE in bytes,
4 when left out) and writes OUT.memlog, a log of its data accesses alone, in
the trace's order, one nanosecond apart. Instruction fetches and the other
labels are counted and left out; lines starting with # are comments.

A trace holds every access, so memlog cache simulates a cache over it, and
memlog stat, dump --accesses and memtimeline read it like any log (with no
heap blocks: every access is "other" memory).
)",
    .m_options = kOptions,
    .m_notes = R"(Exit status: 0 done, 2 bad usage or a line that is not a Dinero reference (the
file and line are named; nothing is written).
)",
    .m_operand = "trace"};

}  // namespace

int importCommand(const Arguments& arguments) {
    const CommandLine line = readCommandLine("import", kSyntax, arguments);
    if (line.m_exit >= 0) return line.m_exit;
    const std::string& input = line.m_options.operands()[0];
    const std::string output = line.m_options.text("--output");
    try {
        const timeline::DineroImport imported = timeline::importDinero(input, output);
        std::fprintf(stderr, "memlog: %s: %s reads and %s writes (%s other references left out) into %s\n",
                     input.c_str(), timeline::countText(imported.m_reads).c_str(),
                     timeline::countText(imported.m_writes).c_str(), timeline::countText(imported.m_skipped).c_str(),
                     output.c_str());
        return 0;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "memlog: %s\n", error.what());
        return 2;
    }
}

}  // namespace memlog::cli

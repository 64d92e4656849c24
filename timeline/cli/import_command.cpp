// memlog import: a trace from another tool as a .memlog log of accesses (timeline/trace/dinero_import).
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "timeline/trace/dinero_import.hpp"
#include "timeline/base/text_format.hpp"

namespace memlog::cli {
namespace {

constexpr const char* kHelp = R"(usage: memlog import TRACE.din -o OUT.memlog

Reads a Dinero trace (the .din format of the Dinero IV cache simulator and of
many trace tools: one reference a line, "LABEL ADDRESS [SIZE]", LABEL 0 a read,
1 a write, 2 an instruction fetch, 3 or 4 other; ADDRESS in hex; SIZE in bytes,
4 when left out) and writes OUT.memlog, a log of its data accesses alone, in
the trace's order, one nanosecond apart. Instruction fetches and the other
labels are counted and left out; lines starting with # are comments.

A trace holds every access, so memlog cache simulates a cache over it, and
memlog stat, dump --accesses and memtimeline read it like any log (with no
heap blocks: every access is "other" memory).

  -o, --output OUT   the log to write (replaced if it exists)

Exit status: 0 done, 2 bad usage or a line that is not a Dinero reference (the
file and line are named; nothing is written).
)";

}  // namespace

int importCommand(const Arguments& arguments) {
    const char* hint = "Try 'memlog import --help'.";
    std::string input, output;
    for (size_t i = 0; i < arguments.size(); ++i) {
        const std::string& argument = arguments[i];
        if (argument == "--help" || argument == "-h") {
            std::fputs(kHelp, stdout);
            return 0;
        }
        if (argument == "-o" || argument == "--output") {
            if (i + 1 >= arguments.size()) return usageError("import: " + argument + " needs a file", hint);
            output = arguments[++i];
        } else if (!argument.empty() && argument[0] == '-') {
            return usageError("import: unknown option '" + argument + "'", hint);
        } else if (input.empty()) {
            input = argument;
        } else {
            return usageError("import: one trace at a time", hint);
        }
    }
    if (input.empty()) return usageError("import: which trace?", "usage: memlog import TRACE.din -o OUT.memlog");
    if (output.empty()) return usageError("import: where to? (-o OUT.memlog)", hint);
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

// memlog dump: every heap event in sequence order, as CSV or as an aligned table.
#include <cinttypes>
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "timeline/log_reader.hpp"

namespace memlog::cli {
namespace {

constexpr const char* kHelp = R"(usage: memlog dump FILE [--csv]

Prints every heap event of a .memlog log in sequence order (the global order
across threads). A realloc or mremap is one row at the moment the old block
ended; old_addr names it.

  --csv   rows of seq,time_ns,tid,kind,addr,size,old_addr,stack_id with
          addresses in 0x hex; time_ns counts from the start of the recording
)";

}  // namespace

int dumpCommand(const Arguments& arguments) {
    const FileArguments parsed = parseFileArguments(arguments, "dump", "--csv", kHelp);
    if (parsed.m_exit >= 0) return parsed.m_exit;
    const std::string& path = parsed.m_path;
    const bool csv = parsed.m_flag;
    static char buffer[1 << 20];
    std::setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
    try {
        timeline::LogReader reader(path);
        if (csv)
            std::fputs("seq,time_ns,tid,kind,addr,size,old_addr,stack_id\n", stdout);
        else
            std::printf("%10s %14s %8s %-14s %18s %12s %18s %8s\n", "seq", "time_ns", "tid", "kind", "addr", "size",
                        "old_addr", "stack");
        const char* rowFormat = csv ? "%" PRIu64 ",%" PRIu64 ",%u,%s,0x%" PRIx64 ",%" PRIu64 ",0x%" PRIx64 ",%u\n"
                                    : "%10" PRIu64 " %14" PRIu64 " %8u %-14s 0x%016" PRIx64 " %12" PRIu64
                                      " 0x%016" PRIx64 " %8u\n";
        reader.forEachEvent([&](const timeline::Event& e) {
            std::printf(rowFormat, e.m_seq, e.m_timeNs, e.m_tid, format::kindInfo(e.m_kind).m_name, e.m_addr, e.m_size,
                        e.m_oldAddr, e.m_stack);
        });
    } catch (const timeline::LogError& error) {
        std::fflush(stdout);
        std::fprintf(stderr, "memlog: %s\n", error.what());
        return 2;
    }
    return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace memlog::cli

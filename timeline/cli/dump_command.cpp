// memlog dump: every heap event (or, with --accesses, every access sample) in sequence order, as
// CSV or as an aligned table.
#include <cinttypes>
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "timeline/log_reader.hpp"
#include "timeline/sites.hpp"

namespace memlog::cli {
namespace {

constexpr const char* kHelp = R"(usage: memlog dump FILE [--csv] [--symbolize] [--accesses]

Prints every heap event of a .memlog log in sequence order (the global order
across threads). A realloc or mremap is one row at the moment the old block
ended; old_addr names it.

  --csv   rows of seq,time_ns,tid,kind,addr,size,old_addr,stack_id with
          addresses in 0x hex; time_ns counts from the start of the recording
  --symbolize  one more column, site: the function that allocated or freed
          (the innermost frame of the event's stack that is not allocator
          plumbing; see `memlog sites`)
  --accesses   the access samples instead (a log recorded with MEMLOG_ACCESS=1
          or `memlog run --access`): rows of
          seq,time_ns,tid,kind,addr,block_seq,offset,ip,stack_id with kind
          read or write; addr is the watched word the access touched,
          block_seq the sequence number of the allocation of its block, offset
          addr minus the block's start, ip the instruction after the access;
          with --symbolize, site is the accessing function
)";

// The rows of --accesses.
void printAccess(const timeline::AccessSample& a, bool csv) {
    const char* rowFormat = csv ? "%" PRIu64 ",%" PRIu64 ",%u,%s,0x%" PRIx64 ",%" PRIu64 ",%" PRIu64 ",0x%" PRIx64 ",%u"
                                : "%10" PRIu64 " %14" PRIu64 " %8u %-6s 0x%016" PRIx64 " %10" PRIu64 " %10" PRIu64
                                  " 0x%016" PRIx64 " %8u";
    std::printf(rowFormat, a.m_seq, a.m_timeNs, a.m_tid, a.m_write ? "write" : "read", a.m_addr, a.m_blockSeq,
                a.m_offset, a.m_ip, a.m_stack);
}

}  // namespace

int dumpCommand(const Arguments& arguments) {
    Arguments rest;
    bool symbolize = false, accesses = false;
    for (const std::string& argument : arguments) {
        if (argument == "--symbolize")
            symbolize = true;
        else if (argument == "--accesses")
            accesses = true;
        else
            rest.push_back(argument);
    }
    const FileArguments parsed = parseFileArguments(rest, "dump", "--csv", kHelp);
    if (parsed.m_exit >= 0) return parsed.m_exit;
    const std::string& path = parsed.m_path;
    const bool csv = parsed.m_flag;
    static char buffer[1 << 20];
    std::setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
    try {
        timeline::LogReader reader(path);
        // Sites need the stacks and the module map, which a first walk collects.
        std::unique_ptr<timeline::StackNames> names;
        std::vector<std::string> siteOf;
        if (symbolize) {
            reader.forEachEvent([](const timeline::Event&) {});
            names = nameStacks(reader);
            for (size_t id = 0; id < reader.stacks().size(); ++id)
                siteOf.push_back(csvField(names->site(static_cast<uint32_t>(id)).m_function));
        }
        auto site = [&](uint32_t stack) {
            if (!symbolize) return;
            std::fputs(csv ? "," : "  ", stdout);
            std::fputs(stack < siteOf.size() ? siteOf[stack].c_str() : "", stdout);
        };
        if (accesses) {
            if (csv)
                std::fputs(symbolize ? "seq,time_ns,tid,kind,addr,block_seq,offset,ip,stack_id,site\n"
                                     : "seq,time_ns,tid,kind,addr,block_seq,offset,ip,stack_id\n",
                           stdout);
            else
                std::printf("%10s %14s %8s %-6s %18s %10s %10s %18s %8s%s\n", "seq", "time_ns", "tid", "kind", "addr",
                            "block_seq", "offset", "ip", "stack", symbolize ? "  site" : "");
            reader.forEachRecord({}, [&](const timeline::AccessSample& a) {
                printAccess(a, csv);
                site(a.m_stack);
                std::fputc('\n', stdout);
            });
            return std::fflush(stdout) == 0 ? 0 : 1;
        }
        if (csv)
            std::fputs(symbolize ? "seq,time_ns,tid,kind,addr,size,old_addr,stack_id,site\n"
                                 : "seq,time_ns,tid,kind,addr,size,old_addr,stack_id\n",
                       stdout);
        else
            std::printf("%10s %14s %8s %-14s %18s %12s %18s %8s%s\n", "seq", "time_ns", "tid", "kind", "addr", "size",
                        "old_addr", "stack", symbolize ? "  site" : "");
        const char* rowFormat = csv ? "%" PRIu64 ",%" PRIu64 ",%u,%s,0x%" PRIx64 ",%" PRIu64 ",0x%" PRIx64 ",%u"
                                    : "%10" PRIu64 " %14" PRIu64 " %8u %-14s 0x%016" PRIx64 " %12" PRIu64
                                      " 0x%016" PRIx64 " %8u";
        reader.forEachEvent([&](const timeline::Event& e) {
            std::printf(rowFormat, e.m_seq, e.m_timeNs, e.m_tid, format::kindInfo(e.m_kind).m_name, e.m_addr, e.m_size,
                        e.m_oldAddr, e.m_stack);
            site(e.m_stack);
            std::fputc('\n', stdout);
        });
    } catch (const timeline::LogError& error) {
        std::fflush(stdout);
        std::fprintf(stderr, "memlog: %s\n", error.what());
        return 2;
    }
    return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace memlog::cli

// memlog dump: every heap event in sequence order, as CSV or as an aligned table.
#include <cinttypes>
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "timeline/log_reader.hpp"
#include "timeline/sites.hpp"

namespace memlog::cli {
namespace {

constexpr const char* kHelp = R"(usage: memlog dump FILE [--csv] [--symbolize]

Prints every heap event of a .memlog log in sequence order (the global order
across threads). A realloc or mremap is one row at the moment the old block
ended; old_addr names it.

  --csv   rows of seq,time_ns,tid,kind,addr,size,old_addr,stack_id with
          addresses in 0x hex; time_ns counts from the start of the recording
  --symbolize  one more column, site: the function that allocated or freed
          (the innermost frame of the event's stack that is not allocator
          plumbing; see `memlog sites`)
)";

}  // namespace

int dumpCommand(const Arguments& arguments) {
    Arguments rest;
    bool symbolize = false;
    for (const std::string& argument : arguments) {
        if (argument == "--symbolize")
            symbolize = true;
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
            if (symbolize) {
                std::fputs(csv ? "," : "  ", stdout);
                std::fputs(e.m_stack < siteOf.size() ? siteOf[e.m_stack].c_str() : "", stdout);
            }
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

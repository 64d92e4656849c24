// memlog dump: every heap event (or, with --accesses, every access sample) in sequence order, as
// CSV or as an aligned table.
#include <cinttypes>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "timeline/names/stack_names.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/base/answer_memo.hpp"
#include "timeline/replay/access_attribution.hpp"
#include "timeline/replay/block_observer.hpp"

namespace memlog::cli {
namespace {

constexpr options::Row kOptions[] = {
    {.m_name = "--csv",
     .m_help = "rows of seq,time_ns,tid,kind,addr,size,old_addr,stack_id with addresses in 0x hex; time_ns counts "
               "from the start of the recording"},
    {.m_name = "--symbolize",
     .m_help = "one more column, site: the function that allocated or freed (the innermost frame of the event's "
               "stack that is not allocator plumbing; see `memlog sites`); with --accesses, the accessing "
               "function"},
    {.m_name = "--accesses",
     .m_help = "the access samples instead (a log recorded with MEMLOG_ACCESS=1 or `memlog run --access`), "
               "described below"},
};

constexpr timeline::CommandSyntax kSyntax{
    .m_usage = "memlog dump FILE [--csv] [--symbolize] [--accesses]",
    .m_about = R"(Prints every heap event of a .memlog log in sequence order (the global order
across threads). A realloc or mremap is one row at the moment the old block
ended; old_addr names it.
)",
    .m_options = kOptions,
    .m_notes = R"(The rows of --accesses: seq,time_ns,tid,kind,addr,size,region,block_seq,
offset,symbol,ip,stack_id,source,instructions with kind read, write or
readwrite; addr the
first byte accessed and size the bytes; region heap (a block live there at that
moment), global (inside a loaded object: symbol names it), stack (a thread's
stack), freed (a block freed there and not handed out again: a use after free),
allocator (the allocator's own code at work: the real malloc family under
memlog's hooks, or the C library's allocator functions reached any other way;
never placed in a block) or other; block_seq the sequence number of the block's
allocation; offset addr minus the start of the block or of the global, in bytes
(empty elsewhere; a global without a symbol: its object's name and the offset
in it); ip the accessing instruction (for source watchpoint, the one after it);
source tick, watchpoint or trace (a full trace: every access); instructions,
in a trace of memlog run --full-trace, the accessing thread's guest instructions
up to and including this one (empty elsewhere: an imported trace counts none).
)"};

// The rows of --accesses: each sample with where it fell, in sequence order.
class AccessRows final : public timeline::BlockObserver {
public:
    AccessRows(bool csv, bool symbolize, timeline::StackNames& names)
        : m_csv(csv), m_symbolize(symbolize), m_names(names) {}
    void begin(const timeline::BlockChange&) override {}
    void end(const timeline::BlockChange&) override {}
    void access(const timeline::AccessSample& a, const timeline::Attribution& where) override {
        const bool heap = where.m_region == timeline::Region::Heap || where.m_region == timeline::Region::Freed;
        std::string blockSeq, offset, symbol;
        if (heap) {
            blockSeq = std::to_string(where.m_blockSeq);
            offset = std::to_string(where.m_offset);
        } else if (where.m_region == timeline::Region::Global) {
            // Once per address: a full trace reads the same globals millions of times.
            const GlobalPlace& place = m_globalPlaces.get(a.m_addr, [&](uint64_t addr) {
                GlobalPlace found;
                globalPlace(addr, &found.m_symbol, &found.m_offset);
                return found;
            });
            symbol = place.m_symbol;
            offset = place.m_offset;
        }
        const char* kind = format::accessKindName(a.m_kind);
        const char* source = format::accessSourceName(a.m_source);
        // A count of 0 is none: the first instruction of a thread is its first.
        const std::string instructions = a.m_instructions ? std::to_string(a.m_instructions) : std::string();
        if (m_csv)
            std::printf("%" PRIu64 ",%" PRIu64 ",%u,%s,0x%" PRIx64 ",%" PRIu64 ",%s,%s,%s,%s,0x%" PRIx64 ",%u,%s,%s",
                        a.m_seq, a.m_timeNs, a.m_tid, kind, a.m_addr, a.m_size, timeline::regionName(where.m_region),
                        blockSeq.c_str(), offset.c_str(), csvField(symbol).c_str(), a.m_ip, a.m_stack, source,
                        instructions.c_str());
        else
            std::printf("%10" PRIu64 " %14" PRIu64 " %8u %-9s 0x%016" PRIx64 " %5" PRIu64
                        " %-6s %10s %10s %-20s 0x%016" PRIx64 " %8u %-10s %12s",
                        a.m_seq, a.m_timeNs, a.m_tid, kind, a.m_addr, a.m_size, timeline::regionName(where.m_region),
                        blockSeq.c_str(), offset.c_str(), symbol.c_str(), a.m_ip, a.m_stack, source,
                        instructions.c_str());
        if (m_symbolize) {
            // The accessing function: the instruction's own innermost source frame.
            const auto& frames = m_names.instruction(a.m_ipAfter ? a.m_ip - 1 : a.m_ip);
            const std::string function = frames.empty() ? std::string() : frames.front().m_function;
            std::printf("%s%s", m_csv ? "," : "  ", m_csv ? csvField(function).c_str() : function.c_str());
        }
        std::fputc('\n', stdout);
    }

private:
    // A global as a name and a decimal offset into it, so that rows group by symbol: the symbol
    // around the address, else the object's name and the offset from its load address.
    void globalPlace(uint64_t addr, std::string* symbol, std::string* offset) {
        if (const auto data = m_names.dataSymbolAt(addr)) {
            *symbol = data->m_name;
            *offset = std::to_string(addr - data->m_start);
            return;
        }
        *symbol = m_names.globalName(addr);  // "libc.so.6+0x1d2a40", or the address alone
        const size_t plus = symbol->rfind("+0x");
        if (plus == std::string::npos) return;
        *offset = std::to_string(std::stoull(symbol->substr(plus + 3), nullptr, 16));
        symbol->resize(plus);
    }

    bool m_csv;
    bool m_symbolize;
    timeline::StackNames& m_names;
    struct GlobalPlace {
        std::string m_symbol, m_offset;
    };
    timeline::AnswerMemo<GlobalPlace> m_globalPlaces;
};

// Every heap event as a row, after the header; with `siteOf` (by stack id), its site.
void printEvents(timeline::LogReader& reader, bool csv, const std::vector<std::string>* siteOf) {
    const bool symbolize = siteOf != nullptr;
    if (csv)
        std::fputs(symbolize ? "seq,time_ns,tid,kind,addr,size,old_addr,stack_id,site\n"
                             : "seq,time_ns,tid,kind,addr,size,old_addr,stack_id\n",
                   stdout);
    else
        std::printf("%10s %14s %8s %-14s %18s %12s %18s %8s%s\n", "seq", "time_ns", "tid", "kind", "addr", "size",
                    "old_addr", "stack", symbolize ? "  site" : "");
    const char* rowFormat = csv ? "%" PRIu64 ",%" PRIu64 ",%u,%s,0x%" PRIx64 ",%" PRIu64 ",0x%" PRIx64 ",%u"
                                : "%10" PRIu64 " %14" PRIu64 " %8u %-14s 0x%016" PRIx64 " %12" PRIu64 " 0x%016" PRIx64
                                  " %8u";
    reader.forEachEvent([&](const timeline::Event& e) {
        std::printf(rowFormat, e.m_seq, e.m_timeNs, e.m_tid, format::kindInfo(e.m_kind).m_name, e.m_addr, e.m_size,
                    e.m_oldAddr, e.m_stack);
        if (symbolize) {
            std::fputs(csv ? "," : "  ", stdout);
            std::fputs(e.m_stack < siteOf->size() ? (*siteOf)[e.m_stack].c_str() : "", stdout);
        }
        std::fputc('\n', stdout);
    });
}

}  // namespace

int dumpCommand(const Arguments& arguments) {
    const CommandLine line = readCommandLine("dump", kSyntax, arguments);
    if (line.m_exit >= 0) return line.m_exit;
    const std::string& path = line.m_options.operands()[0];
    const bool csv = line.m_options.given("--csv"), symbolize = line.m_options.given("--symbolize"),
               accesses = line.m_options.given("--accesses");
    static char buffer[1 << 20];
    std::setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
    try {
        if (!symbolize && !accesses) {
            // The rows are the walk.
            openLog(path, {.m_ownWalk = [&](timeline::LogReader& reader, const std::function<void(double)>&) {
                        printEvents(reader, csv, nullptr);
                    }});
            return std::fflush(stdout) == 0 ? 0 : 1;
        }
        // Sites and globals' names need the stacks and the module map, which a first walk
        // collects; the rows come from a second.
        timeline::OpenedLog log =
            openLog(path, {.m_walk = timeline::OpenedLog::Walk::Stacks, .m_names = timeline::OpenedLog::Names::Every});
        if (accesses) {
            if (csv)
                std::printf(
                    "seq,time_ns,tid,kind,addr,size,region,block_seq,offset,symbol,ip,stack_id,source,instructions%s\n",
                    symbolize ? ",site" : "");
            else
                std::printf("%10s %14s %8s %-9s %18s %5s %-6s %10s %10s %-20s %18s %8s %-10s %12s%s\n", "seq",
                            "time_ns", "tid", "kind", "addr", "size", "region", "block_seq", "offset", "symbol", "ip",
                            "stack", "source", "instructions", symbolize ? "  site" : "");
            AccessRows rows(csv, symbolize, log.names());
            timeline::summarize(log.reader(), {}, &rows);
            return std::fflush(stdout) == 0 ? 0 : 1;
        }
        std::vector<std::string> siteOf;
        for (size_t id = 0; id < log.reader().stacks().size(); ++id)
            siteOf.push_back(csvField(log.names().site(static_cast<uint32_t>(id)).m_function));
        printEvents(log.reader(), csv, &siteOf);
    } catch (const timeline::LogError& error) {
        std::fflush(stdout);
        std::fprintf(stderr, "memlog: %s\n", error.what());
        return 2;
    }
    return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace memlog::cli

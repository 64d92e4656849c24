// Where a sampled access fell, decided by the reader (the recorder keeps no block map): the
// allocator's own work first (the real malloc family under a hook, or an instruction of the C
// library's allocator however it was reached), wherever it touched; else the heap block live at
// that address at that moment, else a block freed there and not handed out again (a use after
// free), else a global (inside a loaded module's segments: its data, bss or constants), else a
// thread's stack, else other memory.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "timeline/replay/block_observer.hpp"
#include "unwind/allocator_code.hpp"

namespace memlog::timeline {

class LogReader;
struct AccessSample;

enum class Region : uint8_t { Heap, Global, Stack, Other, Freed, Allocator };
const char* regionName(Region region);  // "heap", "global", "stack", "other", "freed", "allocator"

struct Attribution {
    Region m_region = Region::Other;
    // Heap and Freed: the block, as the summary saw it begin.
    uint64_t m_blockSeq = 0;  // its first sequence number (Block::beginSeq)
    uint64_t m_blockAddr = 0;
    uint64_t m_blockSize = 0;
    uint32_t m_blockStack = 0;  // the stack that allocated it
    uint64_t m_offset = 0;  // the access's address minus the block's start
    // Freed: when and by whom the block was freed.
    uint64_t m_freeSeq = 0;
    uint64_t m_freeNs = 0;
    uint32_t m_freeStack = 0;
    // Stack: the thread whose stack it is.
    uint32_t m_stackOwner = 0;
};

// A BlockObserver that keeps the live blocks by address, so that it can place each access.
// Version 2 samples name their block; they are placed in it when it is live, else nowhere.
class AccessAttribution : public BlockObserver {
public:
    explicit AccessAttribution(const LogReader& reader) : m_reader(reader) {}
    void begin(const BlockChange& change) override;
    void end(const BlockChange& change) override;

    Attribution attribute(const AccessSample& sample);
    // Whether the sample's instruction is the allocator's: the recorder's flag (a hook's real
    // call), else its address inside the C library's allocator functions.
    bool byAllocator(const AccessSample& sample);

private:
    // An address range over which the answer stays the same until a block begins or ends, a
    // thread's stack or a module is read: where the last places were found. A full trace's
    // accesses come back to a few ranges (the stack, a module's data, the blocks at work) a
    // thousand times between two heap events, and three ordered-map lookups and a scan of the
    // modules cost each of them 60 % of `memlog stat`'s time (docs/BENCHMARKS.md).
    struct KnownPlace {
        uint64_t m_lo = 0, m_hi = 0;  // empty: none
        Attribution m_where;  // m_offset: from m_where.m_blockAddr, set per access
    };
    static constexpr size_t kKnownPlaces = 8;
    // The place of an address (no block named by the sample), and the range it holds for.
    Attribution place(uint64_t addr, uint64_t* lo, uint64_t* hi);
    void forgetPlaces() {
        m_knownCount = m_knownNext = 0;
        m_known[m_knownLast] = {};
    }

    struct Live {
        uint64_t m_size;
        uint64_t m_seq;
        uint32_t m_stack;
    };
    struct Gone {
        Live m_block;
        uint64_t m_freeSeq;
        uint64_t m_freeNs;
        uint32_t m_freeStack;
    };
    // Forgets freed blocks that [addr, addr + size) overlaps: that memory is handed out again.
    void reuse(uint64_t addr, uint64_t size);
    // Whether a module holds `addr`; [*lo, *hi) narrowed to where the answer is the same.
    bool inModule(uint64_t addr, uint64_t* lo, uint64_t* hi) const;
    bool onStack(uint64_t addr, uint32_t* owner, uint64_t* lo, uint64_t* hi);
    // The C libraries among the modules not seen yet: their allocator functions' ranges, read
    // once each at the first sample after they appear (a log without samples reads none).
    void learnAllocatorCode();

    const LogReader& m_reader;
    std::map<uint64_t, Live> m_live;  // by start address
    std::map<uint64_t, Gone> m_freed;  // blocks freed and not handed out again, by start address
    std::map<uint64_t, std::pair<uint64_t, uint32_t>> m_stacks;  // by lo: hi and owner
    size_t m_stacksSeen = 0;
    KnownPlace m_known[kKnownPlaces];
    size_t m_knownCount = 0, m_knownNext = 0, m_knownLast = 0;  // m_knownLast: the last one that held
    size_t m_knownModules = 0, m_knownStacks = 0;  // the modules and stacks read when they were found
    std::vector<unwind::CodeRange> m_allocatorCode;  // sorted by start, disjoint
    std::vector<std::pair<std::string, uint64_t>> m_cLibrariesRead;  // path and bias
    size_t m_modulesSeen = 0;
};

}  // namespace memlog::timeline

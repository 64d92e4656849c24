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
    bool inModule(uint64_t addr) const;
    bool onStack(uint64_t addr, uint32_t* owner);
    // The C libraries among the modules not seen yet: their allocator functions' ranges, read
    // once each at the first sample after they appear (a log without samples reads none).
    void learnAllocatorCode();

    const LogReader& m_reader;
    std::map<uint64_t, Live> m_live;  // by start address
    std::map<uint64_t, Gone> m_freed;  // blocks freed and not handed out again, by start address
    std::map<uint64_t, std::pair<uint64_t, uint32_t>> m_stacks;  // by lo: hi and owner
    size_t m_stacksSeen = 0;
    std::vector<unwind::CodeRange> m_allocatorCode;  // sorted by start, disjoint
    std::vector<std::pair<std::string, uint64_t>> m_cLibrariesRead;  // path and bias
    size_t m_modulesSeen = 0;
};

}  // namespace memlog::timeline

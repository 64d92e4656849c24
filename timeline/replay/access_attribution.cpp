// Live blocks in an ordered map: a sample is placed with one lookup of the block that starts at
// or below its address. Logs without samples never build it (summarize makes this observer
// only for logs whose sampler ran).
#include "timeline/replay/access_attribution.hpp"

#include <algorithm>
#include <iterator>

#include "timeline/read/log_reader.hpp"

namespace memlog::timeline {

const char* regionName(Region region) {
    switch (region) {
        case Region::Heap:
            return "heap";
        case Region::Global:
            return "global";
        case Region::Stack:
            return "stack";
        case Region::Other:
            return "other";
        case Region::Freed:
            return "freed";
        case Region::Allocator:
            return "allocator";
    }
    return "other";
}

void AccessAttribution::begin(const BlockChange& change) {
    reuse(change.m_addr, change.m_size);
    m_live[change.m_addr] = {change.m_size, change.m_seq, change.m_stack};
}

void AccessAttribution::end(const BlockChange& change) {
    const auto it = m_live.find(change.m_addr);
    if (it == m_live.end()) return;
    if (it->second.m_size) m_freed[change.m_addr] = {it->second, change.m_seq, change.m_timeNs, change.m_callStack};
    m_live.erase(it);
}

void AccessAttribution::reuse(uint64_t addr, uint64_t size) {
    auto it = m_freed.upper_bound(addr);
    if (it != m_freed.begin() && std::prev(it)->first + std::prev(it)->second.m_block.m_size > addr) --it;
    while (it != m_freed.end() && it->first < addr + size) it = m_freed.erase(it);
}

bool AccessAttribution::inModule(uint64_t addr) const {
    for (const Module& module : m_reader.modules())
        if (addr >= module.m_lo && addr < module.m_hi) return true;
    return false;
}

bool AccessAttribution::onStack(uint64_t addr, uint32_t* owner) {
    const auto& ranges = m_reader.threadStacks();
    for (; m_stacksSeen < ranges.size(); ++m_stacksSeen) {
        const ThreadStackRange& range = ranges[m_stacksSeen];
        m_stacks[range.m_lo] = {range.m_hi, range.m_tid};  // a stack reused by a later thread: the later one
    }
    auto it = m_stacks.upper_bound(addr);
    if (it == m_stacks.begin()) return false;
    --it;
    if (addr >= it->second.first) return false;
    *owner = it->second.second;
    return true;
}

void AccessAttribution::learnAllocatorCode() {
    const auto& modules = m_reader.modules();
    for (; m_modulesSeen < modules.size(); ++m_modulesSeen) {
        const Module& module = modules[m_modulesSeen];
        const size_t slash = module.m_path.rfind('/');
        if (!unwind::isCLibrary(slash == std::string::npos ? module.m_path : module.m_path.substr(slash + 1))) continue;
        // Every module map of the log names the C library again: read it once per place.
        const std::pair<std::string, uint64_t> place{module.m_path, module.m_base};
        if (std::find(m_cLibrariesRead.begin(), m_cLibrariesRead.end(), place) != m_cLibrariesRead.end()) continue;
        m_cLibrariesRead.push_back(place);
        const auto ranges =
            unwind::allocatorCode({module.m_path, module.m_buildId, module.m_base, module.m_lo, module.m_hi});
        m_allocatorCode.insert(m_allocatorCode.end(), ranges.begin(), ranges.end());
        std::sort(m_allocatorCode.begin(), m_allocatorCode.end(),
                  [](const unwind::CodeRange& a, const unwind::CodeRange& b) { return a.m_lo < b.m_lo; });
    }
}

bool AccessAttribution::byAllocator(const AccessSample& sample) {
    if (sample.m_inAllocator) return true;
    if (m_modulesSeen != m_reader.modules().size()) learnAllocatorCode();
    if (m_allocatorCode.empty()) return false;
    // A trap's address is the instruction after the access: its last byte is the access's.
    const uint64_t ip = sample.m_ipAfter ? sample.m_ip - 1 : sample.m_ip;
    auto above = std::upper_bound(m_allocatorCode.begin(), m_allocatorCode.end(), ip,
                                  [](uint64_t value, const unwind::CodeRange& range) { return value < range.m_lo; });
    return above != m_allocatorCode.begin() && ip < std::prev(above)->m_hi;
}

Attribution AccessAttribution::attribute(const AccessSample& sample) {
    Attribution result;
    // The allocator's work on its own metadata (free lists in freed blocks, chunk headers beside
    // live ones) is not the program's access: never in a block, never a use after free.
    if (byAllocator(sample)) {
        // Its own frames on a thread's stack are that thread's stack, as any function's are.
        result.m_region = onStack(sample.m_addr, &result.m_stackOwner) ? Region::Stack : Region::Allocator;
        return result;
    }
    auto block = m_live.upper_bound(sample.m_addr);
    if (block != m_live.begin()) {
        --block;
        const uint64_t offset = sample.m_addr - block->first;
        const bool named = sample.m_blockSeq != 0;  // version 2: the recorder named the block
        if (offset < block->second.m_size && (!named || block->second.m_seq == sample.m_blockSeq)) {
            result.m_region = Region::Heap;
            result.m_blockSeq = block->second.m_seq;
            result.m_blockAddr = block->first;
            result.m_blockSize = block->second.m_size;
            result.m_blockStack = block->second.m_stack;
            result.m_offset = offset;
            return result;
        }
    }
    if (sample.m_blockSeq != 0) return result;  // a version 2 sample outside its block
    auto gone = m_freed.upper_bound(sample.m_addr);
    if (gone != m_freed.begin()) {
        --gone;
        const Gone& freed = gone->second;
        if (sample.m_addr - gone->first < freed.m_block.m_size) {
            result.m_region = Region::Freed;
            result.m_blockSeq = freed.m_block.m_seq;
            result.m_blockAddr = gone->first;
            result.m_blockSize = freed.m_block.m_size;
            result.m_blockStack = freed.m_block.m_stack;
            result.m_offset = sample.m_addr - gone->first;
            result.m_freeSeq = freed.m_freeSeq;
            result.m_freeNs = freed.m_freeNs;
            result.m_freeStack = freed.m_freeStack;
            return result;
        }
    }
    if (onStack(sample.m_addr, &result.m_stackOwner))
        result.m_region = Region::Stack;
    else if (inModule(sample.m_addr))
        result.m_region = Region::Global;
    return result;
}

}  // namespace memlog::timeline

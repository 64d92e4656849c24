// Live blocks in an ordered map: a sample is placed with one lookup of the block that starts at
// or below its address, and the range around it that has the same answer is kept until the
// blocks change. Logs without samples never build it (summarize makes this observer only for
// logs whose sampler ran).
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
    forgetPlaces();
    reuse(change.m_addr, change.m_size);
    m_live[change.m_addr] = {change.m_size, change.m_seq, change.m_stack};
}

void AccessAttribution::end(const BlockChange& change) {
    const auto it = m_live.find(change.m_addr);
    if (it == m_live.end()) return;
    forgetPlaces();
    if (it->second.m_size) m_freed[change.m_addr] = {it->second, change.m_seq, change.m_timeNs, change.m_callStack};
    m_live.erase(it);
}

void AccessAttribution::reuse(uint64_t addr, uint64_t size) {
    auto it = m_freed.upper_bound(addr);
    if (it != m_freed.begin() && std::prev(it)->first + std::prev(it)->second.m_block.m_size > addr) --it;
    while (it != m_freed.end() && it->first < addr + size) it = m_freed.erase(it);
}

namespace {

// One past the last byte of [start, start + size), at most the end of the address space.
uint64_t endOf(uint64_t start, uint64_t size) { return start + size < start ? UINT64_MAX : start + size; }

// The entry of an ordered map by start address whose range holds `addr`, or none; [*lo, *hi)
// narrowed to the range where that stays the answer: the entry's own range (up to the next
// start), or the gap between the entry below and the next one.
template <typename Map, typename EndOf>
typename Map::const_iterator holding(const Map& map, uint64_t addr, uint64_t* lo, uint64_t* hi, EndOf endOf) {
    auto it = map.upper_bound(addr);
    if (it != map.end()) *hi = std::min(*hi, it->first);
    if (it == map.begin()) return map.end();
    --it;
    const uint64_t end = endOf(it->first, it->second);
    if (addr < end) {
        *lo = std::max(*lo, it->first);
        *hi = std::min(*hi, end);
        return it;
    }
    *lo = std::max(*lo, end);
    return map.end();
}

// A known place's answer for `addr`: in a block, its offset there.
Attribution placed(const Attribution& where, uint64_t addr) {
    Attribution result = where;
    if (where.m_region == Region::Heap || where.m_region == Region::Freed) result.m_offset = addr - where.m_blockAddr;
    return result;
}

}  // namespace

bool AccessAttribution::inModule(uint64_t addr, uint64_t* lo, uint64_t* hi) const {
    for (const Module& module : m_reader.modules()) {
        if (addr >= module.m_lo && addr < module.m_hi) {
            *lo = std::max(*lo, module.m_lo);
            *hi = std::min(*hi, module.m_hi);
            return true;
        }
        if (module.m_lo > addr)
            *hi = std::min(*hi, module.m_lo);
        else
            *lo = std::max(*lo, module.m_hi);
    }
    return false;
}

bool AccessAttribution::onStack(uint64_t addr, uint32_t* owner, uint64_t* lo, uint64_t* hi) {
    const auto& ranges = m_reader.threadStacks();
    for (; m_stacksSeen < ranges.size(); ++m_stacksSeen) {
        const ThreadStackRange& range = ranges[m_stacksSeen];
        m_stacks[range.m_lo] = {range.m_hi, range.m_tid};  // a stack reused by a later thread: the later one
    }
    const auto it = holding(m_stacks, addr, lo, hi,
                            [](uint64_t, const std::pair<uint64_t, uint32_t>& stack) { return stack.first; });
    if (it == m_stacks.end()) return false;
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

Attribution AccessAttribution::place(uint64_t addr, uint64_t* lo, uint64_t* hi) {
    Attribution result;
    *lo = 0;
    *hi = UINT64_MAX;
    const auto block = holding(m_live, addr, lo, hi, [](uint64_t start, const Live& live) { return endOf(start, live.m_size); });
    if (block != m_live.end()) {
        result.m_region = Region::Heap;
        result.m_blockSeq = block->second.m_seq;
        result.m_blockAddr = block->first;
        result.m_blockSize = block->second.m_size;
        result.m_blockStack = block->second.m_stack;
        return result;
    }
    const auto gone =
        holding(m_freed, addr, lo, hi, [](uint64_t start, const Gone& freed) { return endOf(start, freed.m_block.m_size); });
    if (gone != m_freed.end()) {
        const Gone& freed = gone->second;
        result.m_region = Region::Freed;
        result.m_blockSeq = freed.m_block.m_seq;
        result.m_blockAddr = gone->first;
        result.m_blockSize = freed.m_block.m_size;
        result.m_blockStack = freed.m_block.m_stack;
        result.m_freeSeq = freed.m_freeSeq;
        result.m_freeNs = freed.m_freeNs;
        result.m_freeStack = freed.m_freeStack;
        return result;
    }
    if (onStack(addr, &result.m_stackOwner, lo, hi))
        result.m_region = Region::Stack;
    else if (inModule(addr, lo, hi))
        result.m_region = Region::Global;
    return result;
}

Attribution AccessAttribution::attribute(const AccessSample& sample) {
    // The allocator's work on its own metadata (free lists in freed blocks, chunk headers beside
    // live ones) is not the program's access: never in a block, never a use after free.
    if (byAllocator(sample)) {
        Attribution result;
        uint64_t lo = 0, hi = UINT64_MAX;
        // Its own frames on a thread's stack are that thread's stack, as any function's are.
        result.m_region = onStack(sample.m_addr, &result.m_stackOwner, &lo, &hi) ? Region::Stack : Region::Allocator;
        return result;
    }
    if (sample.m_blockSeq != 0) {
        // Version 2: the recorder named the block; the sample is placed in it when it is live.
        Attribution result;
        auto block = m_live.upper_bound(sample.m_addr);
        if (block == m_live.begin()) return result;
        --block;
        const uint64_t offset = sample.m_addr - block->first;
        if (offset >= block->second.m_size || block->second.m_seq != sample.m_blockSeq) return result;
        result.m_region = Region::Heap;
        result.m_blockSeq = block->second.m_seq;
        result.m_blockAddr = block->first;
        result.m_blockSize = block->second.m_size;
        result.m_blockStack = block->second.m_stack;
        result.m_offset = offset;
        return result;
    }
    const uint64_t addr = sample.m_addr;
    if (m_reader.modules().size() != m_knownModules || m_reader.threadStacks().size() != m_knownStacks) {
        forgetPlaces();
        m_knownModules = m_reader.modules().size();
        m_knownStacks = m_reader.threadStacks().size();
    }
    const KnownPlace& last = m_known[m_knownLast];
    if (addr - last.m_lo < last.m_hi - last.m_lo) return placed(last.m_where, addr);
    for (size_t i = 0; i < m_knownCount; ++i) {
        const KnownPlace& known = m_known[i];
        if (addr - known.m_lo < known.m_hi - known.m_lo) {
            m_knownLast = i;
            return placed(known.m_where, addr);
        }
    }
    m_knownLast = m_knownNext;
    KnownPlace& known = m_known[m_knownNext];
    m_knownNext = (m_knownNext + 1) % kKnownPlaces;
    m_knownCount = std::min(m_knownCount + 1, kKnownPlaces);
    known.m_where = place(addr, &known.m_lo, &known.m_hi);
    return placed(known.m_where, addr);
}

}  // namespace memlog::timeline

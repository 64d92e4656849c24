// Live blocks in an ordered map: a sample is placed with one lookup of the block that starts at
// or below its address. Logs without samples never build it (summarize makes this observer
// only for logs whose sampler ran).
#include "timeline/access_attribution.hpp"

#include "timeline/log_reader.hpp"

namespace memlog::timeline {

const char* regionName(Region region) {
    switch (region) {
    case Region::Heap: return "heap";
    case Region::Global: return "global";
    case Region::Stack: return "stack";
    case Region::Other: return "other";
    }
    return "other";
}

void AccessAttribution::begin(const BlockChange& change) {
    m_live[change.m_addr] = {change.m_size, change.m_seq, change.m_stack};
}

void AccessAttribution::end(const BlockChange& change) { m_live.erase(change.m_addr); }

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

Attribution AccessAttribution::attribute(const AccessSample& sample) {
    Attribution result;
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
    if (onStack(sample.m_addr, &result.m_stackOwner))
        result.m_region = Region::Stack;
    else if (inModule(sample.m_addr))
        result.m_region = Region::Global;
    return result;
}

}  // namespace memlog::timeline

// Uses after free, as `memlog uaf` lists them: each freed block that an access sample (a tick or
// a watchpoint's trap, made by the program and not by the allocator) touched before the memory
// was handed out again, with the three stacks that tell the story: who allocated it, who freed
// it, who used it afterwards.
#pragma once

#include <cstdint>
#include <vector>

#include "timeline/read/log_reader.hpp"

namespace memlog::timeline {

struct UseAfterFree {
    uint64_t m_blockSeq = 0;
    uint64_t m_addr = 0;
    uint64_t m_size = 0;
    uint32_t m_allocationStack = 0;
    uint32_t m_freeStack = 0;
    uint64_t m_freeNs = 0;
    AccessSample m_first;  // the first access after the free
    uint64_t m_accesses = 0;  // samples in the freed block
    uint64_t m_byWatchpoint = 0;
};

// In the order of their first access. Throws LogError on bad input.
std::vector<UseAfterFree> findUsesAfterFree(LogReader& reader);

}  // namespace memlog::timeline

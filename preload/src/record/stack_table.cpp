// Lock-free stack deduplication. A 64-bit hash stands for the stack: two different stacks with
// the same hash (odds about n^2 / 2^65, 1e-8 at a million stacks) would share an id.
#include "record/stack_table.hpp"

#include <sys/mman.h>

#include "base/system.hpp"

namespace memlog::preload {

bool StackTable::create() {
    m_slots = static_cast<Slot*>(sys::mapAnonymous(sizeof(Slot) * kSlots, PROT_READ | PROT_WRITE, MAP_NORESERVE));
    return m_slots != nullptr;
}

void StackTable::reset() {
    if (m_slots) madvise(m_slots, sizeof(Slot) * kSlots, MADV_DONTNEED);  // back to zero pages
    for (std::atomic<uint64_t>& word : m_pagesWritten) word.store(0, std::memory_order_relaxed);
    m_nextId.store(1, std::memory_order_relaxed);
}

// A lookup lands anywhere in the table, so most new stacks meet a page never touched. Read
// first, such a page is mapped to the kernel's shared zero page, and the claim's write that
// follows faults a second time for a page of its own: the first touch of each page writes
// instead (adds zero, changing nothing), one fault. python3 starting up (PYTHONMALLOC=malloc,
// 25,000 stacks: nearly every one of the table's 4,096 pages) took 15,127 page faults before,
// 11,034 now, and 0.91 of the CPU time (docs/BENCHMARKS.md).
void StackTable::mapForWriting(uint32_t index) {
    const uint32_t page = index / kSlotsPerPage;
    std::atomic<uint64_t>& word = m_pagesWritten[page / 64];
    const uint64_t bit = uint64_t{1} << (page % 64);
    if (word.load(std::memory_order_relaxed) & bit) [[likely]]
        return;
    m_slots[index].m_hash.fetch_add(0, std::memory_order_relaxed);
    word.fetch_or(bit, std::memory_order_relaxed);
}

// Four independent lanes: a single multiply chain over 30 frames stalls on the multiplier's
// latency (it was 10 % of a recording run); four chains overlap.
uint64_t StackTable::hashFrames(const uint64_t* frames, uint32_t depth) {
    constexpr uint64_t kMultiplier = 0xff51'afd7'ed55'8ccdull;
    uint64_t lanes[4] = {0x9e37'79b9'7f4a'7c15ull ^ depth, 0xc2b2'ae3d'27d4'eb4full, 0x1656'67b1'9e37'79f9ull,
                         0x27d4'eb2f'1656'67c5ull};
    uint32_t i = 0;
    for (; i + 4 <= depth; i += 4)
        for (int lane = 0; lane < 4; ++lane) lanes[lane] = (lanes[lane] ^ frames[i + lane]) * kMultiplier;
    for (int lane = 0; i < depth; ++i, ++lane) lanes[lane] = (lanes[lane] ^ frames[i]) * kMultiplier;
    uint64_t hash = lanes[0] ^ (lanes[1] >> 17 | lanes[1] << 47) ^ (lanes[2] >> 31 | lanes[2] << 33) ^
                    (lanes[3] >> 45 | lanes[3] << 19);
    hash = (hash ^ (hash >> 29)) * kMultiplier;
    hash ^= hash >> 32;
    return hash | 1;  // 0 marks an empty slot
}

StackTable::Claim StackTable::find(uint64_t hash) {
    if (!m_slots) return {};
    uint32_t index = static_cast<uint32_t>(hash >> 20) & (kSlots - 1);
    for (uint32_t probe = 0; probe < kMaxProbes; ++probe, index = (index + 1) & (kSlots - 1)) {
        mapForWriting(index);
        Slot& slot = m_slots[index];
        uint64_t seen = slot.m_hash.load(std::memory_order_acquire);
        if (seen == 0) {
            if (slot.m_hash.compare_exchange_strong(seen, hash, std::memory_order_acq_rel))
                return {0, index, true};
            // Lost the race: `seen` now holds the winner's hash; fall through and compare.
        }
        if (seen == hash) {
            // Claimed by another thread that is writing the stack record right now.
            uint32_t id;
            while ((id = slot.m_id.load(std::memory_order_acquire)) == 0) asm volatile("pause");
            return {id, 0, false};
        }
    }
    return {};  // table full around this hash: the event goes without a stack
}

void StackTable::publish(uint32_t slot, uint32_t id) { m_slots[slot].m_id.store(id, std::memory_order_release); }

}  // namespace memlog::preload

// An open-addressing hash table from block address to what the reader knows of the block, sized
// to the live blocks: a freed block stays in the table, "not live", only until the next sweep,
// which moves its address to the set of ended addresses (ended_addresses.hpp). The two together
// tell a double free (an address that was allocated and ended) from a free of an address the log
// never saw, as a table that kept every address did, while the table an event looks up stays
// small enough for the cache (1,024 live blocks: 192 KiB). About 10 ns a lookup, against 50+ for
// std::unordered_map, which matters at tens of millions of events.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "timeline/replay/ended_addresses.hpp"
#include "timeline/base/huge_pages.hpp"
#include "timeline/base/seeded_hash.hpp"

namespace memlog::timeline {

class AddressTable {
public:
    // 24 bytes, so that the table of a busy heap stays in cache.
    struct Entry {
        uint64_t m_addr;
        uint64_t m_size : 48;
        uint64_t m_used : 1;
        uint64_t m_live : 1;
        uint64_t m_allocator : 2;
        uint32_t m_stack;  // of the allocation
    };
    static_assert(sizeof(Entry) == 24);

    AddressTable() : m_slots(kMinimumSlots), m_shift(shiftFor(kMinimumSlots)), m_seed(runSeed()) {}

    // The entry of a live block, or of one ended since the last sweep (not live); null when the
    // table has no entry: ask endedBefore whether the address was ever a block.
    Entry* find(uint64_t addr) {
        for (size_t i = slotOf(addr);; i = (i + 1) & mask()) {
            Entry& entry = m_slots[i];
            if (!entry.m_used) return nullptr;
            if (entry.m_addr == addr) return &entry;
        }
    }

    // A new entry is not live; the caller makes it so.
    Entry& findOrInsert(uint64_t addr) {
        if ((m_used + 1) * 4 > m_slots.size() * 3) sweep();
        for (size_t i = slotOf(addr);; i = (i + 1) & mask()) {
            Entry& entry = m_slots[i];
            if (!entry.m_used) {
                entry = Entry{addr, 0, 1, 0, 0, 0};
                ++m_used;
                return entry;
            }
            if (entry.m_addr == addr) return entry;
        }
    }

    // Asks the memory for the lines of `addr`'s slot and the next, ahead of its find or
    // findOrInsert: with hundreds of thousands of live blocks the table is far larger than the
    // cache, and a lookup that waits for memory is most of an event's time. Two whole lines: an
    // entry may span two, and a probe goes on to the next slots (on a CPython log, the probes
    // past the first slot waited for 7 % of the tally's samples when the entry's bytes alone
    // were asked for, 5 % now). A hint only: a sweep in between makes it useless, never wrong.
    [[gnu::always_inline]] void prefetch(uint64_t addr) const {
        const Entry* entry = &m_slots[slotOf(addr)];
        __builtin_prefetch(entry);
        __builtin_prefetch(reinterpret_cast<const char*>(entry) + 64);
    }

    // After find(addr) returned null: whether a block at `addr` began and ended before.
    bool endedBefore(uint64_t addr) const { return m_ended.contains(addr); }

    size_t slots() const { return m_slots.size(); }

    // The longest distance from an address's own slot to where its entry sits: how long a lookup
    // can probe (for tests: an input whose addresses all hash alike would make it the table's size).
    size_t longestProbe() const {
        size_t longest = 0;
        for (size_t i = 0; i < m_slots.size(); ++i)
            if (m_slots[i].m_used) longest = std::max(longest, (i - slotOf(m_slots[i].m_addr)) & mask());
        return longest;
    }

private:
    static constexpr size_t kMinimumSlots = 4096;  // 96 KiB

    size_t mask() const { return m_slots.size() - 1; }
    // Fibonacci hashing: the top bits of the product depend on every bit of the address. The seed,
    // different in every run, keeps a crafted log from choosing addresses that share a slot (with
    // a fixed multiplier, any set of addresses that are multiples of 2^40 did, and the reading
    // took time quadratic in them).
    size_t slotOf(uint64_t addr) const {
        return static_cast<size_t>(((addr ^ m_seed) * 0x9e37'79b9'7f4a'7c15ull) >> m_shift);
    }
    static unsigned shiftFor(size_t slots) { return 64 - static_cast<unsigned>(std::countr_zero(slots)); }

    // Full (three quarters used): the ended blocks' addresses go to m_ended and the live ones
    // are put back, into a table twice the size when they fill more than a quarter of it. At
    // least half the table is free afterwards, so a sweep costs O(1) per insert that led to it.
    void sweep() {
        size_t live = 0;
        for (const Entry& entry : m_slots) {
            if (!entry.m_used) continue;
            if (entry.m_live)
                ++live;
            else
                m_endedBatch.push_back(entry.m_addr);
        }
        m_ended.insert(m_endedBatch);
        m_endedBatch.clear();
        const size_t size = live * 4 > m_slots.size() ? m_slots.size() * 2 : m_slots.size();
        m_spare.assign(size, Entry{});
        m_spare.swap(m_slots);
        m_shift = shiftFor(m_slots.size());
        m_used = 0;
        for (const Entry& entry : m_spare)
            if (entry.m_used && entry.m_live) findOrInsert(entry.m_addr) = entry;
    }

    // In huge pages from 1 MiB on (huge_pages.hpp): with hundreds of thousands of live blocks
    // a lookup in 4 KiB pages missed the TLB as well as the cache.
    using Slots = std::vector<Entry, HugePageAllocator<Entry, HugeAdvice::Always>>;
    Slots m_slots;
    unsigned m_shift;  // 64 - log2(slots)
    uint64_t m_seed;
    size_t m_used = 0;
    EndedAddresses m_ended;
    std::vector<uint64_t> m_endedBatch;  // kept between sweeps: no allocation per sweep
    Slots m_spare;  // the table before a sweep, ditto
};

}  // namespace memlog::timeline

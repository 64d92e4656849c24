// The set of addresses whose blocks ended, fed in batches by AddressTable's sweeps and asked only
// when a free finds no entry (a double free or a free of an unknown address, both rare). 8 bytes
// a slot, at most half full: 2 MiB for the 131,072 addresses of a busy 2 MiB heap.
#pragma once

#include <cstdint>
#include <vector>

namespace memlog::timeline {

class EndedAddresses {
public:
    EndedAddresses() : m_slots(1u << 12) {}

    bool contains(uint64_t addr) const {
        if (addr == 0) return m_hasZero;
        for (size_t i = slotOf(addr);; i = (i + 1) & mask()) {
            if (m_slots[i] == addr) return true;
            if (m_slots[i] == 0) return false;
        }
    }

    // The batch's slots are fetched a few addresses ahead, so that their cache misses overlap
    // instead of following one another (a busy heap's set is larger than the cache).
    void insert(const std::vector<uint64_t>& batch) {
        constexpr size_t kAhead = 8;
        if ((m_count + batch.size()) * 2 > m_slots.size()) grow(m_count + batch.size());
        for (size_t i = 0; i < batch.size(); ++i) {
            if (i + kAhead < batch.size()) __builtin_prefetch(&m_slots[slotOf(batch[i + kAhead])], 1);
            add(batch[i]);
        }
    }

private:
    size_t mask() const { return m_slots.size() - 1; }
    size_t slotOf(uint64_t addr) const {
        return static_cast<size_t>((addr * 0x9e37'79b9'7f4a'7c15ull) >> 20) & mask();
    }

    void add(uint64_t addr) {
        if (addr == 0) {
            m_hasZero = true;
            return;
        }
        for (size_t i = slotOf(addr);; i = (i + 1) & mask()) {
            if (m_slots[i] == addr) return;
            if (m_slots[i] == 0) {
                m_slots[i] = addr;
                ++m_count;
                return;
            }
        }
    }

    // Room for `count` addresses at most half full.
    void grow(size_t count) {
        size_t size = m_slots.size();
        while (count * 2 > size) size *= 2;
        std::vector<uint64_t> old(size, 0);
        old.swap(m_slots);
        m_count = 0;
        for (const uint64_t addr : old)
            if (addr) add(addr);
    }

    std::vector<uint64_t> m_slots;  // 0: empty (address 0 is m_hasZero)
    size_t m_count = 0;
    bool m_hasZero = false;
};

}  // namespace memlog::timeline

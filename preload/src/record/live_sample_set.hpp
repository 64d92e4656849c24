// The addresses of the live sampled blocks (MEMLOG_SAMPLE): a lock-free set over a fixed array
// of slots that start-up maps, so that a free can tell in one probe whether its block was
// sampled. Open addressing by buckets of one cache line (8 addresses): an address lives in its
// hash's bucket or nowhere, so a probe reads one line and a removal leaves no tombstone. Before
// the buckets, a filter of 64 Ki one-byte counts, one per 256 bytes of address (filterOf): a free
// whose count is zero is no sample's, without a bucket read.
#pragma once

#include <cstdint>

namespace memlog::preload {

class LiveSampleSet {
public:
    static constexpr uint32_t kBucketSlots = 8;  // 64 bytes: one cache line
    static constexpr uint64_t kFilterBytes = 1 << 16;

    // `memory`: zeroed, kFilterBytes for the filter, then `slotCount` words, a power of two of at
    // least kBucketSlots; aligned to 64 bytes.
    void attach(void* memory, uint64_t slotCount) {
        m_filter = static_cast<uint8_t*>(memory);
        m_slots = reinterpret_cast<uint64_t*>(m_filter + kFilterBytes);
        m_bucketMask = slotCount / kBucketSlots - 1;
    }

    // The unsampled free's whole cost beside the countdown: one line read, eight compares.
    // Relaxed loads: an address is inserted by the thread that got it from the allocator and
    // removed before it is given back, so a thread asking about its own block sees its own stores,
    // and a block handed between threads came with the program's own synchronisation.
    [[gnu::always_inline]] bool contains(const void* address) const {
        if (!mayContain(address)) [[likely]]
            return false;
        const uint64_t* bucket = bucketOf(address);
        const uint64_t key = reinterpret_cast<uintptr_t>(address);
        bool found = false;
        for (uint32_t i = 0; i < kBucketSlots; ++i) found |= __atomic_load_n(&bucket[i], __ATOMIC_RELAXED) == key;
        return found;
    }

    // The filter alone: false for an address the set surely does not hold.
    [[gnu::always_inline]] bool mayContain(const void* address) const {
        return __atomic_load_n(&m_filter[filterOf(address)], __ATOMIC_RELAXED) != 0;
    }

    // False when the address's bucket is full: the caller leaves the block unsampled and counts it
    // (a sample the set could not follow would have its free missed: a false leak).
    bool insert(const void* address) {
        uint64_t* bucket = bucketOf(address);
        const uint64_t key = reinterpret_cast<uintptr_t>(address);
        for (uint32_t i = 0; i < kBucketSlots; ++i) {
            uint64_t expected = 0;
            if (__atomic_compare_exchange_n(&bucket[i], &expected, key, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
                count(address, +1);
                return true;
            }
            if (expected == key) return true;  // a block whose free was never seen: the address is reused
        }
        return false;
    }

    // True when the address was there (and is no more).
    bool remove(const void* address) {
        uint64_t* bucket = bucketOf(address);
        uint64_t key = reinterpret_cast<uintptr_t>(address);
        for (uint32_t i = 0; i < kBucketSlots; ++i) {
            uint64_t expected = key;
            if (__atomic_compare_exchange_n(&bucket[i], &expected, 0, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
                count(address, -1);
                return true;
            }
        }
        return false;
    }

private:
    // Fibonacci hashing of the address without its low bits (blocks are 16-byte aligned); the
    // top bits of the product pick the bucket.
    static uint64_t mixed(const void* address) {
        return (reinterpret_cast<uintptr_t>(address) >> 4) * 0x9e37'79b9'7f4a'7c15ull;
    }
    uint64_t* bucketOf(const void* address) const {
        return m_slots + ((mixed(address) >> 20) & m_bucketMask) * kBucketSlots;
    }
    // The filter follows the heap instead of scattering it: one count per 256 bytes, so that a
    // heap of W bytes touches W / 256 bytes of filter that stay in the caches beside the heap's
    // own lines (hashed over the whole 64 KiB, bench_alloc's frees missed the cache on the filter
    // load: 5 % of its time at a 512 KiB mean gap). A free shares its count with a sample's when
    // both start in the same 256 bytes: about 256 / mean of the frees (0.4 % at 64 KiB) probe a
    // bucket for nothing. The bits above each 16 MiB are folded in, so that heaps 16 MiB apart
    // (thread arenas, mappings) do not share counts in step.
    static uint64_t filterOf(const void* address) {
        const uintptr_t value = reinterpret_cast<uintptr_t>(address);
        return ((value >> 8) ^ (value >> 24)) & (kFilterBytes - 1);
    }

    // A count that reached 255 stays there: a filter may say "maybe" wrongly, never "no".
    void count(const void* address, int change) {
        uint8_t* at = &m_filter[filterOf(address)];
        uint8_t now = __atomic_load_n(at, __ATOMIC_RELAXED);
        while (now != 255 && !__atomic_compare_exchange_n(at, &now, static_cast<uint8_t>(now + change), false,
                                                           __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
        }
    }

    uint8_t* m_filter = nullptr;
    uint64_t* m_slots = nullptr;
    uint64_t m_bucketMask = 0;
};

}  // namespace memlog::preload

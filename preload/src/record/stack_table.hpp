// Deduplicates call stacks across threads without a lock: a fixed open-addressing table of
// 64-bit stack hashes, claimed by compare-and-swap. Each distinct stack gets one id and its
// frames are written to the log once, by the thread that claimed it.
#pragma once

#include <atomic>
#include <cstdint>

namespace memlog::preload {

class StackTable {
public:
    struct Claim {
        uint32_t m_id = 0;      // the stack's id when already known
        uint32_t m_slot = 0;    // when m_claimed: publish the new id here
        bool m_claimed = false; // the caller must write the stack record and publish it
    };

    bool create();  // maps the table (address space only; pages appear as slots are used)
    void reset();   // in a fork child: the new log must define its stacks again

    static uint64_t hashFrames(const uint64_t* frames, uint32_t depth);

    // Looks the hash up. Returns a known id, or a claimed slot, or id 0 when the table is full.
    Claim find(uint64_t hash);
    uint32_t newId() { return m_nextId.fetch_add(1, std::memory_order_relaxed); }
    void publish(uint32_t slot, uint32_t id);
    uint32_t count() const { return m_nextId.load(std::memory_order_relaxed) - 1; }

private:
    struct Slot {
        std::atomic<uint64_t> m_hash;
        std::atomic<uint32_t> m_id;
        uint32_t m_unused;
    };
    static constexpr uint32_t kSlots = 1u << 20;  // 16 MiB of address space
    static constexpr uint32_t kMaxProbes = 128;
    static constexpr uint32_t kSlotsPerPage = 4096 / sizeof(Slot);
    static constexpr uint32_t kPages = kSlots / kSlotsPerPage;

    void mapForWriting(uint32_t index);

    Slot* m_slots = nullptr;
    std::atomic<uint32_t> m_nextId{1};
    std::atomic<uint64_t> m_pagesWritten[kPages / 64] = {};  // a bit a page: mapForWriting
};

}  // namespace memlog::preload

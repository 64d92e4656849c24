// The incremental unwinders' per-thread cache (incremental.hpp, frame_pointer_stacks.hpp): the
// tree of frames walked so far, each innermost frame's flat list of the slots to check, the
// layouts learnt per code address. Private to unwind/ and to the recorder's inline fp-mode path;
// one mapping per thread, no allocation, no lock.
#pragma once

#include <atomic>
#include <cstdint>

#include "frame_layout.hpp"

namespace memlog::unwind {

// Bumped by noteCodeUnloaded: a thread whose cache is older drops it before its next walk. The
// only shared word of the unwinders, read once a walk.
extern std::atomic<uint64_t> g_codeGeneration;

// Address space, not memory: pages appear as nodes are used. A python3 run keeps about 60 k
// frames; a tree that fills up starts over, and every stack is walked and looked up again.
constexpr uint32_t kNodeBits = 17;
constexpr uint32_t kNodes = 1u << kNodeBits;  // nodes before the tree starts over (8 MiB)
constexpr uint32_t kIndexBits = kNodeBits + 1;
constexpr uint32_t kIndexSlots = 1u << kIndexBits;  // node index: open addressing on the key
constexpr uint32_t kLayoutBits = 15;
constexpr uint32_t kLayoutSlots = 1u << kLayoutBits;  // learnt layouts by code address (a python3 run: 10 k)
constexpr uint32_t kProbes = 8;

enum NodeFlags : uint32_t {
    kEndRoot = 1,  // the outermost frame: its layout says the return address is undefined
    kCutRoot = 2,  // the walk that made it stopped here at maxDepth: the chain may go on
    // The caller's layout (at m_ra - 1): its CFA is rbp-based, or it leaves rbp in the register.
    kCallerUsesRbp = 4,
    kCallerKeepsRbp = 8,
    // Some later step reads this frame's rbp (m_bp): it is part of the key and its slot is
    // checked. Code built without frame pointers keeps data in rbp (a counter, an object): a key
    // with it would match almost never, and nothing above such a frame depends on it. Set on
    // every new node, and cleared at the end of its walk when the chain above proves it unread.
    kBpMatters = 16,
};

struct Node {
    uint64_t m_raSlot;  // where the return address was read (the callee's CFA - 8)
    uint64_t m_ra;
    uint64_t m_bp;  // rbp in this frame
    // Where m_bp was read; 0: the callee kept rbp in the register. The frame-pointer mode's
    // innermost node: where its flat list's first checked pair lies (frame_pointer_stacks.hpp).
    uint64_t m_bpSlot;
    uint32_t m_parent;  // 0: none known
    uint32_t m_stackId;
    uint32_t m_flags;
    // An innermost frame's whole stack as one flat list of the slots to check (return addresses
    // first, then saved rbps): no parent pointers to chase on a repeated stack.
    uint32_t m_checkAt;  // into UnwindCache::m_checks; 0: none
    uint16_t m_checkFrames;  // the stack's frames, this one included
    uint16_t m_checkRbps;
    // The frame-pointer mode's list: the entries its check of a repeated stack reads, [first, end).
    uint32_t m_firstCheck;
    uint32_t m_endCheck;
    uint32_t m_unused;
};
static_assert(sizeof(Node) == 64);

struct alignas(16) SlotCheck {  // aligned: the frame-pointer check compares one as a 16-byte vector
    uint64_t m_slot;
    uint64_t m_value;
};
constexpr uint32_t kChecks = 1u << 20;  // 16 MiB of address space for the flat lists

struct LayoutSlot {
    uint64_t m_pc;
    FrameLayout m_layout;
};
static_assert(sizeof(LayoutSlot) == 24);

struct UnwindCache {
    uint64_t m_generation;
    uint32_t m_nodeCount;  // node 0 is "none"
    uint32_t m_checkCount;  // used entries of m_checks; entry 0 is unused
    alignas(4096) uint32_t m_index[kIndexSlots];  // page-aligned, for zeroPages
    alignas(4096) LayoutSlot m_layouts[kLayoutSlots];
    Node m_nodes[kNodes];
    SlotCheck m_checks[kChecks];
};

inline UnwindCache* const kReleased = reinterpret_cast<UnwindCache*>(uintptr_t(1));

// Maps the cache on a thread's first walk, drops what is stale after a dlclose; null when the
// thread has released it (or the mapping failed).
[[gnu::noinline]] UnwindCache* readyCacheSlow(UnwindCache*& cache);

// Every walk: the thread's cache, mapped and as new as the code it walks (dlclose).
[[gnu::always_inline]] inline UnwindCache* readyCache(UnwindCache*& cache) {
    UnwindCache* ready = cache;
    if (reinterpret_cast<uintptr_t>(ready) > reinterpret_cast<uintptr_t>(kReleased) &&
        ready->m_generation == g_codeGeneration.load(std::memory_order_acquire)) [[likely]]
        return ready;
    return readyCacheSlow(cache);
}

// The tree and its lists start over (they are full, or the log's stack ids changed).
void clearTree(UnwindCache& cache);

inline uint32_t mix(uint64_t value, uint32_t bits) {
    return static_cast<uint32_t>((value * 0x9e37'79b9'7f4a'7c15ull) >> (64 - bits));
}

// The key hashes the slot and the return address only: whether rbp is part of the key is the
// node's own kBpMatters, known only once the node is found.
inline uint32_t keyHash(uint64_t raSlot, uint64_t ra) {
    return mix(raSlot ^ (ra * 0xff51'afd7'ed55'8ccdull), kIndexBits);
}

inline bool sameFrame(const Node& node, uint64_t raSlot, uint64_t ra, uint64_t bp) {
    return node.m_raSlot == raSlot && node.m_ra == ra && (node.m_bp == bp || !(node.m_flags & kBpMatters));
}

[[gnu::always_inline]] inline uint32_t findNode(const UnwindCache& cache, uint64_t raSlot, uint64_t ra, uint64_t bp) {
    uint32_t slot = keyHash(raSlot, ra);
    for (uint32_t probe = 0; probe < kProbes; ++probe, slot = (slot + 1) & (kIndexSlots - 1)) {
        const uint32_t index = cache.m_index[slot];
        if (index == 0) return 0;
        const Node& node = cache.m_nodes[index];
        if (sameFrame(node, raSlot, ra, bp)) return index;
    }
    return 0;
}

// A new node for a frame, indexed under its key (incremental.cpp). 0 when the tree is full: it
// starts over at the next walk.
uint32_t addNode(UnwindCache& cache, uint64_t raSlot, uint64_t ra, uint64_t bp, uint64_t bpSlot);

inline uint64_t load(uintptr_t slot) { return *reinterpret_cast<const uint64_t*>(slot); }

}  // namespace memlog::unwind

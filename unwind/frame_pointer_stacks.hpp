// The frame-pointer mode's incremental stacks: the same list as walkFramePointers (capture.hpp),
// with a repeated stack's id kept on its innermost program frame. The rbp walk itself is cheap;
// what a repeated stack saves is the hash and the table lookup, and what it costs is the check
// that every frame above still holds what the walk read (that check is what makes it exact).
//
// Each innermost node keeps a flat list (frame_tree.hpp's m_checks): entry k is frame k's two
// words as the walk read them, {saved rbp, return address}, frame 0 being the innermost program
// frame and frame k + 1 at the saved rbp of frame k; then one scalar slot: the zero return address
// that ended the walk, or, when something else ended it, frame 0's return address (always holds).
#pragma once

#include <cstdint>
#include <cstring>

#include "capture.hpp"
#include "frame_tree.hpp"
#include "incremental.hpp"

namespace memlog::unwind {

// The first program frame above `low`, stepping through the recorder's own frames (return
// addresses in `skip`) with walkFrameChain's rules (capture.cpp): every frame inside [low, high)
// with its two words, 8-byte aligned, the chain climbing. 0 where that walk would stop first.
[[gnu::always_inline]] inline uintptr_t firstProgramFrame(uintptr_t low, uintptr_t high, const CodeRange& skip) {
    if (high - low < 16) [[unlikely]]
        return 0;
    const uintptr_t lastFrameAt = high - low - 16;  // isFrame in one compare: below `low` wraps around
    for (uintptr_t frame = low;;) {
        if (frame - low > lastFrameAt || (frame & 7)) [[unlikely]]
            return 0;
        const auto* slots = reinterpret_cast<const uintptr_t*>(frame);
        if (slots[1] == 0) [[unlikely]]
            return 0;
        if (!skip.contains(slots[1])) return frame;
        if (slots[0] <= frame) [[unlikely]]
            return 0;
        frame = slots[0];
    }
}

// Whether every frame of `node`'s stack still holds what its walk read. Frame k's words are one
// 16-byte compare with the cached pair, frame k's address taken from the cache (the saved rbp of
// frame k - 1), not from the stack, so that no load waits for another; two frames a turn, each
// with its own accumulator (5 instructions a frame). Frame 0's pair is what the node's key
// matched: it is checked again only to make the count even (m_bpSlot is where checking starts,
// entries [m_firstCheck, m_endCheck) what it reads). No branch but the loop's.
[[gnu::always_inline]] inline bool framePairsHold(const UnwindCache& cache, const Node& node) {
    using Pair = uint64_t __attribute__((vector_size(16)));
    auto onStack = [](uintptr_t at) {  // a frame's two words: 8-byte aligned only
        Pair pair;
        std::memcpy(&pair, reinterpret_cast<const void*>(at), sizeof(Pair));
        return pair;
    };
    auto cached = [](const SlotCheck* check) { return *reinterpret_cast<const Pair*>(check); };
    const SlotCheck* check = &cache.m_checks[node.m_firstCheck];
    const SlotCheck* const end = &cache.m_checks[node.m_endCheck];
    uintptr_t at = node.m_bpSlot;
    Pair differ = {0, 0}, differ2 = {0, 0};
    for (; check != end; check += 2) {
        differ |= onStack(at) ^ cached(check);
        differ2 |= onStack(check[0].m_slot) ^ cached(check + 1);
        at = check[1].m_slot;
    }
    differ |= differ2;
    const uint64_t ended = load(end->m_slot) ^ end->m_value;
    return (differ[0] | differ[1] | ended) == 0;
}

// The node of the stack under the program's innermost frame (at `frame`) whose every frame still
// holds what its walk read, or 0. One call site at one depth may be reached through several
// chains in turn (g1 -> f -> malloc, g2 -> f -> malloc, or an interpreter's many paths to its
// allocator): each chain has a node of its own under the same key, and each is tried. Every node
// of this mode has its list (walkAndRemember makes both at once).
[[gnu::always_inline]] inline uint32_t findRepeatedStack(const UnwindCache& cache, uintptr_t frame) {
    const auto* slots = reinterpret_cast<const uintptr_t*>(frame);
    const uint64_t raSlot = frame + 8, ra = slots[1], bp = slots[0];
    uint32_t slot = keyHash(raSlot, ra);
    for (uint32_t probe = 0; probe < kProbes; ++probe, slot = (slot + 1) & (kIndexSlots - 1)) {
        const uint32_t index = cache.m_index[slot];
        if (index == 0) return 0;
        const Node& node = cache.m_nodes[index];
        if (sameFrame(node, raSlot, ra, bp) && framePairsHold(cache, node)) [[likely]]
            return index;
    }
    return 0;
}

// A repeated stack whose id is known, for the record function to call inline: its id, or 0 (a
// new or changed stack, one without an id yet, anything unusual: captureFramePointersIncremental
// then). `ownFrame` is the record function's (__builtin_frame_address(0)), whose caller is a
// hook: the program's frame is the hook's, two steps up, and firstProgramFrame's loop is taken
// only when that is not so. A node's list has at most maxDepth frames (a setting of the process).
// Cost on bench_alloc's free (3 frames): about 60 instructions.
[[gnu::always_inline]] inline uint32_t repeatedFramePointerStack(UnwindCache* cache, const void* ownFrame,
                                                                 const CodeRange& skip) {
    const auto low = reinterpret_cast<uintptr_t>(ownFrame);
    if (reinterpret_cast<uintptr_t>(cache) <= reinterpret_cast<uintptr_t>(kReleased) ||
        cache->m_generation != g_codeGeneration.load(std::memory_order_acquire)) [[unlikely]]
        return 0;
    const uintptr_t high = stackTop(low);
    const auto* own = reinterpret_cast<const uintptr_t*>(low);  // 16-byte aligned, in the stack
    uintptr_t frame = own[0];  // the hook's
    const auto* slots = reinterpret_cast<const uintptr_t*>(frame);
    // walkFrameChain's rules for the hook's frame: above ours, inside the stack with its two
    // words, aligned, its return address not zero and the program's.
    if (!(skip.contains(own[1]) && frame > low && frame < high && high - frame >= 16 && (frame & 7) == 0 &&
          slots[1] != 0 && !skip.contains(slots[1]))) [[unlikely]] {
        frame = firstProgramFrame(low, high, skip);
        if (frame == 0) return 0;
    }
    const uint32_t found = findRepeatedStack(*cache, frame);
    return found ? cache->m_nodes[found].m_stackId : 0;
}

// The whole capture: a repeated stack from its node (its frames written when `wantFrames` or
// when it has no id yet), anything else walked in full and remembered, out of line. The same
// list as walkFramePointers.
[[gnu::noinline]] IncrementalCapture captureFramePointersIncremental(UnwindCache*& cache, uint64_t* frames,
                                                                     uint32_t maxDepth, const CodeRange& skip,
                                                                     bool wantFrames);

}  // namespace memlog::unwind

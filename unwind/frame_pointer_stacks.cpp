// The frame-pointer mode's walk that remembers (frame_pointer_stacks.hpp): a new or changed stack
// is walked in full, its innermost program frame becomes a node with the flat list of what the
// walk read; a repeated one is found from that node.
#include "frame_pointer_stacks.hpp"

namespace memlog::unwind {
namespace {

// What walkFrameChain (capture.cpp) accepts as a frame; the same rules, the same stops.
inline bool isFrame(uintptr_t at, uintptr_t low, uintptr_t high) {
    return at >= low && at < high && high - at >= 16 && (at & 7) == 0;
}

// A stack that is not a repeated one: the whole walk from `low` (the capture's own frame), a new
// innermost node and its flat list.
[[gnu::noinline]] IncrementalCapture walkAndRemember(UnwindCache& cache, uintptr_t low, uintptr_t high,
                                                     uint64_t* frames, uint32_t maxDepth, const CodeRange& skip) {
    IncrementalCapture result;
    if (cache.m_nodeCount == kNodes || cache.m_checkCount + 2 * 256 + 2 > kChecks) clearTree(cache);
    SlotCheck ended{};  // the slot of the zero return address that ended the walk, if one did
    uint32_t innermost = 0;
    uint32_t depth = 0;
    bool ours = true;
    uintptr_t frame = low;
    while (depth < maxDepth && isFrame(frame, low, high)) {
        const auto* slots = reinterpret_cast<const uintptr_t*>(frame);
        const uintptr_t next = slots[0];
        const uintptr_t returnAddress = slots[1];
        if (returnAddress == 0) {
            if (depth > 0) ended = {frame + 8, 0};
            break;
        }
        if (!(ours && skip.contains(returnAddress))) {
            if (ours) {
                ours = false;
                innermost = addNode(cache, frame + 8, returnAddress, next, frame);
            }
            frames[depth++] = returnAddress;
        }
        if (next <= frame) break;  // the chain must climb (capture.cpp)
        frame = next;
    }
    result.m_done = true;
    result.m_depth = depth;
    if (!innermost) return result;
    result.m_stackId = &cache.m_nodes[innermost].m_stackId;
    // The flat list: each frame's two words as the walk read them, from the innermost program
    // frame out, then the slot that ended the walk (or one that always holds: frame 0's return
    // address). Where checking starts: frame 0 when the count of frames is even, else frame 1.
    Node& node = cache.m_nodes[innermost];
    SlotCheck* checks = &cache.m_checks[cache.m_checkCount];
    uintptr_t at = node.m_raSlot - 8;  // frame 0
    for (uint32_t i = 0; i < depth; ++i) {
        const uintptr_t next = *reinterpret_cast<const uintptr_t*>(at);
        checks[i] = {next, frames[i]};
        at = next;
    }
    checks[depth] = ended.m_slot ? ended : SlotCheck{node.m_raSlot, node.m_ra};
    node.m_bpSlot = (depth & 1) ? node.m_bp : node.m_raSlot - 8;
    node.m_checkAt = cache.m_checkCount;
    node.m_firstCheck = cache.m_checkCount + (depth & 1);
    node.m_endCheck = cache.m_checkCount + depth;
    node.m_checkFrames = uint16_t(depth);
    node.m_checkRbps = 1;
    cache.m_checkCount += depth + 1;
    return result;
}

}  // namespace

// A repeated stack: past the recorder's own frames to the program's innermost frame, its nodes,
// the check of their lists. Anything else walks it all.
IncrementalCapture captureFramePointersIncremental(UnwindCache*& cacheSlot, uint64_t* frames, uint32_t maxDepth,
                                                   const CodeRange& skip, bool wantFrames) {
    UnwindCache* cache = readyCache(cacheSlot);
    if (!cache || maxDepth == 0) [[unlikely]]
        return {};
    const auto low = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
    const uintptr_t high = stackTop(low);
    const uintptr_t frame = firstProgramFrame(low, high, skip);
    const uint32_t found = frame ? findRepeatedStack(*cache, frame) : 0;
    if (found && cache->m_nodes[found].m_checkFrames <= maxDepth) [[likely]] {
        const Node& node = cache->m_nodes[found];
        if (!node.m_stackId || wantFrames) {
            const SlotCheck* pairs = &cache->m_checks[node.m_checkAt];
            for (uint32_t k = 0; k < node.m_checkFrames; ++k) frames[k] = pairs[k].m_value;
        }
        IncrementalCapture result;
        result.m_done = true;
        result.m_depth = node.m_checkFrames;
        result.m_stackId = &cache->m_nodes[found].m_stackId;
        return result;
    }
    return walkAndRemember(*cache, low, high, frames, maxDepth, skip);
}

}  // namespace memlog::unwind

// The libunwind mode's incremental walk (see incremental.hpp), and the life of the per-thread cache
// both modes share (frame_tree.hpp): mapped on a thread's first walk, dropped after a dlclose, at
// a fork child's new log and at thread exit.
#include "incremental.hpp"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "frame_layout.hpp"
#include "frame_tree.hpp"

namespace memlog::unwind {

std::atomic<uint64_t> g_codeGeneration{1};

namespace {

UnwindCache* mapCache() {
    // The raw system call: the recorder's own mmap hook is not for its own memory.
    void* memory = reinterpret_cast<void*>(syscall(SYS_mmap, nullptr, sizeof(UnwindCache), PROT_READ | PROT_WRITE,
                                                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0));
    if (memory == MAP_FAILED) return nullptr;
    auto* cache = static_cast<UnwindCache*>(memory);
    cache->m_nodeCount = 1;
    cache->m_checkCount = 1;
    return cache;
}

// Large tables go back to zero pages rather than being written with zeros: no time spent on
// pages never used, and their memory is returned.
void zeroPages(void* start, size_t bytes) { syscall(SYS_madvise, start, bytes, MADV_DONTNEED); }

FrameLayout layoutAt(UnwindCache& cache, uintptr_t pc) {
    LayoutSlot& slot = cache.m_layouts[mix(pc, kLayoutBits)];
    if (slot.m_pc == pc && slot.m_layout.m_kind != FrameLayout::Kind::Unknown) [[likely]]
        return slot.m_layout;
    const FrameLayout layout = learnFrameLayout(pc);  // once per address (a collision relearns)
    slot.m_pc = pc;
    slot.m_layout = layout;
    return layout;
}

}  // namespace

void clearTree(UnwindCache& cache) {
    cache.m_nodeCount = 1;
    cache.m_checkCount = 1;
    zeroPages(cache.m_index, sizeof(cache.m_index));
}

UnwindCache* readyCacheSlow(UnwindCache*& cache) {
    if (cache == kReleased) return nullptr;
    if (!cache) {
        cache = mapCache();
        if (!cache) {
            cache = kReleased;
            return nullptr;
        }
        cache->m_generation = g_codeGeneration.load(std::memory_order_acquire);
    }
    const uint64_t generation = g_codeGeneration.load(std::memory_order_acquire);
    if (cache->m_generation != generation) {  // code was unloaded: its layouts and frames go
        clearTree(*cache);
        zeroPages(cache->m_layouts, sizeof(cache->m_layouts));
        cache->m_generation = generation;
    }
    return cache;
}

// A new node for a frame, indexed under its key. An older node with the same key whose chain no
// longer checked out is replaced, unless it is an innermost frame with its flat list: one call
// site at one depth is reached through several chains in turn (python3's allocators, from the
// interpreter's many paths), and each keeps its own node and list. 0 when the tree is full: it
// starts over at the next walk.
uint32_t addNode(UnwindCache& cache, uint64_t raSlot, uint64_t ra, uint64_t bp, uint64_t bpSlot) {
    if (cache.m_nodeCount == kNodes) return 0;
    const uint32_t index = cache.m_nodeCount++;
    cache.m_nodes[index] = Node{raSlot, ra, bp, bpSlot, 0, 0, kBpMatters, 0, 0, 0, 0, 0, 0};
    const uint32_t home = keyHash(raSlot, ra);
    uint32_t slot = home;
    uint32_t free = kIndexSlots;  // none
    for (uint32_t probe = 0; probe < kProbes; ++probe, slot = (slot + 1) & (kIndexSlots - 1)) {
        const uint32_t old = cache.m_index[slot];
        if (old == 0) {
            if (free == kIndexSlots) free = slot;
            break;
        }
        const Node& node = cache.m_nodes[old];
        if (sameFrame(node, raSlot, ra, bp) && !node.m_checkAt) {
            free = slot;
            break;
        }
    }
    cache.m_index[free == kIndexSlots ? home : free] = index;  // crowded: the first key is displaced
    return index;
}

namespace {

// The first program frame: every node under its key is tried by its flat list, the one that
// holds moves to the front of its probe window. Else `follow` is the node to follow the chain
// of: one without a list yet if there is one (it is the newest), else the first.
uint32_t findRepeatedInnermost(UnwindCache& cache, uint64_t raSlot, uint64_t ra, uint64_t bp, uint64_t* frames,
                               uint32_t maxDepth, bool wantFrames, uint32_t& follow);

struct Bounds {
    uintptr_t m_low;
    uintptr_t m_high;
    bool holds(uintptr_t slot) const { return slot >= m_low && slot < m_high && m_high - slot >= 8; }
};

enum class Chain { Changed, Whole, GoesOn };

// From a node whose key matched: copies its chain into frames[depth..] while checking that every
// ancestor's slots still hold what was read there. GoesOn: the chain stops at a cut root before
// maxDepth; `last` is that root and `depth` how many frames are written. Changed: `changedAt` is
// the return-address slot of the first ancestor that differs (every frame below it would find
// the same stale chain; frames from it outwards may match other nodes).
Chain followChain(const UnwindCache& cache, uint32_t found, const Bounds& bounds, uint64_t* frames, uint32_t& depth,
                  uint32_t maxDepth, uint32_t& last, uintptr_t& changedAt) {
    frames[depth++] = cache.m_nodes[found].m_ra;
    last = found;
    for (uint32_t at = cache.m_nodes[found].m_parent; depth < maxDepth; at = cache.m_nodes[at].m_parent) {
        if (at == 0) {
            const uint32_t flags = cache.m_nodes[last].m_flags;
            if (flags & kEndRoot) return Chain::Whole;
            if (flags & kCutRoot) return Chain::GoesOn;
            changedAt = UINTPTR_MAX;  // neither: a walk gave up there
            return Chain::Changed;
        }
        const Node& node = cache.m_nodes[at];
        changedAt = node.m_raSlot;
        if (!bounds.holds(node.m_raSlot) || load(node.m_raSlot) != node.m_ra) return Chain::Changed;
        if (node.m_bpSlot && (node.m_flags & kBpMatters) &&
            (!bounds.holds(node.m_bpSlot) || load(node.m_bpSlot) != node.m_bp))
            return Chain::Changed;
        frames[depth++] = node.m_ra;
        last = at;
    }
    return Chain::Whole;
}

// After a whole walk from `innermost`: its stack's slots as one flat list, when they all lie
// above its own slot (so that the bounds of any later walk that finds it hold for them too).
void buildCheckList(UnwindCache& cache, uint32_t innermost, uint32_t depth) {
    Node& first = cache.m_nodes[innermost];
    if (depth < 2 || cache.m_checkCount + 2 * depth > kChecks) return;
    SlotCheck* returns = &cache.m_checks[cache.m_checkCount];
    SlotCheck rbps[256];  // maxDepth is at most format::kMaxStackDepth (256)
    uint32_t frames = 1, saved = 0;
    for (uint32_t at = first.m_parent; at && frames < depth; at = cache.m_nodes[at].m_parent, ++frames) {
        const Node& node = cache.m_nodes[at];
        const bool checkBp = node.m_bpSlot && (node.m_flags & kBpMatters);
        if (node.m_raSlot <= first.m_raSlot || (checkBp && node.m_bpSlot <= first.m_raSlot)) return;
        returns[frames - 1] = {node.m_raSlot, node.m_ra};
        if (checkBp) rbps[saved++] = {node.m_bpSlot, node.m_bp};
    }
    if (frames != depth) return;
    for (uint32_t i = 0; i < saved; ++i) returns[depth - 1 + i] = rbps[i];
    first.m_checkAt = cache.m_checkCount;
    first.m_checkFrames = uint16_t(depth);
    first.m_checkRbps = uint16_t(saved);
    cache.m_checkCount += depth - 1 + saved;
}

// A repeated stack: every slot of the flat list still holds its value. Loads that do not depend
// on each other, unlike a walk up the parent links.
// The frames are copied only when the caller needs them (no id yet, or the check mode): the copy's
// stores would delay the locked add of the sequence number that follows. Out of line: inlined
// into the walk, the accumulator and the bound were spilled to the stack and every slot's check
// waited for the previous one's store (a third of python3's recording time).
[[gnu::noinline]] bool checkListHolds(const UnwindCache& cache, const Node& node, uint64_t* frames, bool wantFrames) {
    const SlotCheck* checks = &cache.m_checks[node.m_checkAt];
    const uint32_t count = node.m_checkFrames - 1u + node.m_checkRbps;
    uint64_t differ = 0;
    for (uint32_t i = 0; i < count; ++i) differ |= load(checks[i].m_slot) ^ checks[i].m_value;
    if (differ) return false;
    if (node.m_stackId && !wantFrames) return true;
    frames[0] = node.m_ra;
    for (uint32_t i = 0; i + 1 < node.m_checkFrames; ++i) frames[i + 1] = checks[i].m_value;
    return true;
}

uint32_t findRepeatedInnermost(UnwindCache& cache, uint64_t raSlot, uint64_t ra, uint64_t bp, uint64_t* frames,
                               uint32_t maxDepth, bool wantFrames, uint32_t& follow) {
    uint32_t slot = keyHash(raSlot, ra);
    uint32_t firstSlot = kIndexSlots;
    uint32_t withoutList = 0;
    follow = 0;
    for (uint32_t probe = 0; probe < kProbes; ++probe, slot = (slot + 1) & (kIndexSlots - 1)) {
        const uint32_t index = cache.m_index[slot];
        if (index == 0) break;
        const Node& node = cache.m_nodes[index];
        if (!sameFrame(node, raSlot, ra, bp)) continue;
        if (firstSlot == kIndexSlots) firstSlot = slot, follow = index;
        if (!node.m_checkAt) {
            if (!withoutList) withoutList = index;
            continue;
        }
        if (node.m_checkFrames <= maxDepth && checkListHolds(cache, node, frames, wantFrames)) [[likely]] {
            if (slot != firstSlot) {
                cache.m_index[slot] = cache.m_index[firstSlot];
                cache.m_index[firstSlot] = index;
            }
            return index;
        }
    }
    if (withoutList) follow = withoutList;
    return 0;
}

// After a whole walk, outermost first: a new node's rbp is read further on when its caller's CFA
// is rbp-based, or when the caller leaves rbp in the register and the parent's rbp matters. A
// root at maxDepth is not known yet and stays as it is (matters); the outermost frame's rbp is
// never read. Nodes of a walk that gave up keep kBpMatters: stricter than needed, never wrong.
void markUnreadRbps(UnwindCache& cache, const uint32_t* added, uint32_t count) {
    for (uint32_t i = count; i-- > 0;) {
        Node& node = cache.m_nodes[added[i]];
        if (node.m_flags & kCutRoot) continue;
        const bool parentMatters = node.m_parent && (cache.m_nodes[node.m_parent].m_flags & kBpMatters);
        const bool matters = (node.m_flags & kCallerUsesRbp) || ((node.m_flags & kCallerKeepsRbp) && parentMatters);
        if (!matters) node.m_flags &= ~kBpMatters;
    }
}

}  // namespace

IncrementalCapture captureIncremental(UnwindCache*& cacheSlot, uint64_t* frames, uint32_t maxDepth,
                                      const CodeRange& skip, bool wantFrames) {
    uintptr_t pc, sp, bp;
    // This instruction's own registers: its CFI row describes exactly this rsp.
    asm volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2" : "=r"(pc), "=r"(sp), "=r"(bp));
    IncrementalCapture result;
    UnwindCache* cache = readyCache(cacheSlot);
    if (!cache || maxDepth == 0) return result;
    if (cache->m_nodeCount == kNodes || cache->m_checkCount + 2 * 256 > kChecks) clearTree(*cache);
    const Bounds bounds{sp, stackTop(sp)};
    if (bounds.m_high == bounds.m_low) return result;  // not a stack glibc made: a coroutine's, say

    uintptr_t lookupPc = pc;  // the first frame's pc is exact; a return address is looked up - 1
    bool ours = true;
    uintptr_t lookUpFrom = 0;  // frames whose slot lies below this are not looked up
    uint32_t depth = 0;
    uint32_t child = 0;  // the node of the previous program frame
    uint32_t innermost = 0;
    uint32_t added[256];  // this walk's new nodes, innermost first (maxDepth <= 256)
    uint32_t addedCount = 0;
    for (;;) {
        if (depth == maxDepth) {
            cache->m_nodes[child].m_flags |= kCutRoot;
            break;
        }
        const FrameLayout layout = layoutAt(*cache, lookupPc);
        if (layout.m_kind == FrameLayout::Kind::End) {
            if (child) cache->m_nodes[child].m_flags |= kEndRoot;
            break;
        }
        if (layout.m_kind != FrameLayout::Kind::Standard) return result;
        if (child) {
            if (layout.m_cfaFromRbp) cache->m_nodes[child].m_flags |= kCallerUsesRbp;
            if (layout.m_rbpOffset == FrameLayout::kRbpNotSaved) cache->m_nodes[child].m_flags |= kCallerKeepsRbp;
        }
        const uintptr_t cfa = (layout.m_cfaFromRbp ? bp : sp) + int64_t(layout.m_cfaOffset);
        const uintptr_t raSlot = cfa - 8;
        if (!bounds.holds(raSlot)) return result;
        const uint64_t ra = load(raSlot);
        uintptr_t bpSlot = 0;
        if (layout.m_rbpOffset != FrameLayout::kRbpNotSaved) {
            bpSlot = cfa + int64_t(layout.m_rbpOffset);
            if (!bounds.holds(bpSlot)) return result;
            bp = load(bpSlot);
        }
        if (ra == 0) return result;
        sp = cfa;
        lookupPc = ra - 1;
        if (ours && skip.contains(ra)) continue;
        ours = false;

        if (raSlot >= lookUpFrom) {
            uint32_t found;
            if (depth == 0) {
                if (const uint32_t repeated =
                        findRepeatedInnermost(*cache, raSlot, ra, bp, frames, maxDepth, wantFrames, found)) [[likely]] {
                    result.m_done = true;
                    result.m_depth = cache->m_nodes[repeated].m_checkFrames;
                    result.m_stackId = &cache->m_nodes[repeated].m_stackId;
                    return result;
                }
            } else {
                found = findNode(*cache, raSlot, ra, bp);
            }
            if (found) {
                uint32_t last = 0;
                uintptr_t changedAt = 0;
                const uint32_t before = depth;
                const Chain chain = followChain(*cache, found, bounds, frames, depth, maxDepth, last, changedAt);
                if (chain != Chain::Changed) {
                    if (child)
                        cache->m_nodes[child].m_parent = found;
                    else
                        innermost = found;
                    if (chain == Chain::Whole) {
                        // Seen twice as the innermost frame: worth a flat list (most frames of a
                        // program like python3 are innermost once and never again).
                        if (!child && !cache->m_nodes[found].m_checkAt) buildCheckList(*cache, found, depth);
                        break;
                    }
                    // A cut root short of maxDepth: walk on from it.
                    Node& root = cache->m_nodes[last];
                    root.m_flags &= ~kCutRoot;
                    child = last;
                    sp = root.m_raSlot + 8;
                    bp = root.m_bp;
                    lookupPc = root.m_ra - 1;
                    lookUpFrom = UINTPTR_MAX;
                    continue;
                }
                depth = before;
                lookUpFrom = changedAt;  // below it, every node leads to the same changed slot
            }
        }
        const uint32_t node = addNode(*cache, raSlot, ra, bp, bpSlot);
        if (node == 0) return result;
        if (child)
            cache->m_nodes[child].m_parent = node;
        else
            innermost = node;
        child = node;
        added[addedCount++] = node;
        frames[depth++] = ra;
    }
    markUnreadRbps(*cache, added, addedCount);
    result.m_done = true;
    result.m_depth = depth;
    result.m_stackId = innermost ? &cache->m_nodes[innermost].m_stackId : nullptr;
    return result;
}

void noteCodeUnloaded() { g_codeGeneration.fetch_add(1, std::memory_order_acq_rel); }

void forgetStacks(UnwindCache* cache) {
    if (cache && cache != kReleased) clearTree(*cache);
}

void releaseUnwindCache(UnwindCache*& cache) {
    if (cache && cache != kReleased) syscall(SYS_munmap, cache, sizeof(UnwindCache));
    cache = kReleased;
}

}  // namespace memlog::unwind

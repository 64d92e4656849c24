// The id of the calling thread's stack, for the event path: captured with frame pointers or
// libunwind (incrementally: what the thread's previous walk found is reused where it still
// holds), looked up in the lock-free StackTable, and written to the log once, by the thread that
// found it new. The capture is inline in the record functions (currentStack, below).
#pragma once

#include <cstdint>

#include "memlog/format.hpp"
#include "record/record_writer.hpp"
#include "record/stack_table.hpp"
#include "record/thread_state.hpp"
#include "unwind/capture.hpp"
#include "unwind/frame_pointer_stacks.hpp"

namespace memlog::preload {

// How stacks are taken: start-up hands the settings over (prepareStackIds), once.
struct StackSettings {
    unwind::Method m_method = unwind::Method::None;  // MEMLOG_UNWIND
    uint32_t m_depth = 0;                            // MEMLOG_STACK_DEPTH
    bool m_incremental = false;                      // MEMLOG_UNWIND_INCREMENTAL: reuse walked frames
    bool m_check = false;                            // MEMLOG_UNWIND_CHECK: compare with a full walk
    bool m_freeStacks = false;                       // MEMLOG_FREE_STACKS
};

// Read on every event without a lock: written at start-up before the phase turns Ready, and
// the table reset in a fork child while it has one thread.
struct StackIds {
    StackSettings m_settings;
    unwind::CodeRange m_ownCode;       // libmemlog.so: the walk starts outside it
    unwind::CodeRange m_unwinderCode;  // libunwind: its own mappings are not the program's
    StackTable m_table;                // the stacks this log has defined
};
extern StackIds g_stacks;

// Start-up: the unwinder made ready, the code ranges found, the table mapped.
void prepareStackIds(const StackSettings& settings);

// In a fork child: its log defines every stack again, and its module map first.
void forgetStacksInForkChild(ThreadState& thread);

// True for code of the libraries the recorder uses (libunwind): their own mappings are not the
// program's.
bool isRecorderHelperCode(const void* returnAddress);
// True for the recorder's own code (libmemlog.so).
bool isRecorderCode(uint64_t address);

inline bool wantsStack(format::Kind kind) {
    if (g_stacks.m_settings.m_method == unwind::Method::None) return false;
    return format::kindInfo(kind).m_family != format::Family::Release || g_stacks.m_settings.m_freeStacks;
}

// The id of a stack of `depth` > 0 frames, writing its frames (and, before them, the module map
// when objects were loaded since) to the log if it is new. Out of line.
uint32_t stackIdOfFrames(ThreadState& thread, const uint64_t* frames, uint32_t depth);
inline uint32_t stackIdOf(ThreadState& thread, const uint64_t* frames, uint32_t depth) {
    return depth == 0 ? 0 : stackIdOfFrames(thread, frames, depth);
}

// MEMLOG_UNWIND_CHECK=1: the incremental stack against a full walk. A difference is counted and
// the full walk's frames are kept, so the log holds the right stack either way.
[[gnu::noinline]] bool matchesFullWalk(uint64_t* frames, uint32_t& depth);

// The incremental unwinder (libunwind or frame pointers), and the stack id its innermost frame
// keeps (a repeated stack: no hash, no lookup; in fp mode no call either). False: full walk.
[[gnu::always_inline]] inline bool incrementalStack(ThreadState& thread, uint32_t& id) {
    const StackSettings& settings = g_stacks.m_settings;
    const uint32_t repeated = settings.m_method == unwind::Method::FramePointer
                                  ? unwind::repeatedFramePointerStack(thread.m_stacks.m_unwindCache,
                                                                      __builtin_frame_address(0), g_stacks.m_ownCode)
                                  : 0;
    if (repeated && !settings.m_check) [[likely]] return id = repeated, true;
    uint64_t frames[format::kMaxStackDepth];
    unwind::IncrementalCapture got =
        settings.m_method == unwind::Method::Libunwind
            ? unwind::captureIncremental(thread.m_stacks.m_unwindCache, frames, settings.m_depth, g_stacks.m_ownCode,
                                         settings.m_check)
            : unwind::captureFramePointersIncremental(thread.m_stacks.m_unwindCache, frames, settings.m_depth,
                                                      g_stacks.m_ownCode, settings.m_check);
    if (!got.m_done) return false;
    if (settings.m_check) [[unlikely]] {  // the inline path's id is checked too
        const bool same = matchesFullWalk(frames, got.m_depth);
        id = stackIdOf(thread, frames, got.m_depth);
        if (same && repeated && repeated != id) countInHeader(&format::FileHeader::m_unwindMismatches);
        if (got.m_stackId && same) *got.m_stackId = id;
        return true;
    }
    if (got.m_stackId && *got.m_stackId) return id = *got.m_stackId, true;
    id = stackIdOf(thread, frames, got.m_depth);
    if (got.m_stackId) *got.m_stackId = id;
    return true;
}

// The id of the calling thread's current stack. Inline, like the capture in it: fewer frames of
// ours for the unwinder to step through.
[[gnu::always_inline]] inline uint32_t currentStack(ThreadState& thread) {
    const StackSettings& settings = g_stacks.m_settings;
    uint32_t id;
    if (settings.m_method != unwind::Method::None && settings.m_incremental) {
        if (incrementalStack(thread, id)) return id;
        if (settings.m_check) [[unlikely]] countInHeader(&format::FileHeader::m_unwindFullWalks);
    }
    uint64_t frames[format::kMaxStackDepth];
    const uint32_t depth = unwind::capture(settings.m_method, frames, settings.m_depth, g_stacks.m_ownCode);
    return stackIdOf(thread, frames, depth);
}

}  // namespace memlog::preload

// The incremental unwinder: most of a stack was already walked for the thread's previous event,
// so it is walked only up to the first frame seen before whose chain still holds.
//
// Per thread, a tree of the program frames walked so far. A node is a frame, keyed by where its
// return address was read (the callee's CFA - 8), that return address and the frame's rbp; its
// parent is the frame its own layout leads to. The walk steps outwards with layouts learnt once
// per return address from the binary's CFI (frame_layout.hpp) until a frame's key is in the tree;
// it then checks that every return-address and saved-rbp slot of the node's ancestors still holds
// what was read there. Key + those slots determine every later step, so a chain that checks out
// is exactly what a full walk would find (a key match alone is not: g1 -> f -> malloc and
// g2 -> f -> malloc can give f the same key). The innermost node keeps its stack's id.
//
// Anything the layouts do not model (a signal frame, stack realignment, a frame without CFI, a
// stack other than the thread's own, a zero return address) ends the attempt: the caller takes
// the full unw_backtrace. Cost on a repeated stack: a few steps through the recorder's frames,
// one hash probe, two loads and compares per frame.
#pragma once

#include <cstdint>

#include "capture.hpp"

namespace memlog::unwind {

struct UnwindCache;  // per thread, mapped on first use

struct IncrementalCapture {
    // False: the walk met something it does not model; take the full walk.
    bool m_done = false;
    uint32_t m_depth = 0;
    // The innermost frame's cached stack id (0: not known yet; store it here once it is), or
    // null when the stack has no frame of the program.
    uint32_t* m_stackId = nullptr;
};

// Writes up to maxDepth return addresses, innermost first, with the frames whose return address
// lies in `skip` at the top dropped: the same list as capture(Method::Libunwind, ...). A repeated
// stack whose id is known leaves `frames` unwritten unless `wantFrames`.
[[gnu::noinline]] IncrementalCapture captureIncremental(UnwindCache*& cache, uint64_t* frames, uint32_t maxDepth,
                                                        const CodeRange& skip, bool wantFrames);

// Code may have been unloaded (dlclose): every thread drops its learnt layouts and its tree
// before its next walk.
void noteCodeUnloaded();

// The stack ids of the log changed (a fork child starts a new log): the tree and ids go.
void forgetStacks(UnwindCache* cache);

// At thread exit. Walks after it take the full path (a late free in a destructor, say).
void releaseUnwindCache(UnwindCache*& cache);

}  // namespace memlog::unwind

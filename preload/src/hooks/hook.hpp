// What every hook includes. A hook takes the same four steps (hooks/malloc.cpp shows them
// best): bring the recorder up if it is not (start/start_up.hpp), forward unrecorded while the
// thread is inside the recorder (m_busy), make the real call (start/real_functions.hpp, inside an
// InAllocator for the allocator's), record it (record/events.hpp). Under sampled capture the
// allocator's hooks take a shortcut before step 1 (hooks/malloc.cpp, step 0).
#pragma once

#include "record/events.hpp"
#include "record/thread_state.hpp"
#include "start/real_functions.hpp"
#include "start/start_up.hpp"
#include "trace/full_trace.hpp"

// The entry points the library exports, in place of the C library's.
#define MEMLOG_EXPORT extern "C" __attribute__((visibility("default")))

namespace memlog::preload {

// Step 1 for a hook with no bootstrap pool to fall back on: false only on the thread that is
// resolving the real functions.
inline bool ready() { return isReady() || ensureReady(); }

// Marks the thread as inside the allocator while a hook's real call runs: a watchpoint that trips
// there, or a tick, is the allocator's own bookkeeping (free writes its links into the block).
// In a full trace the allocator's accesses are left out too (TraceQuiet).
class InAllocator {
public:
    InAllocator() : m_was(t_state.m_inAllocator) { t_state.m_inAllocator = true; }
    ~InAllocator() { t_state.m_inAllocator = m_was; }
    InAllocator(const InAllocator&) = delete;
    InAllocator& operator=(const InAllocator&) = delete;

private:
    bool m_was;
    TraceQuiet m_quiet;
};

}  // namespace memlog::preload

// The C allocation entry points. Every hook takes the same steps:
//   1. not ready yet: bring the recorder up (or serve dlsym's calloc from the bootstrap pool);
//   2. inside the recorder already (m_busy): forward, unrecorded;
//   3. call the real function (marked InAllocator: what a watchpoint sees there is the
//      allocator's own bookkeeping);
//   4. record: an allocation after the real call, a free before it.
// Cost when recording without stacks: the real call plus about 25 ns (recorder.cpp).
#include <errno.h>
#include <malloc.h>

#include <cstring>

#include "bootstrap_pool.hpp"
#include "real_functions.hpp"
#include "recorder.hpp"

using memlog::format::Kind;
using namespace memlog::preload;

namespace {

// Step 1, out of line. False: this thread is resolving the real functions; use the pool.
[[gnu::noinline]] bool warmUp() { return ensureReady(); }

inline bool busy() { return t_state.m_busy; }

}  // namespace

MEMLOG_EXPORT void* malloc(size_t size) {
    if (!isReady() && !warmUp()) [[unlikely]]
        return bootstrap::allocate(size);
    void* result;
    {
        InAllocator inside;
        result = g_real.malloc(size);
    }
    if (result && !busy()) recordAllocation(Kind::Malloc, result, size, 0);
    return result;
}

MEMLOG_EXPORT void* calloc(size_t count, size_t size) {
    if (!isReady() && !warmUp()) [[unlikely]] {
        size_t bytes;
        return __builtin_mul_overflow(count, size, &bytes) ? nullptr : bootstrap::allocate(bytes);
    }
    void* result;
    {
        InAllocator inside;
        result = g_real.calloc(count, size);
    }
    if (result && !busy()) recordAllocation(Kind::Calloc, result, count * size, 0);
    return result;
}

MEMLOG_EXPORT void free(void* pointer) {
    if (!pointer || bootstrap::owns(pointer)) return;
    if (!isReady() && !warmUp()) [[unlikely]]
        return;  // cannot happen: nothing but the pool exists before the real functions
    if (!busy()) recordRelease(Kind::Free, pointer, 0, 0);
    InAllocator inside;
    g_real.free(pointer);
}

namespace {

// realloc and reallocarray share this. glibc's reallocarray calls realloc through the PLT, so
// reallocarray forwards to the real realloc itself: otherwise it would be recorded twice.
void* resize(Kind kind, void* old, size_t size) {
    if (!isReady() && !warmUp()) [[unlikely]] {
        void* fresh = bootstrap::allocate(size);
        if (fresh && old) std::memcpy(fresh, old, bootstrap::usableSize(old) < size ? bootstrap::usableSize(old) : size);
        return fresh;
    }
    if (bootstrap::owns(old)) {
        // Moving out of the pool: to the log this is a new block.
        void* fresh = g_real.malloc(size ? size : 1);
        if (!fresh) return nullptr;
        std::memcpy(fresh, old, bootstrap::usableSize(old) < size ? bootstrap::usableSize(old) : size);
        if (!busy()) recordAllocation(Kind::Malloc, fresh, size, 0);
        return fresh;
    }
    if (busy()) return g_real.realloc(old, size);
    const ResizeTicket ticket = beginResize(kind, old);
    void* result;
    {
        InAllocator inside;
        result = g_real.realloc(old, size);
    }
    // A failed realloc (null with a size) changes nothing; realloc(p, 0) frees p.
    if (result || (old && size == 0)) finishResize(ticket, kind, result, size, old, 0);
    return result;
}

}  // namespace

MEMLOG_EXPORT void* realloc(void* old, size_t size) { return resize(Kind::Realloc, old, size); }

MEMLOG_EXPORT void* reallocarray(void* old, size_t count, size_t size) {
    size_t bytes;
    if (__builtin_mul_overflow(count, size, &bytes)) {
        errno = ENOMEM;
        return nullptr;
    }
    return resize(Kind::ReallocArray, old, bytes);
}

MEMLOG_EXPORT int posix_memalign(void** out, size_t alignment, size_t size) {
    if (!isReady() && !warmUp()) [[unlikely]] {
        *out = bootstrap::allocate(size, alignment);
        return *out ? 0 : ENOMEM;
    }
    int result;
    {
        InAllocator inside;
        result = g_real.posix_memalign(out, alignment, size);
    }
    if (result == 0 && !busy()) recordAllocation(Kind::PosixMemalign, *out, size, alignment);
    return result;
}

MEMLOG_EXPORT void* aligned_alloc(size_t alignment, size_t size) {
    if (!isReady() && !warmUp()) [[unlikely]]
        return bootstrap::allocate(size, alignment);
    void* result;
    {
        InAllocator inside;
        result = g_real.aligned_alloc(alignment, size);
    }
    if (result && !busy()) recordAllocation(Kind::AlignedAlloc, result, size, alignment);
    return result;
}

MEMLOG_EXPORT void* memalign(size_t alignment, size_t size) {
    if (!isReady() && !warmUp()) [[unlikely]]
        return bootstrap::allocate(size, alignment);
    void* result;
    {
        InAllocator inside;
        result = g_real.memalign(alignment, size);
    }
    if (result && !busy()) recordAllocation(Kind::Memalign, result, size, alignment);
    return result;
}

MEMLOG_EXPORT void* valloc(size_t size) {
    if (!isReady() && !warmUp()) [[unlikely]]
        return bootstrap::allocate(size, 4096);
    void* result;
    {
        InAllocator inside;
        result = g_real.valloc(size);
    }
    if (result && !busy()) recordAllocation(Kind::Valloc, result, size, 0);
    return result;
}

MEMLOG_EXPORT void* pvalloc(size_t size) {
    if (!isReady() && !warmUp()) [[unlikely]]
        return bootstrap::allocate((size + 4095) & ~size_t(4095), 4096);
    void* result;
    {
        InAllocator inside;
        result = g_real.pvalloc(size);
    }
    if (result && !busy()) recordAllocation(Kind::Pvalloc, result, size, 0);
    return result;
}

MEMLOG_EXPORT size_t malloc_usable_size(void* pointer) {
    if (!pointer) return 0;
    if (bootstrap::owns(pointer)) return bootstrap::usableSize(pointer);
    if (!isReady() && !warmUp()) [[unlikely]]
        return 0;
    return g_real.malloc_usable_size(pointer);
}

// The C allocation entry points. Every hook takes the same steps:
//   0. sampled capture's shortcut: an event that is surely no sample is forwarded at once, with
//      a tail call (the countdown, or the filter of live samples; record/sampled_capture.hpp);
//   1. not ready yet: bring the recorder up (or serve dlsym's calloc from the bootstrap pool);
//   2. inside the recorder already (m_busy): forward, unrecorded;
//   3. call the real function (marked InAllocator: what a watchpoint sees there is the
//      allocator's own bookkeeping);
//   4. record: an allocation after the real call, a free before it.
// Cost when recording without stacks: the real call plus about 25 ns (record/events.cpp).
#include <errno.h>
#include <malloc.h>

#include <cstring>

#include "hooks/hook.hpp"
#include "start/bootstrap_pool.hpp"

using memlog::format::Kind;
using namespace memlog::preload;

namespace {

// Step 1, out of line. False: this thread is resolving the real functions; use the pool.
[[gnu::noinline]] bool warmUp() { return ensureReady(); }

inline bool busy() { return t_state.m_busy; }

// Each body takes the real function it forwards to, so that glibc's __libc_ names (below) run
// the same steps as the public ones. The four that step 0 leads to are out of line: inline, their
// frame (six saved registers) would be built before the shortcut, on every event.
template <auto Real>
[[gnu::noinline]] void* allocateBlock(size_t size) {
    if (!isReady() && !warmUp()) [[unlikely]]
        return bootstrap::allocate(size);
    void* result;
    {
        InAllocator inside;
        result = (g_real.*Real)(size);
    }
    if (result && !busy()) recordAllocation(Kind::Malloc, result, size, 0);
    return result;
}

template <auto Real>
[[gnu::noinline]] void* allocateZeroed(size_t count, size_t size) {
    if (!isReady() && !warmUp()) [[unlikely]] {
        size_t bytes;
        return __builtin_mul_overflow(count, size, &bytes) ? nullptr : bootstrap::allocate(bytes);
    }
    void* result;
    {
        InAllocator inside;
        result = (g_real.*Real)(count, size);
    }
    if (result && !busy()) recordAllocation(Kind::Calloc, result, count * size, 0);
    return result;
}

template <auto Real>
[[gnu::noinline]] void releaseBlock(void* pointer) {
    if (!pointer || bootstrap::owns(pointer)) return;
    if (!isReady() && !warmUp()) [[unlikely]]
        return;  // cannot happen: nothing but the pool exists before the real functions
    if (!busy()) recordRelease(Kind::Free, pointer, 0, 0);
    InAllocator inside;
    (g_real.*Real)(pointer);
}

// realloc and reallocarray share this. glibc's reallocarray calls realloc through the PLT, so
// reallocarray forwards to the real realloc itself: otherwise it would be recorded twice.
template <auto Real>
[[gnu::noinline]] void* resize(Kind kind, void* old, size_t size) {
    if (!isReady() && !warmUp()) [[unlikely]] {
        void* fresh = bootstrap::allocate(size);
        if (fresh && old)
            std::memcpy(fresh, old, bootstrap::usableSize(old) < size ? bootstrap::usableSize(old) : size);
        return fresh;
    }
    if (bootstrap::owns(old)) {
        // Moving out of the pool: to the log this is a new block.
        void* fresh = (g_real.*Real)(nullptr, size ? size : 1);
        if (!fresh) return nullptr;
        std::memcpy(fresh, old, bootstrap::usableSize(old) < size ? bootstrap::usableSize(old) : size);
        if (!busy()) recordAllocation(Kind::Malloc, fresh, size, 0);
        return fresh;
    }
    if (busy()) return (g_real.*Real)(old, size);
    const ResizeTicket ticket = beginResize(kind, old, size);
    void* result;
    {
        InAllocator inside;
        result = (g_real.*Real)(old, size);
    }
    // A failed realloc (null with a size) changes nothing; realloc(p, 0) frees p.
    if (result || (old && size == 0))
        finishResize(ticket, kind, result, size, old, 0);
    else
        cancelResize(ticket, old);
    return result;
}

template <auto Real>
void* allocateAligned(size_t alignment, size_t size) {
    if (!isReady() && !warmUp()) [[unlikely]]
        return bootstrap::allocate(size, alignment);
    void* result;
    {
        InAllocator inside;
        result = (g_real.*Real)(alignment, size);
    }
    if (result && !busy()) recordAllocation(Kind::Memalign, result, size, alignment);
    return result;
}

template <auto Real>
void* allocatePages(Kind kind, size_t size) {
    if (!isReady() && !warmUp()) [[unlikely]]
        return bootstrap::allocate(kind == Kind::Pvalloc ? (size + 4095) & ~size_t(4095) : size, 4096);
    void* result;
    {
        InAllocator inside;
        result = (g_real.*Real)(size);
    }
    if (result && !busy()) recordAllocation(kind, result, size, 0);
    return result;
}

using R = RealFunctions;

}  // namespace

// Step 0 for malloc, calloc, free and realloc; the rarer entry points take the full path.
MEMLOG_EXPORT void* malloc(size_t size) {
    if (shortcutOn() && forwardsUnrecorded(size)) [[likely]]
        return g_real.malloc(size);
    return allocateBlock<&R::malloc>(size);
}
// The recorder's own malloc, whichever malloc the program's calls bind to (start/real_functions.cpp).
extern "C" __attribute__((visibility("hidden"), alias("malloc"), malloc, alloc_size(1))) void* memlog_own_malloc(
    size_t size) noexcept;
MEMLOG_EXPORT void* calloc(size_t count, size_t size) {
    size_t bytes;
    if (shortcutOn() && !__builtin_mul_overflow(count, size, &bytes) && forwardsUnrecorded(bytes)) [[likely]]
        return g_real.calloc(count, size);
    return allocateZeroed<&R::calloc>(count, size);
}
// The filter may pass a null pointer (the real free ignores it) or a block of the bootstrap pool,
// which is asked about after the filter: one load tells most blocks apart.
MEMLOG_EXPORT void free(void* pointer) {
    if (shortcutOn() && surelyUnsampled(pointer) && !bootstrap::owns(pointer)) [[likely]]
        return g_real.free(pointer);
    releaseBlock<&R::free>(pointer);
}
// The old block surely no sample and the new one no sample either: nothing for the log.
MEMLOG_EXPORT void* realloc(void* old, size_t size) {
    if (shortcutOn() && surelyUnsampled(old) && !bootstrap::owns(old) && forwardsUnrecorded(size)) [[likely]]
        return g_real.realloc(old, size);
    return resize<&R::realloc>(Kind::Realloc, old, size);
}

MEMLOG_EXPORT void* reallocarray(void* old, size_t count, size_t size) {
    size_t bytes;
    if (__builtin_mul_overflow(count, size, &bytes)) {
        errno = ENOMEM;
        return nullptr;
    }
    return resize<&R::realloc>(Kind::ReallocArray, old, bytes);
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

MEMLOG_EXPORT void* memalign(size_t alignment, size_t size) { return allocateAligned<&R::memalign>(alignment, size); }
MEMLOG_EXPORT void* valloc(size_t size) { return allocatePages<&R::valloc>(Kind::Valloc, size); }
MEMLOG_EXPORT void* pvalloc(size_t size) { return allocatePages<&R::pvalloc>(Kind::Pvalloc, size); }

MEMLOG_EXPORT size_t malloc_usable_size(void* pointer) {
    if (!pointer) return 0;
    if (bootstrap::owns(pointer)) return bootstrap::usableSize(pointer);
    if (!isReady() && !warmUp()) [[unlikely]]
        return 0;
    return g_real.malloc_usable_size(pointer);
}

// glibc's own names under the public ones: __libc_malloc is malloc. A program that replaces
// malloc calls them from its own, and its malloc then stands in front of the recorder's, whose
// hooks never run: only then are these recorded. Otherwise they pass through, so that an
// allocator preloaded after the recorder that calls them does not get each block recorded twice.
namespace {
inline bool libcNamesPassThrough() { return isReady() && !g_real.libcNamesRecorded; }
}  // namespace

MEMLOG_EXPORT void* __libc_malloc(size_t size) {
    return libcNamesPassThrough() ? g_real.__libc_malloc(size) : allocateBlock<&R::__libc_malloc>(size);
}
MEMLOG_EXPORT void* __libc_calloc(size_t count, size_t size) {
    return libcNamesPassThrough() ? g_real.__libc_calloc(count, size) : allocateZeroed<&R::__libc_calloc>(count, size);
}
MEMLOG_EXPORT void __libc_free(void* pointer) {
    if (libcNamesPassThrough() && !bootstrap::owns(pointer)) return g_real.__libc_free(pointer);
    releaseBlock<&R::__libc_free>(pointer);
}
MEMLOG_EXPORT void* __libc_realloc(void* old, size_t size) {
    return libcNamesPassThrough() ? g_real.__libc_realloc(old, size)
                                  : resize<&R::__libc_realloc>(Kind::Realloc, old, size);
}
MEMLOG_EXPORT void* __libc_memalign(size_t alignment, size_t size) {
    return libcNamesPassThrough() ? g_real.__libc_memalign(alignment, size)
                                  : allocateAligned<&R::__libc_memalign>(alignment, size);
}
MEMLOG_EXPORT void* __libc_valloc(size_t size) {
    return libcNamesPassThrough() ? g_real.__libc_valloc(size) : allocatePages<&R::__libc_valloc>(Kind::Valloc, size);
}
MEMLOG_EXPORT void* __libc_pvalloc(size_t size) {
    return libcNamesPassThrough() ? g_real.__libc_pvalloc(size)
                                  : allocatePages<&R::__libc_pvalloc>(Kind::Pvalloc, size);
}

// Every operator new and delete form, counted as new, new[], delete and delete[]. operator new
// is implemented here on the real malloc, with libstdc++'s failure behaviour (the new_handler
// loop, then std::bad_alloc), so that its inner malloc is not recorded a second time. The
// library does not link libstdc++: the two libstdc++ functions needed are found with dlsym.
#include <cstdlib>
#include <new>

#include "hooks/hook.hpp"

using memlog::format::Kind;
using namespace memlog::preload;

namespace {

using NewHandler = void (*)();

// nullptr means: give up (nothrow forms return it; the others throw).
void* allocateOrHandle(size_t size, size_t alignment, bool nothrow) {
    if (!isReady()) ensureReady();
    if (size == 0) size = 1;
    for (;;) {
        void* result;
        {
            InAllocator inside;
            if (alignment) {
                // As libstdc++: aligned_alloc wants a size that is a multiple of the alignment.
                const size_t rounded = (size + alignment - 1) & ~(alignment - 1);
                result = g_real.aligned_alloc(alignment, rounded < size ? size : rounded);
            } else {
                result = g_real.malloc(size);
            }
        }
        if (result) return result;
        const auto handler = g_real.getNewHandler ? reinterpret_cast<NewHandler>(g_real.getNewHandler()) : nullptr;
        if (!handler) {
            if (nothrow) return nullptr;
            if (g_real.throwBadAlloc) g_real.throwBadAlloc();
            abort();  // no C++ runtime to throw with
        }
        handler();
    }
}

// The full paths, out of line: the shortcut (below) is then not behind their frames.
[[gnu::noinline]] void* newRecordedBlock(Kind kind, size_t size, size_t alignment, bool nothrow) {
    void* result = allocateOrHandle(size, alignment, nothrow);
    if (result && !t_state.m_busy) recordAllocation(kind, result, size, alignment);
    return result;
}

[[gnu::noinline]] void deleteRecordedBlock(Kind kind, void* pointer, size_t alignment) {
    if (!pointer) return;
    if (!isReady()) ensureReady();
    if (!t_state.m_busy) recordRelease(kind, pointer, 0, alignment);
    InAllocator inside;
    g_real.free(pointer);
}

// Sampled capture's shortcut (hooks/malloc.cpp, step 0): an unaligned block that is no sample is
// the real malloc's (a failure goes on to the new_handler loop, its bytes already counted), and
// a block surely no sample goes straight to the real free (a null pointer too: it ignores it).
[[gnu::always_inline]] inline void* newBlock(Kind kind, size_t size, size_t alignment, bool nothrow) {
    if (alignment == 0 && shortcutOn()) [[likely]] {
        if (forwardsUnrecorded(size)) {
            if (void* result = g_real.malloc(size ? size : 1)) [[likely]]
                return result;
            return allocateOrHandle(size, 0, nothrow);
        }
    }
    return newRecordedBlock(kind, size, alignment, nothrow);
}

[[gnu::always_inline]] inline void deleteBlock(Kind kind, void* pointer, size_t alignment) {
    if (shortcutOn() && surelyUnsampled(pointer)) [[likely]]
        return g_real.free(pointer);
    deleteRecordedBlock(kind, pointer, alignment);
}

constexpr size_t alignOf(std::align_val_t alignment) { return static_cast<size_t>(alignment); }

}  // namespace

#define MEMLOG_NEW __attribute__((visibility("default")))

MEMLOG_NEW void* operator new(size_t size) { return newBlock(Kind::New, size, 0, false); }
MEMLOG_NEW void* operator new[](size_t size) { return newBlock(Kind::NewArray, size, 0, false); }
MEMLOG_NEW void* operator new(size_t size, const std::nothrow_t&) noexcept {
    return newBlock(Kind::New, size, 0, true);
}
MEMLOG_NEW void* operator new[](size_t size, const std::nothrow_t&) noexcept {
    return newBlock(Kind::NewArray, size, 0, true);
}
MEMLOG_NEW void* operator new(size_t size, std::align_val_t a) { return newBlock(Kind::New, size, alignOf(a), false); }
MEMLOG_NEW void* operator new[](size_t size, std::align_val_t a) {
    return newBlock(Kind::NewArray, size, alignOf(a), false);
}
MEMLOG_NEW void* operator new(size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
    return newBlock(Kind::New, size, alignOf(a), true);
}
MEMLOG_NEW void* operator new[](size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
    return newBlock(Kind::NewArray, size, alignOf(a), true);
}

MEMLOG_NEW void operator delete(void* p) noexcept { deleteBlock(Kind::Delete, p, 0); }
MEMLOG_NEW void operator delete[](void* p) noexcept { deleteBlock(Kind::DeleteArray, p, 0); }
MEMLOG_NEW void operator delete(void* p, size_t) noexcept { deleteBlock(Kind::Delete, p, 0); }
MEMLOG_NEW void operator delete[](void* p, size_t) noexcept { deleteBlock(Kind::DeleteArray, p, 0); }
MEMLOG_NEW void operator delete(void* p, const std::nothrow_t&) noexcept { deleteBlock(Kind::Delete, p, 0); }
MEMLOG_NEW void operator delete[](void* p, const std::nothrow_t&) noexcept { deleteBlock(Kind::DeleteArray, p, 0); }
MEMLOG_NEW void operator delete(void* p, std::align_val_t a) noexcept { deleteBlock(Kind::Delete, p, alignOf(a)); }
MEMLOG_NEW void operator delete[](void* p, std::align_val_t a) noexcept {
    deleteBlock(Kind::DeleteArray, p, alignOf(a));
}
MEMLOG_NEW void operator delete(void* p, size_t, std::align_val_t a) noexcept {
    deleteBlock(Kind::Delete, p, alignOf(a));
}
MEMLOG_NEW void operator delete[](void* p, size_t, std::align_val_t a) noexcept {
    deleteBlock(Kind::DeleteArray, p, alignOf(a));
}
MEMLOG_NEW void operator delete(void* p, std::align_val_t a, const std::nothrow_t&) noexcept {
    deleteBlock(Kind::Delete, p, alignOf(a));
}
MEMLOG_NEW void operator delete[](void* p, std::align_val_t a, const std::nothrow_t&) noexcept {
    deleteBlock(Kind::DeleteArray, p, alignOf(a));
}

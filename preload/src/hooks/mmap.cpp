// The program's own anonymous mappings: mmap, munmap and mremap, recorded as a kind of their own
// (Mmap, Munmap, Mremap). glibc's allocator and loader map memory through internal calls that
// never reach these hooks; libunwind's own mappings are told apart by their caller.
#include <stdarg.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hooks/hook.hpp"
#include "record/stack_ids.hpp"

using memlog::format::Kind;
using namespace memlog::preload;

namespace {

void* mapMemory(void* address, size_t length, int protection, int flags, int fd, off_t offset, const void* caller) {
    if (!ready()) return MAP_FAILED;
    void* result = g_real.mmap(address, length, protection, flags, fd, offset);
    if (result != MAP_FAILED && (flags & MAP_ANONYMOUS) && !t_state.m_busy &&
        !isRecorderHelperCode(caller))
        recordAllocation(Kind::Mmap, result, length, 0);
    return result;
}

}  // namespace

MEMLOG_EXPORT void* mmap(void* address, size_t length, int protection, int flags, int fd, off_t offset) {
    return mapMemory(address, length, protection, flags, fd, offset, __builtin_return_address(0));
}

MEMLOG_EXPORT void* mmap64(void* address, size_t length, int protection, int flags, int fd, off_t offset) {
    return mapMemory(address, length, protection, flags, fd, offset, __builtin_return_address(0));
}

// Every munmap is logged; the reader ignores the ones that touch no recorded anonymous mapping
// (the recorder keeps no table of mappings to tell them apart). libunwind's own caches, mapped
// while the recorder was busy, are unmapped by its thread-exit destructor: not the program's.
MEMLOG_EXPORT int munmap(void* address, size_t length) {
    if (!ready()) return -1;
    if (!t_state.m_busy && !isRecorderHelperCode(__builtin_return_address(0)))
        recordRelease(Kind::Munmap, address, length, 0);
    return g_real.munmap(address, length);
}

MEMLOG_EXPORT void* mremap(void* old, size_t oldLength, size_t newLength, int flags, ...) {
    void* newAddress = nullptr;
    if (flags & MREMAP_FIXED) {
        va_list arguments;
        va_start(arguments, flags);
        newAddress = va_arg(arguments, void*);
        va_end(arguments);
    }
    if (!ready()) return MAP_FAILED;
    if (t_state.m_busy) return g_real.mremap(old, oldLength, newLength, flags, newAddress);
    const ResizeTicket ticket = beginResize(Kind::Mremap);
    void* result = g_real.mremap(old, oldLength, newLength, flags, newAddress);
    if (result != MAP_FAILED) finishResize(ticket, Kind::Mremap, result, newLength, old, oldLength);
    return result;
}

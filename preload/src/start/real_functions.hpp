// The functions the hooks forward to, found with dlsym(RTLD_NEXT) so that an allocator
// preloaded after us (jemalloc, tcmalloc) keeps working.
#pragma once

#include <pthread.h>
#include <signal.h>
#include <sys/types.h>

#include <cstddef>

namespace memlog::preload {

// One list for every forwarded function: name, return type, parameter types.
#define MEMLOG_REAL_FUNCTIONS(X)                                                   \
    X(malloc, void*, size_t)                                                       \
    X(free, void, void*)                                                           \
    X(calloc, void*, size_t, size_t)                                               \
    X(realloc, void*, void*, size_t)                                               \
    X(posix_memalign, int, void**, size_t, size_t)                                 \
    X(aligned_alloc, void*, size_t, size_t)                                        \
    X(memalign, void*, size_t, size_t)                                             \
    X(valloc, void*, size_t)                                                       \
    X(pvalloc, void*, size_t)                                                      \
    X(malloc_usable_size, size_t, void*)                                           \
    X(mmap, void*, void*, size_t, int, int, int, off_t)                            \
    X(munmap, int, void*, size_t)                                                  \
    X(mremap, void*, void*, size_t, size_t, int, void*)                            \
    X(execve, int, const char*, char* const*, char* const*)                        \
    X(execvpe, int, const char*, char* const*, char* const*)                       \
    X(fexecve, int, int, char* const*, char* const*)                               \
    X(_exit, void, int)                                                            \
    X(sigaction, int, int, const struct sigaction*, struct sigaction*)            \
    X(signal, sighandler_t, int, sighandler_t)                                     \
    X(sysv_signal, sighandler_t, int, sighandler_t)                                \
    X(pthread_create, int, pthread_t*, const pthread_attr_t*, void* (*)(void*), void*) \
    X(dlopen, void*, const char*, int)                                             \
    X(dlmopen, void*, long, const char*, int)                                      \
    X(dlclose, int, void*)                                                         \
    X(__libc_malloc, void*, size_t)                                                \
    X(__libc_calloc, void*, size_t, size_t)                                        \
    X(__libc_free, void, void*)                                                    \
    X(__libc_realloc, void*, void*, size_t)                                        \
    X(__libc_memalign, void*, size_t, size_t)                                      \
    X(__libc_valloc, void*, size_t)                                                \
    X(__libc_pvalloc, void*, size_t)

struct RealFunctions {
#define MEMLOG_DECLARE_REAL(name, result, ...) result (*name)(__VA_ARGS__);
    MEMLOG_REAL_FUNCTIONS(MEMLOG_DECLARE_REAL)
#undef MEMLOG_DECLARE_REAL
    // libstdc++, when the program has it: to reproduce operator new's failure behaviour.
    void* (*getNewHandler)();
    void (*throwBadAlloc)();
    // The program's malloc is not the recorder's (the program or a library preloaded before
    // the recorder replaced it): record the __libc_ names it forwards to (hooks/malloc.cpp).
    bool libcNamesRecorded;
};
extern RealFunctions g_real;

void resolveRealFunctions();

}  // namespace memlog::preload

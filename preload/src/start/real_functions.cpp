// dlsym(RTLD_NEXT) for every forwarded function. dlsym may calloc; the hooks serve that from
// the bootstrap pool while this runs (see bootstrap_pool.hpp).
#include "start/real_functions.hpp"

#include <dlfcn.h>

extern "C" void* memlog_own_malloc(size_t size) noexcept;  // hooks/malloc.cpp

namespace memlog::preload {

RealFunctions g_real;

void resolveRealFunctions() {
#define MEMLOG_RESOLVE_REAL(name, result, ...) \
    g_real.name = reinterpret_cast<result (*)(__VA_ARGS__)>(dlsym(RTLD_NEXT, #name));
    MEMLOG_REAL_FUNCTIONS(MEMLOG_RESOLVE_REAL)
#undef MEMLOG_RESOLVE_REAL
    g_real.getNewHandler = reinterpret_cast<void* (*)()>(dlsym(RTLD_DEFAULT, "_ZSt15get_new_handlerv"));
    g_real.throwBadAlloc = reinterpret_cast<void (*)()>(dlsym(RTLD_DEFAULT, "_ZSt17__throw_bad_allocv"));
    g_real.libcNamesRecorded = dlsym(RTLD_DEFAULT, "malloc") != reinterpret_cast<void*>(&memlog_own_malloc);
}

}  // namespace memlog::preload

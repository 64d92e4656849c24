// dlopen and dlmopen, for RTLD_DEEPBIND (deep_bind.hpp). glibc takes the caller of dlopen from
// its return address: a bare name is searched along the caller's RUNPATH, "$ORIGIN" is the
// caller's directory, and the caller's namespace is used. So these hooks are assembly stubs that
// ask a route function what to do and then jump to the real function with the stack as the
// program left it: glibc sees the program's caller, not the recorder. Only a RTLD_DEEPBIND load
// whose name glibc would resolve the same for any caller is opened by the recorder itself, which
// then rebinds it. Any other dlopen pays one call of the route: below the noise of
// scripts/bench-dlopen (tens of ns).
#include <dlfcn.h>
#include <link.h>

#include <cstddef>
#include <cstring>

#include "base/system.hpp"
#include "hooks/deep_bind.hpp"
#include "hooks/hook.hpp"
#include "memlog.h"
#include "unwind/incremental.hpp"

using namespace memlog::preload;

namespace {

// What a stub does next: jump to m_jump with the program's arguments, or return m_handle.
struct Route {
    void* m_jump;
    void* m_handle;
};

constexpr size_t kMaxSearchListBytes = 4096;

void* realFunction(const char* name, void* resolved) {
    // Only the thread resolving the real functions gets here before they are known.
    return resolved ? resolved : dlsym(RTLD_NEXT, name);
}

// The directories glibc would search for a bare name dlopen'd from `map`, in order, as
// RTLD_DI_SERINFO lists them (RPATHs, LD_LIBRARY_PATH, RUNPATH, the system directories).
bool readSearchList(void* map, Dl_serinfo* list, size_t capacity) {
    Dl_serinfo size;
    if (dlinfo(map, RTLD_DI_SERINFOSIZE, &size) != 0 || size.dls_size > capacity) return false;
    list->dls_size = size.dls_size;
    list->dls_cnt = size.dls_cnt;
    return dlinfo(map, RTLD_DI_SERINFO, list) == 0;
}

// The list is declared with one entry and filled with dls_cnt.
const char* directoryAt(const Dl_serinfo* list, unsigned index) {
    const auto* paths = reinterpret_cast<const Dl_serpath*>(reinterpret_cast<const char*>(list) +
                                                            offsetof(Dl_serinfo, dls_serpath));
    return paths[index].dls_name;
}

// True when glibc would search for a bare name from `caller` exactly as from the recorder: the
// same directories in the same order (the caller has no RPATH or RUNPATH of its own, nor
// DF_1_NODEFLIB, which would drop the system directories from its list).
bool searchesLikeRecorder(const void* caller) {
    Dl_info info;
    void* callerMap = nullptr;
    if (!dladdr1(caller, &info, &callerMap, RTLD_DL_LINKMAP) || !callerMap) callerMap = _r_debug.r_map;
    void* ownMap = nullptr;
    if (!dladdr1(reinterpret_cast<const void*>(&searchesLikeRecorder), &info, &ownMap, RTLD_DL_LINKMAP)) return false;
    if (callerMap == ownMap) return true;
    alignas(Dl_serinfo) char callerBytes[kMaxSearchListBytes], ownBytes[kMaxSearchListBytes];
    auto* callerList = reinterpret_cast<Dl_serinfo*>(callerBytes);
    auto* ownList = reinterpret_cast<Dl_serinfo*>(ownBytes);
    if (!readSearchList(callerMap, callerList, sizeof callerBytes) ||
        !readSearchList(ownMap, ownList, sizeof ownBytes) || callerList->dls_cnt != ownList->dls_cnt)
        return false;
    for (unsigned i = 0; i < callerList->dls_cnt; ++i)
        if (std::strcmp(directoryAt(callerList, i), directoryAt(ownList, i)) != 0) return false;
    return true;
}

// Whether the recorder may open `name` in the caller's place: a path names the same file
// whoever opens it, a bare name needs the same search; "$ORIGIN" and the like are the caller's.
bool openableForCaller(const char* name, const void* caller) {
    if (std::strchr(name, '$')) return false;
    return std::strchr(name, '/') || searchesLikeRecorder(caller);
}

void sayNotRecorded(const char* name) {
    static bool said = false;
    if (__atomic_exchange_n(&said, true, __ATOMIC_RELAXED)) return;
    (sys::Line() << "memlog: " << name
                 << " is loaded with RTLD_DEEPBIND under a name only its caller resolves: what it allocates "
                    "directly is not recorded (docs/recorder.md)\n")
        .emit();
}

Route route(void* real, const char* name, int mode, bool baseNamespace, const void* caller) {
    if (!(mode & RTLD_DEEPBIND) || !name || !*name || t_state.m_busy || !memlog_recording()) return {real, nullptr};
    t_state.m_busy = true;  // dladdr and dlinfo may allocate: the recorder's own work
    const bool openable = openableForCaller(name, caller);
    t_state.m_busy = false;
    if (!openable) {
        sayNotRecorded(name);
        return {real, nullptr};
    }
    return {nullptr, openDeepBound(name, mode, baseNamespace)};
}

}  // namespace

// Called by the stubs below with the program's arguments and the stub's return address.
extern "C" __attribute__((visibility("hidden"), used)) Route memlog_route_dlopen(const char* name, int mode, long,
                                                                                  const void* caller) {
    if (!isReady()) ensureReady();
    return route(realFunction("dlopen", reinterpret_cast<void*>(g_real.dlopen)), name, mode, false, caller);
}

extern "C" __attribute__((visibility("hidden"), used)) Route memlog_route_dlmopen(long lmid, const char* name, int mode,
                                                                                   const void* caller) {
    if (!isReady()) ensureReady();
    void* real = realFunction("dlmopen", reinterpret_cast<void*>(g_real.dlmopen));
    // A new namespace gets its own C library with its own heap: see docs/recorder.md.
    if (lmid != LM_ID_BASE) return {real, nullptr};
    return route(real, name, mode, true, caller);
}

// The stub: keep the argument registers, pass the return address as the fourth argument, call
// the route; then either jump with the registers and stack as they came (the return address is
// still the program's) or return the handle. A frame pointer and CFI keep stacks captured inside
// (a constructor's allocations during the load) walkable by both unwinders. The program's call
// and glibc's return stay paired, as shadow stacks want; endbr64 is a no-op without CET.
#define MEMLOG_DLOPEN_STUB(symbol, route)                                           \
    asm(".text\n"                                                                   \
        ".globl " #symbol "\n"                                                      \
        ".type " #symbol ", @function\n" #symbol ":\n"                              \
        ".cfi_startproc\n"                                                          \
        "endbr64\n"                                                                 \
        "push %rbp\n"                                                               \
        ".cfi_def_cfa_offset 16\n"                                                  \
        ".cfi_offset %rbp, -16\n"                                                   \
        "mov %rsp, %rbp\n"                                                          \
        ".cfi_def_cfa_register %rbp\n"                                              \
        "push %rdi\n"                                                               \
        "push %rsi\n"                                                               \
        "push %rdx\n"                                                               \
        "push %rcx\n"                                                               \
        "mov 8(%rbp), %rcx\n"                                                       \
        "call " #route "\n"                                                         \
        "mov %rdx, %r11\n"                                                          \
        "pop %rcx\n"                                                                \
        "pop %rdx\n"                                                                \
        "pop %rsi\n"                                                                \
        "pop %rdi\n"                                                                \
        "pop %rbp\n"                                                                \
        ".cfi_def_cfa %rsp, 8\n"                                                    \
        ".cfi_restore %rbp\n"                                                       \
        "test %rax, %rax\n"                                                         \
        "jz 1f\n"                                                                   \
        "jmp *%rax\n"                                                               \
        "1:\n"                                                                      \
        "mov %r11, %rax\n"                                                          \
        "ret\n"                                                                     \
        ".cfi_endproc\n"                                                            \
        ".size " #symbol ", .-" #symbol "\n")

MEMLOG_DLOPEN_STUB(dlopen, memlog_route_dlopen);
MEMLOG_DLOPEN_STUB(dlmopen, memlog_route_dlmopen);

// dlclose may unmap code whose frame layouts the incremental unwinder has learnt, and a later
// dlopen may map other code at the same addresses: every thread starts its layouts and tree
// over (incremental.hpp). dlclose has no caller-dependent behaviour, so a plain hook is enough.
MEMLOG_EXPORT int dlclose(void* handle) {
    auto* real = reinterpret_cast<int (*)(void*)>(realFunction("dlclose", reinterpret_cast<void*>(g_real.dlclose)));
    const int result = real(handle);
    memlog::unwind::noteCodeUnloaded();
    return result;
}

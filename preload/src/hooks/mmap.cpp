// The program's own anonymous mappings (mmap, munmap, mremap) and the calls that end the process
// image without running destructors (_exit, exec): those close the log cleanly first.
// glibc's allocator and loader map memory through internal calls that never reach these hooks.
#include <stdarg.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hooks/hook.hpp"
#include "record/stack_ids.hpp"
#include "start/log_lifetime.hpp"

using memlog::format::EndReason;
using memlog::format::Kind;
using namespace memlog::preload;

namespace {

inline bool ready() { return isReady() || ensureReady(); }

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

// --- the end of a process image ------------------------------------------------------------------

MEMLOG_EXPORT void _exit(int status) {
    if (ready()) endLog(EndReason::UnderscoreExit);
    g_real._exit(status);
    __builtin_unreachable();
}

MEMLOG_EXPORT void _Exit(int status) { _exit(status); }

namespace {

// exec replaces the image: the new one records into a file of its own (LD_PRELOAD is inherited),
// this one ends here. If exec fails the log goes on.
template <typename Exec>
int aroundExec(Exec exec) {
    if (!ready()) return -1;
    endLog(EndReason::Exec);
    const int result = exec();
    undoEnd();
    return result;
}

// The execl family passes argv as varargs; at most this many arguments.
constexpr int kMaxListArguments = 4096;

int collectArguments(const char* first, va_list arguments, const char** argv) {
    int count = 0;
    argv[count++] = first;
    while (count < kMaxListArguments && (argv[count] = va_arg(arguments, const char*)) != nullptr) ++count;
    argv[count] = nullptr;
    return count;
}

}  // namespace

MEMLOG_EXPORT int execve(const char* path, char* const argv[], char* const envp[]) {
    return aroundExec([&] { return g_real.execve(path, argv, envp); });
}

MEMLOG_EXPORT int execv(const char* path, char* const argv[]) {
    return aroundExec([&] { return g_real.execve(path, argv, environ); });
}

MEMLOG_EXPORT int execvpe(const char* file, char* const argv[], char* const envp[]) {
    return aroundExec([&] { return g_real.execvpe(file, argv, envp); });
}

MEMLOG_EXPORT int execvp(const char* file, char* const argv[]) {
    return aroundExec([&] { return g_real.execvpe(file, argv, environ); });
}

MEMLOG_EXPORT int fexecve(int fd, char* const argv[], char* const envp[]) {
    return aroundExec([&] { return g_real.fexecve(fd, argv, envp); });
}

MEMLOG_EXPORT int execl(const char* path, const char* arg, ...) {
    const char* argv[kMaxListArguments + 1];
    va_list arguments;
    va_start(arguments, arg);
    collectArguments(arg, arguments, argv);
    va_end(arguments);
    return execv(path, const_cast<char* const*>(argv));
}

MEMLOG_EXPORT int execlp(const char* file, const char* arg, ...) {
    const char* argv[kMaxListArguments + 1];
    va_list arguments;
    va_start(arguments, arg);
    collectArguments(arg, arguments, argv);
    va_end(arguments);
    return execvp(file, const_cast<char* const*>(argv));
}

MEMLOG_EXPORT int execle(const char* path, const char* arg, ...) {
    const char* argv[kMaxListArguments + 1];
    va_list arguments;
    va_start(arguments, arg);
    collectArguments(arg, arguments, argv);
    char* const* envp = va_arg(arguments, char* const*);
    va_end(arguments);
    return execve(path, const_cast<char* const*>(argv), envp);
}

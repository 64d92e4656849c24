// The calls that end the process image without running destructors, _exit, _Exit and every
// exec: each ends the log cleanly first.
#include <stdarg.h>
#include <unistd.h>

#include "hooks/hook.hpp"
#include "start/log_lifetime.hpp"

using memlog::format::EndReason;
using namespace memlog::preload;

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

// sigaction and signal for SIGTRAP while the tick sampler owns it: the program's handler is kept
// beside the sampler's (sample/program_traps.hpp) rather than replacing it, and every other signal, or
// SIGTRAP when no sampler runs, goes straight to the C library.
#include <signal.h>

#include "hooks/hook.hpp"
#include "sample/program_traps.hpp"

using namespace memlog::preload;

namespace {

// signal()'s BSD semantics, as glibc gives them: the handler stays, interrupted calls restart.
sighandler_t exchangeHandler(sighandler_t handler, int flags) {
    struct sigaction action {}, old{};
    action.sa_handler = handler;
    action.sa_flags = flags;
    sigemptyset(&action.sa_mask);
    exchangeProgramTrapAction(&action, &old);
    return old.sa_handler;  // shares its storage with sa_sigaction
}

}  // namespace

MEMLOG_EXPORT int sigaction(int signal, const struct sigaction* action, struct sigaction* old) {
    if (!ready()) return -1;
    if (signal == SIGTRAP && trapsTakenOver()) {
        exchangeProgramTrapAction(action, old);
        return 0;
    }
    return g_real.sigaction(signal, action, old);
}

MEMLOG_EXPORT sighandler_t signal(int signal, sighandler_t handler) {
    if (!ready()) return SIG_ERR;
    if (signal == SIGTRAP && trapsTakenOver()) return exchangeHandler(handler, SA_RESTART);
    return g_real.signal(signal, handler);
}

MEMLOG_EXPORT sighandler_t bsd_signal(int signal, sighandler_t handler) { return ::signal(signal, handler); }

// System V semantics: the handler is reset to the default once it runs, and does not block its
// own signal.
MEMLOG_EXPORT sighandler_t sysv_signal(int signal, sighandler_t handler) {
    if (!ready()) return SIG_ERR;
    if (signal == SIGTRAP && trapsTakenOver()) return exchangeHandler(handler, SA_RESETHAND | SA_NODEFER);
    return g_real.sysv_signal(signal, handler);
}

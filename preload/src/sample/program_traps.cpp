// Two slots and an index: sigaction writes the slot not in use, then publishes it, so that the
// signal handler never reads a half-written action. Programs set their SIGTRAP handler once or
// twice; two writers racing each other is beyond this (and beyond most programs).
#include "sample/program_traps.hpp"

#include <sys/syscall.h>

#include <atomic>

#include "base/system.hpp"
#include "start/real_functions.hpp"

namespace memlog::preload {
namespace {

struct sigaction s_actions[2];
std::atomic<int> s_current{0};
std::atomic<bool> s_takenOver{false};

const struct sigaction& current() { return s_actions[s_current.load(std::memory_order_acquire)]; }

void publish(const struct sigaction& action) {
    const int next = 1 - s_current.load(std::memory_order_relaxed);
    s_actions[next] = action;
    s_current.store(next, std::memory_order_release);
}

// The default action of SIGTRAP ends the process with a core dump: give the signal back to the
// kernel with the default disposition, unblocked, and let it do that.
[[noreturn]] void dieByDefault(int signal) {
    struct sigaction byDefault {};
    byDefault.sa_handler = SIG_DFL;
    g_real.sigaction(signal, &byDefault, nullptr);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, signal);
    sigprocmask(SIG_UNBLOCK, &only, nullptr);
    sys::call(SYS_tgkill, sys::processId(), sys::threadId(), signal);
    for (;;) sys::call(SYS_pause);
}

}  // namespace

void takeOverTraps(const struct sigaction& previous) {
    publish(previous);
    s_takenOver.store(true, std::memory_order_release);
}

bool trapsTakenOver() { return s_takenOver.load(std::memory_order_acquire); }

void exchangeProgramTrapAction(const struct sigaction* action, struct sigaction* old) {
    if (old) *old = current();
    if (action) publish(*action);
}

bool programHandlesTraps() {
    const struct sigaction& action = current();
    return (action.sa_flags & SA_SIGINFO) || (action.sa_handler != SIG_DFL && action.sa_handler != SIG_IGN);
}

void deliverToProgram(int signal, siginfo_t* info, void* context) {
    const struct sigaction action = current();
    if (!(action.sa_flags & SA_SIGINFO) && action.sa_handler == SIG_IGN) return;
    if (!(action.sa_flags & SA_SIGINFO) && action.sa_handler == SIG_DFL) dieByDefault(signal);
    if (action.sa_flags & SA_RESETHAND) {
        struct sigaction byDefault {};
        byDefault.sa_handler = SIG_DFL;
        publish(byDefault);
    }
    // The program's handler runs with its own mask, as the kernel would have set it.
    sigset_t mask = action.sa_mask, saved;
    if (!(action.sa_flags & SA_NODEFER)) sigaddset(&mask, signal);
    sigprocmask(SIG_BLOCK, &mask, &saved);
    if (action.sa_flags & SA_SIGINFO)
        action.sa_sigaction(signal, info, context);
    else
        action.sa_handler(signal);
    sigprocmask(SIG_SETMASK, &saved, nullptr);
}

}  // namespace memlog::preload

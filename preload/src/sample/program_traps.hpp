// The program's own SIGTRAP disposition while the tick sampler owns the signal. What the program
// sets with sigaction or signal is kept here and reported back to it as its own; the traps that
// are not the sampler's (int3, its own perf events, raise) reach its handler as the kernel would
// have delivered them, or end the process as the default action does.
#pragma once

#include <signal.h>

namespace memlog::preload {

// From now on SIGTRAP is the sampler's; `previous` is what was installed before it.
void takeOverTraps(const struct sigaction& previous);
bool trapsTakenOver();

// sigaction(SIGTRAP, action, old) as the program sees it: either may be null.
void exchangeProgramTrapAction(const struct sigaction* action, struct sigaction* old);

// Whether the program has a handler of its own (neither default nor ignore).
bool programHandlesTraps();

// Passes a trap that is not the sampler's to the program's disposition.
void deliverToProgram(int signal, siginfo_t* info, void* context);

}  // namespace memlog::preload

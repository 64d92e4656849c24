// The process's events that reach the recorder through no hook: a fork (the child records into
// a log of its own) and a thread's end (through a pthread key's destructor, which runs for
// every thread that wrote a chunk). Followed from start-up on.
#pragma once

namespace memlog::preload {

// Start-up: registers the handlers (pthread_atfork, the thread key).
void followProcessEvents();

// On a thread's first chunk, and at a new thread's start in the sampler's timer mode: its end
// will be recorded (and its timer deleted).
void noteThreadStarted();

}  // namespace memlog::preload

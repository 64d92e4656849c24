// A fork child gets a log of its own and leaves the parent's file exactly as the parent keeps
// writing it; its stacks, counter and sampler start again. A thread's end stops its ticks, lets
// go of its unwind cache and records its ThreadExit.
#include "start/process_events.hpp"

#include <pthread.h>

#include "base/system.hpp"
#include "record/events.hpp"
#include "record/stack_ids.hpp"
#include "sample/tick_sampler.hpp"
#include "start/log_lifetime.hpp"
#include "start/start_up.hpp"
#include "unwind/incremental.hpp"
#include "watch/heap_watch.hpp"

namespace memlog::preload {
namespace {

pthread_key_t s_threadKey;  // its destructor runs onThreadExit for every thread noted started

void onThreadExit(void*) {
    ThreadState& thread = t_state;
    stopThreadTicks(thread);
    unwind::releaseUnwindCache(thread.m_stacks.m_unwindCache);
    recordThreadExit(thread);
}

// Only the forking thread exists in the child.
void onForkChild() {
    ThreadState& thread = t_state;
    const bool wasBusy = thread.m_busy;
    thread.m_busy = true;
    const uint32_t parentPid = leaveParentLog();
    forgetStacksInForkChild(thread);
    g_recording.m_sequence.start();  // the only thread of the child may take numbers alone
    thread.m_writer = {};
    thread.m_tid = sys::threadId();
    restartSamplingInForkChild(thread, g_settings.m_sampleSeeded);
    if (isRecording()) openLog(parentPid);
    restartWatchingInForkChild();
    restartSamplerInForkChild(thread);
    thread.m_busy = wasBusy;
}

}  // namespace

void followProcessEvents() {
    pthread_key_create(&s_threadKey, onThreadExit);
    pthread_atfork(nullptr, nullptr, onForkChild);
}

void noteThreadStarted() { pthread_setspecific(s_threadKey, reinterpret_cast<void*>(1)); }

}  // namespace memlog::preload

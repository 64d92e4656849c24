// Start-up in the order it must happen: the real functions (dlsym may calloc: the bootstrap
// pool serves it), then, with the thread marked busy so that nothing of it is recorded, the
// settings, the program's name, the stacks and the counter, the fork and thread-exit handlers,
// the TSC's rate, the sampler and the log. Once per process image (the TSC's rate alone is a
// 200 us busy wait).
#include "start/start_up.hpp"

#include <sched.h>

#include "base/system.hpp"
#include "record/events.hpp"
#include "record/module_map.hpp"
#include "record/stack_ids.hpp"
#include "sample/tick_sampler.hpp"
#include "start/log_lifetime.hpp"
#include "start/process_events.hpp"
#include "start/real_functions.hpp"
#include "trace/full_trace.hpp"
#include "watch/heap_watch.hpp"

namespace memlog::preload {

// constinit: in place before any code of the library runs. A global built by a constructor
// would be built again after the first call into the recorder had set it up (a program's or
// another library's constructors can allocate before this library's run).
constinit std::atomic<int> g_phase{static_cast<int>(Phase::Cold)};
constinit Settings g_settings;

namespace {

// TSC ticks per ns, 32.32 fixed point, over a 200 us busy wait: good to about 1e-4. A clean end
// refines it with the end pair (format.hpp, tscToNs).
uint64_t calibrateTsc() {
    const uint64_t startNs = sys::monotonicNs();
    const uint64_t startTsc = sys::readTsc();
    uint64_t nowNs;
    do nowNs = sys::monotonicNs();
    while (nowNs - startNs < 200'000);
    const uint64_t ticks = sys::readTsc() - startTsc;
    return static_cast<uint64_t>((static_cast<__int128>(ticks) << 32) / (nowNs - startNs));
}

// MEMLOG_ACCESS=1: the tick sampler, then (MEMLOG_WATCH=1) the watchpoints that follow its
// samples. What stops either is said once, on stderr, even when quiet: the user asked for
// something the recorder cannot give.
void startAccessSampling() {
    if (!g_settings.m_access) return;
    LogOrigin& origin = g_origin;
    SamplerSettings sampler;
    sampler.m_rate = g_settings.m_accessRate;
    sampler.m_unwind = g_stacks.m_settings.m_method;
    sampler.m_stackDepth = g_settings.m_stackDepth;
    sampler.m_unwinderCode = g_stacks.m_unwinderCode;
    origin.m_accessSampler = startSampler(sampler, origin.m_accessStatus, sizeof(origin.m_accessStatus));
    if (origin.m_accessSampler == format::AccessSampler::Unavailable)
        (sys::Line() << "memlog: access sampling unavailable: " << origin.m_accessStatus
                     << "; recording allocations only\n")
            .emit();
    if (!g_settings.m_watch) return;
    origin.m_watchSampler = startWatching(origin.m_accessSampler, origin.m_accessStatus, g_settings.m_watchRate,
                                          origin.m_watchStatus, sizeof(origin.m_watchStatus));
    if (origin.m_watchSampler == format::WatchSampler::Unavailable)
        (sys::Line() << "memlog: watchpoints unavailable: " << origin.m_watchStatus << "\n").emit();
}

void initialize() {
    readSettings(g_settings);
    LogOrigin& origin = g_origin;
    readProgramName(origin.m_programName, sizeof(origin.m_programName), origin.m_commandLine,
                    sizeof(origin.m_commandLine));
    const long length = sys::readLink("/proc/self/exe", origin.m_exePath, sizeof(origin.m_exePath) - 1);
    origin.m_exePath[length > 0 ? length : 0] = '\0';
    setMainExecutablePath(origin.m_exePath);
    g_recording.m_fastPdep = format::hasFastPdep();
    StackSettings stacks;
    stacks.m_method = static_cast<unwind::Method>(g_settings.m_unwind);
    stacks.m_depth = g_settings.m_stackDepth;
    stacks.m_incremental = g_settings.m_incremental;
    stacks.m_check = g_settings.m_unwindCheck;
    stacks.m_freeStacks = g_settings.m_freeStacks;
    prepareStackIds(stacks);
    g_recording.m_sequence.start();
    if (g_settings.m_sampleMeanBytes) {
        const uint64_t seed = g_settings.m_sampleSeeded ? g_settings.m_sampleSeed
                                                        : sys::readTsc() ^ (uint64_t{sys::processId()} << 32);
        startSampledCapture(g_settings.m_sampleMeanBytes, seed, g_settings.m_sampleSlots);
    }
    followProcessEvents();
    origin.m_tscPerNsQ32 = calibrateTsc();
    if (!startFullTrace(g_settings.m_fullTrace)) return;
    if (isChosenProcess()) startAccessSampling();
    openLog(0);
    if (!isRecording()) {
        stopWatching();
        stopSampler();
    }
    // Last: a hook that takes the shortcut finds everything above in place.
    const format::AccessSampler ticks = origin.m_accessSampler;
    enableSampledShortcut(g_traceMarkers || g_watching.load(std::memory_order_relaxed) ||
                          ticks == format::AccessSampler::TickPerfClock ||
                          ticks == format::AccessSampler::TickThreadTimers);
}

}  // namespace

bool ensureReady() {
    int phase = g_phase.load(std::memory_order_acquire);
    if (phase == static_cast<int>(Phase::Ready)) return true;
    ThreadState& thread = t_state;
    if (thread.m_initializing) return false;  // dlsym calling back into us: use the pool
    if (phase == static_cast<int>(Phase::Cold) &&
        g_phase.compare_exchange_strong(phase, static_cast<int>(Phase::Resolving), std::memory_order_acq_rel)) {
        thread.m_initializing = true;
        resolveRealFunctions();
        thread.m_initializing = false;
        // From here the real functions work; whatever start-up allocates goes unrecorded.
        thread.m_busy = true;
        g_phase.store(static_cast<int>(Phase::Ready), std::memory_order_release);
        initialize();
        thread.m_busy = false;
        return true;
    }
    while (g_phase.load(std::memory_order_acquire) != static_cast<int>(Phase::Ready)) sched_yield();
    return true;
}

// Runs in _dl_fini, after the program's atexit handlers and static destructors.
__attribute__((destructor)) static void onUnload() {
    if (isReady()) endLog(format::EndReason::Exit);
}

// Starts recording before main even when nothing allocates early, so the start line comes first.
__attribute__((constructor)) static void onLoad() { ensureReady(); }

}  // namespace memlog::preload

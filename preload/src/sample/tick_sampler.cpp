// Ticks, the SIGTRAP handler and the single steps. The handler runs in whatever the program was
// doing: it allocates nothing, takes no lock, keeps errno, drops the ticks that land inside the
// recorder (the thread's m_busy, or the recorder's own code), and passes every SIGTRAP that is
// not the sampler's to the program's own disposition (program_traps.hpp).
//
// Cost per sample (docs/BENCHMARKS.md has the measured split): the signal delivery, a decode
// of one instruction (Zydis), about one single step on average, and the stack of the
// interrupted code.
#include "sample/tick_sampler.hpp"

#include <asm/prctl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "base/system.hpp"
#include "record/events.hpp"
#include "record/stack_ids.hpp"
#include "sample/instruction_access.hpp"
#include "sample/program_traps.hpp"
#include "start/log_lifetime.hpp"
#include "start/real_functions.hpp"
#include "watch/heap_watch.hpp"
#include "watch/watchpoints.hpp"

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif

namespace memlog::preload {
namespace {

constexpr uint64_t kTickCookie = 0x6b63'6974'676f'6c6d;  // "mlogtick": in the siginfo of our ticks
constexpr uint8_t kMaxSteps = 16;                       // instructions stepped to find an access
constexpr uint32_t kMaxPassedOver = 16;                 // ... and passed over without stepping
constexpr uint64_t kTrapFlag = 0x100;                   // EFLAGS.TF
constexpr uint64_t kRedZone = 128;                      // below rsp, still the thread's stack

SamplerSettings s_settings;
format::AccessSampler s_mode = format::AccessSampler::Off;
std::atomic<bool> s_running{false};
int s_perfFd = -1;

void count(uint64_t format::AccessCounters::*field, uint64_t n = 1) {
    if (format::AccessCounters* counters = accessCounters())
        __atomic_fetch_add(&(counters->*field), n, __ATOMIC_RELAXED);
}

// --- ticks ----------------------------------------------------------------------------------

uint64_t periodNs() { return 1'000'000'000ull / s_settings.m_rate; }

long openTaskClock() {
    perf_event_attr attr;
    std::memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;
    attr.sample_period = periodNs();
    attr.sigtrap = 1;
    attr.remove_on_exec = 1;  // the kernel insists with sigtrap; an exec'd image starts its own
    attr.inherit = 1;         // every thread created later gets a counter of its own
    attr.inherit_thread = 1;  // ... but not fork children: they open theirs (their own log)
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    attr.sig_data = kTickCookie;
    return sys::call(SYS_perf_event_open, reinterpret_cast<long>(&attr), 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

// A CPU-time timer for the calling thread whose signal goes to that thread alone.
bool startThreadTimer(ThreadState& thread) {
    struct sigevent event;
    std::memset(&event, 0, sizeof event);
    event.sigev_notify = SIGEV_THREAD_ID;
    event.sigev_signo = SIGTRAP;
    event.sigev_value.sival_ptr = reinterpret_cast<void*>(kTickCookie);
    event._sigev_un._tid = static_cast<pid_t>(sys::threadId());
    int id = -1;
    // Raw calls: the kernel's timer id, and none of glibc's timer bookkeeping.
    if (sys::failed(sys::call(SYS_timer_create, CLOCK_THREAD_CPUTIME_ID, reinterpret_cast<long>(&event),
                              reinterpret_cast<long>(&id))))
        return false;
    const uint64_t period = periodNs();
    struct itimerspec spec;
    spec.it_interval.tv_sec = static_cast<time_t>(period / 1'000'000'000ull);
    spec.it_interval.tv_nsec = static_cast<long>(period % 1'000'000'000ull);
    spec.it_value = spec.it_interval;
    sys::call(SYS_timer_settime, id, 0, reinterpret_cast<long>(&spec), 0);
    thread.m_sampler.m_timer = id + 1;
    return true;
}

}  // namespace

// --- one sample -------------------------------------------------------------------------------

uint32_t captureCallers(ThreadState& thread, ucontext_t& context, uint64_t* frames) {
    const greg_t* registers = context.uc_mcontext.gregs;
    const auto stackPointer = static_cast<uint64_t>(registers[REG_RSP]);
    if (s_settings.m_unwind == unwind::Method::FramePointer) {
        const ThreadState::Sampler& own = thread.m_sampler;
        if (stackPointer < own.m_stackLo || stackPointer >= own.m_stackHi) return 0;  // another stack
        return unwind::walkFrameChain(static_cast<uintptr_t>(registers[REG_RBP]), stackPointer, own.m_stackHi, frames,
                                      s_settings.m_stackDepth, {});
    }
    if (s_settings.m_unwind != unwind::Method::Libunwind) return 0;
    unw_cursor_t cursor;
    if (unw_init_local2(&cursor, &context, UNW_INIT_SIGNAL_FRAME) < 0) return 0;
    uint32_t depth = 0;
    while (depth < s_settings.m_stackDepth && unw_step(&cursor) > 0) {
        unw_word_t ip = 0;
        if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0) break;
        frames[depth++] = ip;
    }
    return depth;
}

namespace {

void stopStepping(ThreadState& thread, ucontext_t& context) {
    thread.m_sampler.m_stepping = false;
    context.uc_mcontext.gregs[REG_EFL] &= ~static_cast<greg_t>(kTrapFlag);
}

// Decodes the instruction about to run, or the first one after it that touches memory where the
// registers it depends on are known now (decodeAhead): record that. Where they are not (a
// branch, an address register written on the way), step one instruction and look again, while
// steps are left. Each step is a trap, as dear as a tick.
void takeSample(ThreadState& thread, ucontext_t& context) {
    const Registers registers = registersOf(context, thread.m_sampler.m_fsBase, thread.m_sampler.m_gsBase);
    const bool inUnwinder = s_settings.m_unwind == unwind::Method::Libunwind &&
                            s_settings.m_unwinderCode.contains(registers.m_rip);
    if (isRecorderCode(registers.m_rip) || inUnwinder) {
        stopStepping(thread, context);
        count(&format::AccessCounters::m_droppedInRecorder);
        return;
    }
    const DecodedInstruction decoded = decodeAhead(registers, kMaxPassedOver);
    switch (decoded.m_outcome) {
    case DecodeOutcome::Accesses: {
        stopStepping(thread, context);
        thread.m_busy = true;  // libunwind may map memory: not the program's
        uint64_t frames[format::kMaxStackDepth];
        const uint32_t depth = captureCallers(thread, context, frames);
        format::AccessRecord prototype;
        prototype.m_ip = decoded.m_ip;
        prototype.m_source = format::AccessSource::Tick;
        prototype.m_inAllocator = thread.m_inAllocator;
        const uint64_t seq = recordAccesses(thread, prototype, decoded.m_accesses, decoded.m_count, frames, depth);
        thread.m_busy = false;
        count(&format::AccessCounters::m_passedOver, decoded.m_skipped);
        if (seq)
            count(&format::AccessCounters::m_samples, decoded.m_count);
        else
            count(&format::AccessCounters::m_droppedLost);
        // The word this sample touched, followed by a watchpoint: not the thread's own stack,
        // whose words change owner with every call.
        const uint64_t addr = decoded.m_accesses[0].m_addr;
        if (seq && g_watching.load(std::memory_order_relaxed) && !thread.m_inAllocator &&
            (addr < thread.m_sampler.m_stackLo || addr >= thread.m_sampler.m_stackHi))
            followSampledWord(addr, seq, thread.m_tid, decoded.m_ip + decoded.m_length);
        return;
    }
    case DecodeOutcome::NoAccess:
        if (thread.m_sampler.m_stepsLeft > 0 && !decoded.m_systemCall) {
            --thread.m_sampler.m_stepsLeft;
            thread.m_sampler.m_stepping = true;
            context.uc_mcontext.gregs[REG_EFL] |= static_cast<greg_t>(kTrapFlag);
            count(&format::AccessCounters::m_steps);
            return;
        }
        stopStepping(thread, context);
        count(&format::AccessCounters::m_droppedNoAccess);
        return;
    case DecodeOutcome::Unsupported:
        stopStepping(thread, context);
        count(&format::AccessCounters::m_droppedUnsupported);
        return;
    case DecodeOutcome::NeedBytes:
    case DecodeOutcome::Undecodable:
        stopStepping(thread, context);
        count(&format::AccessCounters::m_droppedUndecodable);
        return;
    }
}

void onTick(ThreadState& thread, ucontext_t& context) {
    count(&format::AccessCounters::m_ticks);
    if (thread.m_busy || thread.m_initializing) {
        count(&format::AccessCounters::m_droppedInRecorder);
        return;
    }
    // A tick between a step's set-up and its trap (or after a popf that cleared the flag): give
    // that sample up rather than nest a second one in it.
    if (thread.m_sampler.m_stepping) {
        stopStepping(thread, context);
        count(&format::AccessCounters::m_droppedStepping);
        return;
    }
    if (!thread.m_sampler.m_ready) prepareThread(thread, static_cast<uint64_t>(context.uc_mcontext.gregs[REG_RSP]));
    if (g_watching.load(std::memory_order_relaxed)) expireWatches();
    thread.m_sampler.m_stepsLeft = kMaxSteps;
    takeSample(thread, context);
}

uint64_t perfData(const siginfo_t* info) {
    uint64_t data;  // si_perf_data: after si_addr, at byte 24 (glibc's siginfo_t does not name it)
    std::memcpy(&data, reinterpret_cast<const char*>(info) + 24, sizeof data);
    return data;
}

bool isTick(const siginfo_t* info) {
    if (info->si_code == TRAP_PERF) return perfData(info) == kTickCookie;
    return info->si_code == SI_TIMER && info->si_value.sival_ptr == reinterpret_cast<void*>(kTickCookie);
}

void onTrap(int signal, siginfo_t* info, void* untypedContext) {
    const int savedErrno = errno;
    auto& context = *static_cast<ucontext_t*>(untypedContext);
    ThreadState& thread = t_state;
    if (isTick(info)) {
        if (s_running.load(std::memory_order_relaxed)) onTick(thread, context);
    } else if (info->si_code == TRAP_PERF && perfData(info) >> 32 == kWatchCookieTag) {
        onWatchTrap(thread, context, perfData(info));
    } else if (info->si_code == TRAP_TRACE && thread.m_sampler.m_stepping) {
        stopStepping(thread, context);
        takeSample(thread, context);
    } else if (programHandlesTraps() || info->si_code != TRAP_TRACE) {
        deliverToProgram(signal, info, untypedContext);
    } else {
        // A trace trap nobody asked for: the flag came back from the stack (popf of flags saved
        // while we stepped). Clear it and go on.
        stopStepping(thread, context);
    }
    errno = savedErrno;
}

bool installHandler(char* why, uint32_t capacity) {
    struct sigaction ours {}, previous{};
    ours.sa_sigaction = onTrap;
    ours.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&ours.sa_mask);
    if (g_real.sigaction(SIGTRAP, &ours, &previous) != 0) {
        sys::Line line;
        line << "cannot install a SIGTRAP handler";
        std::strncpy(why, line.text(), capacity - 1);
        return false;
    }
    takeOverTraps(previous);
    return true;
}

}  // namespace

// Once per thread: the FS and GS bases that thread-local operands add, and the stack's extent
// (the main thread's grows down to its rlimit, within 1 GiB).
void prepareThread(ThreadState& thread, uint64_t stackPointer) {
    sys::call(SYS_arch_prctl, ARCH_GET_FS, reinterpret_cast<long>(&thread.m_sampler.m_fsBase));
    sys::call(SYS_arch_prctl, ARCH_GET_GS, reinterpret_cast<long>(&thread.m_sampler.m_gsBase));
    uint64_t lo = 0, hi = 0;
    bool mainStack = false;
    if (sys::findMapping(stackPointer, &lo, &hi, &mainStack)) {
        if (mainStack) {
            struct rlimit limit {};
            sys::call(SYS_prlimit64, 0, RLIMIT_STACK, 0, reinterpret_cast<long>(&limit));
            constexpr uint64_t kMostReach = 1ull << 30;
            const uint64_t reach = limit.rlim_cur < kMostReach ? limit.rlim_cur : kMostReach;
            if (hi - lo < reach) lo = hi - reach;
        }
    } else {
        lo = stackPointer - kRedZone;
        hi = unwind::stackTop(stackPointer);
    }
    thread.m_sampler.m_stackLo = lo;
    thread.m_sampler.m_stackHi = hi;
    thread.m_sampler.m_ready = true;
}

format::AccessSampler startSampler(const SamplerSettings& settings, char* why, uint32_t capacity) {
    // A debugger owns SIGTRAP (and single steps): ticks would stop it at every one.
    if (const uint64_t tracer = sys::tracerPid()) {
        sys::Line line;
        line << "the process is traced by pid " << tracer << " (a debugger uses SIGTRAP and single steps)";
        sys::copyCut(why, capacity, line.text());
        return format::AccessSampler::Unavailable;
    }
    s_settings = settings;
    if (!installHandler(why, capacity)) return format::AccessSampler::Unavailable;
    const long fd = openTaskClock();
    if (!sys::failed(fd)) {
        s_perfFd = static_cast<int>(fd);
        s_mode = format::AccessSampler::TickPerfClock;
    } else if (startThreadTimer(t_state)) {
        s_mode = format::AccessSampler::TickThreadTimers;
    } else {
        sys::Line line;
        line << "neither perf_event_open (error " << static_cast<uint64_t>(-fd)
             << ") nor a thread CPU-time timer could make ticks";
        std::strncpy(why, line.text(), capacity - 1);
        return format::AccessSampler::Unavailable;
    }
    s_running.store(true, std::memory_order_release);
    return s_mode;
}

void stopSampler() {
    s_running.store(false, std::memory_order_release);
    if (s_perfFd >= 0) sys::closeFile(s_perfFd);
    s_perfFd = -1;
    stopThreadTicks(t_state);
}

void restartSamplerInForkChild(ThreadState& thread) {
    thread.m_sampler.m_stepping = false;
    thread.m_sampler.m_timer = 0;  // the parent's; timers are not inherited
    if (!s_running.load(std::memory_order_relaxed)) return;
    if (s_mode == format::AccessSampler::TickPerfClock) {
        sys::closeFile(s_perfFd);  // the parent's event, which this child must not hold open
        const long fd = openTaskClock();
        s_perfFd = sys::failed(fd) ? -1 : static_cast<int>(fd);
    } else if (s_mode == format::AccessSampler::TickThreadTimers) {
        startThreadTimer(thread);
    }
}

bool samplerNeedsThreadStarts() {
    return s_mode == format::AccessSampler::TickThreadTimers && s_running.load(std::memory_order_relaxed);
}

void startThreadTicks(ThreadState& thread) {
    if (samplerNeedsThreadStarts() && thread.m_sampler.m_timer == 0) startThreadTimer(thread);
}

void stopThreadTicks(ThreadState& thread) {
    if (thread.m_sampler.m_timer == 0) return;
    sys::call(SYS_timer_delete, thread.m_sampler.m_timer - 1);
    thread.m_sampler.m_timer = 0;
}

}  // namespace memlog::preload

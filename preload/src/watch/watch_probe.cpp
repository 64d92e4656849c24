// The probe behind MEMLOG_ACCESS: each way the sampler can be refused, told apart so that the
// user reads what to do about it. Raw syscalls: the program's errno stays as it was.
#include "watch/watch_probe.hpp"

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>

#include <cstring>

#include "base/system.hpp"

namespace memlog::preload {
namespace {

// The word the probe watches. Static: the probe runs inside the recorder, before the program.
volatile uint64_t s_probeWord;

const char* errnoName(long error) {
    switch (error) {
    case 1: return "EPERM";
    case 2: return "ENOENT";
    case 13: return "EACCES";
    case 19: return "ENODEV";
    case 22: return "EINVAL";
    case 28: return "ENOSPC";
    case 38: return "ENOSYS";
    case 95: return "EOPNOTSUPP";
    default: return "an error";
    }
}

// kernel.perf_event_paranoid as text, or "unknown".
void readParanoia(char* out, uint32_t capacity) {
    const size_t length = sys::slurp("/proc/sys/kernel/perf_event_paranoid", out, capacity);
    if (length == 0) std::strncpy(out, "unknown", capacity - 1);
    for (char* p = out; *p; ++p)
        if (*p == '\n') *p = '\0';
}

// A write watchpoint on s_probeWord that only counts (no signal).
long openProbeEvent() {
    perf_event_attr attr;
    std::memset(&attr, 0, sizeof attr);
    attr.type = PERF_TYPE_BREAKPOINT;
    attr.size = sizeof attr;
    attr.bp_type = HW_BREAKPOINT_W;
    attr.bp_addr = reinterpret_cast<uintptr_t>(&s_probeWord);
    attr.bp_len = HW_BREAKPOINT_LEN_8;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    return sys::call(SYS_perf_event_open, reinterpret_cast<long>(&attr), 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

}  // namespace

bool probeWatchpoints(char* reason, uint32_t capacity) {
    sys::Line why;
    auto fail = [&]() {
        std::strncpy(reason, why.text(), capacity - 1);
        reason[capacity - 1] = '\0';
        return false;
    };
    // A debugger owns SIGTRAP and the debug registers; sampling would stop it at every trap.
    if (const uint64_t tracer = sys::tracerPid()) {
        why << "the process is traced by pid " << tracer << " (a debugger uses SIGTRAP and the debug registers)";
        return fail();
    }
    const long fd = openProbeEvent();
    if (sys::failed(fd)) {
        const long error = -fd;
        if (error == 13 || error == 1) {
            char paranoia[32];
            readParanoia(paranoia, sizeof paranoia);
            why << "perf_event_open refused (" << errnoName(error) << ", kernel.perf_event_paranoid = " << paranoia
                << "): a value of 2 or less, or CAP_PERFMON, allows it; in a container, its seccomp profile may forbid it";
        } else if (error == 38) {
            why << "perf_event_open is not available (ENOSYS: filtered by seccomp, or a kernel without perf events)";
        } else if (error == 28) {
            why << "no hardware debug register is free (ENOSPC: another tool holds them)";
        } else {
            why << "this kernel or CPU offers no hardware watchpoints (perf_event_open: " << errnoName(error) << ")";
        }
        return fail();
    }
    constexpr uint64_t kWrites = 4;
    for (uint64_t i = 0; i < kWrites; ++i) s_probeWord = i;
    uint64_t counted = 0;
    const long got = sys::readFile(static_cast<int>(fd), &counted, sizeof counted);
    sys::closeFile(static_cast<int>(fd));
    if (got != sizeof counted || counted == 0) {
        why << "hardware watchpoints do not fire on this machine (a watchpoint counted " << counted << " of " << kWrites
            << " writes to its word; a virtual machine that does not pass debug registers through?)";
        return fail();
    }
    return true;
}

}  // namespace memlog::preload

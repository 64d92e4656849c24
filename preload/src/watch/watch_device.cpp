// perf_event_attr for a read-write watch of 8 bytes, delivered as a synchronous SIGTRAP to the
// accessing thread. PERF_EVENT_IOC_MODIFY_ATTRIBUTES changes only bp_addr, bp_type, bp_len,
// disabled and sig_data, so every other field must stay as the events were opened.
#include "watch/watch_device.hpp"

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include <cstring>

#include "base/system.hpp"

namespace memlog::preload {
namespace {

alignas(8) uint64_t s_parkingWord;  // where a disarmed event points

perf_event_attr watchAttributes(uint64_t word, uint64_t cookie, bool disabled) {
    perf_event_attr attr;
    std::memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_BREAKPOINT;
    attr.bp_type = HW_BREAKPOINT_RW;  // x86 cannot watch reads alone
    attr.bp_addr = word;
    attr.bp_len = HW_BREAKPOINT_LEN_8;
    attr.sample_period = 1;
    attr.sigtrap = 1;
    attr.remove_on_exec = 1;
    attr.inherit = 1;
    attr.inherit_thread = 1;  // threads, not fork children
    attr.exclude_kernel = 1;  // a read(2) into the block is not the program's instruction
    attr.exclude_hv = 1;
    attr.disabled = disabled ? 1 : 0;
    attr.sig_data = cookie;
    return attr;
}

bool modify(int fd, const perf_event_attr& attr) {
    return fd >= 0 && !sys::failed(sys::call(SYS_ioctl, fd, static_cast<long>(PERF_EVENT_IOC_MODIFY_ATTRIBUTES),
                                             reinterpret_cast<long>(&attr)));
}

}  // namespace

bool PerfWatchDevice::open(char* why, uint32_t capacity) {
    for (uint32_t slot = 0; slot < Watchpoints::kSlots; ++slot) {
        perf_event_attr attr = watchAttributes(reinterpret_cast<uint64_t>(&s_parkingWord), kRetiredWatchCookie, true);
        const long fd =
            sys::call(SYS_perf_event_open, reinterpret_cast<long>(&attr), 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
        if (sys::failed(fd)) {
            sys::Line line;
            line << "cannot open watchpoint " << uint64_t(slot + 1) << " of 4 (perf_event_open error "
                 << static_cast<uint64_t>(-fd) << ": another tool may hold the debug registers)";
            std::strncpy(why, line.text(), capacity - 1);
            close();
            return false;
        }
        m_fds[slot] = static_cast<int>(fd);
    }
    return true;
}

void PerfWatchDevice::close() {
    for (int& fd : m_fds) {
        if (fd >= 0) sys::closeFile(fd);
        fd = -1;
    }
}

bool PerfWatchDevice::arm(uint32_t slot, uint64_t word, uint64_t cookie) {
    return modify(m_fds[slot], watchAttributes(word, cookie, false));
}

void PerfWatchDevice::disarm(uint32_t slot) {
    modify(m_fds[slot], watchAttributes(reinterpret_cast<uint64_t>(&s_parkingWord), kRetiredWatchCookie, true));
}

// The kernel copies the word: its accesses are excluded from the watch (exclude_kernel), where
// a plain load here would trip it.
uint64_t PerfWatchDevice::read(uint64_t word) {
    uint64_t value = 0;
    iovec local{&value, sizeof value};
    iovec remote{reinterpret_cast<void*>(word), sizeof value};
    sys::call(SYS_process_vm_readv, sys::processId(), reinterpret_cast<long>(&local), 1, reinterpret_cast<long>(&remote), 1, 0);
    return value;
}

}  // namespace memlog::preload

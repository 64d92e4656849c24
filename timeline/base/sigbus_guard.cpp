#include "timeline/base/sigbus_guard.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>

namespace memlog::timeline {

// The logs mapped now, for the SIGBUS handler: a slot is claimed, filled, then published by its
// base; the handler reads only published slots. Fixed size: a handler must not allocate.
struct MappedLog {
    std::atomic<bool> m_claimed{false};
    std::atomic<const uint8_t*> m_base{nullptr};
    uint64_t m_bytes = 0;
    const char* m_path = nullptr;
};

namespace {

MappedLog s_mappedLogs[64];
const char* s_programName = "memlog";

void writeText(const char* text) { (void)!::write(STDERR_FILENO, text, std::strlen(text)); }

void onBusError(int, siginfo_t* info, void*) {
    const auto* at = static_cast<const uint8_t*>(info->si_addr);
    for (const MappedLog& slot : s_mappedLogs) {
        const uint8_t* base = slot.m_base.load(std::memory_order_acquire);
        if (!base || at < base || at >= base + slot.m_bytes) continue;
        char digits[24];
        char* end = digits + sizeof digits;
        char* first = end;
        *--first = '\0';
        uint64_t offset = static_cast<uint64_t>(at - base);
        do *--first = static_cast<char>('0' + offset % 10);
        while ((offset /= 10) != 0);
        writeText(s_programName);
        writeText(": ");
        writeText(slot.m_path);
        writeText(": offset ");
        writeText(first);
        writeText(": the file was cut short while being read (by another program?); the log cannot be read\n");
        _exit(2);
    }
    // Not a log's page: the default action when the access faults again on return.
    signal(SIGBUS, SIG_DFL);
}

}  // namespace

MappedLog* watchMapping(const uint8_t* base, uint64_t bytes, const char* path) {
    for (MappedLog& slot : s_mappedLogs) {
        bool free = false;
        if (!slot.m_claimed.compare_exchange_strong(free, true)) continue;
        slot.m_bytes = bytes;
        slot.m_path = path;
        slot.m_base.store(base, std::memory_order_release);
        return &slot;
    }
    return nullptr;  // more logs open than slots: that one's SIGBUS is a crash, as before
}

void unwatchMapping(MappedLog* slot) {
    if (!slot) return;
    slot->m_base.store(nullptr, std::memory_order_release);
    slot->m_claimed.store(false, std::memory_order_release);
}

void exitWhenALogIsCutWhileRead(const char* program) {
    s_programName = program;
    struct sigaction action {};
    action.sa_sigaction = onBusError;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    sigaction(SIGBUS, &action, nullptr);
}

}  // namespace memlog::timeline

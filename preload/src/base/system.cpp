// Raw system calls: the recorder's own I/O must not recurse into the hooks it defines (mmap,
// munmap) nor touch the program's errno.
#include "base/system.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>

#include <cstring>

namespace memlog::preload::sys {

long call(long number, long a, long b, long c, long d, long e, long f) {
    long result;
    register long r10 asm("r10") = d;
    register long r8 asm("r8") = e;
    register long r9 asm("r9") = f;
    asm volatile("syscall"
                 : "=a"(result)
                 : "a"(number), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                 : "rcx", "r11", "memory");
    return result;
}

bool failed(long result) { return result < 0 && result >= -4095; }

void* mapAnonymous(size_t bytes, int prot, int extraFlags) {
    const long r = call(SYS_mmap, 0, static_cast<long>(bytes), prot, MAP_PRIVATE | MAP_ANONYMOUS | extraFlags, -1, 0);
    return failed(r) ? nullptr : reinterpret_cast<void*>(r);
}

void* mapFile(void* where, size_t bytes, int fd, uint64_t offset) {
    const long r = call(SYS_mmap, reinterpret_cast<long>(where), static_cast<long>(bytes), PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_FIXED, fd, static_cast<long>(offset));
    return failed(r) ? nullptr : reinterpret_cast<void*>(r);
}

int unmap(void* where, size_t bytes) {
    return static_cast<int>(call(SYS_munmap, reinterpret_cast<long>(where), static_cast<long>(bytes)));
}

int openFile(const char* path, int flags, int mode) {
    return static_cast<int>(call(SYS_openat, AT_FDCWD, reinterpret_cast<long>(path), flags, mode));
}

int closeFile(int fd) { return static_cast<int>(call(SYS_close, fd)); }

long readFile(int fd, void* buffer, size_t bytes) {
    return call(SYS_read, fd, reinterpret_cast<long>(buffer), static_cast<long>(bytes));
}

long readLink(const char* path, char* buffer, size_t bytes) {
    return call(SYS_readlinkat, AT_FDCWD, reinterpret_cast<long>(path), reinterpret_cast<long>(buffer),
                static_cast<long>(bytes));
}

long writeAll(int fd, const void* data, size_t bytes) {
    const char* p = static_cast<const char*>(data);
    size_t done = 0;
    while (done < bytes) {
        const long r = call(SYS_write, fd, reinterpret_cast<long>(p + done), static_cast<long>(bytes - done));
        if (r == -4 /* EINTR */) continue;
        if (r <= 0) return r;
        done += static_cast<size_t>(r);
    }
    return static_cast<long>(done);
}

void copyCut(char* out, size_t capacity, const char* text) {
    const size_t length = strnlen(text, capacity - 1);
    std::memcpy(out, text, length);
    out[length] = '\0';
}

size_t slurp(const char* path, char* buffer, size_t capacity) {
    const int fd = openFile(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        buffer[0] = '\0';
        return 0;
    }
    size_t length = 0;
    while (length + 1 < capacity) {
        const long r = readFile(fd, buffer + length, capacity - 1 - length);
        if (r == -4) continue;
        if (r <= 0) break;
        length += static_cast<size_t>(r);
    }
    buffer[length] = '\0';
    closeFile(fd);
    return length;
}

namespace {

// A hex number at *p, advancing past it.
uint64_t parseHex(const char** p) {
    uint64_t value = 0;
    for (;; ++*p) {
        const char c = **p;
        const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (digit < 0) return value;
        value = value << 4 | static_cast<uint64_t>(digit);
    }
}

}  // namespace

bool findMapping(uint64_t address, uint64_t* lo, uint64_t* hi, bool* mainStack) {
    const int fd = openFile("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    // Lines are read into a window a page at a time; a line never outgrows it (the path is at
    // most PATH_MAX, and only the start and the end of a line are read).
    char window[8192];
    size_t filled = 0;
    bool found = false, done = false;
    while (!found && !done) {
        const long r = readFile(fd, window + filled, sizeof window - 1 - filled);
        if (r == -4) continue;
        if (r <= 0) done = true;
        else filled += static_cast<size_t>(r);
        window[filled] = '\0';
        char* line = window;
        for (char* newline; (newline = static_cast<char*>(memchr(line, '\n', filled - (line - window)))) != nullptr;
             line = newline + 1) {
            const char* p = line;
            const uint64_t from = parseHex(&p);
            ++p;  // '-'
            const uint64_t to = parseHex(&p);
            if (address >= from && address < to) {
                *lo = from;
                *hi = to;
                *mainStack = newline - line >= 7 && memcmp(newline - 7, "[stack]", 7) == 0;
                found = true;
                break;
            }
        }
        const size_t rest = filled - static_cast<size_t>(line - window);
        memmove(window, line, rest);
        filled = rest;
        if (filled == sizeof window - 1) filled = 0;  // a line longer than the window: skip it
    }
    closeFile(fd);
    return found;
}

uint64_t tracerPid() {
    char status[4096];
    sys::slurp("/proc/self/status", status, sizeof status);
    const char* field = std::strstr(status, "TracerPid:");
    if (!field) return 0;
    uint64_t pid = 0;
    for (field += 10; *field == ' ' || *field == '\t'; ++field) {
    }
    for (; *field >= '0' && *field <= '9'; ++field) pid = pid * 10 + static_cast<uint64_t>(*field - '0');
    return pid;
}

uint32_t threadId() { return static_cast<uint32_t>(call(SYS_gettid)); }
uint32_t processId() { return static_cast<uint32_t>(call(SYS_getpid)); }

static uint64_t clockNs(clockid_t clock) {
    timespec now{};
    clock_gettime(clock, &now);  // vDSO, no allocation, no errno change on success
    return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(now.tv_nsec);
}
uint64_t monotonicNs() { return clockNs(CLOCK_MONOTONIC); }
uint64_t realtimeNs() { return clockNs(CLOCK_REALTIME); }

Line& Line::operator<<(const char* text) {
    while (text && *text && m_length < sizeof(m_text) - 1) m_text[m_length++] = *text++;
    return *this;
}

Line& Line::operator<<(char c) {
    if (m_length < sizeof(m_text) - 1) m_text[m_length++] = c;
    return *this;
}

Line& Line::operator<<(uint64_t value) {
    char digits[24];
    int n = 0;
    do {
        digits[n++] = static_cast<char>('0' + value % 10);
        value /= 10;
    } while (value);
    while (n) *this << digits[--n];
    return *this;
}

void Line::emit() { writeAll(2, m_text, m_length); }

const char* Line::text() {
    m_text[m_length] = '\0';  // operator<< keeps the last byte free
    return m_text;
}

}  // namespace memlog::preload::sys

// Raw system calls and an allocation-free stderr writer for the recorder. Everything here works
// before libc is fully up and inside any hook: no malloc, no stdio, no errno games with the
// program's own calls (raw syscalls leave the program's errno alone).
#pragma once

#include <cstddef>
#include <cstdint>

namespace memlog::preload::sys {

long call(long number, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0, long f = 0);
bool failed(long result);  // a raw syscall result in [-4095, -1]

void* mapAnonymous(size_t bytes, int prot, int extraFlags = 0);
void* mapFile(void* where, size_t bytes, int fd, uint64_t offset);  // MAP_SHARED | MAP_FIXED
int unmap(void* where, size_t bytes);
int openFile(const char* path, int flags, int mode = 0);
int closeFile(int fd);
long readFile(int fd, void* buffer, size_t bytes);
long readLink(const char* path, char* buffer, size_t bytes);
long writeAll(int fd, const void* data, size_t bytes);
// Copies a NUL-terminated string into out[capacity], cut to fit and always terminated.
void copyCut(char* out, size_t capacity, const char* text);
// Reads a whole small file (/proc/self/...) into buffer, NUL-terminated; returns bytes read.
size_t slurp(const char* path, char* buffer, size_t capacity);
// The mapping of /proc/self/maps that holds `address`: [lo, hi), and whether it is the main
// thread's stack ("[stack]"). False when there is none or the file cannot be read.
bool findMapping(uint64_t address, uint64_t* lo, uint64_t* hi, bool* mainStack);
// The pid of a tracer (a debugger: it owns SIGTRAP and the debug registers), 0 when there is none.
uint64_t tracerPid();
uint32_t threadId();
uint32_t processId();
uint64_t monotonicNs();
uint64_t realtimeNs();

inline uint64_t readTsc() {
    uint32_t lo, hi;
    asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (static_cast<uint64_t>(hi) << 32) | lo;
}

// A fixed line buffer for messages to stderr: `Line() << "memlog: " << path << '\n'`, then
// emit(). Long lines are cut, never allocated.
class Line {
public:
    Line& operator<<(const char* text);
    Line& operator<<(char c);
    Line& operator<<(uint64_t value);
    void emit();  // one write(2) to fd 2
    const char* text();  // the line so far, NUL-terminated

private:
    char m_text[1024];
    size_t m_length = 0;
};

}  // namespace memlog::preload::sys

// Output file creation and growth. Growth is the only place the recorder takes a lock, once per
// few megabytes of log; it never happens per event.
#include "start/log_file.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <cstring>

#include "base/system.hpp"

namespace memlog::preload {
namespace {

constexpr int kEexist = 17;
constexpr int kEnospc = 28;
constexpr int kEopnotsupp = 95;

// Reserve this much address space up front (PROT_NONE, no memory behind it) so the file can grow
// in place while other threads keep writing into what is already mapped.
constexpr uint64_t kWantedAddressSpace = 64ull << 30;
constexpr uint64_t kLeastAddressSpace = 256ull << 20;

uint64_t growStep(uint64_t mapped) {
    uint64_t step = mapped / 4;
    if (step < (1u << 20)) step = 1u << 20;
    if (step > (64u << 20)) step = 64u << 20;
    return step & ~uint64_t((1u << 20) - 1);  // whole MiB: mappings need page-aligned offsets
}

// "<stem>.<n>.memlog" when the path ends in ".memlog", else "<path>.<n>".
void numberedName(const char* path, unsigned n, char* out, uint32_t capacity) {
    const size_t length = std::strlen(path);
    const char* suffix = ".memlog";
    const size_t suffixLength = std::strlen(suffix);
    const bool hasSuffix = length > suffixLength && std::strcmp(path + length - suffixLength, suffix) == 0;
    const size_t stem = hasSuffix ? length - suffixLength : length;
    char number[16];
    int digits = 0;
    do {
        number[digits++] = static_cast<char>('0' + n % 10);
        n /= 10;
    } while (n);
    size_t at = 0;
    auto put = [&](char c) {
        if (at + 1 < capacity) out[at++] = c;
    };
    for (size_t i = 0; i < stem; ++i) put(path[i]);
    put('.');
    while (digits) put(number[--digits]);
    if (hasSuffix)
        for (const char* s = suffix; *s; ++s) put(*s);
    out[at] = '\0';
}

}  // namespace

bool LogFile::create(const char* path, char* chosen, uint32_t chosenCapacity, const char** error) {
    // O_EXCL: never append to, truncate or follow (even a dangling symlink) an existing name.
    const int flags = O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW;
    std::strncpy(chosen, path, chosenCapacity - 1);
    chosen[chosenCapacity - 1] = '\0';
    int fd = sys::openFile(chosen, flags, 0600);
    for (unsigned n = 1; fd == -kEexist && n < 10000; ++n) {
        numberedName(path, n, chosen, chosenCapacity);
        fd = sys::openFile(chosen, flags, 0600);
    }
    if (fd < 0) {
        *error = fd == -kEexist ? "too many logs of that name exist" : "cannot create the file";
        return false;
    }
    for (uint64_t want = kWantedAddressSpace; want >= kLeastAddressSpace && !m_base; want /= 2) {
        m_base = static_cast<uint8_t*>(sys::mapAnonymous(want, PROT_NONE, MAP_NORESERVE));
        if (m_base) m_capacity = want;
    }
    if (!m_base) {
        sys::closeFile(fd);
        *error = "no address space for the log mapping";
        return false;
    }
    m_fd = fd;
    m_tail.store(format::kHeaderBytes, std::memory_order_relaxed);
    if (!growTo(format::kHeaderBytes)) {
        *error = "cannot size the file (disk full?)";
        return false;
    }
    return true;
}

uint8_t* LogFile::reserveChunk(uint32_t bytes) {
    uint64_t tail = m_tail.load(std::memory_order_acquire);
    for (;;) {
        if ((tail & kClosed) || tail + bytes > m_mapped.load(std::memory_order_acquire)) return reserveSlow(bytes);
        if (m_tail.compare_exchange_weak(tail, tail + bytes, std::memory_order_acq_rel)) return m_base + tail;
    }
}

uint8_t* LogFile::reserveSlow(uint32_t bytes) {
    if (m_fd < 0) return nullptr;
    lock();
    uint8_t* chunk = nullptr;
    uint64_t tail = m_tail.load(std::memory_order_acquire);
    for (;;) {
        const uint64_t start = tail & ~kClosed;
        const uint64_t end = start + bytes;
        if (end > m_mapped.load(std::memory_order_acquire) && !growTo(end)) break;
        if (m_tail.compare_exchange_weak(tail, end, std::memory_order_acq_rel)) {
            chunk = m_base + start;
            break;
        }
    }
    unlock();
    return chunk;
}

// Called with the grow lock held (or before any other thread can see the file).
bool LogFile::growTo(uint64_t end) {
    const uint64_t mapped = m_mapped.load(std::memory_order_relaxed);
    uint64_t newEnd = mapped + growStep(mapped);
    if (newEnd < end) newEnd = (end + format::kPageBytes - 1) & ~uint64_t(format::kPageBytes - 1);
    if (newEnd > m_capacity) newEnd = m_capacity;
    if (newEnd < end) return false;
    // fallocate reserves real blocks, so a full disk fails here rather than as SIGBUS on a store.
    long r = sys::call(SYS_fallocate, m_fd, 0, static_cast<long>(mapped), static_cast<long>(newEnd - mapped));
    const uint64_t needed = (end + format::kPageBytes - 1) & ~uint64_t(format::kPageBytes - 1);
    if (r == -kEnospc && newEnd > needed) {
        // A nearly full disk: the whole step does not fit, what is needed now may (the header of
        // a new log on a small tmpfs; the last chunks before the disk fills).
        newEnd = needed;
        r = sys::call(SYS_fallocate, m_fd, 0, static_cast<long>(mapped), static_cast<long>(newEnd - mapped));
    }
    if (r == -kEopnotsupp) r = sys::call(SYS_ftruncate, m_fd, static_cast<long>(newEnd));
    if (r < 0) {
        if (r == -kEnospc) sys::call(SYS_ftruncate, m_fd, static_cast<long>(mapped));
        return false;
    }
    if (!sys::mapFile(m_base + mapped, newEnd - mapped, m_fd, mapped)) return false;
    // One call to fault the new pages in writable costs far less than a trap per page on the
    // hot path (measured: page faults were 12 % of a malloc-heavy run). Linux 5.14+; older
    // kernels refuse it and the pages fault in one by one as before.
    constexpr int kMadvPopulateWrite = 23;
    if (m_populate)
        sys::call(SYS_madvise, reinterpret_cast<long>(m_base + mapped), static_cast<long>(newEnd - mapped),
                  kMadvPopulateWrite);
    m_mapped.store(newEnd, std::memory_order_release);
    return true;
}

void LogFile::trimToData() {
    if (m_fd < 0) return;
    lock();
    // Closing the tail makes every later reservation take the slow path, which grows again.
    const uint64_t end = m_tail.fetch_or(kClosed, std::memory_order_acq_rel) & ~kClosed;
    sys::call(SYS_ftruncate, m_fd, static_cast<long>(end));
    m_mapped.store(end, std::memory_order_release);
    unlock();
}

void LogFile::abandon() {
    if (m_base) sys::unmap(m_base, m_capacity);
    if (m_fd >= 0) sys::closeFile(m_fd);
    m_base = nullptr;
    m_capacity = 0;
    m_fd = -1;
    m_tail.store(0, std::memory_order_relaxed);
    m_mapped.store(0, std::memory_order_relaxed);
    m_growLock.store(0, std::memory_order_relaxed);
}

void LogFile::lock() {
    while (m_growLock.exchange(1, std::memory_order_acquire)) sched_yield();
}

void LogFile::unlock() { m_growLock.store(0, std::memory_order_release); }

}  // namespace memlog::preload

#include "timeline/base/huge_pages.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

namespace memlog::timeline {

namespace {

std::atomic<ArrayPages> g_arrayPages{ArrayPages::Ordinary};

// The file arrays are made in while an ArraysInFiles lives, and the stretches of it they hold.
struct Stretch {
    uintptr_t m_address;
    uint64_t m_offset, m_bytes;
    bool m_kept;
};
std::mutex g_fileMutex;
int g_file = -1;  // guarded by g_fileMutex, as the two below
uint64_t g_fileEnd = 0;
std::vector<Stretch> g_stretches;

size_t wholePages(size_t bytes) {
    constexpr size_t kPage = 4096;
    return (bytes + kPage - 1) / kPage * kPage;
}

}  // namespace

void setArrayPages(ArrayPages pages) { g_arrayPages.store(pages, std::memory_order_relaxed); }

ArrayPages arrayPages() { return g_arrayPages.load(std::memory_order_relaxed); }

ArraysInFiles::ArraysInFiles(int fd, uint64_t from) {
    const std::lock_guard lock(g_fileMutex);
    g_file = fd;
    g_fileEnd = wholePages(from);
    g_stretches.clear();
}

ArraysInFiles::~ArraysInFiles() {
    const std::lock_guard lock(g_fileMutex);
    g_file = -1;  // arrays still mapped stay so, and are unmapped as they are freed
}

int64_t ArraysInFiles::keep(const void* data) {
    const std::lock_guard lock(g_fileMutex);
    if (g_file < 0) return -1;
    for (Stretch& stretch : g_stretches)
        if (stretch.m_address == reinterpret_cast<uintptr_t>(data)) {
            stretch.m_kept = true;
            return static_cast<int64_t>(stretch.m_offset);
        }
    return -1;
}

uint64_t ArraysInFiles::end() {
    const std::lock_guard lock(g_fileMutex);
    return g_fileEnd;
}

void* allocateHuge(size_t bytes, HugeAdvice advice) {
    {
        const std::lock_guard lock(g_fileMutex);
        const uint64_t length = wholePages(bytes);
        // Room taken on the disk first: a full disk is then anonymous memory here, not a SIGBUS at
        // a later write.
        if (g_file >= 0 && posix_fallocate(g_file, static_cast<off_t>(g_fileEnd), static_cast<off_t>(length)) == 0) {
            void* mapped =
                mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, g_file, static_cast<off_t>(g_fileEnd));
            if (mapped != MAP_FAILED) {
                g_stretches.push_back({reinterpret_cast<uintptr_t>(mapped), g_fileEnd, length, false});
                g_fileEnd += length;
                return mapped;
            }
        }
    }
    // A huge page extra, then the unaligned ends given back: mmap aligns to 4 KiB only, and a
    // huge page must start on a 2 MiB boundary.
    const size_t length = wholePages(bytes);
    void* mapped = mmap(nullptr, length + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) return nullptr;
    const uintptr_t start = reinterpret_cast<uintptr_t>(mapped);
    const uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
    if (aligned > start) munmap(mapped, aligned - start);
    const uintptr_t end = start + length + kHugePage;
    if (end > aligned + length) munmap(reinterpret_cast<void*>(aligned + length), end - (aligned + length));
    if (advice == HugeAdvice::Always || arrayPages() == ArrayPages::HugeAndAhead)
        madvise(reinterpret_cast<void*>(aligned), length, MADV_HUGEPAGE);  // a hint: without it, small pages
    return reinterpret_cast<void*>(aligned);
}

void freeHuge(void* pointer, size_t bytes) {
    if (!pointer) return;
    munmap(pointer, wholePages(bytes));
    const std::lock_guard lock(g_fileMutex);
    for (size_t i = 0; i < g_stretches.size(); ++i) {
        const Stretch stretch = g_stretches[i];
        if (stretch.m_address != reinterpret_cast<uintptr_t>(pointer)) continue;
        g_stretches.erase(g_stretches.begin() + static_cast<long>(i));
        // Its pages dropped unwritten, its blocks given back (a file system that cannot punch
        // keeps them: the index is only bigger).
        if (!stretch.m_kept && g_file >= 0)
            fallocate(g_file, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(stretch.m_offset),
                      static_cast<off_t>(stretch.m_bytes));
        return;
    }
}

}  // namespace memlog::timeline

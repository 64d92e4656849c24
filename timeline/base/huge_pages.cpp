#include "timeline/base/huge_pages.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>

namespace memlog::timeline {

namespace {

std::atomic<ArrayPages> g_arrayPages{ArrayPages::Ordinary};

std::mutex g_spillMutex;
std::string g_spillFolder;  // guarded by g_spillMutex; "" while no ArraysInFiles lives

// `bytes` of a new unnamed file in `folder`, room taken on the disk first (a full disk is then
// a refusal here, not a SIGBUS at a later write); -1 when the folder takes none.
int spillFile(const std::string& folder, size_t bytes) {
    int fd = open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) {  // a file system without unnamed files: a named one, unlinked at once
        std::string name = folder + "/.memlog-arrays.XXXXXX";
        fd = mkostemp(name.data(), O_CLOEXEC);
        if (fd >= 0) unlink(name.c_str());
    }
    if (fd >= 0 && posix_fallocate(fd, 0, static_cast<off_t>(bytes)) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

size_t wholePages(size_t bytes) {
    constexpr size_t kPage = 4096;
    return (bytes + kPage - 1) / kPage * kPage;
}

}  // namespace

void setArrayPages(ArrayPages pages) { g_arrayPages.store(pages, std::memory_order_relaxed); }

ArrayPages arrayPages() { return g_arrayPages.load(std::memory_order_relaxed); }

ArraysInFiles::ArraysInFiles(std::string folder) {
    const std::lock_guard lock(g_spillMutex);
    g_spillFolder = std::move(folder);
}

ArraysInFiles::~ArraysInFiles() {
    const std::lock_guard lock(g_spillMutex);
    g_spillFolder.clear();
}

void* allocateHuge(size_t bytes, HugeAdvice advice) {
    {
        const std::lock_guard lock(g_spillMutex);
        if (!g_spillFolder.empty()) {
            if (const int fd = spillFile(g_spillFolder, wholePages(bytes)); fd >= 0) {
                void* mapped = mmap(nullptr, wholePages(bytes), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
                close(fd);  // the mapping keeps the file until it is unmapped
                if (mapped != MAP_FAILED) return mapped;
            }
        }  // else anonymous memory, as ever
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
    if (pointer) munmap(pointer, wholePages(bytes));
}

}  // namespace memlog::timeline

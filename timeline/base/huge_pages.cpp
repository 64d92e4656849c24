#include "timeline/base/huge_pages.hpp"

#include <atomic>

namespace memlog::timeline {

namespace {

std::atomic<ArrayPages> g_arrayPages{ArrayPages::Ordinary};

size_t wholePages(size_t bytes) {
    constexpr size_t kPage = 4096;
    return (bytes + kPage - 1) / kPage * kPage;
}

}  // namespace

void setArrayPages(ArrayPages pages) { g_arrayPages.store(pages, std::memory_order_relaxed); }

ArrayPages arrayPages() { return g_arrayPages.load(std::memory_order_relaxed); }

void* allocateHuge(size_t bytes, HugeAdvice advice) {
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

// An allocator for the rasteriser's large arrays (tens of MB, touched all over in every frame):
// memory straight from mmap with transparent huge pages asked for, so that a sweep up the rows
// of a view does not miss the TLB on every row (4 KiB pages, rows 40 KiB apart).
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <new>

namespace memlog::render {

template <typename T>
struct LargePageAllocator {
    using value_type = T;
    static constexpr size_t kHugePage = size_t{2} << 20;

    LargePageAllocator() = default;
    template <typename U>
    LargePageAllocator(const LargePageAllocator<U>&) {}

    T* allocate(size_t count) {
        const size_t bytes = rounded(count);
        void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (memory == MAP_FAILED) throw std::bad_alloc();
        madvise(memory, bytes, MADV_HUGEPAGE);  // a hint: without it, ordinary pages
        return static_cast<T*>(memory);
    }
    void deallocate(T* pointer, size_t count) { munmap(pointer, rounded(count)); }

    template <typename U>
    bool operator==(const LargePageAllocator<U>&) const { return true; }

private:
    static size_t rounded(size_t count) { return (count * sizeof(T) + 4095) / 4096 * 4096; }
};

}  // namespace memlog::render

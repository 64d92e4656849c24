// Pages mapped in one call before they are written, rather than one fault at a time as each is
// first touched: in this project's VM a page fault costs microseconds (the hypervisor takes
// part), and reading and indexing a log of ten million blocks faulted in about 2 GB. Only with
// ArrayPages::HugeAndAhead (huge_pages.hpp), which the drawing program chooses.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>

#include "timeline/base/huge_pages.hpp"

namespace memlog::timeline {

// The whole pages inside [data, data + bytes); a kernel without MADV_POPULATE_WRITE (before
// 5.14) refuses it, and the pages fault in as before.
inline void prefault(const void* data, size_t bytes) {
#ifdef MADV_POPULATE_WRITE
    if (arrayPages() != ArrayPages::HugeAndAhead) return;
    constexpr uintptr_t kPage = 4096;
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kPage - 1) & ~(kPage - 1);
    const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kPage - 1);
    if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
#else
    (void)data;
    (void)bytes;
#endif
}

// `vector` resized to `count`, its memory mapped first.
template <typename Vector>
void resizePrefaulted(Vector& vector, size_t count) {
    vector.reserve(count);
    prefault(vector.data(), count * sizeof(typename Vector::value_type));
    vector.resize(count);
}

}  // namespace memlog::timeline

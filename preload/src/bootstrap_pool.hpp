// Memory for the allocations made while the real allocator is not known yet: dlsym's own
// calloc during start-up. A bump pointer over a static buffer; its blocks are never freed.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace memlog::preload::bootstrap {

void* allocate(size_t bytes, size_t alignment = 16);  // nullptr when the pool is exhausted
bool owns(const void* pointer);
size_t usableSize(const void* pointer);

}  // namespace memlog::preload::bootstrap

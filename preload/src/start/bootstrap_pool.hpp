// Memory for the allocations made while the real allocator is not known yet: dlsym's own
// calloc during start-up. A bump pointer over a static buffer; its blocks are never freed.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace memlog::preload::bootstrap {

constexpr size_t kPoolBytes = 64 * 1024;
extern uint8_t g_pool[kPoolBytes];

void* allocate(size_t bytes, size_t alignment = 16);  // nullptr when the pool is exhausted
// Inline: every free asks it.
inline bool owns(const void* pointer) {
    const auto* p = static_cast<const uint8_t*>(pointer);
    return p >= g_pool && p < g_pool + kPoolBytes;
}
size_t usableSize(const void* pointer);

}  // namespace memlog::preload::bootstrap

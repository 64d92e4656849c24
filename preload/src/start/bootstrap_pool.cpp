// The bootstrap pool. glibc's dlsym needs a few hundred bytes; 64 KiB leaves room for
// libunwind or a preloaded allocator that allocates while being looked up.
#include "start/bootstrap_pool.hpp"

#include <cstring>

namespace memlog::preload::bootstrap {

alignas(64) uint8_t g_pool[kPoolBytes];

namespace {

std::atomic<size_t> s_used{0};

// Each block is preceded by its size, so usableSize and realloc out of the pool work.
constexpr size_t kHeader = 16;

}  // namespace

void* allocate(size_t bytes, size_t alignment) {
    if (alignment < 16) alignment = 16;
    size_t used = s_used.load(std::memory_order_relaxed);
    for (;;) {
        const size_t start = (used + kHeader + alignment - 1) & ~(alignment - 1);
        if (start + bytes > kPoolBytes || bytes > kPoolBytes) return nullptr;
        if (s_used.compare_exchange_weak(used, start + bytes, std::memory_order_relaxed)) {
            std::memcpy(g_pool + start - sizeof(size_t), &bytes, sizeof(size_t));
            std::memset(g_pool + start, 0, bytes);  // also serves calloc
            return g_pool + start;
        }
    }
}

size_t usableSize(const void* pointer) {
    size_t bytes;
    std::memcpy(&bytes, static_cast<const uint8_t*>(pointer) - sizeof(size_t), sizeof(size_t));
    return bytes;
}

}  // namespace memlog::preload::bootstrap

// glibc 2.36's chunk sizes on x86-64, from the requested size.
#include "timeline/model/usable_size.hpp"

#include <algorithm>

#include "timeline/model/block.hpp"

namespace memlog::timeline {

uint64_t estimatedUsableSize(const Block& block) {
    constexpr uint64_t kPage = 4096, kMmapThreshold = 128 * 1024;
    const uint64_t size = block.size();
    if (block.mapping()) return (size + kPage - 1) / kPage * kPage;
    const uint64_t chunk = std::max<uint64_t>(32, (size + 8 + 15) & ~uint64_t{15});
    if (size >= kMmapThreshold) return (chunk + 8 + kPage - 1) / kPage * kPage - 16;
    return chunk - 8;
}

}  // namespace memlog::timeline

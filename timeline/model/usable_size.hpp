// What a block really took from the allocator, estimated: the log holds the requested size only.
#pragma once

#include <cstdint>

namespace memlog::timeline {

class Block;

// The bytes malloc really set aside for a request, as glibc 2.36 on x86-64 sizes its chunks
// (8 bytes of header, 16-byte steps, 24 at least; page-rounded mmapped chunks from 128 KiB,
// glibc's default threshold). An estimate: the log holds the requested size only.
uint64_t estimatedUsableSize(const Block& block);

}  // namespace memlog::timeline

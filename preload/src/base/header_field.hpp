// The log's headers are packed structs (their layout is the file format), so a compiler may not
// assume that a field has its type's alignment: clang turns an atomic operation on one into a
// call to libatomic, which the recorder does not link. The fields used atomically do sit at
// offsets of their own alignment (checked below), so they are handed to the atomics through a
// plain pointer, which carries the type's alignment.
#pragma once

#include <cstddef>

#include "memlog/format.hpp"

namespace memlog::preload {

template <class T>
inline T* headerField(T* field) {
    return field;
}

static_assert(offsetof(format::FileHeader, m_flags) % alignof(uint32_t) == 0);
static_assert(offsetof(format::FileHeader, m_lostEvents) % alignof(uint64_t) == 0);
static_assert(offsetof(format::FileHeader, m_lostMetaRecords) % alignof(uint64_t) == 0);
static_assert(offsetof(format::ChunkHeader, m_magic) == 0);  // chunks start on a page

}  // namespace memlog::preload

// An array that is either the process's own (built here, in huge pages) or a read-only stretch of
// a file mapped by an index on disk: the arrays of the model's index (ModelIndex) are built in
// memory for a log read without an index, and mapped from the index file for one read through it.
// Readers cannot tell the two apart; only an owned array grows.
#pragma once

#include <sys/mman.h>

#include <cassert>
#include <cstddef>
#include <cstring>
#include <memory>
#include <span>
#include <utility>

#include "timeline/base/huge_pages.hpp"

namespace memlog::timeline {

// A file's pages mapped read-only, unmapped when the last holder lets go: the blocks of an index
// and the arrays of its tree share one mapping.
class FileMapping {
public:
    FileMapping(void* data, size_t bytes) : m_data(data), m_bytes(bytes) {}
    ~FileMapping() {
        if (m_data) munmap(m_data, m_bytes);
    }
    FileMapping(const FileMapping&) = delete;
    FileMapping& operator=(const FileMapping&) = delete;
    const unsigned char* data() const { return static_cast<const unsigned char*>(m_data); }
    size_t size() const { return m_bytes; }

private:
    void* m_data;
    size_t m_bytes;
};

// Whether the byte of a bool read from a file holds 0 or 1: any other is no bool, and reading it
// as one is undefined (the sanitizers stop there).
inline bool boolByteIsBool(const bool* flag) {
    unsigned char byte = 0;
    std::memcpy(&byte, flag, 1);
    return byte <= 1;
}

template <typename T>
class StoredArray {
public:
    StoredArray() = default;
    StoredArray(HugeVector<T> owned) : m_owned(std::move(owned)) { refresh(); }  // NOLINT: an owned array
    // `count` values at `data`, inside `mapping`, which stays mapped while this array lives.
    StoredArray(std::shared_ptr<const FileMapping> mapping, const T* data, size_t count)
        : m_mapping(std::move(mapping)), m_data(data), m_size(count) {}

    StoredArray(StoredArray&& other) noexcept { *this = std::move(other); }
    StoredArray& operator=(StoredArray&& other) noexcept {
        m_owned = std::move(other.m_owned);
        m_mapping = std::move(other.m_mapping);
        m_data = other.m_data;
        m_size = other.m_size;
        other.m_owned.clear();
        other.m_mapping.reset();
        other.refresh();
        return *this;
    }
    StoredArray(const StoredArray& other) { *this = other; }
    StoredArray& operator=(const StoredArray& other) {
        if (this == &other) return *this;
        m_owned = other.m_owned;
        m_mapping = other.m_mapping;
        if (m_mapping) {
            m_data = other.m_data;
            m_size = other.m_size;
        } else {
            refresh();
        }
        return *this;
    }

    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    const T* data() const { return m_data; }
    const T& operator[](size_t i) const { return m_data[i]; }
    const T& back() const { return m_data[m_size - 1]; }
    const T* begin() const { return m_data; }
    const T* end() const { return m_data + m_size; }
    operator std::span<const T>() const { return {m_data, m_size}; }  // NOLINT: a view of it
    bool mapped() const { return m_mapping != nullptr; }

    // Building (owned arrays only).
    void push_back(const T& value) {
        assert(!mapped());
        m_owned.push_back(value);
        refresh();
    }
    void reserve(size_t count) {
        assert(!mapped());
        m_owned.reserve(count);
        refresh();
    }
    void shrink_to_fit() {
        assert(!mapped());
        m_owned.shrink_to_fit();
        refresh();
    }

private:
    void refresh() {
        m_data = m_owned.data();
        m_size = m_owned.size();
    }

    HugeVector<T> m_owned;
    std::shared_ptr<const FileMapping> m_mapping;
    const T* m_data = nullptr;
    size_t m_size = 0;
};

}  // namespace memlog::timeline

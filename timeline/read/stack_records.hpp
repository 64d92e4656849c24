// A log's call stacks, each decoded from its own Stack record when asked. The reader keeps where
// a stack's frames are in the mapped file (16 bytes a stack), not a copy of them: copying cost a
// read of the CPython log (24,000 stacks, a million frames) a ninth of its time, in fresh memory
// written once and mostly never read again (naming a site reads a stack's first few frames).
// The mapping lives as long as the reader, and so do these views; a frame is read again at each
// pass over it (a varint and an add).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "memlog/format.hpp"

namespace memlog::timeline {

// One stack's return addresses, innermost first, decoded as they are iterated.
class StackFrames {
public:
    class iterator {
    public:
        using iterator_category = std::input_iterator_tag;  // one pass: the decoding moves on
        using value_type = uint64_t;
        using difference_type = std::ptrdiff_t;
        using pointer = const uint64_t*;
        using reference = uint64_t;

        iterator() = default;
        iterator(const uint8_t* at, const uint8_t* end, uint32_t left)
            : m_at(at), m_end(end), m_left(left), m_done(false) {
            step();
        }
        uint64_t operator*() const { return m_frame; }
        iterator& operator++() {
            step();
            return *this;
        }
        iterator operator++(int) {
            iterator before = *this;
            step();
            return before;
        }
        // Only the end is ever compared against: past the last frame, or where the record's
        // bytes stopped decoding (they decoded when the walk read them: a file changed since).
        bool operator==(const iterator& other) const { return m_done == other.m_done; }

    private:
        void step() {
            uint64_t delta;
            if (m_left == 0 || !format::getVarint(&m_at, m_end, &delta)) {
                m_done = true;
                return;
            }
            --m_left;
            m_frame += static_cast<uint64_t>(format::unzigzag(delta));
        }

        const uint8_t* m_at = nullptr;
        const uint8_t* m_end = nullptr;
        uint32_t m_left = 0;
        uint64_t m_frame = 0;  // frames are deltas from the one before, the first from zero
        bool m_done = true;
    };

    StackFrames() = default;
    // `frames`: the record's first frame delta; `end`: the record's end.
    StackFrames(const uint8_t* frames, const uint8_t* end, uint32_t depth)
        : m_frames(frames), m_end(end), m_depth(depth) {}

    iterator begin() const { return m_depth ? iterator(m_frames, m_end, m_depth) : iterator(); }
    iterator end() const { return iterator(); }
    size_t size() const { return m_depth; }
    bool empty() const { return m_depth == 0; }
    uint64_t front() const { return *begin(); }
    // Frame `i`, decoding the ones before it; std::out_of_range past the last.
    uint64_t at(size_t i) const {
        size_t k = 0;
        for (uint64_t frame : *this)
            if (k++ == i) return frame;
        throw std::out_of_range("stack frame " + std::to_string(i) + " of " + std::to_string(m_depth));
    }
    std::vector<uint64_t> toVector() const { return {begin(), end()}; }

private:
    const uint8_t* m_frames = nullptr;
    const uint8_t* m_end = nullptr;
    uint32_t m_depth = 0;
};

// Every stack of a log by id; id 0 (no stack) and ids without a record are empty.
class StackRecords {
public:
    size_t size() const { return m_records.size(); }
    StackFrames operator[](size_t id) const {
        const Record& record = m_records[id];
        return {record.m_frames, record.m_frames + record.m_bytes, record.m_depth};
    }
    StackFrames at(size_t id) const {
        if (id >= m_records.size())
            throw std::out_of_range("stack " + std::to_string(id) + " of " + std::to_string(m_records.size()));
        return (*this)[id];
    }
    // How many ids have a stack with frames.
    size_t nonEmpty() const {
        size_t count = 0;
        for (const Record& record : m_records) count += record.m_depth != 0;
        return count;
    }

    // The walk's side. The last record of an id is the one kept.
    void clear() { m_records.assign(1, {}); }
    void set(uint64_t id, const uint8_t* frames, const uint8_t* end, uint32_t depth) {
        if (m_records.size() <= id) m_records.resize(id + 1);
        m_records[id] = {frames, static_cast<uint32_t>(end - frames), depth};
    }

    // Each id's record as a place in the file mapped at `base` (kept in a log's index), and back.
    struct Place {
        uint64_t m_offset = 0;  // 0: no record
        uint32_t m_bytes = 0;
        uint32_t m_depth = 0;
    };
    std::vector<Place> places(const uint8_t* base) const {
        std::vector<Place> places;
        places.reserve(m_records.size());
        for (const Record& record : m_records)
            places.push_back(
                {record.m_frames ? static_cast<uint64_t>(record.m_frames - base) : 0, record.m_bytes, record.m_depth});
        return places;
    }
    // False, nothing changed, when a place is not inside the `size` bytes at `base`.
    bool setPlaces(const std::vector<Place>& places, const uint8_t* base, uint64_t size) {
        for (const Place& place : places)
            if (place.m_offset > size || place.m_bytes > size - place.m_offset) return false;
        m_records.assign(std::max<size_t>(places.size(), 1), {});
        for (size_t id = 0; id < places.size(); ++id)
            if (places[id].m_offset)
                m_records[id] = {base + places[id].m_offset, places[id].m_bytes, places[id].m_depth};
        return true;
    }

private:
    struct Record {
        const uint8_t* m_frames = nullptr;
        uint32_t m_bytes = 0;
        uint32_t m_depth = 0;
    };
    std::vector<Record> m_records{1};
};

}  // namespace memlog::timeline

// The distinct bytes each row of a table touched, kept as a bit per byte of the 64-byte lines a
// row touched: per live heap block (a row's lines of that block, counted and dropped when the
// block ends) and per row for absolute addresses (stacks, globals, other memory). Memory follows
// the lines touched in the live heap and outside it, never the number of accesses.
#pragma once

#include <cstdint>
#include <vector>

#include "timeline/base/seeded_hash.hpp"

namespace memlog::timeline {

class TouchedBytes {
public:
    // `row` touched [from, from + size) of `space`: 0 for absolute addresses, else a heap
    // block's sequence number with `from` an offset into it.
    void touch(uint32_t row, uint64_t space, uint64_t from, uint64_t size);
    // The block `space` ended: its bytes are added to their rows' counts and its lines dropped.
    void close(uint64_t space);
    // Each row's distinct bytes, every space counted (the table is empty afterwards).
    std::vector<uint64_t> finish(size_t rows);

private:
    // An open-addressing table of lines (offset / 64) to the mask of their bytes touched.
    class Lines {
    public:
        uint64_t& mask(uint64_t line);
        uint64_t bytes() const;

    private:
        void grow();
        std::vector<uint64_t> m_keys;  // line + 1; 0: a free slot
        std::vector<uint64_t> m_masks;
        size_t m_used = 0;
        SeededHash m_hash;
    };
    struct Pair {
        uint32_t m_row;
        Lines m_lines;
    };
    Lines& linesOf(uint32_t row, uint64_t space);
    void count(uint32_t row, const Lines& lines);

    NumberMap<uint64_t, std::vector<Pair>> m_blocks;  // by block seq: the rows that touched it
    std::vector<Lines> m_absolute;  // by row
    std::vector<uint64_t> m_counted;  // by row: the bytes of the blocks closed so far
    // The lines the last access went to: most accesses follow one of the same row and space.
    uint32_t m_lastRow = UINT32_MAX;
    uint64_t m_lastSpace = 0;
    Lines* m_last = nullptr;
};

}  // namespace memlog::timeline

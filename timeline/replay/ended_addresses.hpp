// The set of addresses whose blocks ended, fed in batches by AddressTable's sweeps (one address
// per free that the table forgets) and asked only when a free finds no entry (a double free or a
// free of an unknown address, both rare). A bit per 8-byte word, in 64-byte bitmaps of 4 KiB of
// address space: a heap's frees land on few pages, so the bitmaps stay in cache where a hash set
// of addresses missed it once a free (2 MiB of heap: 512 bitmaps, 32 KiB). Addresses that are not
// 8-byte aligned (no allocator returns them, a damaged log may) are kept one by one.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "timeline/base/seeded_hash.hpp"

namespace memlog::timeline {

class EndedAddresses {
public:
    EndedAddresses() : m_pages(1u << 10, kNoPage) {}

    bool contains(uint64_t addr) const {
        if (addr & 7) return m_unaligned.count(addr) != 0;
        const uint32_t bitmap = find(addr >> kPageShift);
        if (bitmap == kNoPage) return false;
        const uint64_t bit = (addr >> 3) & (kBitsPerPage - 1);
        return (m_bitmaps[bitmap][bit / 64] >> (bit % 64)) & 1;
    }

    void insert(const std::vector<uint64_t>& batch) {
        for (const uint64_t addr : batch) {
            if (addr & 7) {
                m_unaligned.insert(addr);
                continue;
            }
            const uint64_t bit = (addr >> 3) & (kBitsPerPage - 1);
            m_bitmaps[findOrAdd(addr >> kPageShift)][bit / 64] |= uint64_t{1} << (bit % 64);
        }
    }

private:
    static constexpr unsigned kPageShift = 12;
    static constexpr uint64_t kBitsPerPage = (uint64_t{1} << kPageShift) / 8;
    static constexpr uint32_t kNoPage = UINT32_MAX;
    using Bitmap = std::array<uint64_t, kBitsPerPage / 64>;
    static_assert(sizeof(Bitmap) == 64);

    size_t mask() const { return m_pages.size() - 1; }
    size_t slotOf(uint64_t page) const { return static_cast<size_t>((page * 0x9e37'79b9'7f4a'7c15ull) >> 20) & mask(); }

    // Open addressing over page numbers: m_pages holds each slot's bitmap index, m_pageNumbers[index]
    // its page.
    uint32_t find(uint64_t page) const {
        for (size_t i = slotOf(page);; i = (i + 1) & mask()) {
            if (m_pages[i] == kNoPage) return kNoPage;
            if (m_pageNumbers[m_pages[i]] == page) return m_pages[i];
        }
    }

    uint32_t findOrAdd(uint64_t page) {
        for (size_t i = slotOf(page);; i = (i + 1) & mask()) {
            if (m_pages[i] == kNoPage) {
                if ((m_bitmaps.size() + 1) * 2 > m_pages.size()) {
                    grow();
                    return findOrAdd(page);
                }
                m_pages[i] = static_cast<uint32_t>(m_bitmaps.size());
                m_pageNumbers.push_back(page);
                m_bitmaps.push_back(Bitmap{});
                return m_pages[i];
            }
            if (m_pageNumbers[m_pages[i]] == page) return m_pages[i];
        }
    }

    void grow() {
        m_pages.assign(m_pages.size() * 2, kNoPage);
        for (uint32_t index = 0; index < m_pageNumbers.size(); ++index) {
            size_t i = slotOf(m_pageNumbers[index]);
            while (m_pages[i] != kNoPage) i = (i + 1) & mask();
            m_pages[i] = index;
        }
    }

    std::vector<uint32_t> m_pages;  // at most half used
    std::vector<uint64_t> m_pageNumbers;  // address >> kPageShift, per bitmap
    std::vector<Bitmap> m_bitmaps;
    NumberSet<uint64_t> m_unaligned;
};

}  // namespace memlog::timeline

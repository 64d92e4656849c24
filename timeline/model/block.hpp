// One heap block (or anonymous mapping) as the model keeps it: where, how big, from when to when,
// who made it, packed into five words (40 bytes), so that ten million blocks fit in 400 MB.
#pragma once

#include <algorithm>
#include <cstdint>

#include "timeline/model/x_axis.hpp"

namespace memlog::timeline {

// One block, packed into five words (bit positions in the accessors). Limits, far beyond what
// a recording reaches: addresses below 2^48 (x86-64 user space is below 2^47), sizes below
// 16 TiB, times below 78 hours (or 2.8e14 instructions), sequence numbers below 2^40, 65,535
// threads (later threads share the last index). The time words hold the model's clock
// (BlockModel::clock()): ns, or a full trace's instructions for a model built to draw them.
class Block {
public:
    struct Fields {
        uint64_t m_addr, m_size, m_beginNs, m_endNs, m_beginSeq, m_endSeq;
        uint32_t m_stack, m_thread;
        bool m_mapping, m_liveAtEnd;
    };
    Block() = default;
    explicit Block(const Fields& fields);

    uint64_t addr() const { return m_word[0] & kLow48; }
    uint64_t size() const { return m_word[3] & kLow44; }
    uint64_t endAddr() const { return addr() + size(); }
    uint32_t thread() const { return static_cast<uint32_t>(m_word[0] >> 48); }  // BlockModel::threads()
    uint32_t stack() const { return static_cast<uint32_t>((m_word[1] >> 48) | (m_word[2] >> 48 << 16)); }
    uint64_t beginNs() const { return m_word[1] & kLow48; }  // on the model's clock
    uint64_t endNs() const { return m_word[2] & kLow48; }
    uint64_t beginSeq() const { return m_word[4] & kLow40; }
    uint64_t endSeq() const { return (m_word[3] >> 48) | (m_word[4] >> 40 << 16); }
    bool mapping() const { return m_word[3] >> 44 & 1; }  // an anonymous mmap, not a heap block
    bool liveAtEnd() const { return m_word[3] >> 45 & 1; }  // never freed in the log
    // Time and Instructions read the time words: the model was built on the clock of its axis.
    uint64_t from(XAxis axis) const { return axis == XAxis::Events ? beginSeq() : beginNs(); }
    uint64_t to(XAxis axis) const { return axis == XAxis::Events ? endSeq() : endNs(); }
    // Whether it held an address of [addrLo, addrHi) during `window`, as address ranges count
    // it: one unit of the axis at least (a block of no time still had its place).
    bool meets(XAxis axis, XWindow window, uint64_t addrLo, uint64_t addrHi) const {
        return from(axis) < window.m_to && std::max(to(axis), from(axis) + 1) > window.m_from && endAddr() > addrLo &&
               addr() < addrHi;
    }

    // Ends the block (or marks it live at the end of the log).
    void close(uint64_t endNs, uint64_t endSeq, bool liveAtEnd);

private:
    // `value`, or the largest that `bits` bits hold when it does not fit.
    static constexpr uint64_t clamped(uint64_t value, unsigned bits) {
        const uint64_t limit = (1ull << bits) - 1;
        return value < limit ? value : limit;
    }
    static constexpr uint64_t kLow40 = (1ull << 40) - 1, kLow44 = (1ull << 44) - 1, kLow48 = (1ull << 48) - 1;
    uint64_t m_word[5];  // left uninitialised: chunks of blocks are written before they are read
};
static_assert(sizeof(Block) == 40);

// Inline: the model's builder packs one block per allocation and closes one per free, inside the
// replay's loop.
inline Block::Block(const Fields& f) {
    const uint64_t stack = f.m_stack, endSeq = clamped(f.m_endSeq, 40);
    m_word[0] = clamped(f.m_addr, 48) | clamped(f.m_thread, 16) << 48;
    m_word[1] = clamped(f.m_beginNs, 48) | (stack & 0xffff) << 48;
    m_word[2] = clamped(f.m_endNs, 48) | (stack >> 16) << 48;
    m_word[3] =
        clamped(f.m_size, 44) | uint64_t{f.m_mapping} << 44 | uint64_t{f.m_liveAtEnd} << 45 | (endSeq & 0xffff) << 48;
    m_word[4] = clamped(f.m_beginSeq, 40) | (endSeq >> 16) << 40;
}

inline void Block::close(uint64_t endNs, uint64_t endSeq, bool liveAtEnd) {
    endSeq = clamped(endSeq, 40);
    m_word[2] = (m_word[2] & ~kLow48) | clamped(endNs, 48);
    m_word[3] = (m_word[3] & ~(uint64_t{1} << 45) & kLow48) | uint64_t{liveAtEnd} << 45 | (endSeq & 0xffff) << 48;
    m_word[4] = (m_word[4] & kLow40) | (endSeq >> 16) << 40;
}

}  // namespace memlog::timeline

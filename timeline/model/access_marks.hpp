// Memory accesses to draw over the blocks: where and when a sampled read or write touched the
// heap. The picture takes them as a plain list, which buildBlockModel fills from the log's
// access samples (LogReader::forEachRecord); a log recorded without sampling has none.
#pragma once

#include <cstdint>
#include <vector>

#include "memlog/format.hpp"
#include "timeline/model/x_axis.hpp"

namespace memlog::timeline {

// Its fields in an order that leaves no padding (72 bytes, 96 in the order they were written in):
// a full trace holds one for every access.
struct AccessMark {
    uint64_t m_seq = 0;  // the sample's place in the global order (x with --x events)
    uint64_t m_timeNs = 0;  // since the recording started
    uint64_t m_addr = 0;  // the first byte accessed
    uint64_t m_blockSeq = 0;  // the heap block it fell in: its Block::beginSeq() (a realloc's new
                              // block begins at the call's second sequence number); 0: not heap
    uint32_t m_tid = 0;
    bool m_write = false;  // it writes (a read-write as well)
    format::AccessKind m_kind = format::AccessKind::Read;
    format::AccessSource m_source = format::AccessSource::Tick;
    bool m_useAfterFree = false;  // it touched a block after its free (before the memory was reused)
    uint32_t m_stack = 0;  // the accessing code's callers; 0 = none
    uint32_t m_size = 0;  // bytes accessed
    uint64_t m_ip = 0;  // the accessing instruction
    uint64_t m_armedBy = 0;  // a watchpoint's trap: the m_seq of the sample that armed it; else 0
    // A full trace's: the program's instructions, summed over its threads, at the access (x with
    // --x instructions, instruction_clock.hpp); else 0.
    uint64_t m_instructions = 0;
};
// An index file keeps them byte for byte (model_file.cpp): another layout is another version of it.
static_assert(sizeof(AccessMark) == 72);

// Where a mark lies on `axis`.
inline uint64_t markX(const AccessMark& mark, XAxis axis) {
    return axis == XAxis::Events ? mark.m_seq : axis == XAxis::Instructions ? mark.m_instructions : mark.m_timeNs;
}

// On which axes a list of marks is in order (x never decreasing): a bit per axis, 1 << axis. A
// view of a stretch of x then reads only the marks inside it, found by a binary search.
inline uint8_t axisBit(XAxis axis) { return static_cast<uint8_t>(1u << static_cast<unsigned>(axis)); }
constexpr uint8_t kEveryAxis = 0b111;
// The bits of the axes on which `next` does not come before `previous`.
inline uint8_t axesInOrder(const AccessMark& previous, const AccessMark& next) {
    uint8_t bits = 0;
    for (const XAxis axis : {XAxis::Time, XAxis::Events, XAxis::Instructions})
        if (markX(previous, axis) <= markX(next, axis)) bits |= axisBit(axis);
    return bits;
}

}  // namespace memlog::timeline

// The reader's side of a full trace's stream (memlog/format_trace.hpp): the blocks the stream
// declared, each op's last address, its next sequence number, time and instruction count, and
// the run being read, which gives one access at a time. Its memory grows with the blocks of
// code the thread ran, not with the accesses.
#pragma once

#include <cstdint>
#include <vector>

#include "memlog/format.hpp"

namespace memlog::timeline {

class TraceDecoder {
public:
    // A TraceBlock, TraceRun or TraceEnd record after `tag`, at *cursor: false, with nothing
    // changed, when it does not decode or names what the stream never declared.
    bool record(uint8_t tag, const uint8_t** cursor, const uint8_t* end);

    // Whether the run read last has ops left: their addresses come next in the stream.
    bool inRun() const { return m_op < m_reached; }

    enum class Step { Access, RunEnded, Damaged };
    // The run's next access into `access` (Access); RunEnded when its last ops made none (guarded
    // ops whose condition did not hold); Damaged when the bytes do not decode.
    Step next(const uint8_t** cursor, const uint8_t* end, format::AccessRecord& access);

    // The stream's last record so far was TraceEnd: the thread's trace ended cleanly.
    bool ended() const { return m_ended; }

private:
    struct Block {
        std::vector<format::TraceOp> m_ops;
        std::vector<uint64_t> m_last;  // each op's last address
        uint64_t m_next = 0;           // the block that followed it last time (its id), and
        uint64_t m_nextStart = 0;      // the instructions from its start to that block's
    };
    bool block(const uint8_t** cursor, const uint8_t* end);
    bool run(uint8_t tag, const uint8_t** cursor, const uint8_t* end);

    std::vector<Block> m_blocks;  // by id - 1
    uint64_t m_nextSeq = 0;
    uint64_t m_tsc = 0;
    uint64_t m_instructions = 0;  // the thread's count at the current run's start
    uint64_t m_lastBlock = 0;     // the id of the last run's block (0: none yet)
    bool m_ended = false;
    // The run being read.
    Block* m_run = nullptr;
    uint32_t m_op = 0;
    uint32_t m_reached = 0;
    bool m_hold = false;
};

}  // namespace memlog::timeline

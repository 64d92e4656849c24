// Memory accesses to draw over the blocks: where and when a sampled read or write touched the
// heap. The picture takes them as a plain list, which buildBlockModel fills from the log's
// access samples (LogReader::forEachRecord); a log recorded without sampling has none.
#pragma once

#include <cstdint>
#include <vector>

namespace memlog::timeline {

struct AccessMark {
    uint64_t m_seq = 0;       // the sample's place in the global order (x with --x events)
    uint64_t m_timeNs = 0;    // since the recording started
    uint64_t m_addr = 0;      // the watched word the access touched
    uint64_t m_blockSeq = 0;  // the block it fell in: its Block::beginSeq() (a realloc's new
                              // block begins at the call's second sequence number)
    uint32_t m_tid = 0;
    bool m_write = false;     // a write (else a read)
    uint32_t m_stack = 0;     // of the accessing code; 0 = none
};

}  // namespace memlog::timeline

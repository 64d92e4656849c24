// Memory accesses to draw over the blocks: where and when a sampled read or write touched the
// heap. The picture takes them as a plain list; today's log format has no access records, so
// the list read from a log is empty until the access sampler (issue 4) writes them.
#pragma once

#include <cstdint>
#include <vector>

namespace memlog::timeline {

class LogReader;

struct AccessMark {
    uint64_t m_seq = 0;       // the sample's place in the global order (x with --x events)
    uint64_t m_timeNs = 0;    // since the recording started
    uint64_t m_addr = 0;      // the byte touched
    uint64_t m_blockSeq = 0;  // the block it fell in: its Block::beginSeq() (a realloc's new
                              // block begins at the call's second sequence number)
    uint32_t m_tid = 0;
    bool m_write = false;     // a write (else a read)
};

// The access samples of a log that has been walked (LogReader::forEachEvent), as marks.
// Not wired yet: the format carries no access samples, so this returns nothing. When issue 4
// lands, it converts the reader's timeline::AccessSample (m_seq, m_timeNs, m_tid, m_addr,
// m_blockSeq, m_write) one for one; buildBlockModel already calls it.
std::vector<AccessMark> accessMarksFromLog(const LogReader& reader);

}  // namespace memlog::timeline

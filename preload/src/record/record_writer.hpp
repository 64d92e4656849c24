// Appending records to the calling thread's chunk. A record is written in two steps: reserve
// room (opening a new chunk when this one is full), encode the payload, then commit, which
// stores the tag byte last so that a reader never sees half a record.
#pragma once

#include <cstdint>

#include "memlog/format.hpp"
#include "record/thread_state.hpp"

namespace memlog::preload {

class LogFile;

void attachWriter(LogFile* file);  // nullptr: recording off

// A new chunk for a record of at most `maxBytes`, or nullptr (counted as lost). Out of line.
uint8_t* beginRecordInNewChunk(ThreadState& thread, uint32_t maxBytes);

// Room for a record of at most `maxBytes`, or nullptr (the event is counted as lost). Inline:
// thousands of records fit in a chunk, and a call per record was a tenth of a stackless event.
inline uint8_t* beginRecord(ThreadState& thread, uint32_t maxBytes) {
    const ThreadState::Writer& writer = thread.m_writer;
    if (static_cast<uint32_t>(writer.m_limit - writer.m_cursor) >= maxBytes && writer.m_cursor) [[likely]]
        return writer.m_cursor;
    return beginRecordInNewChunk(thread, maxBytes);
}
// The same for a record that is no event of the program (stack, module map, module, thread end,
// thread stack): a failure is counted apart, so that recorded + lost events = the program's events.
uint8_t* beginMetaRecord(ThreadState& thread, uint32_t maxBytes);

// `tag`: the kind, and for a heap record the flags of the fields it leaves out.
inline void commitRecord(ThreadState& thread, uint8_t* start, uint8_t* end, uint8_t tag) {
    __atomic_store_n(start, tag, __ATOMIC_RELEASE);
    thread.m_writer.m_cursor = end;
}
inline void commitRecord(ThreadState& thread, uint8_t* start, uint8_t* end, format::Kind kind) {
    commitRecord(thread, start, end, static_cast<uint8_t>(kind));
}

void countLostEvent();
// One more in a counter of the log's header (nothing while no log is attached).
void countInHeader(uint64_t format::FileHeader::*counter);

}  // namespace memlog::preload

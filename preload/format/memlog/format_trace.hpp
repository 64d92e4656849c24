// The byte layout of a full trace as memlog's Valgrind tool writes it (preload/trace_tool/): per
// thread, the memory operations of each code block once, then per executed block its run: the
// block, the instructions since the last run and one delta-coded address per operation. Part of
// the format of memlog/format.hpp (version 5), which includes this header at its end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "memlog/format.hpp"

namespace memlog::format {

// ---------------------------------------------------------------------------------------------
// Trace streams
//
// The tool writes each thread's accesses into chunks of their own (ChunkHeader::m_reserved =
// kTraceStream, m_tid = the thread's OS id) in the same file as the recorder, reserving them at
// the file's tail like the recorder's threads. Unlike the recorder's chunks, a trace stream's
// state runs on from chunk to chunk: its blocks, the last address of each operation, its next
// sequence number, time and instruction count. The tool writes a chunk whole, once it is full
// (64 KiB) or when the process, the thread or the log ends; so a trace killed with SIGKILL keeps
// every chunk written before it, each whole, and loses what its threads had not yet written.
// A reader recovers as for every chunk (a record cut by the file's end is a torn tail); a stream
// that stops without its TraceEnd record was cut short (the process killed): its reader says so,
// with the offset where the stream stops.
//
// Records (kinds of format.hpp):
//
// TraceBlock: the memory operations of a block of code (a Valgrind superblock), before its first
// run in the stream.
//   id        varint   1 for the stream's first block, then one more each time
//   ops       varint   1..kMaxTraceOps operations, in the order the block makes them
//   per op:
//     ip      zigzag   the instruction's address minus the previous op's (the first: minus 0)
//     what    varint   bits 0-1 AccessKind, bit 2 guarded (made only when a condition holds: an
//                      AVX masked store's lanes), bits 3 up: bytes accessed
//     index   varint   the instruction's place in the block (counted from 0) minus the
//                      previous op's
//
// TraceRun: one execution of a block. Tag flags: kTraceRunReached, kTraceRunSeq, kTraceRunTime.
//   block     varint   the block's id in this stream
//   start     varint   the instructions the thread ran since the previous run's start (before
//                      its first run: since it began)
//   seq       varint   (kTraceRunSeq) (the first access's sequence number minus the stream's
//                      next one) << 1 | hold; without the flag: the stream's next one, no hold
//   tsc       zigzag   (kTraceRunTime) the time of this run and those after it, minus the
//                      stream's time
//   reached   varint   (kTraceRunReached) how many of the block's ops ran: it left the block by
//                      a side exit; without the flag every op ran
//   per op reached, in order:
//     address zigzag(address - the op's last address in this stream) for a plain op; a guarded
//             one: 0 when its condition did not hold (no access), else that value plus 1
//
// An access's sequence number is the run's first one plus the accesses made before it in the
// run (hold: the first one for all: the tool ran out of numbers between two heap events); the
// stream's next number is one past the run's last access. Its instruction count is the
// thread's count at the run's start plus the op's index plus one: the accessing instruction is
// that many instructions into the thread. Its time is the stream's.
//
// TraceRunPredicted: a TraceRun without its block and start: the block that followed the
// previous run's block the last time it ran, this many instructions after it as then (a loop,
// a call returning where it did). Both kinds move the prediction on: the block of each run is
// the next prediction for the block of the run before it, with its start. About four runs in
// five of sqlite3's and python3's are predicted, which saves three bytes each.
//
// TraceEnd: no payload: the thread's trace ends here (the thread, the process or the image
// ended). More records may follow it (an exec that failed).
// ---------------------------------------------------------------------------------------------

inline constexpr uint8_t kTraceRunReached = 0x20;
inline constexpr uint8_t kTraceRunSeq = 0x40;
inline constexpr uint8_t kTraceRunTime = 0x80;
inline constexpr uint32_t kMaxTraceOps = 4096;

struct TraceOp {
    uint64_t m_ip = 0;
    uint32_t m_size = 0;
    AccessKind m_kind = AccessKind::Read;
    bool m_guarded = false;
    uint32_t m_index = 0;  // the instruction's place in its block
};

inline constexpr uint32_t traceBlockMaxBytes(uint32_t ops) { return 1 + 2 * 10 + ops * 30; }

// A TraceBlock record's payload after out[0]: its head, then each op against the one before it.
inline uint8_t* encodeTraceBlockHead(uint8_t* out, uint64_t id, uint32_t count) {
    return putVarint(putVarint(out + 1, id), count);
}
inline uint8_t* encodeTraceOp(uint8_t* p, const TraceOp& op, const TraceOp& previous) {
    p = putSigned(p, static_cast<int64_t>(op.m_ip - previous.m_ip));
    p = putVarint(p, static_cast<uint64_t>(op.m_kind) | (op.m_guarded ? 4u : 0u) | (static_cast<uint64_t>(op.m_size) << 3));
    return putVarint(p, op.m_index - previous.m_index);
}
inline uint8_t* encodeTraceBlockPayload(uint8_t* out, uint64_t id, const TraceOp* ops, uint32_t count) {
    uint8_t* p = encodeTraceBlockHead(out, id, count);
    TraceOp previous;
    for (uint32_t i = 0; i < count; ++i) {
        p = encodeTraceOp(p, ops[i], previous);
        previous = ops[i];
    }
    return p;
}

// The head of a TraceBlock record; its ops follow, each read by decodeTraceOp.
inline bool decodeTraceBlockHead(const uint8_t** cursor, const uint8_t* end, uint64_t* id, uint32_t* count) {
    uint64_t ops;
    if (!getVarint(cursor, end, id) || !getVarint(cursor, end, &ops) || ops == 0 || ops > kMaxTraceOps) return false;
    *count = static_cast<uint32_t>(ops);
    return true;
}

// One op of a TraceBlock record; `previous` is the op before it (a default TraceOp for the first).
inline bool decodeTraceOp(const uint8_t** cursor, const uint8_t* end, const TraceOp& previous, TraceOp& op) {
    uint64_t ipDelta, what, indexDelta;
    if (!getVarint(cursor, end, &ipDelta) || !getVarint(cursor, end, &what) || !getVarint(cursor, end, &indexDelta))
        return false;
    const uint64_t size = what >> 3;
    if ((what & 3) == 0 || size == 0 || size > (1u << 20) || indexDelta > kMaxTraceOps) return false;
    op.m_ip = previous.m_ip + static_cast<uint64_t>(unzigzag(ipDelta));
    op.m_kind = static_cast<AccessKind>(what & 3);
    op.m_guarded = what & 4;
    op.m_size = static_cast<uint32_t>(size);
    op.m_index = previous.m_index + static_cast<uint32_t>(indexDelta);
    return true;
}

// A TraceRun or TraceRunPredicted record's fields before its addresses (the second has no
// block and start: the stream's prediction gives them).
struct TraceRunHead {
    uint64_t m_block = 0;
    uint64_t m_start = 0;     // instructions since the previous run's start
    uint64_t m_seqDelta = 0;  // kTraceRunSeq
    bool m_hold = false;      // kTraceRunSeq
    int64_t m_tscDelta = 0;   // kTraceRunTime
    uint64_t m_reached = 0;   // kTraceRunReached
};
inline constexpr uint32_t kMaxTraceRunHeadBytes = 1 + 5 * 10;

inline constexpr bool isTraceKind(uint8_t kind) {
    return kind >= static_cast<uint8_t>(Kind::TraceBlock) && kind <= static_cast<uint8_t>(Kind::TraceRunPredicted);
}
inline constexpr bool predictedRun(uint8_t tag) {
    return (tag & kKindMask) == static_cast<uint8_t>(Kind::TraceRunPredicted);
}

// Writes the head after out[0] as `tag`'s kind and flags say; the tag goes in last (commit).
inline uint8_t* encodeTraceRunHead(uint8_t* out, uint8_t tag, const TraceRunHead& head) {
    uint8_t* p = out + 1;
    if (!predictedRun(tag)) {
        p = putVarint(p, head.m_block);
        p = putVarint(p, head.m_start);
    }
    if (tag & kTraceRunSeq) p = putVarint(p, head.m_seqDelta << 1 | (head.m_hold ? 1 : 0));
    if (tag & kTraceRunTime) p = putSigned(p, head.m_tscDelta);
    if (tag & kTraceRunReached) p = putVarint(p, head.m_reached);
    return p;
}

inline bool decodeTraceRunHead(const uint8_t** cursor, const uint8_t* end, uint8_t tag, TraceRunHead& head) {
    head = TraceRunHead{};
    uint64_t value;
    if (!predictedRun(tag) && (!getVarint(cursor, end, &head.m_block) || !getVarint(cursor, end, &head.m_start)))
        return false;
    if (tag & kTraceRunSeq) {
        if (!getVarint(cursor, end, &value)) return false;
        head.m_seqDelta = value >> 1;
        head.m_hold = value & 1;
    }
    if (tag & kTraceRunTime) {
        if (!getVarint(cursor, end, &value)) return false;
        head.m_tscDelta = unzigzag(value);
    }
    return !(tag & kTraceRunReached) || getVarint(cursor, end, &head.m_reached);
}

// An op's address in a run; `last` is the op's last address in the stream, moved on when done.
inline uint8_t* encodeTraceAddress(uint8_t* out, uint64_t address, uint64_t& last) {
    out = putVarint(out, zigzag(static_cast<int64_t>(address - last)));
    last = address;
    return out;
}
inline uint8_t* encodeGuardedTraceAddress(uint8_t* out, bool done, uint64_t address, uint64_t& last) {
    if (!done) {
        *out = 0;
        return out + 1;
    }
    out = putVarint(out, zigzag(static_cast<int64_t>(address - last)) + 1);
    last = address;
    return out;
}

// The address of op `op` at `cursor`: true with `done` false for a guarded op that made no access.
inline bool decodeTraceAddress(const uint8_t** cursor, const uint8_t* end, const TraceOp& op, uint64_t& last,
                               bool* done) {
    uint64_t code;
    if (!getVarint(cursor, end, &code)) return false;
    if (op.m_guarded) {
        *done = code != 0;
        if (!*done) return true;
        --code;
    } else {
        *done = true;
    }
    last += static_cast<uint64_t>(unzigzag(code));
    return true;
}

// The most bytes one address takes.
inline constexpr uint32_t kMaxTraceAddressBytes = 10;

}  // namespace memlog::format

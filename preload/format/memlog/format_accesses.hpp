// The byte layout of the records of what a program touched and said of itself: sampled or traced
// memory accesses, the ranges of thread stacks, and annotations (memlog.h). Part of the format of
// memlog/format.hpp, which includes this header at its end; either can be included first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "memlog/format.hpp"

namespace memlog::format {

// Access record: one sampled memory access. It takes a sequence number from the same counter as
// the heap events, so it sits between them in the global order: a reader finds the block live at
// its address at that moment (version 3), or takes the block the record names (version 2).
//
// Version 3:
//   seq       varint   minus the previous record's in this chunk
//   tsc       zigzag   minus the previous record's in this chunk
//   addr      zigzag   the first byte accessed, minus the previous record's address in this chunk
//   flags     varint   bits 0-1: AccessKind; bits 2-3: AccessSource; bit 4: ip is the instruction
//                      after the access (a watchpoint's trap), else the accessing instruction;
//                      bit 5: taken inside the allocator (malloc, free: its own bookkeeping);
//                      bit 6: an armedBy field follows the stack
//   size      varint   bytes accessed (one element of a rep string instruction)
//   ip        zigzag   minus the previous access record's ip in this chunk
//   stack     varint   call stack of the accessing code (its callers); 0 = none
//   armedBy   varint   (bit 6) a watchpoint's trap: seq minus the seq of the sample that armed it
//
// Version 2 (hardware watchpoints that never shipped; read, never written):
//   seq, tsc, addr as above; block varint (seq minus the block's first sequence number); offset
//   varint; flags varint (bit 0 write, bits 1-4 bytes watched: 1, 2, 4 or 8); ip varint (the
//   instruction after the access); stack varint.
enum class AccessKind : uint8_t { Read = 1, Write = 2, ReadWrite = 3 };
enum class AccessSource : uint8_t { Tick = 0, Watchpoint = 1, Trace = 2 };

inline constexpr const char* accessKindName(AccessKind kind) {
    return kind == AccessKind::Write ? "write" : kind == AccessKind::ReadWrite ? "readwrite" : "read";
}
inline constexpr const char* accessSourceName(AccessSource source) {
    return source == AccessSource::Watchpoint ? "watchpoint" : source == AccessSource::Trace ? "trace" : "tick";
}
inline constexpr bool writes(AccessKind kind) { return static_cast<uint8_t>(kind) & 2; }
inline constexpr bool reads(AccessKind kind) { return static_cast<uint8_t>(kind) & 1; }

struct AccessRecord {
    uint64_t m_seq = 0;
    uint64_t m_tsc = 0;
    uint64_t m_addr = 0;
    uint64_t m_size = 0;
    AccessKind m_kind = AccessKind::Read;
    AccessSource m_source = AccessSource::Tick;
    bool m_ipAfter = false;      // m_ip is the instruction after the access
    bool m_inAllocator = false;  // taken inside malloc, free and the like
    uint64_t m_ip = 0;
    uint64_t m_stack = 0;
    uint64_t m_armedBy = 0;      // a watchpoint's trap: the sequence number of the sample that armed it
    // Version 2 only: the block the recorder named (its first sequence number; 0: not named).
    uint64_t m_blockSeq = 0;
    uint64_t m_offset = 0;
    // A full trace's (format_trace.hpp): the accessing thread's instructions up to and including
    // the accessing one; 0 for the records of this header, which do not carry it.
    uint64_t m_instructions = 0;
};
inline constexpr uint32_t kMaxAccessRecordBytes = 1 + 8 * 10;
inline constexpr uint64_t kMaxAccessBytes = 64 * 1024;  // one access's bytes, at the most

// What the next record of the chunk is a delta from: the encoder and the decoder both keep it.
inline void rememberAccess(ChunkCursorState& state, const AccessRecord& record) {
    state.m_seq = record.m_seq;
    state.m_tsc = record.m_tsc;
    state.m_addr = record.m_addr;
    state.m_ip = record.m_ip;
}

inline uint8_t* encodeAccessPayload(uint8_t* out, const AccessRecord& record, ChunkCursorState& state) {
    uint8_t* p = putVarint(out + 1, record.m_seq - state.m_seq);
    p = putSigned(p, static_cast<int64_t>(record.m_tsc - state.m_tsc));
    p = putSigned(p, static_cast<int64_t>(record.m_addr - state.m_addr));
    const bool armed = record.m_armedBy != 0;
    p = putVarint(p, static_cast<uint64_t>(record.m_kind) | (static_cast<uint64_t>(record.m_source) << 2) |
                         (record.m_ipAfter ? 16u : 0u) | (record.m_inAllocator ? 32u : 0u) | (armed ? 64u : 0u));
    p = putVarint(p, record.m_size);
    p = putSigned(p, static_cast<int64_t>(record.m_ip - state.m_ip));
    p = putVarint(p, record.m_stack);
    if (armed) p = putVarint(p, record.m_seq - record.m_armedBy);
    rememberAccess(state, record);
    return p;
}

inline bool decodeAccessPayload(const uint8_t** cursor, const uint8_t* end, AccessRecord& record,
                                ChunkCursorState& state) {
    uint64_t seqDelta, tscDelta, addrDelta, flags, ipDelta;
    if (!getVarint(cursor, end, &seqDelta) || !getVarint(cursor, end, &tscDelta) ||
        !getVarint(cursor, end, &addrDelta) || !getVarint(cursor, end, &flags) ||
        !getVarint(cursor, end, &record.m_size) || !getVarint(cursor, end, &ipDelta) ||
        !getVarint(cursor, end, &record.m_stack))
        return false;
    // A kind of 0, a source beyond Trace or unknown flag bits: not a record this reader wrote.
    // Nor a size no instruction touches (an xsave area, the largest, is a few KiB): a damaged
    // size would otherwise cost the readers work in proportion to it (the bytes touched).
    if ((flags & 3) == 0 || ((flags >> 2) & 3) == 3 || flags >> 7 || record.m_size == 0 ||
        record.m_size > kMaxAccessBytes)
        return false;
    record.m_seq = state.m_seq + seqDelta;
    uint64_t armedDistance = 0;
    if ((flags & 64) && (!getVarint(cursor, end, &armedDistance) || armedDistance == 0 || armedDistance > record.m_seq))
        return false;  // a trap comes after the sample that armed it
    record.m_armedBy = armedDistance ? record.m_seq - armedDistance : 0;
    record.m_inAllocator = flags & 32;
    record.m_tsc = state.m_tsc + static_cast<uint64_t>(unzigzag(tscDelta));
    record.m_addr = state.m_addr + static_cast<uint64_t>(unzigzag(addrDelta));
    record.m_kind = static_cast<AccessKind>(flags & 3);
    record.m_source = static_cast<AccessSource>((flags >> 2) & 3);
    record.m_ipAfter = flags & 16;
    record.m_ip = state.m_ip + static_cast<uint64_t>(unzigzag(ipDelta));
    record.m_blockSeq = 0;
    record.m_offset = 0;
    record.m_instructions = 0;
    rememberAccess(state, record);
    return true;
}

inline bool decodeAccessPayloadVersion2(const uint8_t** cursor, const uint8_t* end, AccessRecord& record,
                                        ChunkCursorState& state) {
    uint64_t seqDelta, tscDelta, addrDelta, blockDistance, flags;
    if (!getVarint(cursor, end, &seqDelta) || !getVarint(cursor, end, &tscDelta) ||
        !getVarint(cursor, end, &addrDelta) || !getVarint(cursor, end, &blockDistance) ||
        !getVarint(cursor, end, &record.m_offset) || !getVarint(cursor, end, &flags) ||
        !getVarint(cursor, end, &record.m_ip) || !getVarint(cursor, end, &record.m_stack))
        return false;
    record.m_seq = state.m_seq + seqDelta;
    record.m_tsc = state.m_tsc + static_cast<uint64_t>(unzigzag(tscDelta));
    record.m_addr = state.m_addr + static_cast<uint64_t>(unzigzag(addrDelta));
    record.m_kind = (flags & 1) ? AccessKind::Write : AccessKind::Read;
    record.m_source = AccessSource::Watchpoint;
    record.m_ipAfter = true;
    record.m_inAllocator = false;
    record.m_armedBy = 0;
    record.m_size = flags >> 1;
    // A block begins before its samples; a watched word is 1, 2, 4 or 8 bytes.
    if (blockDistance == 0 || blockDistance > record.m_seq || flags >> 5 || record.m_size == 0 ||
        (record.m_size & (record.m_size - 1)))
        return false;
    record.m_blockSeq = record.m_seq - blockDistance;
    record.m_instructions = 0;
    state.m_seq = record.m_seq;
    state.m_tsc = record.m_tsc;
    state.m_addr = record.m_addr;
    return true;
}

// The version 2 encoder, kept for the tests that check version 2 logs are still read.
inline uint8_t* encodeAccessPayloadVersion2(uint8_t* out, const AccessRecord& record, ChunkCursorState& state) {
    uint8_t* p = putVarint(out + 1, record.m_seq - state.m_seq);
    p = putSigned(p, static_cast<int64_t>(record.m_tsc - state.m_tsc));
    p = putSigned(p, static_cast<int64_t>(record.m_addr - state.m_addr));
    p = putVarint(p, record.m_seq - record.m_blockSeq);
    p = putVarint(p, record.m_offset);
    p = putVarint(p, (writes(record.m_kind) ? 1u : 0u) | ((record.m_size & 0xf) << 1));
    p = putVarint(p, record.m_ip);
    p = putVarint(p, record.m_stack);
    state.m_seq = record.m_seq;
    state.m_tsc = record.m_tsc;
    state.m_addr = record.m_addr;
    return p;
}

// ThreadStack record: where the writing thread's stack lies, so that a reader can tell stack
// accesses apart. Written once per thread, before its first access sample.
inline uint8_t* encodeRangePayload(uint8_t* out, uint64_t lo, uint64_t hi) {
    return putVarint(putVarint(out + 1, lo), hi);
}
inline bool decodeRangePayload(const uint8_t** cursor, const uint8_t* end, uint64_t* lo, uint64_t* hi) {
    return getVarint(cursor, end, lo) && getVarint(cursor, end, hi) && *lo < *hi;
}

// Annotation record: what the program said of itself through memlog.h, at its place in the
// sequence (after the block it names began).
//
//   seq       varint   minus the previous record's in this chunk
//   tsc       zigzag   minus the previous record's in this chunk
//   what      varint   AnnotationKind
//   addr      varint   Name, ArrayShape: an address inside the block (0 for Phase)
//   Name, Phase:  length varint, then that many bytes of text (at most kMaxAnnotationText)
//   ArrayShape:   element size, rows, columns, depth: four varints (depth 1 for a 2-D array)
enum class AnnotationKind : uint8_t { Name = 1, ArrayShape = 2, Phase = 3 };
inline constexpr uint32_t kMaxAnnotationText = 255;
inline constexpr uint32_t kMaxAnnotationRecordBytes = 1 + 4 * 10 + 10 + kMaxAnnotationText;

struct AnnotationRecord {
    uint64_t m_seq = 0;
    uint64_t m_tsc = 0;
    AnnotationKind m_what = AnnotationKind::Phase;
    uint64_t m_addr = 0;
    const char* m_text = nullptr;  // Name, Phase; not NUL-terminated when decoded
    uint32_t m_textBytes = 0;
    uint64_t m_elementSize = 0, m_rows = 0, m_columns = 0, m_depth = 0;  // ArrayShape
};

inline uint8_t* encodeAnnotationPayload(uint8_t* out, const AnnotationRecord& record, ChunkCursorState& state) {
    uint8_t* p = putVarint(out + 1, record.m_seq - state.m_seq);
    p = putSigned(p, static_cast<int64_t>(record.m_tsc - state.m_tsc));
    p = putVarint(p, static_cast<uint64_t>(record.m_what));
    p = putVarint(p, record.m_addr);
    if (record.m_what == AnnotationKind::ArrayShape) {
        p = putVarint(p, record.m_elementSize);
        p = putVarint(p, record.m_rows);
        p = putVarint(p, record.m_columns);
        p = putVarint(p, record.m_depth);
    } else {
        const uint32_t bytes = record.m_textBytes < kMaxAnnotationText ? record.m_textBytes : kMaxAnnotationText;
        p = putVarint(p, bytes);
        if (bytes) std::memcpy(p, record.m_text, bytes);  // m_text may be null for no text
        p += bytes;
    }
    state.m_seq = record.m_seq;
    state.m_tsc = record.m_tsc;
    return p;
}

inline bool decodeAnnotationPayload(const uint8_t** cursor, const uint8_t* end, AnnotationRecord& record,
                                    ChunkCursorState& state) {
    uint64_t seqDelta, tscDelta, what, bytes;
    if (!getVarint(cursor, end, &seqDelta) || !getVarint(cursor, end, &tscDelta) || !getVarint(cursor, end, &what) ||
        !getVarint(cursor, end, &record.m_addr) || what < 1 || what > 3)
        return false;
    record.m_what = static_cast<AnnotationKind>(what);
    if (record.m_what == AnnotationKind::ArrayShape) {
        if (!getVarint(cursor, end, &record.m_elementSize) || !getVarint(cursor, end, &record.m_rows) ||
            !getVarint(cursor, end, &record.m_columns) || !getVarint(cursor, end, &record.m_depth))
            return false;
    } else {
        if (!getVarint(cursor, end, &bytes) || bytes > kMaxAnnotationText || static_cast<uint64_t>(end - *cursor) < bytes)
            return false;
        record.m_text = reinterpret_cast<const char*>(*cursor);
        record.m_textBytes = static_cast<uint32_t>(bytes);
        *cursor += bytes;
    }
    state.m_seq += seqDelta;
    state.m_tsc += static_cast<uint64_t>(unzigzag(tscDelta));
    record.m_seq = state.m_seq;
    record.m_tsc = state.m_tsc;
    return true;
}

}  // namespace memlog::format

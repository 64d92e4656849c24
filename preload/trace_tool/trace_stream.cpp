// The trace streams: per thread, each executed block's run encoded as memlog/format_trace.hpp
// lays it out, into a 64 KiB chunk written whole into the log when full. Valgrind runs one
// thread at a time, so one run is open at a time and every global here is the running thread's.
// Cost: a call per block with operations (memlog_run_open) and per access (memlog_op: a varint).
//
// Built freestanding (no libc, no libstdc++): no allocation but tool_alloc, no static
// constructors, memcpy/memset from Valgrind's core.
#include "memlog/format.hpp"

extern "C" {
#include "tool.h"

// The open run's cursor, its ops' last addresses and its guarded ops that made no access: the
// per-access helpers move them on.
uint8_t* memlog_out;
uint64_t* memlog_last;
uint64_t memlog_skipped;
uint64_t memlog_icount;
}

namespace {

using memlog::format::ChunkHeader;
using memlog::format::TraceOp;
using memlog::format::TraceRunHead;

constexpr uint32_t kChunkBytes = 64 * 1024;
constexpr uint64_t kTailFlag = 1ull << 63;  // the recorder's, in the log's tail word
// Room a run needs before it opens: its head, the reached count, an address per op.
constexpr uint32_t runRoom(uint32_t ops) {
    return memlog::format::kMaxTraceRunHeadBytes + 10 + ops * memlog::format::kMaxTraceAddressBytes;
}

// A block as one stream has declared it, with each op's last address in that stream.
struct StreamBlock {
    const memlog_block* m_block;
    uint32_t m_id;
    // The block that followed this one last time, and the instructions from this one's start to
    // its: a run that repeats both is written as TraceRunPredicted.
    StreamBlock* m_next;
    uint64_t m_nextStart;
    uint64_t m_last[];
};

struct Stream {
    uint64_t m_serial;  // never reused: the blocks' cache tells streams apart by it
    uint32_t m_osTid;
    bool m_quiet;  // inside the recorder or the allocator (MEMLOG_TRACE_QUIET)
    uint8_t* m_buffer;  // kChunkBytes, zero past m_cursor; [0, 16) the chunk header
    uint8_t* m_cursor;
    uint64_t m_chunkAccesses;  // accesses in the buffer, lost if it cannot be written
    // What the reader will know at the end of the buffer (format_trace.hpp).
    uint64_t m_nextSeq;
    uint64_t m_tsc;
    uint64_t m_instructions;
    uint32_t m_blocks;
    StreamBlock* m_lastBlock;  // the last run's
    uint64_t m_icount;  // the thread's instructions while another thread runs
    StreamBlock** m_table;  // open addressing by block pointer
    uint32_t m_capacity;
    uint32_t m_count;
};

// The run open now: its record's start, where its addresses begin, and what closing it needs.
struct OpenRun {
    bool m_active;
    bool m_recording;  // false: a quiet thread's or one before the log: counted as left out
    bool m_hold;
    uint8_t m_tag;
    Stream* m_stream;
    const memlog_block* m_block;
    uint8_t* m_start;
    uint8_t* m_headEnd;
    uint64_t* m_lastBase;
    uint64_t m_firstSeq;
    // To take back an empty run: the stream's state before it, and its prediction.
    uint64_t m_previousInstructions, m_previousTsc, m_previousSeq;
    StreamBlock* m_previousLastBlock;
    StreamBlock* m_previousNext;
    uint64_t m_previousNextStart;
};

Stream* s_streams[MEMLOG_MAX_THREADS];
Stream* s_current;
uint64_t s_nextSerial = 1;
bool s_countOnly;
bool s_logKnown;  // a log was announced (MEMLOG_TRACE_LOG): accesses from here are recorded
int s_fd = -1;
uint64_t* s_tail;
uint64_t s_eventSeq, s_seqNext, s_seqCap;  // numbers for the accesses after the last event
uint64_t s_time;
constexpr uint32_t kRunsPerClock = 4;
constexpr uint64_t kTicksPerStep = 8192;  // about 3 us at this machine's 2.5-3 GHz TSC
uint32_t s_runsSinceTime;
OpenRun s_run;
// Per log: accesses written, left out (the recorder's and the allocator's brackets), lost.
uint64_t s_recorded, s_leftOut, s_lost;
uint64_t s_counts[4];  // the counting build's: [0] left out, then by AccessKind
// Where runs of quiet threads go: written, never read.
alignas(64) uint8_t s_scratch[runRoom(MEMLOG_MAX_BLOCK_OPS)];
uint64_t s_scratchLast[MEMLOG_MAX_BLOCK_OPS];

uint64_t readTsc() {
    uint32_t lo, hi;
    asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return uint64_t{hi} << 32 | lo;
}

void noteTime(uint64_t tsc) {
    if (tsc > s_time) s_time = tsc;
}

// Writes the buffer as one chunk at the log's tail, the smallest power of two pages that holds
// it: a flush at the end of a thread leaves no 64 KiB of zeros.
void flushChunk(Stream& stream) {
    const uint32_t used = static_cast<uint32_t>(stream.m_cursor - stream.m_buffer);
    if (used > sizeof(ChunkHeader)) {
        if (s_fd >= 0) {
            uint32_t bytes = memlog::format::kPageBytes;
            while (bytes < used) bytes <<= 1;
            const ChunkHeader header{memlog::format::kChunkMagic, bytes, stream.m_osTid, memlog::format::kTraceStream};
            memcpy(stream.m_buffer, &header, sizeof header);
            const uint64_t offset = *s_tail & ~kTailFlag;
            *s_tail += bytes;
            if (tool_write_at(s_fd, offset, stream.m_buffer, bytes) != 0) s_lost += stream.m_chunkAccesses;
        }
        memset(stream.m_buffer, 0, used);
    }
    stream.m_cursor = stream.m_buffer + sizeof(ChunkHeader);
    stream.m_chunkAccesses = 0;
    noteTime(readTsc());  // each chunk's first run says the time afresh
}

uint8_t* room(Stream& stream, uint32_t bytes) {
    if (static_cast<uint32_t>(stream.m_buffer + kChunkBytes - stream.m_cursor) < bytes) flushChunk(stream);
    return stream.m_cursor;
}

Stream* newStream(uint32_t tid) {
    auto* stream = static_cast<Stream*>(tool_alloc(sizeof(Stream)));
    stream->m_serial = s_nextSerial++;
    stream->m_osTid = tool_os_tid();
    stream->m_buffer = static_cast<uint8_t*>(tool_alloc(kChunkBytes));
    stream->m_cursor = stream->m_buffer + sizeof(ChunkHeader);
    // The thread's stack, so that readers tell its accesses from other memory even when the
    // recorder never saw the thread (it recorded no event).
    uint64_t lo = 0, hi = 0;
    tool_thread_stack(tid, &lo, &hi);
    if (lo < hi) {
        uint8_t* out = stream->m_cursor;
        stream->m_cursor = memlog::format::encodeRangePayload(out, lo, hi);
        *out = static_cast<uint8_t>(memlog::format::Kind::ThreadStack);
    }
    return stream;
}

void freeStream(Stream* stream) {
    for (uint32_t i = 0; i < stream->m_capacity; ++i)
        if (stream->m_table[i]) tool_free(stream->m_table[i]);
    if (stream->m_table) tool_free(stream->m_table);
    tool_free(stream->m_buffer);
    tool_free(stream);
}

uint32_t slotOf(const memlog_block* block, uint32_t capacity) {
    const auto key = reinterpret_cast<uintptr_t>(block);
    return static_cast<uint32_t>((key >> 4) * 0x9e37'79b9'7f4a'7c15ull >> 32) & (capacity - 1);
}

StreamBlock* findBlock(Stream& stream, memlog_block* block) {
    if (block->stream_serial == stream.m_serial) return static_cast<StreamBlock*>(block->stream_entry);
    if (!stream.m_capacity) return nullptr;
    for (uint32_t slot = slotOf(block, stream.m_capacity);; slot = (slot + 1) & (stream.m_capacity - 1)) {
        StreamBlock* entry = stream.m_table[slot];
        if (!entry) return nullptr;
        if (entry->m_block == block) {
            block->stream_serial = stream.m_serial;
            block->stream_entry = entry;
            return entry;
        }
    }
}

void insertBlock(Stream& stream, StreamBlock* entry) {
    if (4 * (stream.m_count + 1) > 3 * stream.m_capacity) {
        const uint32_t oldCapacity = stream.m_capacity;
        StreamBlock** old = stream.m_table;
        stream.m_capacity = oldCapacity ? 2 * oldCapacity : 256;
        stream.m_table = static_cast<StreamBlock**>(tool_alloc(stream.m_capacity * sizeof(StreamBlock*)));
        stream.m_count = 0;
        for (uint32_t i = 0; i < oldCapacity; ++i)
            if (old[i]) insertBlock(stream, old[i]);
        if (old) tool_free(old);
    }
    uint32_t slot = slotOf(entry->m_block, stream.m_capacity);
    while (stream.m_table[slot]) slot = (slot + 1) & (stream.m_capacity - 1);
    stream.m_table[slot] = entry;
    ++stream.m_count;
}

// The block's TraceBlock record, the first time this stream runs it. The caller made room.
StreamBlock* declareBlock(Stream& stream, memlog_block* block) {
    auto* entry = static_cast<StreamBlock*>(tool_alloc(sizeof(StreamBlock) + block->ops * sizeof(uint64_t)));
    entry->m_block = block;
    entry->m_id = ++stream.m_blocks;
    insertBlock(stream, entry);
    block->stream_serial = stream.m_serial;
    block->stream_entry = entry;
    uint8_t* out = stream.m_cursor;
    uint8_t* p = memlog::format::encodeTraceBlockHead(out, entry->m_id, block->ops);
    TraceOp previous;
    for (uint32_t i = 0; i < block->ops; ++i) {
        TraceOp op;
        op.m_ip = block->op[i].ip;
        op.m_size = block->op[i].size;
        op.m_kind = static_cast<memlog::format::AccessKind>(block->op[i].kind);
        op.m_guarded = block->op[i].guarded;
        op.m_index = block->op[i].index;
        p = memlog::format::encodeTraceOp(p, op, previous);
        previous = op;
    }
    *out = static_cast<uint8_t>(memlog::format::Kind::TraceBlock);
    stream.m_cursor = p;
    return entry;
}

void discardRun(const memlog_block* block) {
    s_run.m_active = true;
    s_run.m_recording = false;
    s_run.m_block = block;
    s_run.m_lastBase = s_scratchLast;
    memlog_out = s_scratch;
    memlog_last = s_scratchLast;
    memlog_skipped = 0;
}

// Ends the open run: its ops that ran are known now. A run that left its block before the first
// op is taken back whole; one that left it later says how far it got.
void closeRun() {
    if (!s_run.m_active) return;
    s_run.m_active = false;
    const auto reached = static_cast<uint32_t>(memlog_last - s_run.m_lastBase);
    const uint64_t done = reached - memlog_skipped;
    if (!s_run.m_recording) {
        s_leftOut += done;
        return;
    }
    Stream& stream = *s_run.m_stream;
    if (reached == 0) {
        memset(s_run.m_start, 0, static_cast<size_t>(memlog_out - s_run.m_start));
        stream.m_instructions = s_run.m_previousInstructions;
        stream.m_tsc = s_run.m_previousTsc;
        stream.m_nextSeq = s_run.m_previousSeq;
        stream.m_lastBlock = s_run.m_previousLastBlock;
        if (StreamBlock* last = s_run.m_previousLastBlock) {
            last->m_next = s_run.m_previousNext;
            last->m_nextStart = s_run.m_previousNextStart;
        }
        return;
    }
    uint8_t tag = s_run.m_tag;
    if (reached < s_run.m_block->ops) {
        uint8_t count[10];
        const auto countBytes = static_cast<size_t>(memlog::format::putVarint(count, reached) - count);
        memmove(s_run.m_headEnd + countBytes, s_run.m_headEnd, static_cast<size_t>(memlog_out - s_run.m_headEnd));
        memcpy(s_run.m_headEnd, count, countBytes);
        memlog_out += countBytes;
        tag |= memlog::format::kTraceRunReached;
    }
    *s_run.m_start = tag;
    stream.m_cursor = memlog_out;
    if (!s_run.m_hold) stream.m_nextSeq = s_seqNext = s_run.m_firstSeq + done;
    stream.m_chunkAccesses += done;
    s_recorded += done;
}

Stream* streamOf(uint32_t tid) {
    if (tid >= MEMLOG_MAX_THREADS) return nullptr;
    if (!s_streams[tid]) s_streams[tid] = newStream(tid);
    return s_streams[tid];
}

void endStream(Stream& stream) {
    uint8_t* out = room(stream, 1);
    *out = static_cast<uint8_t>(memlog::format::Kind::TraceEnd);
    stream.m_cursor = out + 1;
    flushChunk(stream);
}

// The tool's counts in the log's header: written, left out in the recorder's brackets, lost.
void writeCounts() {
    if (s_fd < 0) return;
    constexpr uint64_t counters = offsetof(memlog::format::FileHeader, m_accessCounters);
    tool_write_at(s_fd, counters + offsetof(memlog::format::AccessCounters, m_samples), &s_recorded, 8);
    tool_write_at(s_fd, counters + offsetof(memlog::format::AccessCounters, m_droppedInRecorder), &s_leftOut, 8);
    tool_write_at(s_fd, counters + offsetof(memlog::format::AccessCounters, m_droppedLost), &s_lost, 8);
}

}  // namespace

extern "C" {

void memlog_op(uint64_t address) { memlog_out = memlog::format::encodeTraceAddress(memlog_out, address, *memlog_last++); }

void memlog_op_guarded(uint64_t address, uint64_t done) {
    memlog_out = memlog::format::encodeGuardedTraceAddress(memlog_out, done & 1, address, *memlog_last++);
    memlog_skipped += !(done & 1);
}

void memlog_run_open(memlog_block* block) {
    closeRun();
    Stream* stream = s_current;
    if (!stream || !s_logKnown || stream->m_quiet) {
        discardRun(block);
        return;
    }
    // The clock read every few runs, and taken when it has moved on by a few microseconds: the
    // runs of a stretch where Valgrind translates much new code (start-up) spread over the time
    // it took, and a fast loop's thousand runs share a time, which costs the trace a few bytes
    // a step. A read costs about 10 ns, a run about 20.
    if (++s_runsSinceTime == kRunsPerClock) {
        s_runsSinceTime = 0;
        const uint64_t now = readTsc();
        if (now - s_time >= kTicksPerStep) noteTime(now);
    }
    StreamBlock* entry = findBlock(*stream, block);
    room(*stream, runRoom(block->ops) + (entry ? 0 : memlog::format::traceBlockMaxBytes(block->ops)));
    if (!entry) entry = declareBlock(*stream, block);
    TraceRunHead head;
    head.m_block = entry->m_id;
    s_run.m_previousInstructions = stream->m_instructions;
    s_run.m_previousTsc = stream->m_tsc;
    s_run.m_previousSeq = stream->m_nextSeq;
    head.m_start = memlog_icount - stream->m_instructions;
    stream->m_instructions = memlog_icount;
    StreamBlock* last = stream->m_lastBlock;
    const bool predicted = last && last->m_next == entry && last->m_nextStart == head.m_start;
    uint8_t tag = static_cast<uint8_t>(predicted ? memlog::format::Kind::TraceRunPredicted
                                                 : memlog::format::Kind::TraceRun);
    s_run.m_previousLastBlock = last;
    s_run.m_previousNext = last ? last->m_next : nullptr;
    s_run.m_previousNextStart = last ? last->m_nextStart : 0;
    if (last) {
        last->m_next = entry;
        last->m_nextStart = head.m_start;
    }
    stream->m_lastBlock = entry;
    // Numbers until the next event: the last one (s_seqCap) is kept for runs that find too few
    // left, whose accesses all take it (hold).
    uint64_t first = s_seqNext;
    const bool hold = first + block->ops > s_seqCap;
    if (hold) first = s_seqCap;
    if (first != stream->m_nextSeq || hold) {
        tag |= memlog::format::kTraceRunSeq;
        head.m_seqDelta = first - stream->m_nextSeq;
        head.m_hold = hold;
    }
    if (s_time != stream->m_tsc) {
        tag |= memlog::format::kTraceRunTime;
        head.m_tscDelta = static_cast<int64_t>(s_time - stream->m_tsc);
        stream->m_tsc = s_time;
    }
    if (hold) stream->m_nextSeq = first;
    s_run.m_active = true;
    s_run.m_recording = true;
    s_run.m_hold = hold;
    s_run.m_tag = tag;
    s_run.m_stream = stream;
    s_run.m_block = block;
    s_run.m_start = stream->m_cursor;
    s_run.m_headEnd = memlog::format::encodeTraceRunHead(stream->m_cursor, tag, head);
    s_run.m_lastBase = entry->m_last;
    s_run.m_firstSeq = first;
    memlog_out = s_run.m_headEnd;
    memlog_last = entry->m_last;
    memlog_skipped = 0;
}

// The counting build: what the trace would hold, by kind, and what it would leave out in the
// recorder's brackets; nothing written. Before the log, nothing is counted (nor traced).
void memlog_count_op(uint64_t kind) {
    if (s_current && s_logKnown) ++s_counts[s_current->m_quiet ? 0 : kind];
}

void memlog_count_op_guarded(uint64_t kind, uint64_t done) {
    if (done & 1) memlog_count_op(kind);
}

void trace_setup(int countOnly) { s_countOnly = countOnly != 0; }

void trace_thread_runs(uint32_t tid) {
    Stream* stream = streamOf(tid);
    if (stream == s_current) return;
    closeRun();
    if (s_current) s_current->m_icount = memlog_icount;
    s_current = stream;
    if (stream) memlog_icount = stream->m_icount;
}

void trace_thread_pauses(uint32_t tid) {
    (void)tid;
    closeRun();
}

void trace_thread_exits(uint32_t tid) {
    closeRun();
    if (tid >= MEMLOG_MAX_THREADS || !s_streams[tid]) return;
    Stream* stream = s_streams[tid];
    endStream(*stream);
    if (s_current == stream) s_current = nullptr;
    s_streams[tid] = nullptr;
    freeStream(stream);
}

void trace_log_opened(uint32_t tid, const char* path, uint64_t* tail, uint64_t seq, uint64_t tsc) {
    (void)tid;
    closeRun();
    if (s_fd >= 0) {  // an earlier log of this process: it has everything so far
        trace_flush();
        tool_close(s_fd);
        s_fd = -1;
    }
    s_logKnown = true;
    if (!s_countOnly) {
        s_fd = tool_open_log(path);
        s_tail = tail;
        if (s_fd < 0) tool_warn("memlog: the trace cannot open the recorder's log; accesses are not traced");
    }
    s_eventSeq = seq;
    s_seqNext = seq + 1;
    s_seqCap = seq + memlog::format::kTraceSeqStride - 1;
    noteTime(tsc);
    s_recorded = s_leftOut = s_lost = 0;
}

void trace_quiet(uint32_t tid) {
    closeRun();
    if (Stream* stream = streamOf(tid)) stream->m_quiet = true;
}

void trace_loud(uint32_t tid, uint64_t seq, uint64_t tsc) {
    closeRun();
    if (Stream* stream = streamOf(tid)) stream->m_quiet = false;
    if (seq > s_eventSeq) {
        s_eventSeq = seq;
        s_seqNext = seq + 1;
        s_seqCap = seq + memlog::format::kTraceSeqStride - 1;
        noteTime(tsc);
    }
}

void trace_flush(void) {
    closeRun();
    for (Stream* stream : s_streams)
        if (stream) endStream(*stream);
    writeCounts();
}

// The parent's streams and log stay the parent's: the child forgets them unwritten and waits
// for its own log (its recorder announces it from its fork handler).
void trace_fork_child(uint32_t tid) {
    const uint64_t instructions = memlog_icount;  // the forking thread's: the child's thread goes on
    s_run.m_active = false;
    for (Stream*& stream : s_streams) {
        if (stream) freeStream(stream);
        stream = nullptr;
    }
    s_current = nullptr;
    if (s_fd >= 0) tool_close(s_fd);
    s_fd = -1;
    s_tail = nullptr;
    s_logKnown = false;
    s_recorded = s_leftOut = s_lost = 0;
    for (uint64_t& count : s_counts) count = 0;
    trace_thread_runs(tid);
    memlog_icount = instructions;
}

void trace_fini(uint64_t counts[4]) {
    trace_flush();
    if (s_fd >= 0) tool_close(s_fd);
    s_fd = -1;
    for (int i = 0; i < 4; ++i) counts[i] = s_counts[i];
}

}  // extern "C"

// The byte layout of a .memlog file, shared by the writer (preload/) and every reader (timeline/,
// tests). Header-only, allocation-free and exception-free so the injected library can use it.
// Change the layout only together with kFormatVersion.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "memlog/format_varint.hpp"

namespace memlog::format {

// ---------------------------------------------------------------------------------------------
// File layout
//
//   offset 0      FileHeader (kHeaderBytes, one page)
//   offset 4096   chunk, chunk, chunk ...         every chunk starts on a page boundary
//
// Each thread writes its records into a chunk of its own, reserved with one atomic add on the
// file tail, straight into a MAP_SHARED mapping of the file. There is no buffer in the process:
// a store is in the page cache as soon as it executes, so a crash or kill -9 loses at most the
// record being written. Chunks grow per thread (4 KiB, 16 KiB, then 64 KiB) so that thousands of
// short threads do not leave thousands of mostly empty 64 KiB chunks.
//
//   chunk := ChunkHeader record* 0x00 ...        unused space in a chunk is zero
//   record := tag payload                         tag written last, see below
//
// How a reader recovers from a torn tail (crash, kill -9, a log still being written):
//  - The writer stores a record's payload first and its tag byte last, so a record whose tag is
//    not yet visible reads as 0, the end of that chunk. A reader stops a chunk at tag 0, at an
//    unknown tag, or where a payload would run past the chunk end.
//  - A page whose first bytes are not a valid ChunkHeader is skipped: chunks are page-aligned,
//    and space reserved but not yet written is zero. So a reader walks pages from offset 4096 to
//    the end of the file and never needs FileHeader::m_dataEnd, which is only set at a clean end.
//  - Records carry a global sequence number; readers merge the per-thread chunks by it.
//  - memlog's reader says where it stopped when a record of the file's last chunk runs past the
//    file's end (cut, or damaged) or the file ends inside a chunk (LogReader::whereReadingStopped).
// ---------------------------------------------------------------------------------------------

inline constexpr char kMagic[8] = {'M', 'E', 'M', 'L', 'O', 'G', '\0', '\x1a'};
// 5: full traces from memlog's Valgrind tool: TraceBlock, TraceRun, TraceRunPredicted, TraceEnd
//    (format_trace.hpp).
// 4: a heap record's tag may leave out its sequence delta (1) and its stack (none).
// 3: access samples re-laid for ticks (size, read-write, source; the reader finds the block),
//    thread stack ranges, the sampler's counters. 2: watchpoint samples that named their block.
inline constexpr uint32_t kFormatVersion = 5;
inline constexpr uint32_t kOldestReadableVersion = 2;
inline constexpr uint32_t kHeaderBytes = 4096;
inline constexpr uint32_t kPageBytes = 4096;
inline constexpr uint32_t kChunkMagic = 0x4b43'4c4d;  // "MLCK" little-endian
inline constexpr uint32_t kMaxStackDepth = 256;

// FileHeader::m_flags
enum HeaderFlag : uint32_t {
    kFlagCleanEnd = 1u << 0,   // the recorder reached exit, _exit or exec and wrote the end fields
    kFlagForkChild = 1u << 1,  // this process was forked from m_parentPid while being recorded
    kFlagFreeStacks = 1u << 2, // frees carry call stacks
};

enum class UnwindMode : uint32_t { None = 0, FramePointer = 1, Libunwind = 2 };

// How the process ended, as far as the recorder saw it (FileHeader::m_endReason).
enum class EndReason : uint32_t { Running = 0, Exit = 1, UnderscoreExit = 2, Exec = 3 };

// Whether and how the recorder sampled memory accesses (FileHeader::m_accessSampler). A sampler
// that could not start says why in FileHeader::m_accessStatus.
enum class AccessSampler : uint32_t {
    Off = 0,               // not asked for
    Unavailable = 1,       // asked for, could not run: m_accessStatus says why
    ProcessWide = 2,       // version 2 only: hardware watchpoints inherited by every thread
    PerThread = 3,         // version 2 only: hardware watchpoints opened in each thread
    TickPerfClock = 4,     // CPU-time ticks of perf's task clock (perf_event_open, sigtrap)
    TickThreadTimers = 5,  // CPU-time ticks of a POSIX timer per thread (perf_event_open refused)
    FullTrace = 6,         // not sampled: every access of the run (a full trace, or an imported one)
};

// What the tick sampler did, added up by every thread with atomic adds into the header (a tick
// is rare beside an allocation: a shared cache line costs nothing measurable). A tick ends as
// samples, or as exactly one of the dropped counts.
struct AccessCounters {
    uint64_t m_ticks;               // ticks delivered to the sampler
    uint64_t m_samples;             // Access records written (an instruction may make two)
    uint64_t m_steps;               // single steps taken to reach an instruction that touches memory
    uint64_t m_droppedInRecorder;   // the thread was inside the recorder (or its unwinder)
    uint64_t m_droppedStepping;     // a tick while the thread was still stepping for the last one
    uint64_t m_droppedNoAccess;     // no memory access within the step bound
    uint64_t m_droppedUndecodable;  // an instruction the decoder does not know
    uint64_t m_droppedUnsupported;  // addresses not computed: gathers, scatters, masked vector accesses
    uint64_t m_droppedLost;         // the log had no room for the record
    uint64_t m_passedOver;          // instructions without an access passed over without a step
    uint64_t m_reserved[6];
    uint64_t dropped() const {
        return m_droppedInRecorder + m_droppedStepping + m_droppedNoAccess + m_droppedUndecodable +
               m_droppedUnsupported + m_droppedLost;
    }
};
static_assert(sizeof(AccessCounters) == 128);

// Whether watchpoints followed sampled words (FileHeader::m_watchSampler); where they could not,
// FileHeader::m_watchStatus says why (the probe's reason).
enum class WatchSampler : uint32_t {
    Off = 0,          // not asked for (MEMLOG_WATCH)
    Unavailable = 1,  // asked for, could not run: m_watchStatus says why
    ProcessWide = 2,  // four debug registers, inherited by every thread
};

// What the watchpoints did, added up by every thread with atomic adds into the header.
struct WatchCounters {
    uint64_t m_armed;               // words armed after a tick sample
    uint64_t m_traps;               // accesses caught and written as records
    uint64_t m_ignoredInAllocator;  // caught inside malloc or free (the allocator's own writes)
    uint64_t m_ignoredInRecorder;   // caught inside the recorder
    uint64_t m_stale;               // traps of a watch already retired (another thread's, late)
    uint64_t m_retiredByTime;       // armed words no access reached in time
    uint64_t m_freedWhileWatched;   // blocks freed with a watch in them: the watch stayed on
    uint64_t m_disarmedByAllocation;  // ... until an allocation handed the word out again
    uint64_t m_disarmedByUnmap;     // ... or its memory was unmapped
    uint64_t m_skippedForBudget;    // samples not followed: the traps-per-second budget was spent
    uint64_t m_armFailures;         // the kernel refused to arm a word
    uint64_t m_reserved[5];
};
static_assert(sizeof(WatchCounters) == 128);

#pragma pack(push, 1)
struct FileHeader {
    char m_magic[8];
    uint32_t m_version;
    uint32_t m_headerBytes;
    uint32_t m_flags;
    uint32_t m_pid;
    uint32_t m_parentPid;
    UnwindMode m_unwindMode;
    uint32_t m_stackDepth;
    EndReason m_endReason;
    // Clock: the timestamp of a record is the TSC. tsc_to_ns below converts it with the pair
    // (m_startTsc, m_startNs) and the rate m_tscPerNsQ32 (TSC ticks per ns, 32.32 fixed point),
    // calibrated against CLOCK_MONOTONIC when recording starts. m_startRealtimeNs is wall time.
    uint64_t m_startTsc;
    uint64_t m_startNs;
    uint64_t m_startRealtimeNs;
    uint64_t m_tscPerNsQ32;
    // Written once at a clean end (kFlagCleanEnd), zero before.
    uint64_t m_endTsc;
    uint64_t m_endNs;       // CLOCK_MONOTONIC at the clean end: refines the TSC rate
    uint64_t m_dataEnd;     // file offset one past the last chunk
    uint64_t m_lostEvents;  // the program's events (heap calls, access samples, annotations) the
                            // recorder could not write (file full): recorded + lost = what it did
    AccessSampler m_accessSampler;
    uint32_t m_accessRate;  // ticks per CPU-second per thread (version 2: trapped accesses per second)
    // MEMLOG_UNWIND_CHECK=1: stacks of the incremental unwinder compared with a full
    // unw_backtrace, how many differed, and the stacks it left to the full walk. Zero without
    // the check and in logs written before it (these words were reserved, always zero, so the
    // version did not change).
    uint64_t m_unwindChecked;
    uint64_t m_unwindMismatches;
    uint64_t m_unwindFullWalks;
    // Stack, module map, module, thread-end and thread-stack records the recorder could not write
    // (file full): not the program's events, so apart from m_lostEvents. A reserved word before
    // (zero in older logs): the version did not change.
    uint64_t m_lostMetaRecords;
    uint64_t m_reserved[2];
    char m_exe[1024];      // /proc/self/exe, NUL-terminated
    char m_commandLine[2048];  // argv joined by spaces, cut to fit, NUL-terminated
    char m_accessStatus[256];  // why the sampler is Unavailable, NUL-terminated; else empty
    AccessCounters m_accessCounters;  // version 3; zero in version 2 (the header page is zeroed)
    WatchSampler m_watchSampler;
    uint32_t m_watchRate;       // the budget of traps per second
    char m_watchStatus[256];    // why the watchpoints are Unavailable, NUL-terminated; else empty
    WatchCounters m_watchCounters;
};
#pragma pack(pop)
static_assert(sizeof(FileHeader) <= kHeaderBytes);
static_assert(offsetof(FileHeader, m_exe) == 160);
static_assert(offsetof(FileHeader, m_accessStatus) == 3232);
static_assert(offsetof(FileHeader, m_accessCounters) == 3488);
static_assert(offsetof(FileHeader, m_watchCounters) == 3880);

#pragma pack(push, 1)
struct ChunkHeader {
    uint32_t m_magic;  // kChunkMagic
    uint32_t m_bytes;  // whole chunk, header included; a multiple of kPageBytes
    uint32_t m_tid;    // the thread that owns every record in the chunk
    uint32_t m_reserved;  // 0: the recorder's; kTraceStream: a full trace's accesses, added after the run
};
#pragma pack(pop)
static_assert(sizeof(ChunkHeader) == 16);
// A thread's records come in streams, each in increasing sequence order: the recorder's, and a
// full trace's accesses (format_trace.hpp; before version 5, Access records that memlog run
// --full-trace appended after the run). The reader merges them like threads.
inline constexpr uint32_t kTraceStream = 1;
// In a full trace the recorder's sequence numbers step by this, leaving room for the accesses
// the tool numbers between two events (preload/src/trace/full_trace.hpp, format_trace.hpp).
inline constexpr uint64_t kTraceSeqStride = uint64_t{1} << 32;

// ---------------------------------------------------------------------------------------------
// Records
//
// tag byte:   7 6 5 | 4 3 2 1 0
//             flags | kind
//
// Every heap record (kinds Malloc..Mremap) has this payload, fields in this order, each present
// only when the kind uses it (see kindFields) and its tag's flags do not leave it out:
//
//   seq      varint   sequence number minus the previous record's in this chunk; left out
//                     (kTagSeqNext) when it is 1
//   tsc      zigzag   timestamp minus the previous record's in this chunk (TSC ticks)
//   addr     zigzag   address minus the previous record's address in this chunk
//   size     varint   requested size (munmap: length; mremap: new length)
//   align    varint   alignment (the aligned kinds)
//   old      zigzag   realloc, reallocarray, mremap: old address minus addr
//   oldSize  varint   mremap: old length
//   seqAfter varint   realloc, reallocarray, mremap: the sequence number taken after the call
//                     returned, minus seq (see below)
//   stack    varint   call-stack id; 0 = no stack, left out (kTagNoStack)
//
// The two flags are what a lone thread recording without stacks writes on every event: without
// the two bytes bench_alloc's stackless log is 21 % smaller, its recording 0.95-0.98 of the time
// and its reading 0.95 (docs/BENCHMARKS.md). Logs before version 4 never set them, so one decoder
// reads every version.
//
// A free is stamped before the real free runs and an allocation after the real allocation
// returns, so an address is never live twice in sequence order. realloc and mremap do both:
// seq is taken before the call (the old block ends there) and seqAfter after it (the new block
// begins there).
//
// Meta records (Stack, ModuleMap, Module, ThreadExit, Lost, ThreadStack) and access samples
// (Access) use their own payloads, below.
// ---------------------------------------------------------------------------------------------

enum class Kind : uint8_t {
    End = 0,  // not a record: the rest of the chunk is empty
    Malloc = 1,
    Calloc,
    Realloc,
    ReallocArray,
    Free,
    PosixMemalign,
    AlignedAlloc,
    Memalign,
    Valloc,
    Pvalloc,
    New,
    NewArray,
    Delete,
    DeleteArray,
    Mmap,
    Munmap,
    Mremap,
    // a full trace's records (format_trace.hpp), version 5
    TraceBlock = 18,  // the memory operations of a block of code
    TraceRun = 19,    // one execution of a block: its addresses
    TraceEnd = 20,    // the thread's trace ends here
    TraceRunPredicted = 21,  // a run of the block the stream predicts
    // meta records
    Annotation = 23,   // what the program said through memlog.h: a name, an array's shape, a phase
    Stack = 24,      // varint id, varint depth, depth x zigzag(frame - previous frame), first frame vs 0
    ModuleMap = 25,  // varint seq delta, zigzag tsc delta: a new module map begins; Module records follow
    Module = 26,     // varint base, varint lo, varint hi, varint buildIdLen, bytes, varint pathLen, bytes
    ThreadExit = 27, // varint seq delta, zigzag tsc delta
    Lost = 28,       // varint count: events this thread dropped since its last Lost record
    Access = 29,     // one sampled memory access, in the sequence like a heap event (AccessRecord)
    ThreadStack = 30,  // varint lo, varint hi: the writing thread's stack, [lo, hi)
    KindCount = 31,    // 22 and 31 are free: a reader meeting them has found corruption
};
inline constexpr uint8_t kKindMask = 0x1f;
// A heap record's tag flags (above).
inline constexpr uint8_t kTagSeqNext = 0x20;
inline constexpr uint8_t kTagNoStack = 0x40;
inline constexpr uint8_t kTagReserved = 0x80;  // never written: a tag with it is damage
inline constexpr uint32_t kHeapKindCount = static_cast<uint32_t>(Kind::Mremap) + 1;

// What a heap record kind does to the block model.
enum class Family : uint8_t { None, Allocate, Resize, Release };

struct KindInfo {
    const char* m_name;  // as used by `memlog stat` and `memlog dump`
    Family m_family;
    bool m_hasSize;
    bool m_hasAlign;
    bool m_hasOld;       // old address and seqAfter
    bool m_hasOldSize;
};

inline constexpr KindInfo kKindInfo[kHeapKindCount] = {
    {"end", Family::None, false, false, false, false},
    {"malloc", Family::Allocate, true, false, false, false},
    {"calloc", Family::Allocate, true, false, false, false},
    {"realloc", Family::Resize, true, false, true, false},
    {"reallocarray", Family::Resize, true, false, true, false},
    {"free", Family::Release, false, false, false, false},
    {"posix_memalign", Family::Allocate, true, true, false, false},
    {"aligned_alloc", Family::Allocate, true, true, false, false},
    {"memalign", Family::Allocate, true, true, false, false},
    {"valloc", Family::Allocate, true, false, false, false},
    {"pvalloc", Family::Allocate, true, false, false, false},
    {"new", Family::Allocate, true, true, false, false},
    {"new[]", Family::Allocate, true, true, false, false},
    {"delete", Family::Release, false, true, false, false},
    {"delete[]", Family::Release, false, true, false, false},
    {"mmap", Family::Allocate, true, false, false, false},
    {"munmap", Family::Release, true, false, false, false},
    {"mremap", Family::Resize, true, false, true, true},
};

inline constexpr bool isHeapKind(uint8_t kind) {
    return kind >= static_cast<uint8_t>(Kind::Malloc) && kind <= static_cast<uint8_t>(Kind::Mremap);
}
inline constexpr const KindInfo& kindInfo(Kind kind) { return kKindInfo[static_cast<uint8_t>(kind)]; }

// Room a writer must have for one heap record: tag + 9 varints of at most 10 bytes, plus the
// 8 bytes that putVarintWide may store past a record's last varint (zeros).
inline constexpr uint32_t kMaxHeapRecordBytes = 1 + 9 * 10 + 8;

// ---------------------------------------------------------------------------------------------
// Encoding and decoding of heap records. The writer and the readers share these two functions so
// that they cannot drift apart. Both keep per-chunk delta state in ChunkCursorState.
// ---------------------------------------------------------------------------------------------

struct HeapRecord {
    Kind m_kind = Kind::End;
    uint64_t m_seq = 0;
    uint64_t m_tsc = 0;
    uint64_t m_addr = 0;
    uint64_t m_size = 0;
    uint64_t m_align = 0;
    uint64_t m_oldAddr = 0;
    uint64_t m_oldSize = 0;
    uint64_t m_seqAfter = 0;  // resizes: absolute sequence number at which the new block begins
    uint64_t m_stack = 0;
};

struct ChunkCursorState {
    uint64_t m_seq = 0;
    uint64_t m_tsc = 0;
    uint64_t m_addr = 0;
    uint64_t m_ip = 0;  // of the last access sample
};

// A heap record's payload written: one past its end, and the tag to store at its start.
struct EncodedHeapRecord {
    uint8_t* m_end;
    uint8_t m_tag;  // the kind and the flags of the fields left out
};

// Writes the payload of `record` after out[0]. The caller stores the returned tag at out[0] last,
// after the payload is complete, and has kMaxHeapRecordBytes of room.
// kPdep: the same bytes through pdep (spreadSevenBitGroups), for CPUs where hasFastPdep().
template <bool kPdep = false>
[[gnu::always_inline]] inline EncodedHeapRecord encodeHeapPayload(uint8_t* out, const HeapRecord& record,
                                                                  ChunkCursorState& state) {
    const KindInfo& info = kindInfo(record.m_kind);
    // Each field read once into a register: the state's update below from registers, not a wide
    // load of fields the caller has just stored one by one (a store-forwarding stall that waited
    // for the thread's pending stores: 15 % of a bench_alloc run with stacks off).
    const uint64_t seq = record.m_seq, tsc = record.m_tsc, addr = record.m_addr;
    uint8_t tag = static_cast<uint8_t>(record.m_kind);
    uint8_t* p = out + 1;
    if (seq - state.m_seq == 1)
        tag |= kTagSeqNext;
    else
        p = putVarintWide<kPdep>(p, seq - state.m_seq);
    p = putVarintWide<kPdep>(p, zigzag(static_cast<int64_t>(tsc - state.m_tsc)));
    p = putVarintWide<kPdep>(p, zigzag(static_cast<int64_t>(addr - state.m_addr)));
    if (info.m_hasSize) p = putVarintWide<kPdep>(p, record.m_size);
    if (info.m_hasAlign) p = putVarintWide<kPdep>(p, record.m_align);
    if (info.m_hasOld) p = putVarintWide<kPdep>(p, zigzag(static_cast<int64_t>(record.m_oldAddr - record.m_addr)));
    if (info.m_hasOldSize) p = putVarintWide<kPdep>(p, record.m_oldSize);
    if (info.m_hasOld) p = putVarintWide<kPdep>(p, record.m_seqAfter - record.m_seq);
    if (record.m_stack == 0)
        tag |= kTagNoStack;
    else
        p = putVarintWide<kPdep>(p, record.m_stack);
    state.m_seq = seq;
    state.m_tsc = tsc;
    state.m_addr = addr;
    return {p, tag};
}

// The most bytes a heap record's payload takes: 9 varints.
inline constexpr uint32_t kMaxHeapPayloadBytes = 9 * 10;

// Inlined into the readers' record loop (always_inline: GCC kept it a call): `memlog stat` on the
// CPython and bench_alloc logs 0.96-1.00 of the time, medians of four series of interleaved pairs.
// Reads the deltas and leaves them as they were: keepDeltas takes the record as the chunk's new
// reference point once its reader has accepted it, so that a reader that turns a record down
// has nothing to put back.
template <bool kChecked>
[[gnu::always_inline]] inline bool readHeapPayloadAs(const uint8_t** cursor, const uint8_t* end, uint8_t tag,
                                                    HeapRecord& record, const ChunkCursorState& state) {
    auto next = [&](uint64_t* value) { return getVarintAs<kChecked>(cursor, end, value); };
    if (tag & kTagReserved) return false;
    const Kind kind = static_cast<Kind>(tag & kKindMask);
    const KindInfo& info = kindInfo(kind);
    uint64_t seqDelta = 1, tscDelta, addrDelta, value;
    if (!(tag & kTagSeqNext) && !next(&seqDelta)) return false;
    if (!next(&tscDelta) || !next(&addrDelta)) return false;
    record = HeapRecord{};
    record.m_kind = kind;
    record.m_seq = state.m_seq + seqDelta;
    record.m_tsc = state.m_tsc + static_cast<uint64_t>(unzigzag(tscDelta));
    record.m_addr = state.m_addr + static_cast<uint64_t>(unzigzag(addrDelta));
    if (info.m_hasSize && !next(&record.m_size)) return false;
    if (info.m_hasAlign && !next(&record.m_align)) return false;
    if (info.m_hasOld) {
        if (!next(&value)) return false;
        record.m_oldAddr = record.m_addr + static_cast<uint64_t>(unzigzag(value));
    }
    if (info.m_hasOldSize && !next(&record.m_oldSize)) return false;
    if (info.m_hasOld) {
        if (!next(&value)) return false;
        record.m_seqAfter = record.m_seq + value;
    }
    return (tag & kTagNoStack) || next(&record.m_stack);
}

// The payload at `cursor` that follows `tag` (a heap kind and its flags), the deltas untouched;
// false on a torn payload or a reserved flag.
[[gnu::always_inline]] inline bool readHeapPayload(const uint8_t** cursor, const uint8_t* end, uint8_t tag,
                                                  HeapRecord& record, const ChunkCursorState& state) {
    if (end - *cursor >= static_cast<ptrdiff_t>(kMaxHeapPayloadBytes))
        return readHeapPayloadAs<false>(cursor, end, tag, record, state);
    return readHeapPayloadAs<true>(cursor, end, tag, record, state);
}

// An accepted record: the next record's deltas are from it.
[[gnu::always_inline]] inline void keepDeltas(ChunkCursorState& state, const HeapRecord& record) {
    state.m_seq = record.m_seq;
    state.m_tsc = record.m_tsc;
    state.m_addr = record.m_addr;
}

// Reads the payload at `cursor` that follows `tag` and moves the deltas on. Returns false on a
// torn payload or a reserved flag (the deltas untouched).
[[gnu::always_inline]] inline bool decodeHeapPayload(const uint8_t** cursor, const uint8_t* end, uint8_t tag,
                                                    HeapRecord& record, ChunkCursorState& state) {
    if (!readHeapPayload(cursor, end, tag, record, state)) return false;
    keepDeltas(state, record);
    return true;
}

// Stack record: the payload after the tag. `frames` are raw return addresses, innermost first.
inline uint32_t stackRecordMaxBytes(uint32_t depth) { return 1 + 10 + 10 + depth * 10; }

inline uint8_t* encodeStackPayload(uint8_t* out, uint64_t id, const uint64_t* frames, uint32_t depth) {
    uint8_t* p = putVarint(out + 1, id);
    p = putVarint(p, depth);
    uint64_t previous = 0;
    for (uint32_t i = 0; i < depth; ++i) {
        p = putSigned(p, static_cast<int64_t>(frames[i] - previous));
        previous = frames[i];
    }
    return p;
}

// Decodes up to kMaxStackDepth frames into `frames`; a longer stack is corrupt. `firstFrame`,
// when given, is where the frames' bytes begin (a reader that keeps the record, not a copy).
inline bool decodeStackPayload(const uint8_t** cursor, const uint8_t* end, uint64_t* id, uint64_t* frames,
                               uint32_t* depth, const uint8_t** firstFrame = nullptr) {
    uint64_t count, delta;
    if (!getVarint(cursor, end, id) || !getVarint(cursor, end, &count) || count > kMaxStackDepth) return false;
    if (firstFrame) *firstFrame = *cursor;
    uint64_t previous = 0;
    for (uint64_t i = 0; i < count; ++i) {
        if (!getVarint(cursor, end, &delta)) return false;
        previous += static_cast<uint64_t>(unzigzag(delta));
        frames[i] = previous;
    }
    *depth = static_cast<uint32_t>(count);
    return true;
}

// ModuleMap and ThreadExit records: a point in the sequence, nothing else.
inline uint8_t* encodeMarkPayload(uint8_t* out, uint64_t seq, uint64_t tsc, ChunkCursorState& state) {
    uint8_t* p = putVarint(out + 1, seq - state.m_seq);
    p = putSigned(p, static_cast<int64_t>(tsc - state.m_tsc));
    state.m_seq = seq;
    state.m_tsc = tsc;
    return p;
}

inline bool decodeMarkPayload(const uint8_t** cursor, const uint8_t* end, uint64_t* seq, uint64_t* tsc,
                              ChunkCursorState& state) {
    uint64_t seqDelta, tscDelta;
    if (!getVarint(cursor, end, &seqDelta) || !getVarint(cursor, end, &tscDelta)) return false;
    state.m_seq += seqDelta;
    state.m_tsc += static_cast<uint64_t>(unzigzag(tscDelta));
    *seq = state.m_seq;
    *tsc = state.m_tsc;
    return true;
}

// Module record: one loaded object of the module map that the last ModuleMap record began.
// [lo, hi) is the address range of its PT_LOAD segments; base is the load bias (dlpi_addr).
struct ModuleView {
    uint64_t m_base = 0;
    uint64_t m_lo = 0;
    uint64_t m_hi = 0;
    const uint8_t* m_buildId = nullptr;
    uint32_t m_buildIdBytes = 0;
    const char* m_path = nullptr;  // not NUL-terminated
    uint32_t m_pathBytes = 0;
};
inline constexpr uint32_t kMaxBuildIdBytes = 64;
inline constexpr uint32_t kMaxPathBytes = 4096;
inline uint32_t moduleRecordMaxBytes(uint32_t pathBytes, uint32_t buildIdBytes) {
    return 1 + 5 * 10 + pathBytes + buildIdBytes;
}

inline uint8_t* encodeModulePayload(uint8_t* out, const ModuleView& module) {
    uint8_t* p = putVarint(out + 1, module.m_base);
    p = putVarint(p, module.m_lo);
    p = putVarint(p, module.m_hi);
    // memcpy from a null pointer is undefined even for 0 bytes (a module without a build id).
    p = putVarint(p, module.m_buildIdBytes);
    if (module.m_buildIdBytes) std::memcpy(p, module.m_buildId, module.m_buildIdBytes);
    p += module.m_buildIdBytes;
    p = putVarint(p, module.m_pathBytes);
    if (module.m_pathBytes) std::memcpy(p, module.m_path, module.m_pathBytes);
    return p + module.m_pathBytes;
}

inline bool decodeModulePayload(const uint8_t** cursor, const uint8_t* end, ModuleView& module) {
    uint64_t buildIdBytes, pathBytes;
    if (!getVarint(cursor, end, &module.m_base) || !getVarint(cursor, end, &module.m_lo) ||
        !getVarint(cursor, end, &module.m_hi) || !getVarint(cursor, end, &buildIdBytes) ||
        buildIdBytes > kMaxBuildIdBytes || static_cast<uint64_t>(end - *cursor) < buildIdBytes)
        return false;
    module.m_buildId = *cursor;
    module.m_buildIdBytes = static_cast<uint32_t>(buildIdBytes);
    *cursor += buildIdBytes;
    if (!getVarint(cursor, end, &pathBytes) || pathBytes > kMaxPathBytes ||
        static_cast<uint64_t>(end - *cursor) < pathBytes)
        return false;
    module.m_path = reinterpret_cast<const char*>(*cursor);
    module.m_pathBytes = static_cast<uint32_t>(pathBytes);
    *cursor += pathBytes;
    return true;
}

// Time conversion shared by every reader: CLOCK_MONOTONIC ns of a TSC value. The rate comes from
// the start and end pairs when the log ended cleanly at least a millisecond after it began, else
// from the calibration the recorder made at start (a few hundred microseconds, about 1e-4).
inline uint64_t tscToNs(const FileHeader& header, uint64_t tsc) {
    const int64_t ticks = static_cast<int64_t>(tsc - header.m_startTsc);
    const bool endPair = (header.m_flags & kFlagCleanEnd) && header.m_endNs > header.m_startNs + 1'000'000 &&
                         header.m_endTsc > header.m_startTsc;
    __int128 ns;
    if (endPair)
        ns = static_cast<__int128>(ticks) * (header.m_endNs - header.m_startNs) /
             static_cast<__int128>(header.m_endTsc - header.m_startTsc);
    else if (header.m_tscPerNsQ32 != 0)
        ns = (static_cast<__int128>(ticks) << 32) / header.m_tscPerNsQ32;
    else
        ns = 0;
    return header.m_startNs + static_cast<uint64_t>(static_cast<int64_t>(ns));
}

}  // namespace memlog::format

// The access, thread-stack and annotation records, and a full trace's, in headers of their own.
#include "memlog/format_accesses.hpp"
#include "memlog/format_trace.hpp"

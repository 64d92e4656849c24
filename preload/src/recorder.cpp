// Start-up, the record functions the hooks call, and the process events around them (fork,
// thread exit, the end of the log). Hot path: recordAllocation/recordRelease, about 25 ns
// without stacks: one add for the sequence number (unlocked while one thread alone records), one
// rdtsc, a dozen bytes of varints.
#include "recorder.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>

#include <cstring>

#include "access_probe.hpp"
#include "access_sampler.hpp"
#include "instruction_access.hpp"
#include "header_field.hpp"
#include "log_file.hpp"
#include "module_map.hpp"
#include "real_functions.hpp"
#include "record_writer.hpp"
#include "sequence_counter.hpp"
#include "settings.hpp"
#include "stack_table.hpp"
#include "system.hpp"
#include "unwind/capture.hpp"
#include "unwind/frame_pointer_stacks.hpp"

namespace memlog::preload {

__thread ThreadState t_state __attribute__((tls_model("initial-exec"))) = {};
std::atomic<int> g_phase{static_cast<int>(Phase::Cold)};

namespace {

using format::Kind;

Settings s_settings;
LogFile s_file;
StackTable s_stacks;
unwind::Method s_unwind = unwind::Method::None;
bool s_fastPdep = false;
unwind::CodeRange s_ownCode;
unwind::CodeRange s_unwinderCode;  // libunwind
SequenceCounter s_sequence;
std::atomic<bool> s_recording{false};  // relaxed: read on every event
pthread_key_t s_threadKey;
uint64_t s_tscPerNsQ32 = 0;
char s_programName[256];
char s_commandLine[2048];
char s_exePath[format::kMaxPathBytes];
char s_outputPath[format::kMaxPathBytes];
format::AccessSampler s_accessSampler = format::AccessSampler::Off;
char s_accessStatus[sizeof(format::FileHeader::m_accessStatus)];
format::WatchSampler s_watchSampler = format::WatchSampler::Off;
char s_watchStatus[sizeof(format::FileHeader::m_watchStatus)];

// --- start-up ---------------------------------------------------------------------------------

// TSC ticks per ns, 32.32 fixed point, over a 200 us busy wait: good to about 1e-4. A clean end
// refines it with the end pair (format.hpp, tscToNs).
uint64_t calibrateTsc() {
    const uint64_t startNs = sys::monotonicNs();
    const uint64_t startTsc = sys::readTsc();
    uint64_t nowNs;
    do nowNs = sys::monotonicNs();
    while (nowNs - startNs < 200'000);
    const uint64_t ticks = sys::readTsc() - startTsc;
    return static_cast<uint64_t>((static_cast<__int128>(ticks) << 32) / (nowNs - startNs));
}

// Expands %p, %e and %% of MEMLOG_OUT.
void expandOutputPath(char* out, size_t capacity) {
    size_t at = 0;
    auto put = [&](char c) {
        if (at + 1 < capacity) out[at++] = c;
    };
    for (const char* p = s_settings.m_outputTemplate; *p; ++p) {
        if (*p != '%' || !p[1]) {
            put(*p);
            continue;
        }
        ++p;
        if (*p == 'p') {
            char digits[24];
            int n = 0;
            for (uint64_t pid = sys::processId(); pid || n == 0; pid /= 10) digits[n++] = char('0' + pid % 10);
            while (n) put(digits[--n]);
        } else if (*p == 'e') {
            for (const char* name = s_programName; *name; ++name) put(*name);
        } else if (*p == '%') {
            put('%');
        } else {
            put('%');
            put(*p);
        }
    }
    out[at] = '\0';
}

// Copies a NUL-terminated string, cut to fit.
void copyCut(char* out, size_t capacity, const char* text) {
    const size_t length = strnlen(text, capacity - 1);
    std::memcpy(out, text, length);
    out[length] = '\0';
}

void fillHeader(format::FileHeader& header, uint32_t parentPid) {
    std::memcpy(header.m_magic, format::kMagic, sizeof(header.m_magic));
    header.m_version = format::kFormatVersion;
    header.m_headerBytes = format::kHeaderBytes;
    header.m_pid = sys::processId();
    header.m_parentPid = parentPid;
    header.m_unwindMode = s_settings.m_unwind;
    header.m_stackDepth = s_settings.m_stackDepth;
    header.m_endReason = format::EndReason::Running;
    header.m_startNs = sys::monotonicNs();
    header.m_startTsc = sys::readTsc();
    header.m_startRealtimeNs = sys::realtimeNs();
    header.m_tscPerNsQ32 = s_tscPerNsQ32;
    copyCut(header.m_exe, sizeof(header.m_exe), s_exePath);
    copyCut(header.m_commandLine, sizeof(header.m_commandLine), s_commandLine);
    header.m_accessSampler = s_accessSampler;
    header.m_accessRate = s_accessSampler == format::AccessSampler::Off || s_accessSampler == format::AccessSampler::FullTrace
                              ? 0
                              : s_settings.m_accessRate;
    copyCut(header.m_accessStatus, sizeof(header.m_accessStatus), s_accessStatus);
    header.m_watchSampler = s_watchSampler;
    header.m_watchRate = s_watchSampler == format::WatchSampler::Off ? 0 : s_settings.m_watchRate;
    copyCut(header.m_watchStatus, sizeof(header.m_watchStatus), s_watchStatus);
    uint32_t flags = 0;
    if (parentPid) flags |= format::kFlagForkChild;
    if (s_settings.m_freeStacks) flags |= format::kFlagFreeStacks;
    __atomic_store_n(headerField(&header.m_flags), flags, __ATOMIC_RELEASE);
}

// MEMLOG_ONLY_PID (`memlog run --no-children`): every other process runs unrecorded.
bool isChosenProcess() { return s_settings.m_onlyPid == 0 || s_settings.m_onlyPid == sys::processId(); }

// MEMLOG_RUN_LIST: one line with the log's path, in one write to a file opened for appending,
// so that lines of processes starting at once never mix. The launcher reads it at the end.
void appendToRunList(const char* logPath) {
    if (!s_settings.m_runList[0]) return;
    const int fd = sys::openFile(s_settings.m_runList, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) return;  // the launcher is gone or removed it: nobody reads it
    char line[format::kMaxPathBytes + 1];
    const size_t length = strnlen(logPath, format::kMaxPathBytes);
    std::memcpy(line, logPath, length);
    line[length] = '\n';
    sys::writeAll(fd, line, length + 1);
    sys::closeFile(fd);
}

// Creates the log and announces it. On failure the program runs on, unrecorded.
void openLog(uint32_t parentPid) {
    if (!isChosenProcess()) {
        s_recording.store(false, std::memory_order_relaxed);
        attachWriter(nullptr);
        return;
    }
    char wanted[format::kMaxPathBytes];
    expandOutputPath(wanted, sizeof(wanted));
    const char* error = nullptr;
    if (!s_file.create(wanted, s_outputPath, sizeof(s_outputPath), &error)) {
        (sys::Line() << "memlog: cannot record to " << wanted << ": " << error << "; the program runs unrecorded\n")
            .emit();
        s_recording.store(false, std::memory_order_relaxed);
        attachWriter(nullptr);
        return;
    }
    fillHeader(*s_file.header(), parentPid);
    setWatchCounters(&s_file.header()->m_watchCounters);
    attachWriter(&s_file);
    s_recording.store(true, std::memory_order_relaxed);
    appendToRunList(s_outputPath);
    if (g_traceMarkers)
        announceTraceLog(s_outputPath, s_file.tailWord(), s_sequence.take(&t_state), sys::readTsc(),
                         {s_ownCode.m_lo, s_ownCode.m_hi}, {s_unwinderCode.m_lo, s_unwinderCode.m_hi});
    if (!s_settings.m_quiet)
        (sys::Line() << "memlog: recording " << s_programName << " (pid " << uint64_t(sys::processId()) << ") to "
                     << s_outputPath << "\n")
            .emit();
}

void onThreadExit(void*);
void onForkChild();

// MEMLOG_ACCESS=1: start the tick sampler. What stops it is said once, on stderr, even when
// quiet: the user asked for something the recorder cannot give.
void startAccessSampling() {
    if (!s_settings.m_access) return;
    SamplerSettings sampler;
    sampler.m_rate = s_settings.m_accessRate;
    sampler.m_unwind = s_unwind;
    sampler.m_stackDepth = s_settings.m_stackDepth;
    sampler.m_unwinderCode = s_unwinderCode;
    // A debugger owns SIGTRAP (and single steps): ticks would stop it at every one.
    if (const uint64_t tracer = tracerPid()) {
        s_accessSampler = format::AccessSampler::Unavailable;
        sys::Line why;
        why << "the process is traced by pid " << tracer << " (a debugger uses SIGTRAP and single steps)";
        copyCut(s_accessStatus, sizeof(s_accessStatus), why.text());
    } else {
        s_accessSampler = startSampler(sampler, s_accessStatus, sizeof(s_accessStatus));
    }
    if (s_accessSampler == format::AccessSampler::Unavailable)
        (sys::Line() << "memlog: access sampling unavailable: " << s_accessStatus << "; recording allocations only\n")
            .emit();
    if (!s_settings.m_watch) return;
    // The probe first: on some machines the debug registers open but never fire.
    if (s_accessSampler == format::AccessSampler::Unavailable)
        copyCut(s_watchStatus, sizeof(s_watchStatus), s_accessStatus);
    else if (probeWatchpoints(s_watchStatus, sizeof(s_watchStatus)))
        s_watchSampler = startWatchpoints(s_settings.m_watchRate, s_watchStatus, sizeof(s_watchStatus));
    if (s_watchSampler != format::WatchSampler::ProcessWide) {
        s_watchSampler = format::WatchSampler::Unavailable;
        (sys::Line() << "memlog: watchpoints unavailable: " << s_watchStatus << "\n").emit();
    }
}

// The heap's changes against the words being watched (watchpoints.hpp): a block freed keeps
// its watch (a use after free would trap) unless its memory may go back to the kernel; memory
// handed out again ends the watch.
constexpr uint64_t kMayBeUnmapped = 128 * 1024;  // glibc's mmap threshold starts here

void watchRelease(Kind kind, const void* address, uint64_t size) {
    const auto start = reinterpret_cast<uint64_t>(address);
    if (kind == Kind::Munmap) {
        watchUnmap(start, size);
        return;
    }
    const uint64_t usable = g_real.malloc_usable_size(const_cast<void*>(address));
    watchFree(start, usable, usable >= kMayBeUnmapped);
}

// MEMLOG_FULL_TRACE=1: requests to memlog's Valgrind tool (full_trace.hpp). False for a process
// outside Valgrind (the launchers that start it): nothing of it would be in the trace, and it is
// not recorded at all.
bool startFullTrace() {
    if (!s_settings.m_fullTrace) return true;
    if (!runningOnValgrind()) return false;
    g_traceMarkers = true;
    s_accessSampler = format::AccessSampler::FullTrace;
    s_file.leaveUnpopulated();
    // Room between events for the accesses memlog puts there (full_trace.hpp).
    s_sequence.setStep(format::kTraceSeqStride);
    return true;
}

void initialize() {
    readSettings(s_settings);
    readProgramName(s_programName, sizeof(s_programName), s_commandLine, sizeof(s_commandLine));
    const long length = sys::readLink("/proc/self/exe", s_exePath, sizeof(s_exePath) - 1);
    s_exePath[length > 0 ? length : 0] = '\0';
    setMainExecutablePath(s_exePath);
    s_unwind = static_cast<unwind::Method>(s_settings.m_unwind);
    s_fastPdep = format::hasFastPdep();
    unwind::prepare(s_unwind);
    findModuleRange(reinterpret_cast<const void*>(&initialize), &s_ownCode.m_lo, &s_ownCode.m_hi);
    findModuleRange(unwind::libraryAddress(), &s_unwinderCode.m_lo, &s_unwinderCode.m_hi);
    s_stacks.create();
    s_sequence.start();
    pthread_key_create(&s_threadKey, onThreadExit);
    pthread_atfork(nullptr, nullptr, onForkChild);
    s_tscPerNsQ32 = calibrateTsc();
    if (!startFullTrace()) return;
    if (isChosenProcess()) startAccessSampling();
    openLog(0);
    if (!s_recording.load(std::memory_order_relaxed)) stopSampler();
}

// --- recording ----------------------------------------------------------------------------------

[[gnu::always_inline]] inline uint64_t nextSequence() { return s_sequence.take(&t_state); }

// The id of a stack, writing its frames to the log if it is new.
uint32_t stackIdOf(ThreadState& thread, const uint64_t* frames, uint32_t depth) {
    if (depth == 0) return 0;
    const uint64_t hash = StackTable::hashFrames(frames, depth);
    if (hash == thread.m_lastStackHash) return thread.m_lastStackId;  // loops allocate from one place
    const StackTable::Claim claim = s_stacks.find(hash);
    uint32_t id = claim.m_id;
    if (claim.m_claimed) {
        // New code may come from a newly loaded object: bring the module map up to date first.
        if (modulesChanged()) writeModuleMap(thread, nextSequence(), sys::readTsc());
        id = s_stacks.newId();
        if (uint8_t* out = beginMetaRecord(thread, format::stackRecordMaxBytes(depth)))
            commitRecord(thread, out, format::encodeStackPayload(out, id, frames, depth), Kind::Stack);
        s_stacks.publish(claim.m_slot, id);
    }
    thread.m_lastStackHash = hash;
    thread.m_lastStackId = id;
    return id;
}

void countInHeader(uint64_t format::FileHeader::*counter) {
    if (format::FileHeader* header = s_file.header()) __atomic_fetch_add(&(header->*counter), 1, __ATOMIC_RELAXED);
}

// MEMLOG_UNWIND_CHECK=1: the incremental stack against a full walk. A difference is counted and
// the full walk's frames are kept, so the log holds the right stack either way.
[[gnu::noinline]] bool matchesFullWalk(uint64_t* frames, uint32_t& depth) {
    uint64_t full[format::kMaxStackDepth];
    const uint32_t fullDepth = unwind::capture(s_unwind, full, s_settings.m_stackDepth, s_ownCode);
    countInHeader(&format::FileHeader::m_unwindChecked);
    if (fullDepth == depth && std::memcmp(full, frames, depth * sizeof(uint64_t)) == 0) return true;
    countInHeader(&format::FileHeader::m_unwindMismatches);
    std::memcpy(frames, full, fullDepth * sizeof(uint64_t));
    depth = fullDepth;
    return false;
}

// The incremental unwinder (libunwind or frame pointers), and the stack id its innermost frame
// keeps (a repeated stack: no hash, no lookup; in fp mode no call either). False: full walk.
[[gnu::always_inline]] inline bool incrementalStack(ThreadState& thread, uint32_t& id) {
    const uint32_t repeated = s_unwind == unwind::Method::FramePointer
        ? unwind::repeatedFramePointerStack(thread.m_unwindCache, __builtin_frame_address(0), s_ownCode) : 0;
    if (repeated && !s_settings.m_unwindCheck) [[likely]] return id = repeated, true;
    uint64_t frames[format::kMaxStackDepth];
    unwind::IncrementalCapture got =
        s_unwind == unwind::Method::Libunwind
            ? unwind::captureIncremental(thread.m_unwindCache, frames, s_settings.m_stackDepth, s_ownCode,
                                         s_settings.m_unwindCheck)
            : unwind::captureFramePointersIncremental(thread.m_unwindCache, frames, s_settings.m_stackDepth, s_ownCode,
                                                      s_settings.m_unwindCheck);
    if (!got.m_done) return false;
    if (s_settings.m_unwindCheck) [[unlikely]] {  // the inline path's id is checked too
        const bool same = matchesFullWalk(frames, got.m_depth);
        id = stackIdOf(thread, frames, got.m_depth);
        if (same && repeated && repeated != id) countInHeader(&format::FileHeader::m_unwindMismatches);
        if (got.m_stackId && same) *got.m_stackId = id;
        return true;
    }
    if (got.m_stackId && *got.m_stackId) return id = *got.m_stackId, true;
    id = stackIdOf(thread, frames, got.m_depth);
    if (got.m_stackId) *got.m_stackId = id;
    return true;
}

// The id of the calling thread's current stack. Inline, like the capture in it: fewer frames of
// ours for the unwinder to step through.
[[gnu::always_inline]] inline uint32_t currentStack(ThreadState& thread) {
    uint32_t id;
    if (s_unwind != unwind::Method::None && s_settings.m_incremental) {
        if (incrementalStack(thread, id)) return id;
        if (s_settings.m_unwindCheck) [[unlikely]] countInHeader(&format::FileHeader::m_unwindFullWalks);
    }
    uint64_t frames[format::kMaxStackDepth];
    const uint32_t depth = unwind::capture(s_unwind, frames, s_settings.m_stackDepth, s_ownCode);
    return stackIdOf(thread, frames, depth);
}

// The same bytes either way; pdep where it is fast (format.hpp, hasFastPdep): about half the
// encoding's cost on this benchmark's machine. Inline: the record's fields stay in registers (out
// of line, the encoder read two of them with one wide load just after they were stored one by
// one, a store-forwarding stall that waited for all the thread's pending stores).
[[gnu::always_inline]] inline void writeHeapRecord(ThreadState& thread, const format::HeapRecord& record) {
    if (uint8_t* out = beginRecord(thread, format::kMaxHeapRecordBytes)) {
        const format::EncodedHeapRecord encoded = s_fastPdep
                                                      ? format::encodeHeapPayload<true>(out, record, thread.m_deltas)
                                                      : format::encodeHeapPayload<false>(out, record, thread.m_deltas);
        commitRecord(thread, out, encoded.m_end, encoded.m_tag);
    }
}

bool wantsStack(Kind kind) {
    if (s_unwind == unwind::Method::None) return false;
    return format::kindInfo(kind).m_family != format::Family::Release || s_settings.m_freeStacks;
}

void onThreadExit(void*) {
    ThreadState& thread = t_state;
    stopThreadTicks(thread);
    unwind::releaseUnwindCache(thread.m_unwindCache);
    if (!s_recording.load(std::memory_order_relaxed) || thread.m_busy) return;
    thread.m_busy = true;
    if (uint8_t* out = beginMetaRecord(thread, 1 + 20))
        commitRecord(thread, out, format::encodeMarkPayload(out, nextSequence(), sys::readTsc(), thread.m_deltas),
                     Kind::ThreadExit);
    thread.m_busy = false;
}

// Only the forking thread exists in the child. It gets a log of its own; the parent's file is
// left exactly as the parent keeps writing it.
void onForkChild() {
    ThreadState& thread = t_state;
    const bool wasBusy = thread.m_busy;
    thread.m_busy = true;
    const uint32_t parentPid = s_file.header() ? s_file.header()->m_pid : 0;
    s_file.abandon();
    attachWriter(nullptr);
    s_stacks.reset();
    s_sequence.start();  // the only thread of the child may take numbers alone
    forgetModuleMap();
    thread.m_cursor = thread.m_limit = nullptr;
    thread.m_deltas = {};
    thread.m_tid = sys::threadId();
    thread.m_chunks = 0;
    thread.m_lastStackHash = 0;
    thread.m_lastStackId = 0;
    unwind::forgetStacks(thread.m_unwindCache);
    thread.m_stackRangeWritten = false;
    if (s_recording.load(std::memory_order_relaxed)) openLog(parentPid);
    restartSamplerInForkChild(thread);
    thread.m_busy = wasBusy;
}

}  // namespace

bool ensureReady() {
    int phase = g_phase.load(std::memory_order_acquire);
    if (phase == static_cast<int>(Phase::Ready)) return true;
    ThreadState& thread = t_state;
    if (thread.m_initializing) return false;  // dlsym calling back into us: use the pool
    if (phase == static_cast<int>(Phase::Cold) &&
        g_phase.compare_exchange_strong(phase, static_cast<int>(Phase::Resolving), std::memory_order_acq_rel)) {
        thread.m_initializing = true;
        resolveRealFunctions();
        thread.m_initializing = false;
        // From here the real functions work; whatever start-up allocates goes unrecorded.
        thread.m_busy = true;
        g_phase.store(static_cast<int>(Phase::Ready), std::memory_order_release);
        initialize();
        thread.m_busy = false;
        return true;
    }
    while (g_phase.load(std::memory_order_acquire) != static_cast<int>(Phase::Ready)) sched_yield();
    return true;
}

namespace {

// The thread's ThreadStack record, once per log: the reader tells the stack's accesses from other
// memory by it. False when the log has no room.
bool writeThreadStack(ThreadState& thread) {
    if (thread.m_stackRangeWritten) return true;
    uint8_t* out = beginMetaRecord(thread, 1 + 2 * 10);
    if (!out) return false;
    commitRecord(thread, out, format::encodeRangePayload(out, thread.m_stackLo, thread.m_stackHi), Kind::ThreadStack);
    thread.m_stackRangeWritten = true;
    return true;
}

// A full trace places every access, the stack's too; the sampler learns the stack's extent at the
// thread's first tick, a full trace at its first event.
void writeTracedThreadStack(ThreadState& thread) {
    if (thread.m_stackRangeWritten) return;
    if (!thread.m_samplerReady) prepareThread(thread, reinterpret_cast<uint64_t>(__builtin_frame_address(0)));
    writeThreadStack(thread);
}

}  // namespace

void recordAllocation(Kind kind, const void* address, uint64_t size, uint64_t alignment) {
    ThreadState& thread = t_state;
    if (!s_recording.load(std::memory_order_relaxed) || thread.m_busy) return;
    if (watchesActive()) [[unlikely]] {
        if (format::kindInfo(kind).m_family == format::Family::Release)
            watchRelease(kind, address, size);
        else
            watchAllocate(reinterpret_cast<uint64_t>(address), size);
    }
    TraceQuiet quiet;
    thread.m_busy = true;
    format::HeapRecord record;
    record.m_kind = kind;
    // The TSC first: rdtsc's latency (17 ns in this VM) then overlaps the stack walk, and the
    // time is the real call's return rather than the end of the recorder's walk (bench_alloc,
    // fp mode: a quarter of the added CPU time). Within a thread time and numbers still rise.
    record.m_tsc = sys::readTsc();
    record.m_stack = wantsStack(kind) ? currentStack(thread) : 0;
    record.m_seq = nextSequence();  // after the real call returned: see format.hpp
    if (g_traceMarkers) {
        noteTracedEvent(record.m_seq, record.m_tsc);
        writeTracedThreadStack(thread);
    }
    record.m_addr = reinterpret_cast<uintptr_t>(address);
    record.m_size = size;
    record.m_align = alignment;
    writeHeapRecord(thread, record);
    thread.m_busy = false;
}

ResizeTicket beginResize(Kind kind, const void* old) {
    ThreadState& thread = t_state;
    ResizeTicket ticket;
    if (!s_recording.load(std::memory_order_relaxed) || thread.m_busy) return ticket;
    if (old && watchesActive()) [[unlikely]]
        ticket.m_oldUsable = g_real.malloc_usable_size(const_cast<void*>(old));
    TraceQuiet quiet;
    thread.m_busy = true;
    // The stack first: it may write records of its own, and a thread's records must keep
    // increasing sequence numbers.
    ticket.m_stack = wantsStack(kind) ? currentStack(thread) : 0;
    ticket.m_seqBefore = nextSequence();
    if (g_traceMarkers) noteTracedEvent(ticket.m_seqBefore, sys::readTsc());
    ticket.m_valid = true;
    thread.m_busy = false;
    return ticket;
}

void finishResize(const ResizeTicket& ticket, Kind kind, const void* address, uint64_t size, const void* oldAddress,
                  uint64_t oldSize) {
    ThreadState& thread = t_state;
    if (!ticket.m_valid || !s_recording.load(std::memory_order_relaxed)) return;
    TraceQuiet quiet;
    const bool wasBusy = thread.m_busy;
    thread.m_busy = true;
    format::HeapRecord record;
    record.m_kind = kind;
    record.m_stack = ticket.m_stack;
    record.m_seq = ticket.m_seqBefore;
    record.m_seqAfter = nextSequence();
    record.m_tsc = sys::readTsc();
    if (g_traceMarkers) noteTracedEvent(record.m_seqAfter, record.m_tsc);
    record.m_addr = reinterpret_cast<uintptr_t>(address);
    record.m_size = size;
    record.m_oldAddr = reinterpret_cast<uintptr_t>(oldAddress);
    record.m_oldSize = oldSize;
    writeHeapRecord(thread, record);
    thread.m_busy = wasBusy;
    if (watchesActive() && address != oldAddress) [[unlikely]] {
        // Moved: the old block (or mapping) ended inside the call, the new one began.
        if (kind == Kind::Mremap)
            watchUnmap(record.m_oldAddr, oldSize);
        else if (ticket.m_oldUsable)
            watchFree(record.m_oldAddr, ticket.m_oldUsable, ticket.m_oldUsable >= kMayBeUnmapped);
        if (address) watchAllocate(record.m_addr, size);
    }
}

void endLog(format::EndReason reason) {
    if (!s_recording.load(std::memory_order_relaxed)) return;
    TraceQuiet quiet;
    if (g_traceMarkers) flushTrace();  // the trace's chunks in the file before it is cut to its data
    format::FileHeader& header = *s_file.header();
    header.m_endTsc = sys::readTsc();
    header.m_endNs = sys::monotonicNs();
    header.m_endReason = reason;
    header.m_dataEnd = s_file.dataEnd();
    __atomic_fetch_or(headerField(&header.m_flags), format::kFlagCleanEnd, __ATOMIC_RELEASE);
    s_file.trimToData();
}

void undoEnd() {
    if (!s_recording.load(std::memory_order_relaxed)) return;
    format::FileHeader& header = *s_file.header();
    __atomic_fetch_and(headerField(&header.m_flags), ~uint32_t(format::kFlagCleanEnd), __ATOMIC_RELEASE);
    header.m_endReason = format::EndReason::Running;
}

bool isRecorderHelperCode(const void* returnAddress) {
    return s_unwinderCode.contains(reinterpret_cast<uintptr_t>(returnAddress));
}

bool isRecorderCode(uint64_t address) { return s_ownCode.contains(address); }

// memlog.h's annotations (annotations.cpp): one Annotation record, in the calling thread's chunk.
void recordAnnotation(format::AnnotationRecord& record) {
    ThreadState& thread = t_state;
    if (!isReady() || !s_recording.load(std::memory_order_relaxed) || thread.m_busy) return;
    thread.m_busy = true;
    record.m_seq = nextSequence();
    record.m_tsc = sys::readTsc();
    if (uint8_t* out = beginRecord(thread, format::kMaxAnnotationRecordBytes))
        commitRecord(thread, out, format::encodeAnnotationPayload(out, record, thread.m_deltas), Kind::Annotation);
    thread.m_busy = false;
}

bool isRecording() { return s_recording.load(std::memory_order_relaxed); }

format::AccessCounters* accessCounters() {
    format::FileHeader* header = s_recording.load(std::memory_order_relaxed) ? s_file.header() : nullptr;
    return header ? &header->m_accessCounters : nullptr;  // no header between a fork and the child's log
}

uint64_t recordAccesses(ThreadState& thread, const format::AccessRecord& prototype, const MemoryAccess* accesses,
                        uint32_t count, const uint64_t* frames, uint32_t depth) {
    if (!s_recording.load(std::memory_order_relaxed)) return 0;
    if (!writeThreadStack(thread)) return 0;
    format::AccessRecord record = prototype;
    record.m_stack = stackIdOf(thread, frames, depth);
    uint64_t first = 0;
    for (uint32_t i = 0; i < count; ++i) {
        uint8_t* out = beginRecord(thread, format::kMaxAccessRecordBytes);
        if (!out) return 0;
        record.m_seq = nextSequence();
        if (i == 0) first = record.m_seq;
        record.m_tsc = sys::readTsc();
        record.m_addr = accesses[i].m_addr;
        record.m_size = accesses[i].m_bytes;
        record.m_kind = accesses[i].m_kind;
        commitRecord(thread, out, format::encodeAccessPayload(out, record, thread.m_deltas), Kind::Access);
    }
    return first;
}

void noteThreadStarted() { pthread_setspecific(s_threadKey, reinterpret_cast<void*>(1)); }

// Runs in _dl_fini, after the program's atexit handlers and static destructors.
__attribute__((destructor)) static void onUnload() {
    if (isReady()) endLog(format::EndReason::Exit);
}

// Starts recording before main even when nothing allocates early, so the start line comes first.
__attribute__((constructor)) static void onLoad() { ensureReady(); }

}  // namespace memlog::preload

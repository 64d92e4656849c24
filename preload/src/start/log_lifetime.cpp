// The log's name (MEMLOG_OUT's %p, %e and %%), its header, the run list that `memlog run`
// reads, and the clean end: the end time and reason in the header, the file cut to its data.
#include "start/log_lifetime.hpp"

#include <fcntl.h>

#include <cstring>

#include "base/header_field.hpp"
#include "base/system.hpp"
#include "record/events.hpp"
#include "record/record_writer.hpp"
#include "start/log_file.hpp"
#include "start/start_up.hpp"
#include "trace/full_trace.hpp"
#include "watch/heap_watch.hpp"

namespace memlog::preload {

constinit LogOrigin g_origin;

namespace {

// The open log: the file, and the name it was given (MEMLOG_OUT's, or a numbered neighbour).
struct OpenLog {
    LogFile m_file;
    char m_path[format::kMaxPathBytes] = {};
};
constinit OpenLog s_log;

// Expands %p, %e and %% of MEMLOG_OUT.
void expandOutputPath(char* out, size_t capacity) {
    size_t at = 0;
    auto put = [&](char c) {
        if (at + 1 < capacity) out[at++] = c;
    };
    for (const char* p = g_settings.m_outputTemplate; *p; ++p) {
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
            for (const char* name = g_origin.m_programName; *name; ++name) put(*name);
        } else if (*p == '%') {
            put('%');
        } else {
            put('%');
            put(*p);
        }
    }
    out[at] = '\0';
}

void fillHeader(format::FileHeader& header, uint32_t parentPid) {
    const LogOrigin& origin = g_origin;
    std::memcpy(header.m_magic, format::kMagic, sizeof(header.m_magic));
    header.m_version = format::kFormatVersion;
    header.m_headerBytes = format::kHeaderBytes;
    header.m_pid = sys::processId();
    header.m_parentPid = parentPid;
    header.m_unwindMode = g_settings.m_unwind;
    header.m_stackDepth = g_settings.m_stackDepth;
    header.m_endReason = format::EndReason::Running;
    header.m_startNs = sys::monotonicNs();
    header.m_startTsc = sys::readTsc();
    header.m_startRealtimeNs = sys::realtimeNs();
    header.m_tscPerNsQ32 = origin.m_tscPerNsQ32;
    sys::copyCut(header.m_exe, sizeof(header.m_exe), origin.m_exePath);
    sys::copyCut(header.m_commandLine, sizeof(header.m_commandLine), origin.m_commandLine);
    header.m_accessSampler = origin.m_accessSampler;
    header.m_accessRate = origin.m_accessSampler == format::AccessSampler::Off ||
                                  origin.m_accessSampler == format::AccessSampler::FullTrace
                              ? 0
                              : g_settings.m_accessRate;
    sys::copyCut(header.m_accessStatus, sizeof(header.m_accessStatus), origin.m_accessStatus);
    header.m_watchSampler = origin.m_watchSampler;
    header.m_watchRate = origin.m_watchSampler == format::WatchSampler::Off ? 0 : g_settings.m_watchRate;
    sys::copyCut(header.m_watchStatus, sizeof(header.m_watchStatus), origin.m_watchStatus);
    header.m_sampleMeanBytes = g_sampledCapture.m_meanBytes;
    header.m_sampleSeed = isSampling() ? g_sampledCapture.m_seed : 0;
    header.m_sampleSetSlots = isSampling() ? sampleSetSlots() : 0;
    uint32_t flags = 0;
    if (parentPid) flags |= format::kFlagForkChild;
    if (g_settings.m_freeStacks) flags |= format::kFlagFreeStacks;
    __atomic_store_n(headerField(&header.m_flags), flags, __ATOMIC_RELEASE);
}

// MEMLOG_RUN_LIST: one line with the log's path, in one write to a file opened for appending,
// so that lines of processes starting at once never mix. The launcher reads it at the end.
void appendToRunList(const char* logPath) {
    if (!g_settings.m_runList[0]) return;
    const int fd = sys::openFile(g_settings.m_runList, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) return;  // the launcher is gone or removed it: nobody reads it
    char line[format::kMaxPathBytes + 1];
    const size_t length = strnlen(logPath, format::kMaxPathBytes);
    std::memcpy(line, logPath, length);
    line[length] = '\n';
    sys::writeAll(fd, line, length + 1);
    sys::closeFile(fd);
}

void recordNothing() {
    g_recording.m_on.store(false, std::memory_order_relaxed);
    attachWriter(nullptr);
}

}  // namespace

bool isChosenProcess() { return g_settings.m_onlyPid == 0 || g_settings.m_onlyPid == sys::processId(); }

void openLog(uint32_t parentPid) {
    if (!isChosenProcess()) return recordNothing();
    char wanted[format::kMaxPathBytes];
    expandOutputPath(wanted, sizeof(wanted));
    const char* error = nullptr;
    // Pages faulted in ahead pay off at a record per event, not at a sample's (bench_alloc, a
    // million pairs at a 512 KiB mean gap, wrote 88 KB; faulting the first megabyte in cost about
    // 0.9 ms of CPU, 40 % of the recorder's start and end), nor in a full trace, whose pages are
    // mostly the tool's.
    if (g_traceMarkers || isSampling()) s_log.m_file.leaveUnpopulated();
    if (!s_log.m_file.create(wanted, s_log.m_path, sizeof(s_log.m_path), &error)) {
        (sys::Line() << "memlog: cannot record to " << wanted << ": " << error << "; the program runs unrecorded\n")
            .emit();
        return recordNothing();
    }
    fillHeader(*s_log.m_file.header(), parentPid);
    setWatchCounters(&s_log.m_file.header()->m_watchCounters);
    attachWriter(&s_log.m_file);
    g_recording.m_on.store(true, std::memory_order_relaxed);
    appendToRunList(s_log.m_path);
    if (g_traceMarkers) announceTraceLog(s_log.m_path, s_log.m_file.tailWord(), nextSequence(), sys::readTsc());
    if (!g_settings.m_quiet)
        (sys::Line() << "memlog: recording " << g_origin.m_programName << " (pid " << uint64_t(sys::processId())
                     << ") to " << s_log.m_path << "\n")
            .emit();
}

uint32_t leaveParentLog() {
    const uint32_t parentPid = s_log.m_file.header() ? s_log.m_file.header()->m_pid : 0;
    s_log.m_file.abandon();
    attachWriter(nullptr);
    return parentPid;
}

void endLog(format::EndReason reason) {
    if (!isRecording()) return;
    TraceQuiet quiet;
    if (g_traceMarkers) flushTrace();  // the trace's chunks in the file before it is cut to its data
    format::FileHeader& header = *s_log.m_file.header();
    header.m_endTsc = sys::readTsc();
    header.m_endNs = sys::monotonicNs();
    header.m_endReason = reason;
    header.m_dataEnd = s_log.m_file.dataEnd();
    __atomic_fetch_or(headerField(&header.m_flags), format::kFlagCleanEnd, __ATOMIC_RELEASE);
    s_log.m_file.trimToData();
}

void undoEnd() {
    if (!isRecording()) return;
    format::FileHeader& header = *s_log.m_file.header();
    __atomic_fetch_and(headerField(&header.m_flags), ~uint32_t(format::kFlagCleanEnd), __ATOMIC_RELEASE);
    header.m_endReason = format::EndReason::Running;
}

format::AccessCounters* accessCounters() {
    format::FileHeader* header = isRecording() ? s_log.m_file.header() : nullptr;
    return header ? &header->m_accessCounters : nullptr;  // no header between a fork and the child's log
}

}  // namespace memlog::preload

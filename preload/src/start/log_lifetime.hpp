// The log of this process image: created at start-up and again in a fork child (named from
// MEMLOG_OUT, announced on stderr and in MEMLOG_RUN_LIST), ended cleanly at exit, _exit and exec
// (and taken up again when exec fails). Recording is on exactly while a log is open.
#pragma once

#include <cstdint>

#include "memlog/format.hpp"

namespace memlog::preload {

// What every log of this process image says of where it came from: found once at start-up
// (start/start_up.cpp), written into each log's header.
struct LogOrigin {
    char m_programName[256] = {};
    char m_commandLine[2048] = {};
    char m_exePath[format::kMaxPathBytes] = {};
    uint64_t m_tscPerNsQ32 = 0;
    format::AccessSampler m_accessSampler = format::AccessSampler::Off;
    char m_accessStatus[sizeof(format::FileHeader::m_accessStatus)] = {};
    format::WatchSampler m_watchSampler = format::WatchSampler::Off;
    char m_watchStatus[sizeof(format::FileHeader::m_watchStatus)] = {};
};
extern LogOrigin g_origin;

// MEMLOG_ONLY_PID (`memlog run --no-children`): every other process runs unrecorded.
bool isChosenProcess();

// Creates the log and announces it; `parentPid`: a fork child's parent, else 0. On failure the
// program runs on, unrecorded.
void openLog(uint32_t parentPid);

// In a fork child: lets go of the parent's log without touching it (the parent keeps writing
// it); returns the parent's pid, 0 when it had no log.
uint32_t leaveParentLog();

// The log ends cleanly (exit, _exit, exec). undoEnd reopens it when exec failed.
void endLog(format::EndReason reason);
void undoEnd();

// The sampler's counters in the log's header; nullptr while nothing is recorded.
format::AccessCounters* accessCounters();

}  // namespace memlog::preload

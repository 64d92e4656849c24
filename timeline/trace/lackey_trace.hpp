// The output of Valgrind's lackey tool (--trace-mem=yes) with the recorder's markers in it
// (preload/src/trace/full_trace.hpp), read line by line into accesses placed among the recorder's
// events: "I  ADDR,SIZE" an instruction (the ip of the data accesses after it), " L", " S" and
// " M" a load, a store, a modify (read and write) of SIZE bytes at ADDR; "**PID** memlog<" and
// "**PID** memlog>" bracket the recorder's and the allocator's work (left out), "memlog> SEQ TSC"
// closes an event. Accesses before the first event are the loader's and the C library's start-up
// and are left out too. Each access gets a sequence number after its event's (the recorder steps
// by format::kTraceSeqStride) and a time between its event's and the next one's.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "memlog/format.hpp"

namespace memlog::timeline {

class LackeyTrace {
public:
    // `emit` gets each access in order, when its time is known (at the next event, or finish()).
    explicit LackeyTrace(std::function<void(const format::AccessRecord&)> emit) : m_emit(std::move(emit)) {}

    // Feeds bytes as they come; lines may be cut anywhere.
    void feed(std::string_view bytes);
    void finish();

    uint64_t accesses() const { return m_accesses; }
    uint64_t leftOut() const { return m_leftOut; }  // the recorder's, the allocator's, start-up's
    uint64_t events() const { return m_events; }
    // Valgrind's own lines ("==PID== ..."), for a failure's message.
    const std::vector<std::string>& valgrindLines() const { return m_valgrindLines; }

private:
    void line(std::string_view text);
    void flush(uint64_t nextTsc);

    struct Pending {
        uint64_t m_addr, m_ip;
        uint32_t m_size;
        format::AccessKind m_kind;
    };
    std::function<void(const format::AccessRecord&)> m_emit;
    std::string m_partial;
    std::vector<Pending> m_pending;  // since the last event
    bool m_quiet = false, m_started = false;
    uint64_t m_ip = 0, m_eventSeq = 0, m_eventTsc = 0;
    uint64_t m_accesses = 0, m_leftOut = 0, m_events = 0;
    std::vector<std::string> m_valgrindLines;
};

}  // namespace memlog::timeline

// A synthetic full trace for tests without Valgrind: two threads' trace streams (format_trace.hpp)
// interleaved with one thread's heap events, every access's instruction count and the sum over
// the threads known (test_instruction_axis.cpp, the window's test of the instruction axis).
#pragma once

#include <cstdint>
#include <string>

#include "log_builder.hpp"
#include "memlog/format.hpp"

namespace memlog::test {

// One thread's trace stream: a block of one 8-byte write (the block's first instruction), then
// runs of it, each placed in the sequence and given its instructions since the run before.
class OneOpStream {
public:
    explicit OneOpStream(LogBuilder::Thread& stream) : m_stream(stream) {
        format::TraceOp op;
        op.m_ip = 0x401000;
        op.m_size = 8;
        op.m_kind = format::AccessKind::Write;
        uint8_t buffer[64];
        uint8_t* end = format::encodeTraceBlockPayload(buffer, 1, &op, 1);
        buffer[0] = static_cast<uint8_t>(format::Kind::TraceBlock);
        m_stream.raw({buffer, end});
    }
    // One access at `seq`, `start` instructions after the previous run's start: the thread's
    // count at it is the sum of the starts so far plus one (the accessing instruction).
    void run(uint64_t seq, uint64_t start, uint64_t addr) {
        const uint8_t tag = static_cast<uint8_t>(format::Kind::TraceRun) | format::kTraceRunSeq | format::kTraceRunTime;
        format::TraceRunHead head;
        head.m_block = 1;
        head.m_start = start;
        head.m_seqDelta = seq - m_nextSeq;
        head.m_tscDelta = static_cast<int64_t>(seq * LogBuilder::kTicksPerSeq - m_tsc);
        uint8_t buffer[64];
        uint8_t* p = format::encodeTraceRunHead(buffer, tag, head);
        p = format::encodeTraceAddress(p, addr, m_lastAddr);
        buffer[0] = tag;
        m_stream.raw({buffer, p});
        m_nextSeq = seq + 1;
        m_tsc = seq * LogBuilder::kTicksPerSeq;
    }
    void end() { m_stream.raw({static_cast<uint8_t>(format::Kind::TraceEnd)}); }

private:
    LogBuilder::Thread& m_stream;
    uint64_t m_nextSeq = 0, m_tsc = 0, m_lastAddr = 0;
};

// Thread 11 allocates A, B and C and frees A; both threads run between, each its own count:
//   seq  1  thread 11 access, its count 101            sum  101
//   seq  3  thread 12 access, its count 1001           sum 1102
//   seq  5  malloc A                                   x   1102
//   seq  7  thread 11 access, its count 151            sum 1152
//   seq  8  thread 12 access, its count 1501           sum 1652
//   seq 10  malloc B                                   x   1652
//   seq 12  thread 11 access, its count 1151           sum 2652
//   seq 15  malloc C, seq 16 free A                    x   2652
inline void writeTwoThreadTrace(const std::string& path) {
    LogBuilder builder;
    builder.header().m_accessSampler = format::AccessSampler::FullTrace;
    LogBuilder::Thread& heap = builder.thread(11);
    OneOpStream first(builder.traceStream(11)), second(builder.traceStream(12));
    first.run(1, 100, 0x7000);
    second.run(3, 1000, 0x8000);
    heap.malloc(5, 0x10000, 64);
    first.run(7, 50, 0x7008);
    second.run(8, 500, 0x8008);
    heap.malloc(10, 0x20000, 64);
    first.run(12, 1000, 0x7010);
    heap.malloc(15, 0x30000, 64);
    heap.free(16, 0x10000);
    first.end();
    second.end();
    builder.write(path);
}

}  // namespace memlog::test

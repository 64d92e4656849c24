// The instruction axis of a full trace: the program's instructions summed over its threads, each
// thread counted up to its last access before a heap event (instruction_clock.hpp), and the block
// model built on that clock from a log whose two threads' trace streams interleave.
#include <catch2/catch.hpp>

#include <cstdio>
#include <vector>

#include "log_builder.hpp"
#include "memlog/format.hpp"
#include "reader_files.hpp"
#include "timeline/model/block_model.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/replay/instruction_clock.hpp"

using namespace memlog;
using timeline::BlockModel;
using timeline::InstructionClock;
using timeline::XAxis;

namespace {

// One thread's trace stream: a block of one 8-byte write (the block's first instruction), then
// runs of it, each placed in the sequence and given its instructions since the run before.
class OneOpStream {
public:
    explicit OneOpStream(test::LogBuilder::Thread& stream) : m_stream(stream) {
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
        head.m_tscDelta = static_cast<int64_t>(seq * test::LogBuilder::kTicksPerSeq - m_tsc);
        uint8_t buffer[64];
        uint8_t* p = format::encodeTraceRunHead(buffer, tag, head);
        p = format::encodeTraceAddress(p, addr, m_lastAddr);
        buffer[0] = tag;
        m_stream.raw({buffer, p});
        m_nextSeq = seq + 1;
        m_tsc = seq * test::LogBuilder::kTicksPerSeq;
    }
    void end() { m_stream.raw({static_cast<uint8_t>(format::Kind::TraceEnd)}); }

private:
    test::LogBuilder::Thread& m_stream;
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
std::string writeTwoThreadTrace() {
    test::LogBuilder builder;
    builder.header().m_accessSampler = format::AccessSampler::FullTrace;
    test::LogBuilder::Thread& heap = builder.thread(11);
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
    const std::string path = test::tempPath("instruction-axis");
    builder.write(path);
    return path;
}

BlockModel modelOn(const std::string& path, XAxis clock) {
    timeline::LogReader reader(path);
    return timeline::buildBlockModel(reader, {}, false, clock);
}

}  // namespace

TEST_CASE("the clock sums each thread's count at its last access, whatever the order of the threads") {
    InstructionClock clock;
    CHECK(clock.now() == 0);
    clock.access(11, 101);
    clock.access(12, 1001);
    CHECK(clock.now() == 1102);
    clock.access(11, 151);  // thread 11 moved on by 50: thread 12's count stays in the sum
    CHECK(clock.now() == 1152);
    clock.access(12, 1501);
    clock.access(11, 1151);
    CHECK(clock.now() == 2652);
    clock.access(11, 1151);  // a second access of the same instruction adds nothing
    CHECK(clock.now() == 2652);
    // A count that goes back is a new thread that took a finished one's id: it began at 0.
    clock.access(12, 7);
    CHECK(clock.now() == 2659);
}

TEST_CASE("a model on the instruction clock places each block at the threads' summed instructions") {
    const std::string path = writeTwoThreadTrace();
    const BlockModel model = modelOn(path, XAxis::Instructions);
    REQUIRE(model.clock() == XAxis::Instructions);
    REQUIRE(model.size() == 3);
    const timeline::Block &a = model[0], &b = model[1], &c = model[2];
    CHECK(a.from(XAxis::Instructions) == 1102);
    CHECK(a.to(XAxis::Instructions) == 2652);  // freed after thread 11's third access
    CHECK(b.from(XAxis::Instructions) == 1652);
    CHECK(c.from(XAxis::Instructions) == 2652);
    CHECK(b.liveAtEnd());
    CHECK(b.to(XAxis::Instructions) == 2652);  // the end of the log: every instruction counted
    CHECK(model.extent(XAxis::Instructions) == timeline::XWindow{1102, 2652});
    // The event axis reads the sequence numbers, whatever the clock.
    CHECK(a.from(XAxis::Events) == 5);
    CHECK(b.from(XAxis::Events) == 10);
    // Each access at the sum after it.
    std::vector<uint64_t> marks;
    for (const timeline::AccessMark& mark : model.accessMarks()) marks.push_back(mark.m_instructions);
    CHECK(marks == std::vector<uint64_t>{101, 1102, 1152, 1652, 2652});
    CHECK(timeline::markX(model.accessMarks()[2], XAxis::Instructions) == 1152);
    CHECK(timeline::markX(model.accessMarks()[2], XAxis::Events) == 7);
    // Phases and other places given by sequence number land on the block event at or after them.
    CHECK(model.clockAtSeq(6) == 1652);
    CHECK(model.clockAtSeq(16) == 2652);
    std::remove(path.c_str());
}

TEST_CASE("the same log on the time clock keeps its nanoseconds, and marks keep both") {
    const std::string path = writeTwoThreadTrace();
    const BlockModel model = modelOn(path, XAxis::Time);
    REQUIRE(model.clock() == XAxis::Time);
    REQUIRE(model.size() == 3);
    CHECK(model[0].from(XAxis::Time) == 5 * test::LogBuilder::kTicksPerSeq);
    CHECK(model[1].from(XAxis::Time) == 10 * test::LogBuilder::kTicksPerSeq);
    REQUIRE(model.accessMarks().size() == 5);
    CHECK(model.accessMarks()[1].m_timeNs == 3 * test::LogBuilder::kTicksPerSeq);
    CHECK(model.accessMarks()[1].m_instructions == 1102);
    std::remove(path.c_str());
}

TEST_CASE("axis names and labels") {
    CHECK(timeline::xAxisNamed("instructions") == XAxis::Instructions);
    CHECK(timeline::xAxisNamed("events") == XAxis::Events);
    CHECK_FALSE(timeline::xAxisNamed("cycles"));
    CHECK(timeline::xText(XAxis::Instructions, 12.3e6) == "12.3M instr");
    CHECK(timeline::xText(XAxis::Events, 1234) == "event 1,234");
    CHECK(timeline::clockOf(XAxis::Events) == XAxis::Time);
    CHECK(timeline::clockOf(XAxis::Instructions) == XAxis::Instructions);
}

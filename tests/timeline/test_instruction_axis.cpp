// The instruction axis of a full trace: the program's instructions summed over its threads, each
// thread counted up to its last access before a heap event (instruction_clock.hpp), and the block
// model built on that clock from a log whose two threads' trace streams interleave.
#include <catch2/catch.hpp>

#include <cstdio>
#include <vector>

#include "memlog/format.hpp"
#include "reader_files.hpp"
#include "timeline/model/block_model.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/replay/instruction_clock.hpp"
#include "trace_streams.hpp"

using namespace memlog;
using timeline::BlockModel;
using timeline::InstructionClock;
using timeline::XAxis;

namespace {

std::string writtenTrace() {
    const std::string path = test::tempPath("instruction-axis");
    test::writeTwoThreadTrace(path);
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
    const std::string path = writtenTrace();
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
    const std::string path = writtenTrace();
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

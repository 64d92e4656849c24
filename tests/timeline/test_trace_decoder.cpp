// A full trace's records (memlog/format_trace.hpp) as the tool encodes them and the reader's
// TraceDecoder reads them back: blocks, explicit and predicted runs, guarded operations, runs
// cut short by a side exit, held sequence numbers, time, and what does not decode.
#include <catch2/catch.hpp>

#include <vector>

#include "memlog/format.hpp"
#include "timeline/read/trace_decoder.hpp"

using namespace memlog;
using format::AccessKind;
using format::Kind;
using timeline::TraceDecoder;

namespace {

// A stream's bytes, written record by record with the format's encoders.
struct Stream {
    std::vector<uint8_t> m_bytes;
    uint8_t m_buffer[4096];

    void block(uint64_t id, const std::vector<format::TraceOp>& ops) {
        uint8_t* end = format::encodeTraceBlockPayload(m_buffer, id, ops.data(), static_cast<uint32_t>(ops.size()));
        m_buffer[0] = static_cast<uint8_t>(Kind::TraceBlock);
        m_bytes.insert(m_bytes.end(), m_buffer, end);
    }
    // A run: its head, then each op's address code (plain ops: zigzag of the delta from `last`).
    void run(uint8_t tag, const format::TraceRunHead& head, const std::vector<std::pair<bool, uint64_t>>& addresses,
             std::vector<uint64_t>& last, const std::vector<format::TraceOp>& ops) {
        uint8_t* p = format::encodeTraceRunHead(m_buffer, tag, head);
        for (size_t i = 0; i < addresses.size(); ++i)
            p = ops[i].m_guarded ? format::encodeGuardedTraceAddress(p, addresses[i].first, addresses[i].second, last[i])
                                 : format::encodeTraceAddress(p, addresses[i].second, last[i]);
        m_buffer[0] = tag;
        m_bytes.insert(m_bytes.end(), m_buffer, p);
    }
};

// Every access the stream holds, in order; `ok` false when a record or address did not decode.
std::vector<format::AccessRecord> decodeAll(const std::vector<uint8_t>& bytes, bool* ok, bool* ended = nullptr) {
    TraceDecoder decoder;
    std::vector<format::AccessRecord> accesses;
    const uint8_t* p = bytes.data();
    const uint8_t* end = p + bytes.size();
    *ok = true;
    while (p < end) {
        if (decoder.inRun()) {
            format::AccessRecord access;
            const TraceDecoder::Step step = decoder.next(&p, end, access);
            if (step == TraceDecoder::Step::Damaged) return *ok = false, accesses;
            if (step == TraceDecoder::Step::Access) accesses.push_back(access);
            continue;
        }
        const uint8_t tag = *p++;
        if (!decoder.record(tag, &p, end)) return *ok = false, accesses;
    }
    while (decoder.inRun()) {
        format::AccessRecord access;
        if (decoder.next(&p, end, access) != TraceDecoder::Step::Access) break;
        accesses.push_back(access);
    }
    if (ended) *ended = decoder.ended();
    return accesses;
}

format::TraceOp op(uint64_t ip, uint32_t size, AccessKind kind, uint32_t index, bool guarded = false) {
    format::TraceOp o;
    o.m_ip = ip;
    o.m_size = size;
    o.m_kind = kind;
    o.m_index = index;
    o.m_guarded = guarded;
    return o;
}

format::TraceRunHead runHead(uint64_t block, uint64_t start) {
    format::TraceRunHead head;
    head.m_block = block;
    head.m_start = start;
    return head;
}

constexpr uint8_t kRun = static_cast<uint8_t>(Kind::TraceRun);
constexpr uint8_t kPredicted = static_cast<uint8_t>(Kind::TraceRunPredicted);

}  // namespace

TEST_CASE("trace: a loop's runs decode to each access with its address, kind, size, ip, number, time and instructions") {
    // Block 1: a load at instruction 0, a store at instruction 2 (ips 0x1000, 0x1008), 8 bytes.
    const std::vector<format::TraceOp> ops = {op(0x1000, 8, AccessKind::Read, 0), op(0x1008, 8, AccessKind::Write, 2)};
    Stream stream;
    stream.block(1, ops);
    std::vector<uint64_t> last(2, 0);
    format::TraceRunHead head = runHead(1, 100);  // the thread's 100 instructions before the loop
    head.m_seqDelta = 41;  // numbers from 41
    head.m_tscDelta = 5000;
    stream.run(kRun | format::kTraceRunSeq | format::kTraceRunTime, head, {{true, 0x7000}, {true, 0x8000}}, last, ops);
    // The same block again, 5 instructions later: predicted, and the addresses 8 bytes on.
    format::TraceRunHead again = runHead(1, 5);
    stream.run(kRun, again, {{true, 0x7008}, {true, 0x8008}}, last, ops);  // the first repeat is told
    stream.run(kPredicted, {}, {{true, 0x7010}, {true, 0x8010}}, last, ops);  // then predicted
    bool ok = false;
    const auto accesses = decodeAll(stream.m_bytes, &ok);
    REQUIRE(ok);
    REQUIRE(accesses.size() == 6);
    const uint64_t addresses[] = {0x7000, 0x8000, 0x7008, 0x8008, 0x7010, 0x8010};
    const uint64_t instructions[] = {101, 103, 106, 108, 111, 113};
    for (size_t i = 0; i < 6; ++i) {
        INFO(i);
        CHECK(accesses[i].m_addr == addresses[i]);
        CHECK(accesses[i].m_seq == 41 + i);
        CHECK(accesses[i].m_tsc == 5000);
        CHECK(accesses[i].m_size == 8);
        CHECK(accesses[i].m_kind == (i % 2 ? AccessKind::Write : AccessKind::Read));
        CHECK(accesses[i].m_ip == (i % 2 ? 0x1008u : 0x1000u));
        CHECK(accesses[i].m_instructions == instructions[i]);
        CHECK(accesses[i].m_source == format::AccessSource::Trace);
    }
}

TEST_CASE("trace: a predicted run is its tag and its addresses: a loop's access in two bytes") {
    const std::vector<format::TraceOp> ops = {op(0x1000, 8, AccessKind::Write, 0)};
    Stream stream;
    stream.block(1, ops);
    std::vector<uint64_t> last(1, 0);
    format::TraceRunHead head = runHead(1, 3);
    stream.run(kRun, head, {{true, 0x7000}}, last, ops);
    stream.run(kRun, head, {{true, 0x7008}}, last, ops);
    const size_t before = stream.m_bytes.size();
    stream.run(kPredicted, {}, {{true, 0x7010}}, last, ops);
    const std::vector<uint8_t> predicted(stream.m_bytes.begin() + static_cast<long>(before), stream.m_bytes.end());
    CHECK(predicted == std::vector<uint8_t>{kPredicted, 0x10});  // zigzag(+8) = 16
}

TEST_CASE("trace: guarded ops that made no access, a run cut short by a side exit, held numbers") {
    // A masked store's four lanes (guarded), then a load the side exit skips.
    const std::vector<format::TraceOp> ops = {
        op(0x2000, 4, AccessKind::Write, 0, true), op(0x2000, 4, AccessKind::Write, 0, true),
        op(0x2000, 4, AccessKind::Write, 0, true), op(0x2000, 4, AccessKind::Write, 0, true),
        op(0x2004, 8, AccessKind::Read, 1)};
    Stream stream;
    stream.block(1, ops);
    std::vector<uint64_t> last(5, 0);
    format::TraceRunHead head = runHead(1, 10);
    head.m_seqDelta = 7;
    head.m_reached = 4;  // left by the side exit before the load
    stream.run(kRun | format::kTraceRunSeq | format::kTraceRunReached, head,
               {{true, 0x9000}, {false, 0}, {true, 0x9008}, {false, 0}}, last, ops);
    // The whole block again, its numbers held at one (out of numbers until the next event).
    format::TraceRunHead held = runHead(1, 2);
    held.m_seqDelta = 100;
    held.m_hold = true;
    stream.run(kRun | format::kTraceRunSeq, held, {{true, 0x9000}, {true, 0x9004}, {false, 0}, {false, 0}, {true, 0x5000}},
               last, ops);
    stream.m_bytes.push_back(static_cast<uint8_t>(Kind::TraceEnd));
    bool ok = false, ended = false;
    const auto accesses = decodeAll(stream.m_bytes, &ok, &ended);
    REQUIRE(ok);
    CHECK(ended);
    REQUIRE(accesses.size() == 5);
    CHECK(accesses[0].m_addr == 0x9000);
    CHECK(accesses[0].m_seq == 7);
    CHECK(accesses[1].m_addr == 0x9008);
    CHECK(accesses[1].m_seq == 8);  // the lane without an access took no number
    // The held run: the stream's next number was 9; 100 on, and all three accesses at 109.
    CHECK(accesses[2].m_addr == 0x9000);
    CHECK(accesses[3].m_addr == 0x9004);
    CHECK(accesses[4].m_addr == 0x5000);
    CHECK(accesses[4].m_size == 8);
    CHECK(accesses[4].m_kind == AccessKind::Read);
    for (size_t i = 2; i < 5; ++i) CHECK(accesses[i].m_seq == 109);
    CHECK(accesses[4].m_instructions == 10 + 2 + 1 + 1);
}

TEST_CASE("trace: a run of a block never declared, a prediction with nothing behind it, ops out of range: refused") {
    const std::vector<format::TraceOp> ops = {op(0x1000, 8, AccessKind::Read, 0)};
    std::vector<uint64_t> last(1, 0);
    bool ok = true;
    {
        Stream stream;  // no block 1
        format::TraceRunHead head = runHead(1, 0);
        stream.run(kRun, head, {{true, 0x10}}, last, ops);
        decodeAll(stream.m_bytes, &ok);
        CHECK_FALSE(ok);
    }
    {
        Stream stream;  // a predicted run first: no run before it to predict from
        stream.block(1, ops);
        stream.run(kPredicted, {}, {{true, 0x10}}, last, ops);
        decodeAll(stream.m_bytes, &ok);
        CHECK_FALSE(ok);
    }
    {
        Stream stream;  // a block declared out of order
        stream.block(2, ops);
        decodeAll(stream.m_bytes, &ok);
        CHECK_FALSE(ok);
    }
    {
        Stream stream;  // reaching more ops than the block has
        stream.block(1, ops);
        format::TraceRunHead head = runHead(1, 0);
        head.m_reached = 2;
        stream.run(kRun | format::kTraceRunReached, head, {{true, 0x10}}, last, ops);
        decodeAll(stream.m_bytes, &ok);
        CHECK_FALSE(ok);
    }
    {
        Stream stream;  // an address cut short
        stream.block(1, ops);
        format::TraceRunHead head = runHead(1, 0);
        stream.run(kRun, head, {{true, 0x7fff'ffff'0000}}, last, ops);
        stream.m_bytes.pop_back();
        decodeAll(stream.m_bytes, &ok);
        CHECK_FALSE(ok);
    }
}

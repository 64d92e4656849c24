// The log format's encoders and decoders: what the recorder writes, the reader reads back.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "memlog/format.hpp"

using namespace memlog::format;

TEST_CASE("varints and zigzag round-trip at their edges") {
    for (uint64_t value : {0ull, 1ull, 127ull, 128ull, 16383ull, 16384ull, (1ull << 35) + 7, ~0ull}) {
        uint8_t buffer[10];
        const uint8_t* end = putVarint(buffer, value);
        const uint8_t* cursor = buffer;
        uint64_t back = 0;
        REQUIRE(getVarint(&cursor, end, &back));
        CHECK(back == value);
        CHECK(cursor == end);
    }
    for (int64_t value : std::vector<int64_t>{0, -1, 1, -64, 64, INT64_MIN, INT64_MAX})
        CHECK(unzigzag(zigzag(value)) == value);
    CHECK(zigzag(-1) == 1);
    CHECK(zigzag(1) == 2);
}

TEST_CASE("a varint cut short or longer than ten bytes does not decode") {
    const uint8_t cut[] = {0x80, 0x80};
    const uint8_t* cursor = cut;
    uint64_t value;
    CHECK_FALSE(getVarint(&cursor, cut + 2, &value));
    const uint8_t endless[11] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    cursor = endless;
    CHECK_FALSE(getVarint(&cursor, endless + 11, &value));
}

TEST_CASE("every heap kind round-trips with the fields it carries") {
    for (uint8_t k = static_cast<uint8_t>(Kind::Malloc); k <= static_cast<uint8_t>(Kind::Mremap); ++k) {
        const Kind kind = static_cast<Kind>(k);
        const KindInfo& info = kindInfo(kind);
        INFO(info.m_name);
        HeapRecord record;
        record.m_kind = kind;
        record.m_seq = 1000 + k;
        record.m_tsc = 5'000'000 + k;
        record.m_addr = 0x7f00'0000'1000ull + k * 16;
        record.m_size = info.m_hasSize ? 4096 + k : 0;
        record.m_align = info.m_hasAlign ? 64 : 0;
        record.m_oldAddr = info.m_hasOld ? 0x5555'0000'0000ull : 0;
        record.m_oldSize = info.m_hasOldSize ? 8192 : 0;
        record.m_seqAfter = info.m_hasOld ? record.m_seq + 3 : 0;
        record.m_stack = 77;

        ChunkCursorState writer{990, 4'999'000, 0x7f00'0000'0000ull}, reader = writer;
        uint8_t buffer[kMaxHeapRecordBytes];
        const EncodedHeapRecord encoded = encodeHeapPayload(buffer, record, writer);
        const uint8_t* end = encoded.m_end;
        REQUIRE(end - buffer <= static_cast<long>(kMaxHeapRecordBytes));
        CHECK(encoded.m_tag == k);  // every field written: no flags
        const uint8_t* cursor = buffer + 1;
        HeapRecord back;
        REQUIRE(decodeHeapPayload(&cursor, end, encoded.m_tag, back, reader));
        CHECK(cursor == end);
        CHECK(back.m_seq == record.m_seq);
        CHECK(back.m_tsc == record.m_tsc);
        CHECK(back.m_addr == record.m_addr);
        CHECK(back.m_size == record.m_size);
        CHECK(back.m_align == record.m_align);
        CHECK(back.m_oldAddr == record.m_oldAddr);
        CHECK(back.m_oldSize == record.m_oldSize);
        CHECK(back.m_seqAfter == record.m_seqAfter);
        CHECK(back.m_stack == record.m_stack);
        CHECK(reader.m_seq == writer.m_seq);
        // Every byte is needed: one less and the record is torn.
        cursor = buffer + 1;
        ChunkCursorState fresh{990, 4'999'000, 0x7f00'0000'0000ull};
        CHECK_FALSE(decodeHeapPayload(&cursor, end - 1, encoded.m_tag, back, fresh));
    }
}

TEST_CASE("a heap record read and not kept leaves the deltas for a second reading of it") {
    // The reader's inline path reads a record, and a record it turns down (a stack id past what
    // the log could hold, say) is read again by the long way from the same deltas.
    HeapRecord first, second;
    first.m_kind = second.m_kind = Kind::Malloc;
    first.m_seq = 41, first.m_tsc = 9'000, first.m_addr = 0x5000, first.m_size = 32, first.m_stack = 3;
    second.m_seq = 42, second.m_tsc = 9'500, second.m_addr = 0x5040, second.m_size = 48, second.m_stack = 4;
    ChunkCursorState writer{40, 8'000, 0x4000};
    uint8_t buffer[2 * kMaxHeapRecordBytes];
    const EncodedHeapRecord one = encodeHeapPayload(buffer, first, writer);
    uint8_t* middle = one.m_end;
    const EncodedHeapRecord two = encodeHeapPayload(middle, second, writer);
    uint8_t* end = two.m_end;

    const ChunkCursorState start{40, 8'000, 0x4000};
    ChunkCursorState state = start;
    HeapRecord back;
    for (int reading = 0; reading < 2; ++reading) {
        const uint8_t* cursor = buffer + 1;
        REQUIRE(readHeapPayload(&cursor, end, one.m_tag, back, state));
        CHECK(cursor == middle);
        CHECK(back.m_seq == 41);
        CHECK(back.m_addr == 0x5000);
        CHECK(std::memcmp(&state, &start, sizeof state) == 0);
    }
    keepDeltas(state, back);
    CHECK(state.m_seq == 41);
    CHECK(state.m_tsc == 9'000);
    CHECK(state.m_addr == 0x5000);
    const uint8_t* cursor = middle + 1;
    REQUIRE(decodeHeapPayload(&cursor, end, two.m_tag, back, state));
    CHECK(back.m_seq == 42);
    CHECK(back.m_tsc == 9'500);
    CHECK(back.m_addr == 0x5040);
    CHECK(back.m_size == 48);
    CHECK(state.m_seq == 42);
}

TEST_CASE("a heap record far from its chunk's end decodes without end tests to the same fields") {
    for (uint8_t k = static_cast<uint8_t>(Kind::Malloc); k <= static_cast<uint8_t>(Kind::Mremap); ++k) {
        const Kind kind = static_cast<Kind>(k);
        const KindInfo& info = kindInfo(kind);
        INFO(info.m_name);
        HeapRecord record;
        record.m_kind = kind;
        record.m_seq = 1'000'000'000'000ull + k;  // every varint long
        record.m_tsc = 1ull << 62;
        record.m_addr = 0x7fff'ffff'f000ull;
        record.m_size = info.m_hasSize ? ~0ull >> 1 : 0;
        record.m_align = info.m_hasAlign ? 1ull << 40 : 0;
        record.m_oldAddr = info.m_hasOld ? 16 : 0;
        record.m_oldSize = info.m_hasOldSize ? ~0ull : 0;
        record.m_seqAfter = info.m_hasOld ? record.m_seq + (1ull << 50) : 0;
        record.m_stack = ~0u;
        ChunkCursorState writer{}, checked{}, unchecked{};
        uint8_t buffer[2 * kMaxHeapRecordBytes] = {};
        const EncodedHeapRecord encoded = encodeHeapPayload(buffer, record, writer);
        const uint8_t* end = encoded.m_end;
        const uint8_t* near = buffer + 1;  // the end right after the record: tested per byte
        const uint8_t* far = buffer + 1;  // the buffer's room beyond it: not
        HeapRecord one, other;
        REQUIRE(decodeHeapPayload(&near, end, encoded.m_tag, one, checked));
        REQUIRE(decodeHeapPayload(&far, buffer + sizeof buffer, encoded.m_tag, other, unchecked));
        CHECK(near == end);
        CHECK(far == end);
        for (const HeapRecord* back : {&one, &other}) {
            CHECK(back->m_seq == record.m_seq);
            CHECK(back->m_tsc == record.m_tsc);
            CHECK(back->m_addr == record.m_addr);
            CHECK(back->m_size == record.m_size);
            CHECK(back->m_align == record.m_align);
            CHECK(back->m_oldAddr == record.m_oldAddr);
            CHECK(back->m_oldSize == record.m_oldSize);
            CHECK(back->m_seqAfter == record.m_seqAfter);
            CHECK(back->m_stack == record.m_stack);
        }
        CHECK(std::memcmp(&checked, &unchecked, sizeof checked) == 0);
    }
    uint8_t endless[kMaxHeapRecordBytes] = {};
    std::memset(endless, 0x80, 11);  // a sequence delta longer than ten bytes
    const uint8_t* cursor = endless;
    uint64_t value;
    CHECK_FALSE(getVarintAs<false>(&cursor, nullptr, &value));
    HeapRecord back;
    ChunkCursorState state{};
    cursor = endless;
    CHECK_FALSE(decodeHeapPayload(&cursor, endless + sizeof endless, static_cast<uint8_t>(Kind::Malloc), back, state));
}

TEST_CASE("a malloc record has these exact bytes") {
    HeapRecord record;
    record.m_kind = Kind::Malloc;
    record.m_seq = 5;
    record.m_tsc = 300;
    record.m_addr = 0x1010;
    record.m_size = 200;
    record.m_stack = 3;
    ChunkCursorState state{4, 100, 0x1000};
    uint8_t buffer[kMaxHeapRecordBytes];
    const EncodedHeapRecord encoded = encodeHeapPayload(buffer, record, state);
    buffer[0] = encoded.m_tag;
    // tag (malloc, seq +1 left out), tsc +200 (zigzag 400 = 0x90 0x03), addr +16 (zigzag 32), size 200
    // (0xc8 0x01), stack 3
    const std::vector<uint8_t> expected = {0x21, 0x90, 0x03, 0x20, 0xc8, 0x01, 0x03};
    CHECK(std::vector<uint8_t>(buffer, encoded.m_end) == expected);

    // Three numbers on and no stack: the sequence delta written, the stack left out.
    record.m_seq = 8;
    record.m_tsc = 350;
    record.m_addr = 0x1000;
    record.m_size = 16;
    record.m_stack = 0;
    const EncodedHeapRecord next = encodeHeapPayload(buffer, record, state);
    buffer[0] = next.m_tag;
    // tag (malloc, no stack), seq +3, tsc +50 (zigzag 100 = 0x64), addr -16 (zigzag 31 = 0x1f), size 16
    const std::vector<uint8_t> nextExpected = {0x41, 0x03, 0x64, 0x1f, 0x10};
    CHECK(std::vector<uint8_t>(buffer, next.m_end) == nextExpected);
}

TEST_CASE("a heap record's tag flags leave out a sequence delta of one and an empty stack") {
    HeapRecord record;
    record.m_kind = Kind::Free;
    record.m_seq = 11;
    record.m_tsc = 650;
    record.m_addr = 0x2000;
    ChunkCursorState writer{10, 600, 0x2000}, reader = writer;
    uint8_t buffer[kMaxHeapRecordBytes];
    const EncodedHeapRecord encoded = encodeHeapPayload(buffer, record, writer);
    CHECK(encoded.m_tag == (static_cast<uint8_t>(Kind::Free) | kTagSeqNext | kTagNoStack));
    CHECK(encoded.m_end - buffer == 1 + 2);  // tag, tsc +50 (zigzag 100), addr +0
    const uint8_t* cursor = buffer + 1;
    HeapRecord back;
    REQUIRE(decodeHeapPayload(&cursor, encoded.m_end, encoded.m_tag, back, reader));
    CHECK(cursor == encoded.m_end);
    CHECK(back.m_kind == Kind::Free);
    CHECK(back.m_seq == 11);
    CHECK(back.m_tsc == 650);
    CHECK(back.m_addr == 0x2000);
    CHECK(back.m_stack == 0);

    // The same bytes read without the flags are another record (a version 3 reader's mistake),
    // and the reserved flag is damage.
    cursor = buffer + 1;
    ChunkCursorState fresh{10, 600, 0x2000};
    REQUIRE(decodeHeapPayload(&cursor, encoded.m_end + 8, static_cast<uint8_t>(Kind::Free), back, fresh));
    CHECK(back.m_seq != 11);
    cursor = buffer + 1;
    fresh = {10, 600, 0x2000};
    CHECK_FALSE(decodeHeapPayload(&cursor, encoded.m_end, encoded.m_tag | kTagReserved, back, fresh));
    CHECK(fresh.m_seq == 10);
}

TEST_CASE("stack and module records round-trip") {
    const uint64_t frames[] = {0x55550000'1234ull, 0x55550000'1000ull, 0x7f000000'0042ull};
    uint8_t buffer[256];
    uint8_t* end = encodeStackPayload(buffer, 9, frames, 3);
    const uint8_t* cursor = buffer + 1;
    uint64_t id, back[kMaxStackDepth];
    uint32_t depth;
    REQUIRE(decodeStackPayload(&cursor, end, &id, back, &depth));
    CHECK(id == 9);
    REQUIRE(depth == 3);
    CHECK(std::vector<uint64_t>(back, back + 3) == std::vector<uint64_t>(frames, frames + 3));

    const uint8_t buildId[] = {0xde, 0xad, 0xbe, 0xef};
    ModuleView module;
    module.m_base = 0x5555'0000'0000ull;
    module.m_lo = module.m_base + 0x1000;
    module.m_hi = module.m_base + 0x9000;
    module.m_buildId = buildId;
    module.m_buildIdBytes = 4;
    module.m_path = "/usr/lib/libx.so";
    module.m_pathBytes = 16;
    end = encodeModulePayload(buffer, module);
    cursor = buffer + 1;
    ModuleView read;
    REQUIRE(decodeModulePayload(&cursor, end, read));
    CHECK(read.m_lo == module.m_lo);
    CHECK(read.m_hi == module.m_hi);
    CHECK(std::string(read.m_path, read.m_pathBytes) == "/usr/lib/libx.so");
    CHECK(read.m_buildIdBytes == 4);
}

TEST_CASE("TSC to ns uses the end pair of a clean log, else the start calibration") {
    FileHeader header{};
    header.m_startTsc = 1000;
    header.m_startNs = 50;
    header.m_tscPerNsQ32 = 3ull << 32;  // 3 ticks per ns
    CHECK(tscToNs(header, 1000 + 3000) == 50 + 1000);
    header.m_flags = kFlagCleanEnd;
    header.m_endTsc = 1000 + 4'000'000;
    header.m_endNs = 50 + 2'000'000;  // measured: 2 ticks per ns
    CHECK(tscToNs(header, 1000 + 3000) == 50 + 1500);
}

TEST_CASE("an access record round-trips: kind, source, size, the instruction and its delta state") {
    AccessRecord record;
    record.m_seq = 5000;
    record.m_tsc = 9'000'000;
    record.m_addr = 0x7f00'0000'2040ull;
    record.m_size = 32;
    record.m_kind = AccessKind::ReadWrite;
    record.m_source = AccessSource::Watchpoint;
    record.m_ipAfter = true;
    record.m_inAllocator = true;
    record.m_ip = 0x5555'0000'1234ull;
    record.m_stack = 12;
    record.m_armedBy = 4000;
    ChunkCursorState writer{4990, 8'999'000, 0x7f00'0000'0000ull, 0x5555'0000'1000ull}, reader = writer;
    uint8_t buffer[kMaxAccessRecordBytes];
    uint8_t* end = encodeAccessPayload(buffer, record, writer);
    const uint8_t* cursor = buffer + 1;
    AccessRecord back;
    REQUIRE(decodeAccessPayload(&cursor, end, back, reader));
    CHECK(cursor == end);
    CHECK(back.m_seq == 5000);
    CHECK(back.m_tsc == 9'000'000);
    CHECK(back.m_addr == record.m_addr);
    CHECK(back.m_size == 32);
    CHECK(back.m_kind == AccessKind::ReadWrite);
    CHECK(back.m_source == AccessSource::Watchpoint);
    CHECK(back.m_ipAfter);
    CHECK(back.m_inAllocator);
    CHECK(back.m_ip == record.m_ip);
    CHECK(back.m_stack == 12);
    CHECK(back.m_armedBy == 4000);
    CHECK(back.m_blockSeq == 0);
    CHECK(reader.m_seq == writer.m_seq);
    CHECK(reader.m_addr == writer.m_addr);
    CHECK(reader.m_ip == record.m_ip);
    // The ip is a delta: a second sample of the same instruction costs one byte for it.
    record.m_seq = 5001;
    record.m_armedBy = 0;
    uint8_t again[kMaxAccessRecordBytes];
    CHECK(encodeAccessPayload(again, record, writer) - again < end - buffer);
}

TEST_CASE("an access record that cannot be true does not decode") {
    auto decodes = [](uint8_t kind, uint8_t source, uint64_t size) {
        AccessRecord record;
        record.m_seq = 10;
        record.m_kind = static_cast<AccessKind>(kind);
        record.m_source = static_cast<AccessSource>(source);
        record.m_size = size;
        ChunkCursorState writer, reader;
        uint8_t buffer[kMaxAccessRecordBytes];
        uint8_t* end = encodeAccessPayload(buffer, record, writer);
        const uint8_t* cursor = buffer + 1;
        AccessRecord back;
        return decodeAccessPayload(&cursor, end, back, reader);
    };
    CHECK(decodes(1, 0, 8));
    CHECK(decodes(3, 2, 64));
    CHECK_FALSE(decodes(0, 0, 8));  // neither read nor write
    CHECK_FALSE(decodes(1, 3, 8));  // no such source
    CHECK_FALSE(decodes(1, 0, 0));  // an access of no bytes
    CHECK(decodes(1, 0, kMaxAccessBytes));
    CHECK_FALSE(decodes(1, 0, kMaxAccessBytes + 1));  // more than any instruction touches
    CHECK_FALSE(decodes(2, 0, uint64_t{17} << 30));  // a damaged size: 17 GiB
    // A trap armed by a sample that comes after it.
    AccessRecord record;
    record.m_seq = 10;
    record.m_size = 8;
    record.m_armedBy = 10;
    ChunkCursorState writer, reader;
    uint8_t buffer[kMaxAccessRecordBytes];
    uint8_t* end = encodeAccessPayload(buffer, record, writer);
    const uint8_t* cursor = buffer + 1;
    AccessRecord back;
    CHECK_FALSE(decodeAccessPayload(&cursor, end, back, reader));
}

TEST_CASE("a version 2 access record names its block by distance, and cannot come before it") {
    auto decodes = [](uint64_t seq, uint64_t blockSeq, uint64_t length, AccessRecord* back) {
        AccessRecord record;
        record.m_seq = seq;
        record.m_addr = 0x7f00'0000'2040ull;
        record.m_blockSeq = blockSeq;
        record.m_offset = 0x40;
        record.m_kind = AccessKind::Write;
        record.m_size = length;
        record.m_ip = 0x401234;
        ChunkCursorState writer, reader;
        uint8_t buffer[kMaxAccessRecordBytes];
        uint8_t* end = encodeAccessPayloadVersion2(buffer, record, writer);
        const uint8_t* cursor = buffer + 1;
        return decodeAccessPayloadVersion2(&cursor, end, *back, reader);
    };
    AccessRecord back;
    REQUIRE(decodes(10, 9, 4, &back));
    CHECK(back.m_blockSeq == 9);
    CHECK(back.m_offset == 0x40);
    CHECK(back.m_kind == AccessKind::Write);
    CHECK(back.m_size == 4);
    CHECK(back.m_ip == 0x401234);
    CHECK(back.m_ipAfter);
    CHECK(back.m_source == AccessSource::Watchpoint);
    CHECK_FALSE(decodes(10, 10, 8, &back));  // a sample cannot come before or with its block's start
    CHECK_FALSE(decodes(10, 11, 8, &back));
    CHECK_FALSE(decodes(10, 9, 3, &back));   // watched words are 1, 2, 4 or 8 bytes
    CHECK_FALSE(decodes(10, 9, 0, &back));
    CHECK(decodes(10, 9, 1, &back));
}

TEST_CASE("a thread stack range round-trips, an empty or inverted one does not decode") {
    uint8_t buffer[32];
    uint64_t lo = 0, hi = 0;
    uint8_t* end = encodeRangePayload(buffer, 0x7ffc'0000'0000ull, 0x7ffc'0080'0000ull);
    const uint8_t* cursor = buffer + 1;
    REQUIRE(decodeRangePayload(&cursor, end, &lo, &hi));
    CHECK(lo == 0x7ffc'0000'0000ull);
    CHECK(hi == 0x7ffc'0080'0000ull);
    end = encodeRangePayload(buffer, 0x2000, 0x1000);
    cursor = buffer + 1;
    CHECK_FALSE(decodeRangePayload(&cursor, end, &lo, &hi));
}

TEST_CASE("wide varints, with pdep and with shifts, are byte for byte putVarint's") {
    std::vector<uint64_t> values = {0, 1, 0x7f, 0x80, 0x3fff, 0x4000, (1ull << 56) - 1, 1ull << 56, ~0ull};
    for (int bit = 0; bit < 64; ++bit) values.insert(values.end(), {1ull << bit, (1ull << bit) - 1});
    uint64_t state = 0x9e37'79b9'7f4a'7c15ull;
    for (int i = 0; i < 100000; ++i) {
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        values.push_back(state >> (state % 64));  // every length
    }
    const bool pdep = hasFastPdep();
    if (!pdep) WARN("no fast pdep on this CPU: only the shifts are compared");
    for (const uint64_t value : values) {
        uint8_t reference[16] = {}, shifts[16] = {}, spread[16] = {};
        const long length = putVarint(reference, value) - reference;
        INFO(value);
        // The wide forms store 8 bytes; past the varint they are zeros.
        REQUIRE(putVarintWide<false>(shifts, value) - shifts == length);
        REQUIRE(std::memcmp(reference, shifts, sizeof shifts) == 0);
        if (!pdep) continue;
        REQUIRE(putVarintWide<true>(spread, value) - spread == length);
        REQUIRE(std::memcmp(reference, spread, sizeof spread) == 0);
    }
}

// The block model: every block from the moment it began to the moment it ended, read from
// hand-made logs through the real format encoders and reader.
#include <catch2/catch.hpp>

#include "heap_records.hpp"
#include "timeline/model/block_model.hpp"
#include "random_heap.hpp"
#include "timeline/model/usable_size.hpp"

using memlog::format::Kind;
using memlog::test::LogBuilder;
using memlog::test::modelOf;
using memlog::test::record;
using memlog::test::resize;
using memlog::timeline::Block;
using memlog::timeline::BlockModel;
using memlog::timeline::XAxis;
using memlog::timeline::xAxisName;
using memlog::timeline::XWindow;

namespace {

constexpr uint64_t kNs = LogBuilder::kTicksPerSeq;  // ns per sequence number in LogBuilder logs

// The block that began at `seq`.
const Block& began(const BlockModel& model, uint64_t seq) {
    for (size_t i = 0; i < model.size(); ++i)
        if (model[i].beginSeq() == seq) return model[i];
    FAIL("no block began at " << seq);
    return model[0];
}

}  // namespace

TEST_CASE("a block spans its allocation to its free, and a block never freed ends with the log") {
    LogBuilder log;
    log.thread(7)
        .malloc(1, 0x1000, 100, 3)
        .malloc(2, 0x2000, 50, 4)
        .free(5, 0x1000)
        .stack(3, {0x401000})
        .stack(4, {0x402000});
    log.thread(8).malloc(6, 0x3000, 8).threadExit(9);
    const BlockModel model = modelOf(log);
    REQUIRE(model.size() == 3);
    const Block& first = model[0];
    CHECK(first.addr() == 0x1000);
    CHECK(first.size() == 100);
    CHECK(first.endAddr() == 0x1064);
    CHECK(first.beginSeq() == 1);
    CHECK(first.endSeq() == 5);
    CHECK(first.beginNs() == 1 * kNs);
    CHECK(first.endNs() == 5 * kNs);
    CHECK(first.stack() == 3);
    CHECK_FALSE(first.liveAtEnd());
    CHECK_FALSE(first.mapping());
    const Block& second = model[1];
    CHECK(second.liveAtEnd());
    CHECK(second.endNs() == 9 * kNs);  // the log's last record (a thread exit)
    CHECK(second.endSeq() == 7);  // one past the last block event
    CHECK(model.endNs() == 9 * kNs);
    // Threads are numbered in the order their first block appears.
    REQUIRE(model.threads() == std::vector<uint32_t>{7, 8});
    CHECK(first.thread() == 0);
    CHECK(model[2].thread() == 1);
    CHECK(model.summary().m_peakBytes == 150);
    CHECK(model.extent(XAxis::Time).m_from == 1 * kNs);
    CHECK(model.extent(XAxis::Time).m_to == 9 * kNs);
    CHECK(model.extent(XAxis::Events).m_from == 1);
    CHECK(model.extent(XAxis::Events).m_to == 7);
}

TEST_CASE("a realloc ends the old block when it is called and begins the new one when it returns") {
    LogBuilder log;
    log.thread(1).malloc(1, 0x1000, 16).heap(resize(Kind::Realloc, 2, 4, 0x1000, 0x5000, 64)).free(6, 0x5000);
    log.thread(2).malloc(3, 0x1000, 32);  // reuses the old address between the realloc's two moments
    const BlockModel model = modelOf(log);
    REQUIRE(model.size() == 3);
    const Block& old = began(model, 1);
    CHECK(old.endSeq() == 2);
    const Block& grown = began(model, 4);
    CHECK(grown.addr() == 0x5000);
    CHECK(grown.size() == 64);
    CHECK(grown.beginNs() == 2 * kNs);  // the time of the realloc call, stamped once
    CHECK(grown.endSeq() == 6);
    CHECK(grown.thread() == 0);
    const Block& reuse = began(model, 3);
    CHECK(reuse.addr() == 0x1000);
    CHECK(reuse.thread() == 1);
    CHECK(reuse.liveAtEnd());
}

TEST_CASE("munmap in the middle of a mapping ends it and begins the two pieces left, same owner") {
    LogBuilder log;
    log.thread(1).heap(record(Kind::Mmap, 1, 0x100000, 0x10000, 5)).stack(5, {0x401000});
    log.thread(2).heap(record(Kind::Munmap, 2, 0x104000, 0x1000)).heap(record(Kind::Munmap, 3, 0x100000, 0x4000));
    const BlockModel model = modelOf(log);
    REQUIRE(model.size() == 3);
    const Block& whole = model[0];
    CHECK(whole.mapping());
    CHECK(whole.size() == 0x10000);
    CHECK(whole.endSeq() == 2);
    const Block& low = model[1];
    CHECK(low.addr() == 0x100000);
    CHECK(low.size() == 0x4000);
    CHECK(low.beginSeq() == 2);
    CHECK(low.endSeq() == 3);
    const Block& high = model[2];
    CHECK(high.addr() == 0x105000);
    CHECK(high.size() == 0xb000);
    CHECK(high.liveAtEnd());
    for (size_t i = 0; i < 3; ++i) {
        CHECK(model[i].stack() == 5);
        CHECK(model[i].thread() == 0);  // the thread that mapped it, not the one that cut it
        CHECK(model[i].mapping());
    }
}

TEST_CASE("a block keeps every field at the limits of its packing and clamps beyond them") {
    const uint64_t addr = (1ull << 48) - 16, size = (1ull << 44) - 1, ns = (1ull << 48) - 1, seq = (1ull << 40) - 1;
    Block block({addr, size, ns - 5, ns, seq - 7, seq, 0xfedcba98u, 65535, true, true});
    CHECK(block.addr() == addr);
    CHECK(block.size() == size);
    CHECK(block.beginNs() == ns - 5);
    CHECK(block.endNs() == ns);
    CHECK(block.beginSeq() == seq - 7);
    CHECK(block.endSeq() == seq);
    CHECK(block.stack() == 0xfedcba98u);
    CHECK(block.thread() == 65535);
    CHECK(block.mapping());
    CHECK(block.liveAtEnd());
    block.close(123, 0x12'3456'789a, false);
    CHECK(block.endNs() == 123);
    CHECK(block.endSeq() == 0x12'3456'789a);
    CHECK_FALSE(block.liveAtEnd());
    CHECK(block.mapping());
    CHECK(block.size() == size);
    CHECK(block.stack() == 0xfedcba98u);
    CHECK(block.beginSeq() == seq - 7);
    const Block beyond(
        {1ull << 50, 1ull << 45, 1ull << 49, 1ull << 49, 1ull << 41, 1ull << 41, 1, 70000, false, false});
    CHECK(beyond.addr() == (1ull << 48) - 1);
    CHECK(beyond.size() == (1ull << 44) - 1);
    CHECK(beyond.endNs() == (1ull << 48) - 1);
    CHECK(beyond.endSeq() == (1ull << 40) - 1);
    CHECK(beyond.thread() == 65535);
}

TEST_CASE("usable sizes follow glibc's chunks: waste is what rounding adds") {
    auto usable = [](uint64_t size, bool mapping = false) {
        return memlog::timeline::estimatedUsableSize(Block({0x1000, size, 0, 1, 0, 1, 0, 0, mapping, false}));
    };
    CHECK(usable(0) == 24);
    CHECK(usable(1) == 24);
    CHECK(usable(24) == 24);
    CHECK(usable(25) == 40);
    CHECK(usable(100) == 104);
    CHECK(usable(1000) == 1000);
    CHECK(usable(1001) == 1016);
    CHECK(usable(200000) == 200704 - 16);  // mmapped chunk: header and page rounding
    CHECK(usable(10, true) == 4096);  // an anonymous mapping: whole pages
}

TEST_CASE("a time lands on the event axis at the first block event at or after it") {
    LogBuilder log;
    log.thread(1).malloc(10, 0x1000, 8).malloc(20, 0x2000, 8).free(30, 0x1000);
    const BlockModel model = modelOf(log);
    CHECK(model.seqAtTime(0) == 10);
    CHECK(model.seqAtTime(10 * kNs) == 10);
    CHECK(model.seqAtTime(10 * kNs + 1) == 20);
    CHECK(model.seqAtTime(25 * kNs) == 30);
    CHECK(model.seqAtTime(31 * kNs) == model.extent(XAxis::Events).m_to);
}

TEST_CASE("the block at a point in time and address, for brushing") {
    LogBuilder log;
    log.thread(1).malloc(1, 0x1000, 100).free(3, 0x1000).malloc(4, 0x1000, 50);
    const BlockModel model = modelOf(log);
    CHECK(model.blockAt(XAxis::Time, 2 * kNs, 0x1010) == 0u);
    CHECK(model.blockAt(XAxis::Events, 2, 0x1063) == 0u);
    CHECK_FALSE(model.blockAt(XAxis::Events, 2, 0x1064));  // one past its end
    CHECK_FALSE(model.blockAt(XAxis::Events, 3, 0x1010));  // freed at 3, the next begins at 4
    CHECK(model.blockAt(XAxis::Events, 4, 0x1000) == 1u);
    CHECK_FALSE(model.blockAt(XAxis::Events, 4, 0x1040));
}

TEST_CASE("the model holds a hundred thousand blocks in chunks, in the order they began") {
    LogBuilder log;
    auto& thread = log.thread(1, 1 << 20);
    for (uint64_t i = 0; i < 100'000; ++i)
        thread.malloc(2 * i + 1, 0x10000 + (i % 64) * 32, 24).free(2 * i + 2, 0x10000 + (i % 64) * 32);
    const BlockModel model = modelOf(log);
    REQUIRE(model.size() == 100'000);
    size_t visited = 0;
    uint64_t previous = 0;
    model.forEach([&](const Block& b) {
        CHECK(b.beginSeq() > previous);
        CHECK(b.endSeq() == b.beginSeq() + 1);
        previous = b.beginSeq();
        ++visited;
    });
    CHECK(visited == 100'000);
    CHECK(model[99'999].beginSeq() == 199'999);
}

TEST_CASE("the log's access samples become the model's access marks, in sequence order") {
    LogBuilder log;
    log.header().m_accessSampler = memlog::format::AccessSampler::TickPerfClock;
    log.thread(1).malloc(1, 0x7000, 512).free(7, 0x7000);
    log.thread(2).write(2, 0x7020).read(5, 0x71f8);
    log.thread(3).read(3, 0x7100);
    const auto model = memlog::test::modelOf(log);
    const auto& marks = model.accessMarks();
    REQUIRE(marks.size() == 3);
    CHECK(marks[0].m_seq == 2);
    CHECK(marks[0].m_write);
    CHECK(marks[0].m_addr == 0x7020);
    CHECK(marks[1].m_seq == 3);
    CHECK(marks[1].m_tid == 3);
    CHECK_FALSE(marks[2].m_write);
    CHECK(marks[2].m_addr == 0x71f8);
    CHECK(marks[2].m_timeNs == 5 * LogBuilder::kTicksPerSeq);
    for (const auto& mark : marks) CHECK(mark.m_blockSeq == model[0].beginSeq());
}

TEST_CASE("asked to, the model keeps the stack of the call that ended each block") {
    LogBuilder log;
    log.thread(1).malloc(1, 0x1000, 64, 5).malloc(2, 0x2000, 64, 5).free(3, 0x1000, 8);
    auto moved = resize(Kind::Realloc, 4, 5, 0x2000, 0x3000, 128);
    moved.m_stack = 9;
    log.thread(2).heap(moved).free(6, 0x3000, 0);
    const std::string path = "/tmp/memlog-free-stacks-" + std::to_string(getpid()) + ".memlog";
    log.write(path);
    memlog::timeline::LogReader reader(path);
    const BlockModel kept = memlog::timeline::buildBlockModel(reader, {}, true);
    REQUIRE(kept.size() == 3);
    CHECK(kept.freeStack(0) == 8);  // freed by a call from stack 8
    CHECK(kept.freeStack(1) == 9);  // ended by the realloc that moved it
    CHECK(kept.freeStack(2) == 0);  // freed without a stack
    memlog::timeline::LogReader again(path);
    const BlockModel plain = memlog::timeline::buildBlockModel(again);
    CHECK(plain.freeStack(0) == 0);  // not kept unless asked for
    unlink(path.c_str());
}

TEST_CASE("the blocks that may meet a window: every one that does, in model order, and whole chunks passed by") {
    // 400,000 events over 64 slots: about 200,000 blocks in four chunks, each a fraction of the
    // log's time; some never end, so their chunks reach the end of the log.
    memlog::test::RandomHeap spec;
    spec.m_events = 400'000;
    spec.m_seed = 7;
    const BlockModel built = memlog::test::randomHeap(spec);
    REQUIRE(built.chunkSpans().size() >= 3);
    // And a model put together from another's blocks, each appended already closed.
    BlockModel copied;
    built.forEach([&](const Block& b) { copied.append(b); });
    copied.finish(built.summary(), built.threads(), built.endNs(), built.extent(XAxis::Events).m_to, 1);
    for (const BlockModel* each : {&built, static_cast<const BlockModel*>(&copied)})
        for (const XAxis axis : {XAxis::Time, XAxis::Events}) {
            const BlockModel& model = *each;
            const XWindow whole = model.extent(axis);
            for (const double share : {0.001, 0.1, 0.5, 1.0}) {
                for (const double at : {0.0, 0.3, 0.99}) {
                    const uint64_t width = std::max<uint64_t>(static_cast<uint64_t>(whole.width() * share), 1);
                    const uint64_t from = whole.m_from + static_cast<uint64_t>(whole.width() * at);
                    const XWindow window{from, from + width};
                    std::vector<const Block*> all, meeting;
                    size_t visited = 0;
                    model.forEach([&](const Block& b) {
                        if (b.meets(axis, window, 0, UINT64_MAX)) all.push_back(&b);
                    });
                    model.forEachMeeting(axis, window, [&](const Block& b) {
                        ++visited;
                        if (b.meets(axis, window, 0, UINT64_MAX)) meeting.push_back(&b);
                    });
                    INFO("axis " << xAxisName(axis) << ", share " << share << " at " << at);
                    CHECK(meeting == all);
                    if (share <= 0.001 && at == 0.3) CHECK(visited < model.size() / 2);  // chunks passed by
                }
            }
        }
}

TEST_CASE("a chunk of blocks appended already closed reaches as far as its longest block") {
    // One long block and 65,535 short ones fill the first chunk; a second chunk begins later. A
    // window inside the long block's life, after every other block of its chunk, still gets it.
    BlockModel model;
    model.append(Block({0x1000, 64, 10, 1'000'000, 1, 2'000'000, 0, 0, false, false}));
    for (uint64_t i = 1; i < 65'536; ++i)
        model.append(Block({0x2000 + 64 * i, 32, 10 + i, 11 + i, 1 + i, 2 + i, 0, 0, false, false}));
    model.append(Block({0x9000'0000, 64, 3'000'000, 3'000'010, 3'000'000, 3'000'001, 0, 0, false, false}));
    REQUIRE(model.chunkSpans().size() == 2);
    for (const auto& [axis, window] :
         {std::pair{XAxis::Time, XWindow{500'000, 500'001}}, std::pair{XAxis::Events, XWindow{1'500'000, 1'500'001}}}) {
        std::vector<uint64_t> met;
        model.forEachMeeting(axis, window, [&](const Block& b) {
            if (b.meets(axis, window, 0, UINT64_MAX)) met.push_back(b.addr());
        });
        CHECK(met == std::vector<uint64_t>{0x1000});
    }
}

// Bins of correlated views: every block in exactly one bin, bins named for what they hold.
#include <catch2/catch.hpp>

#include <set>

#include "heap_records.hpp"
#include "random_heap.hpp"
#include "timeline/model/bins.hpp"

using memlog::format::Kind;
using memlog::test::LogBuilder;
using memlog::test::modelOf;
using memlog::test::record;
using memlog::timeline::BinKind;
using memlog::timeline::Bins;
using memlog::timeline::Block;
using memlog::timeline::XAxis;

TEST_CASE("size classes: only the classes that hold blocks, in size order") {
    LogBuilder log;
    log.thread(1).malloc(1, 0x1000, 16).malloc(2, 0x2000, 100).malloc(3, 0x3000, 5000).malloc(4, 0x10000, 1 << 20);
    const auto model = modelOf(log);
    const Bins bins = Bins::make(BinKind::Size, model, XAxis::Time);
    REQUIRE(bins.count() == 4);
    CHECK(bins.label(0) == "up to 32 B");
    CHECK(bins.label(1) == "33 B to 128 B");
    CHECK(bins.label(2) == "2 KiB to 8 KiB");
    CHECK(bins.label(3) == "over 128 KiB");
    CHECK(bins.binOf(model[0]) == 0);
    CHECK(bins.binOf(model[2]) == 2);
    CHECK(bins.binOf(model[3]) == 3);
}

TEST_CASE("threads: the largest seven get bins, the rest share the eighth") {
    LogBuilder log;
    uint64_t seq = 1;
    for (uint32_t tid = 1; tid <= 12; ++tid)  // each thread's area (bytes x time to the end) twice the last one's
        log.thread(tid).malloc(seq++, 0x1000000 * tid, uint64_t{1} << (2 * tid));
    const auto model = modelOf(log);
    const Bins bins = Bins::make(BinKind::Thread, model, XAxis::Events);
    REQUIRE(bins.count() == Bins::kMaxBins);
    CHECK(bins.label(0) == "thread 12");
    CHECK(bins.label(7) == "5 other threads");
    std::vector<int> count(bins.count(), 0);
    model.forEach([&](const Block& b) {
        const int bin = bins.binOf(b);
        REQUIRE(bin >= 0);
        ++count[static_cast<size_t>(bin)];
    });
    CHECK(count[7] == 5);
    for (size_t bin = 0; bin < 7; ++bin) CHECK(count[bin] == 1);
}

TEST_CASE("regions: compacted address ranges in address order, each block in its own") {
    LogBuilder log;
    log.thread(1)
        .malloc(1, 0x5500'0000'1000, 64)
        .malloc(2, 0x5500'0000'2000, 64)
        .heap(record(Kind::Mmap, 3, 0x7f00'0000'0000, 1 << 20))
        .malloc(4, 0x7e00'0000'0000, 32);
    const auto model = modelOf(log);
    const Bins bins = Bins::make(BinKind::Region, model, XAxis::Time);
    REQUIRE(bins.count() == 3);
    CHECK(bins.label(0) == "region 0x550000001000 (8 KiB)");
    CHECK(bins.label(2) == "region 0x7f0000000000 (1 MiB)");
    CHECK(bins.binOf(model[0]) == 0);
    CHECK(bins.binOf(model[1]) == 0);
    CHECK(bins.binOf(model[2]) == 2);
    CHECK(bins.binOf(model[3]) == 1);
}

TEST_CASE("the area of each key is every block's, summed on two threads over a model of several chunks") {
    memlog::test::RandomHeap spec;
    spec.m_events = 400'000;  // over two chunks of blocks: each thread takes some
    const auto model = memlog::test::randomHeap(spec);
    REQUIRE(model.chunkCount() >= 3);
    const memlog::timeline::XWindow extent = model.extent(XAxis::Time);
    for (const memlog::timeline::XWindow within :
         {memlog::timeline::XWindow{0, UINT64_MAX},
          memlog::timeline::XWindow{extent.m_from, extent.m_from + extent.width() / 3}}) {
        auto keyOf = [&](const Block& b) {
            return b.from(XAxis::Time) < within.m_to && b.to(XAxis::Time) >= within.m_from ? b.thread() : UINT32_MAX;
        };
        std::vector<double> expected(3, 0.0);
        model.forEach([&](const Block& b) {
            if (const uint32_t key = keyOf(b); key < expected.size())
                expected[key] += static_cast<double>(std::max<uint64_t>(b.size(), 1)) *
                                 static_cast<double>(std::max<uint64_t>(b.to(XAxis::Time) - b.from(XAxis::Time), 1));
        });
        const std::vector<double> area = memlog::timeline::areaByKey(model, XAxis::Time, 3, keyOf, within);
        REQUIRE(area.size() == 3);
        for (size_t key = 0; key < 3; ++key) {
            CHECK(expected[key] > 0);
            CHECK(area[key] == Approx(expected[key]).epsilon(1e-12));
        }
    }
}

// Occupancy per column: live bytes averaged over each column, and the events in it.
#include <catch2/catch.hpp>

#include <random>

#include "heap_records.hpp"
#include "timeline/model/occupancy.hpp"

using memlog::test::LogBuilder;
using memlog::test::modelOf;
using memlog::timeline::Block;
using memlog::timeline::BlockModel;
using memlog::timeline::OccupancyQuery;
using memlog::timeline::XAxis;

namespace {

// Live bytes at x (the block events of the model, by brute force).
double liveAt(const BlockModel& model, XAxis axis, double x, uint64_t lo = 0, uint64_t hi = UINT64_MAX) {
    double live = 0;
    model.forEach([&](const Block& b) {
        if (b.from(axis) <= x && x < b.to(axis))
            live += static_cast<double>(std::min(b.endAddr(), hi) > std::max(b.addr(), lo) ? std::min(b.endAddr(), hi) - std::max(b.addr(), lo) : 0);
    });
    return live;
}

// A random churn of blocks on a heap of 64 slots, one event per sequence number.
BlockModel churn(unsigned seed, int events) {
    std::mt19937 random(seed);
    LogBuilder log;
    auto& thread = log.thread(1, 1 << 16);
    std::vector<uint64_t> live(64, 0);
    for (int seq = 1; seq <= events; ++seq) {
        const size_t slot = random() % 64;
        const uint64_t addr = 0x10000 + slot * 0x1000;
        if (live[slot]) {
            thread.free(static_cast<uint64_t>(seq), addr);
            live[slot] = 0;
        } else {
            live[slot] = 1 + random() % 4000;
            thread.malloc(static_cast<uint64_t>(seq), addr, live[slot]);
        }
    }
    return modelOf(log);
}

}  // namespace

TEST_CASE("the occupancy of a column equals the live bytes, averaged over the column") {
    const BlockModel model = churn(3, 2000);
    OccupancyQuery query;
    query.m_axis = XAxis::Events;
    query.m_window = {1, 2001};
    query.m_columns = 500;  // four events a column
    const auto columns = memlog::timeline::occupancy(model, query);
    REQUIRE(columns.size() == 500);
    for (size_t c = 0; c < columns.size(); ++c) {
        // Live bytes are constant between events: the mean is the average of four steps.
        double mean = 0;
        for (int k = 0; k < 4; ++k) mean += liveAt(model, XAxis::Events, 1.0 + c * 4 + k + 0.5) / 4;
        INFO("column " << c);
        CHECK(columns[c].m_liveBytes == Approx(mean).epsilon(1e-12));
        CHECK(columns[c].m_events == 4);
    }
}

TEST_CASE("columns wider than the events and columns narrower than an event") {
    const BlockModel model = churn(5, 300);
    for (size_t count : {7u, 300u, 1200u}) {
        OccupancyQuery query;
        query.m_axis = XAxis::Events;
        query.m_window = {1, 301};
        query.m_columns = count;
        const auto columns = memlog::timeline::occupancy(model, query);
        double total = 0, expected = 0;
        uint64_t events = 0;
        for (const auto& column : columns) {
            total += column.m_liveBytes * 300.0 / static_cast<double>(count);
            events += column.m_events;
        }
        for (int x = 1; x <= 300; ++x) expected += liveAt(model, XAxis::Events, x + 0.5);
        INFO(count << " columns");
        CHECK(total == Approx(expected).epsilon(1e-6));  // the integral of live bytes is kept
        CHECK(events == 300 - 0);                         // every malloc and free in the window
    }
}

TEST_CASE("occupancy counts only the bytes inside the address window") {
    LogBuilder log;
    log.thread(1).malloc(1, 0x1000, 0x100).malloc(2, 0x2000, 0x100).free(3, 0x1000).free(4, 0x2000);
    const BlockModel model = modelOf(log);
    OccupancyQuery query;
    query.m_axis = XAxis::Events;
    query.m_window = {1, 5};
    query.m_columns = 4;
    query.m_addrLo = 0x1080;
    query.m_addrHi = 0x2010;
    const auto columns = memlog::timeline::occupancy(model, query);
    CHECK(columns[0].m_liveBytes == 0x80);
    CHECK(columns[1].m_liveBytes == 0x80 + 0x10);
    CHECK(columns[2].m_liveBytes == 0x10);
    CHECK(columns[3].m_liveBytes == 0);
}

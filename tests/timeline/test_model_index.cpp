// ModelIndex: the occupancy and the address ranges it answers from the index equal those of the
// walk over every block, on random heaps, for every kind of window; a zoomed window meets few
// blocks.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "random_heap.hpp"
#include "timeline/model/model_index.hpp"
#include "timeline/model/occupancy.hpp"

using namespace memlog;
using timeline::Block;
using timeline::BlockModel;
using timeline::ModelIndex;
using timeline::OccupancyQuery;
using timeline::XAxis;
using timeline::XWindow;

namespace {

// A window of `extent` at a random place and a random width (whole, or a share of it).
XWindow randomWindow(std::mt19937_64& random, XWindow extent) {
    if (random() % 4 == 0) return extent;
    const uint64_t width = 1 + random() % extent.width();
    const uint64_t from = extent.m_from + random() % (extent.width() - width + 1);
    return {from, from + width};
}

// Live bytes at x by brute force (blocks live over [from, to)), clipped to [lo, hi).
double liveAt(const BlockModel& model, XAxis axis, double x, uint64_t lo, uint64_t hi) {
    double live = 0;
    model.forEach([&](const Block& b) {
        const uint64_t a = std::max(b.addr(), lo), e = std::min(b.endAddr(), hi);
        if (static_cast<double>(b.from(axis)) <= x && x < static_cast<double>(b.to(axis)) && e > a)
            live += static_cast<double>(e - a);
    });
    return live;
}

// A heap of short-lived blocks (odd seeds) or long-lived ones.
BlockModel occupancyHeap(uint32_t seed) {
    test::RandomHeap spec;
    spec.m_seed = seed;
    spec.m_events = 20'000;
    spec.m_freeShare = seed % 2 ? 0.5 : 0.05;
    return test::randomHeap(spec);
}

// Columns from the index against the walk's: the same events, the same live bytes but for the
// walk's rounding of each block's end to 2^-20 of a column (the index is exact).
void checkSameColumns(const std::vector<timeline::OccupancyColumn>& indexed,
                      const std::vector<timeline::OccupancyColumn>& walked) {
    REQUIRE(indexed.size() == walked.size());
    double fullest = 1;
    for (const auto& column : walked) fullest = std::max(fullest, column.m_liveBytes);
    for (size_t c = 0; c < walked.size(); ++c) {
        INFO("column " << c << " of " << walked.size());
        CHECK(indexed[c].m_events == walked[c].m_events);
        CHECK(indexed[c].m_liveBytes == Approx(walked[c].m_liveBytes).margin(fullest * 1e-6));
    }
}

}  // namespace

TEST_CASE("the bytes and blocks live at x from the index equal the walk's, on both axes") {
    for (const uint32_t seed : {1u, 2u})
        for (const XAxis axis : {XAxis::Time, XAxis::Events}) {
            const BlockModel model = occupancyHeap(seed);
            const ModelIndex index(model, axis);
            const XWindow extent = model.extent(axis);
            for (int i = 0; i <= 40; ++i) {
                const uint64_t x = extent.m_from + extent.width() * static_cast<uint64_t>(i) / 40;
                uint64_t blocks = 0;
                model.forEach([&](const Block& b) { blocks += b.from(axis) <= x && x < b.to(axis); });
                const ModelIndex::Live live = index.liveAt(x);
                INFO("seed " << seed << " x " << x);
                CHECK(static_cast<double>(live.m_bytes) == liveAt(model, axis, static_cast<double>(x), 0, UINT64_MAX));
                CHECK(live.m_blocks == blocks);
                if (i == 20) CHECK(blocks > 0);
            }
        }
}

TEST_CASE("group membership: each group's positions in the index's order, and a node's bits the groups under it") {
    const BlockModel model = occupancyHeap(3);
    const ModelIndex index(model, XAxis::Time);
    const auto& order = index.index().order();
    std::vector<uint8_t> groupOf(order.size());
    for (size_t k = 0; k < order.size(); ++k) groupOf[k] = static_cast<uint8_t>(model[order[k]].size() % 5);  // 4: none
    const ModelIndex::Membership membership = index.membership(groupOf, 4);
    for (size_t group = 0; group < 4; ++group) {
        std::vector<uint32_t> expected;
        for (size_t k = 0; k < order.size(); ++k)
            if (groupOf[k] == group) expected.push_back(static_cast<uint32_t>(k));
        const auto positions = membership.positionsOf(group);
        CHECK(std::vector<uint32_t>(positions.begin(), positions.end()) == expected);
        CHECK_FALSE(expected.empty());
    }
    const auto& nodes = index.index().nodes();
    for (size_t n = 0; n < nodes.size(); n += 7) {
        uint8_t mask = 0;
        index.index().forEachPositionUnder(nodes[n], [&](size_t k) {
            if (groupOf[k] < 4) mask |= static_cast<uint8_t>(1u << groupOf[k]);
        });
        INFO("node " << n);
        CHECK(membership.m_nodeGroups[n] == mask);
    }
}

TEST_CASE("occupancy from the index equals the walk over every block") {
    for (const XAxis axis : {XAxis::Time, XAxis::Events}) {
        for (uint32_t seed = 1; seed <= 4; ++seed) {
            const BlockModel model = occupancyHeap(seed);
            const ModelIndex index(model, axis);
            std::mt19937_64 random(seed);
            for (int trial = 0; trial < 30; ++trial) {
                OccupancyQuery query;
                query.m_axis = axis;
                query.m_window = randomWindow(random, model.extent(axis));
                query.m_columns = 1 + random() % 700;
                if (trial % 2) {  // an address window, cutting through blocks
                    query.m_addrLo = test::RandomHeap{}.m_base + random() % (3 << 20);
                    query.m_addrHi = query.m_addrLo + 1 + random() % (2 << 20);
                }
                INFO("axis " << (axis == XAxis::Time ? "time" : "events") << " seed " << seed << " trial " << trial);
                checkSameColumns(index.occupancy(query), timeline::occupancy(model, query));
            }
        }
    }
}

TEST_CASE("occupancy of a group of blocks from its own sorted ends equals the walk over that group alone") {
    for (const XAxis axis : {XAxis::Time, XAxis::Events}) {
        for (uint32_t seed = 1; seed <= 3; ++seed) {
            const BlockModel model = occupancyHeap(seed);
            const ModelIndex index(model, axis);
            // Four groups and blocks in none; a fifth group left empty.
            constexpr size_t kGroups = 5;
            std::mt19937_64 random(seed);
            timeline::HugeVector<uint8_t> groupOf(model.size());
            for (uint8_t& group : groupOf) group = random() % 7 < 4 ? static_cast<uint8_t>(random() % 4) : 200;
            const ModelIndex::Groups groups = index.groups(groupOf, kGroups);
            std::vector<BlockModel> alone(kGroups);
            for (size_t i = 0; i < model.size(); ++i)
                if (groupOf[i] < kGroups) alone[groupOf[i]].append(model[i]);
            for (BlockModel& group : alone)
                group.finish(model.summary(), model.threads(), model.endNs(), model.extent(XAxis::Events).m_to, 5);
            for (int trial = 0; trial < 20; ++trial) {
                OccupancyQuery query;
                query.m_axis = axis;
                query.m_window = randomWindow(random, model.extent(axis));
                query.m_columns = 1 + random() % 700;
                REQUIRE(index.coversAddresses(query));
                for (size_t group = 0; group < kGroups; ++group) {
                    INFO("seed " << seed << " trial " << trial << " group " << group);
                    const auto indexed = index.occupancy(query, groups, group);
                    checkSameColumns(indexed, timeline::occupancy(alone[group], query));
                    if (group == kGroups - 1)
                        CHECK(std::all_of(indexed.begin(), indexed.end(),
                                          [](const auto& c) { return c.m_liveBytes == 0 && c.m_events == 0; }));
                }
            }
            OccupancyQuery narrow;
            narrow.m_axis = axis;
            narrow.m_window = model.extent(axis);
            narrow.m_columns = 10;
            narrow.m_addrLo = test::RandomHeap{}.m_base + 1;
            CHECK_FALSE(index.coversAddresses(narrow));
        }
    }
}

TEST_CASE("occupancy from sorted ends with blocks of 4 GiB and more and pauses of more than 4 s") {
    // Sorted ends keep each entry's size and offset from its checkpoint in 32 bits, and read
    // the model for those that do not fit: these heaps have many of both.
    for (uint32_t seed = 1; seed <= 2; ++seed) {
        test::RandomHeap spec;
        spec.m_seed = seed;
        spec.m_events = 5'000;
        spec.m_slotBytes = uint64_t{1} << 34;
        spec.m_pauseShare = 0.05;
        spec.m_pauseNs = uint64_t{5} << 30;
        const BlockModel model = test::randomHeap(spec);
        size_t huge = 0;
        model.forEach([&](const Block& b) { huge += b.size() >= (uint64_t{1} << 32); });
        REQUIRE(huge > model.size() / 2);
        const ModelIndex index(model, XAxis::Time);
        timeline::HugeVector<uint8_t> groupOf(model.size());
        for (size_t i = 0; i < model.size(); ++i) groupOf[i] = static_cast<uint8_t>(i % 2);
        const ModelIndex::Groups groups = index.groups(groupOf, 2);
        BlockModel odd;
        for (size_t i = 1; i < model.size(); i += 2) odd.append(model[i]);
        odd.finish(model.summary(), model.threads(), model.endNs(), model.extent(XAxis::Events).m_to, 5);
        std::mt19937_64 random(seed);
        for (int trial = 0; trial < 20; ++trial) {
            OccupancyQuery query;
            query.m_axis = XAxis::Time;
            query.m_window = randomWindow(random, model.extent(XAxis::Time));
            query.m_columns = 1 + random() % 700;
            INFO("seed " << seed << " trial " << trial);
            checkSameColumns(index.occupancy(query), timeline::occupancy(model, query));
            checkSameColumns(index.occupancy(query, groups, 1), timeline::occupancy(odd, query));
        }
    }
}

TEST_CASE("occupancy from the index: a column nothing changes in reads exactly the live bytes") {
    test::RandomHeap spec;
    spec.m_events = 3'000;
    const BlockModel model = test::randomHeap(spec);
    const ModelIndex index(model, XAxis::Events);
    OccupancyQuery query;
    query.m_axis = XAxis::Events;
    query.m_window = model.extent(XAxis::Events);
    query.m_columns = query.m_window.width() * 3;  // three columns an event: most have none
    const auto columns = index.occupancy(query);
    size_t quiet = 0;
    for (size_t c = 0; c < columns.size(); ++c) {
        if (columns[c].m_events) continue;
        ++quiet;
        const double middle = static_cast<double>(query.m_window.m_from) + (c + 0.5) / 3.0;
        INFO("column " << c);
        CHECK(columns[c].m_liveBytes == liveAt(model, XAxis::Events, middle, 0, UINT64_MAX));
    }
    CHECK(quiet > columns.size() / 2);
}

TEST_CASE("address ranges from the index equal those of the walk, over every block and over each group") {
    for (uint32_t seed = 1; seed <= 4; ++seed) {
        test::RandomHeap spec;
        spec.m_seed = seed;
        spec.m_events = 20'000;
        spec.m_regions = 7;
        if (seed % 2) {  // slots a page apart: each region one range
            spec.m_slots = 200;
            spec.m_slotBytes = 4096;
        } else {  // small blocks 100 KB apart: gaps inside regions too
            spec.m_slots = 63;
            spec.m_slotBytes = 100'000;
            spec.m_maxSize = 20'000;
        }
        const BlockModel model = test::randomHeap(spec);
        // Groups, as bins would make them: three, and blocks in none.
        constexpr size_t kGroups = 3;
        std::mt19937_64 grouping(seed);
        timeline::HugeVector<uint8_t> groupOf(model.size());
        for (uint8_t& group : groupOf) group = static_cast<uint8_t>(grouping() % (kGroups + 1));
        for (const XAxis axis : {XAxis::Time, XAxis::Events}) {
            const ModelIndex index(model, axis);
            const ModelIndex::Groups groups = index.groups(groupOf, kGroups);
            std::mt19937_64 random(seed * 7);
            for (int trial = 0; trial < 40; ++trial) {
                const XWindow window = randomWindow(random, model.extent(axis));
                uint64_t lo = 0, hi = UINT64_MAX;
                if (trial % 2) {
                    lo = spec.m_base + random() % (7 << 20);
                    hi = lo + 1 + random() % (4 << 20);
                }
                const size_t maxRanges = trial % 3 ? 0 : 1 + random() % 6;
                // The whole model (index kGroups here), then each group alone.
                timeline::AddressRanges::Builder walked[kGroups + 1], indexed[kGroups + 1];
                for (size_t i = 0; i < model.size(); ++i) {
                    const Block& b = model[i];
                    if (b.from(axis) >= window.m_to || std::max(b.to(axis), b.from(axis) + 1) <= window.m_from)
                        continue;
                    if (b.endAddr() <= lo || b.addr() >= hi) continue;
                    walked[kGroups].add(b.addr(), b.endAddr());
                    if (groupOf[i] < kGroups) walked[groupOf[i]].add(b.addr(), b.endAddr());
                }
                index.addRanges(window, lo, hi, indexed[kGroups]);
                index.addRanges(window, lo, hi, groups, {&indexed[0], &indexed[1], &indexed[2]});
                for (size_t group = 0; group <= kGroups; ++group) {
                    const auto expected =
                        walked[group].finish(timeline::AddressRanges::kKeepGapsBelow, maxRanges).ranges();
                    const auto found =
                        indexed[group].finish(timeline::AddressRanges::kKeepGapsBelow, maxRanges).ranges();
                    INFO("seed " << seed << " trial " << trial << (group < kGroups ? " group " : " every block ")
                                 << group);
                    REQUIRE(found.size() == expected.size());
                    for (size_t i = 0; i < found.size(); ++i) {
                        CHECK(found[i].m_lo == expected[i].m_lo);
                        CHECK(found[i].m_hi == expected[i].m_hi);
                    }
                }
            }
        }
    }
}

TEST_CASE("a zoomed-in window meets far fewer blocks than the model holds, and the index finds each") {
    test::RandomHeap spec;
    spec.m_events = 200'000;
    spec.m_slots = 512;
    const BlockModel model = test::randomHeap(spec);
    const ModelIndex index(model, XAxis::Time);
    const XWindow extent = model.extent(XAxis::Time);
    // A hundredth of the time, a tenth of the addresses of the first region.
    const uint64_t from = extent.m_from + extent.width() / 2;
    const timeline::IndexBox window{from, from + extent.width() / 100, spec.m_base,
                                    spec.m_base + (spec.m_slots / 3) * spec.m_slotBytes / 10};
    size_t visited = 0, expected = 0;
    index.index().query(
        window, [](const timeline::BlockIndex::Node&) { return false; }, [&](uint32_t) { ++visited; });
    model.forEach([&](const Block& b) { expected += ModelIndex::boxOf(b, XAxis::Time).intersects(window); });
    CHECK(expected > 0);
    CHECK(index.countIn(window) == expected);
    CHECK(visited < model.size() / 50);
}

TEST_CASE("the count of blocks in a window equals the walk's, on the window's edges too") {
    for (uint32_t seed = 1; seed <= 4; ++seed) {
        const BlockModel model = occupancyHeap(seed);
        const ModelIndex index(model, XAxis::Time);
        const XWindow extent = model.extent(XAxis::Time);
        uint64_t lowest = UINT64_MAX, highest = 0;
        model.forEach([&](const Block& b) {
            lowest = std::min(lowest, b.addr());
            highest = std::max(highest, b.endAddr());
        });
        std::mt19937_64 random(seed);
        for (int trial = 0; trial < 30; ++trial) {
            const XWindow x = randomWindow(random, extent);
            const uint64_t lo = trial % 3 ? lowest + random() % (highest - lowest) : 0;
            const uint64_t hi = trial % 3 ? lo + 1 + random() % (highest - lo) : UINT64_MAX;
            const timeline::IndexBox window{x.m_from, x.m_to, lo, hi};
            size_t expected = 0;
            model.forEach([&](const Block& b) { expected += ModelIndex::boxOf(b, XAxis::Time).intersects(window); });
            INFO("seed " << seed << ", trial " << trial);
            CHECK(index.countIn(window) == expected);
            // Told when it has enough: exact up to there, more than that past it.
            const size_t enough = random() % (expected + 2);
            const size_t counted = index.countIn(window, enough);
            if (expected <= enough)
                CHECK(counted == expected);
            else
                CHECK((counted > enough && counted <= expected));
        }
        // Told it has enough at once, the count of the window of every address but the lowest
        // stops at the first node inside it: below all.
        const size_t all = index.countIn({extent.m_from, extent.m_to + 1, lowest + 1, UINT64_MAX});
        CHECK(index.countIn({extent.m_from, extent.m_to + 1, lowest + 1, UINT64_MAX}, 0) < all);
        // The whole log, from the root alone.
        CHECK(index.countIn({extent.m_from, extent.m_to + 1, 0, UINT64_MAX}) == model.size());
    }
}

TEST_CASE("the typical leaf is the median of the leaves' widths and heights") {
    const BlockModel model = occupancyHeap(3);
    const ModelIndex index(model, XAxis::Time);
    std::vector<uint64_t> widths, heights;
    for (const auto& node : index.index().nodes())
        if (node.m_leaf) {
            widths.push_back(node.m_box.m_x1 - node.m_box.m_x0);
            heights.push_back(node.m_box.m_y1 - node.m_box.m_y0);
        }
    REQUIRE(widths.size() > 100);
    std::sort(widths.begin(), widths.end());
    std::sort(heights.begin(), heights.end());
    CHECK(index.typicalLeaf().m_width == widths[widths.size() / 2]);
    CHECK(index.typicalLeaf().m_height == heights[heights.size() / 2]);
    CHECK(index.typicalLeaf().m_width < model.extent(XAxis::Time).width() / 10);
}

TEST_CASE("each position of the index's order keeps its block's stack and thread") {
    const BlockModel model = occupancyHeap(5);
    const ModelIndex index(model, XAxis::Time);
    const auto& order = index.index().order();
    REQUIRE(index.itemStacks().size() == model.size());
    REQUIRE(index.itemThreads().size() == model.size());
    size_t wrong = 0, outOfModelOrder = 0;
    std::vector<bool> stacksSeen(8), threadsSeen(8);
    for (size_t k = 0; k < order.size(); ++k) {
        const Block& block = model[order[k]];
        wrong += index.itemStacks()[k] != block.stack() || index.itemThreads()[k] != block.thread();
        outOfModelOrder += order[k] != k;
        stacksSeen[block.stack() % 8] = threadsSeen[block.thread() % 8] = true;
    }
    CHECK(wrong == 0);
    CHECK(outOfModelOrder > model.size() / 2);  // the positions are the tree's, not the model's
    CHECK(std::count(stacksSeen.begin(), stacksSeen.end(), true) == 5);
    CHECK(std::count(threadsSeen.begin(), threadsSeen.end(), true) == 3);
}

TEST_CASE("every node's sums are those of the blocks under it, the leaves summed on two cores too") {
    for (const size_t events : {2'000, 300'000}) {  // one core; two (more than 65,536 blocks)
        test::RandomHeap spec;
        spec.m_seed = 11;
        spec.m_events = events;
        const BlockModel model = test::randomHeap(spec);
        REQUIRE((model.size() > 65'536) == (events > 2'000));
        const ModelIndex index(model, XAxis::Time);
        const auto& nodes = index.index().nodes();
        const auto& order = index.index().order();
        INFO(model.size() << " blocks");
        // Each node's blocks, found from the leaves up, summed afresh.
        std::vector<double> area(nodes.size()), byteTime(nodes.size());
        std::vector<uint64_t> blocks(nodes.size()), ends(nodes.size());
        size_t wrong = 0;
        for (size_t n = 0; n < nodes.size(); ++n) {
            const auto& node = nodes[n];
            for (uint32_t i = node.m_first; i < node.m_first + node.m_count; ++i) {
                if (node.m_leaf) {
                    const Block& block = model[order[i]];
                    area[n] += ModelIndex::boxOf(block, XAxis::Time).area();
                    byteTime[n] += static_cast<double>(block.size()) *
                                   static_cast<double>(block.to(XAxis::Time) - block.from(XAxis::Time));
                    blocks[n] += 1;
                    ends[n] += block.liveAtEnd() ? 1 : 2;
                    wrong += index.itemStacks()[i] != block.stack();
                } else {
                    area[n] += area[i], byteTime[n] += byteTime[i], blocks[n] += blocks[i], ends[n] += ends[i];
                }
            }
            const auto& sums = index.sums(node);
            wrong += sums.m_blocks != blocks[n] || sums.m_events != ends[n];
            wrong += sums.m_boxArea != Approx(area[n]) || sums.m_byteTime != Approx(byteTime[n]);
        }
        CHECK(wrong == 0);
        CHECK(blocks.back() == model.size());  // the root's
        // The lowest address and the highest end of all: a query of them covers the blocks, a
        // narrower one not.
        uint64_t lowest = UINT64_MAX, highest = 0;
        model.forEach([&](const Block& b) {
            lowest = std::min(lowest, b.addr()),
            highest = std::max(highest, b.addr() + std::max<uint64_t>(b.size(), 1));
        });
        timeline::OccupancyQuery query;
        query.m_addrLo = lowest, query.m_addrHi = highest;
        CHECK(index.coversAddresses(query));
        query.m_addrLo = lowest + 1;
        CHECK_FALSE(index.coversAddresses(query));
        query.m_addrLo = lowest, query.m_addrHi = highest - 1;
        CHECK_FALSE(index.coversAddresses(query));
    }
}

TEST_CASE("the block at a point from the index is the one the scan finds") {
    test::RandomHeap spec;
    spec.m_events = 20'000;
    const BlockModel model = test::randomHeap(spec);
    std::mt19937_64 random(9);
    for (const XAxis axis : {XAxis::Time, XAxis::Events}) {
        const ModelIndex index(model, axis);
        const XWindow extent = model.extent(axis);
        size_t hits = 0;
        for (int trial = 0; trial < 2'000; ++trial) {
            const uint64_t x = extent.m_from + random() % extent.width();
            // In a region's slots (regions 1 MiB apart, 22 slots of 4 KiB each).
            const uint64_t addr = spec.m_base + (random() % 3 << 20) + random() % (22 * spec.m_slotBytes);
            const auto expected = model.blockAt(axis, x, addr);
            INFO("x " << x << " addr " << std::hex << addr);
            CHECK(index.blockAt(x, addr) == expected);
            hits += expected.has_value();
        }
        CHECK(hits > 100);  // the points land on blocks often enough for the test to mean something
    }
}

TEST_CASE("an index of an empty model answers nothing and no bytes") {
    const BlockModel model = test::randomHeap({.m_events = 0});
    const ModelIndex index(model, XAxis::Time);
    OccupancyQuery query;
    query.m_window = {0, 100};
    query.m_columns = 10;
    for (const auto& column : index.occupancy(query)) CHECK(column.m_liveBytes == 0);
    timeline::AddressRanges::Builder builder;
    index.addRanges({0, 100}, 0, UINT64_MAX, builder);
    CHECK(builder.finish().empty());
    CHECK(!index.blockAt(5, 5));
}

// The coarse levels of a long list of access samples: every sample counted once at every level,
// each group's points holding its samples' addresses, and no point spanning a gap its samples
// leave.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <thread>

#include "timeline/model/access_summary.hpp"
#include "timeline/model/access_tally.hpp"
#include "timeline/model/block_model.hpp"

using namespace memlog::timeline;

namespace {

AccessMark markAt(uint64_t seq, uint64_t addr, bool write) {
    AccessMark mark;
    mark.m_seq = mark.m_timeNs = seq;
    mark.m_addr = addr;
    mark.m_write = write;
    return mark;
}

// Samples that crowd three places a megabyte apart, a few lone ones far from all, and a few at
// addresses of 2^63 or more.
std::vector<AccessMark> crowdedMarks(size_t count) {
    std::mt19937_64 random(7);
    std::vector<AccessMark> marks;
    for (size_t i = 0; i < count; ++i) {
        const uint64_t crowd = 0x10'0000'0000 + (random() % 3) * 0x10'0000;
        uint64_t addr = i % 100'000 == 5 ? 0x7f00'0000'0000 + i : crowd + random() % 512;
        if (i % 100'000 == 77) addr = 0xffff'8880'0000'0000 + i;  // a kernel's address, in a few groups

        marks.push_back(markAt(i + 1, addr, random() % 3 == 0));
    }
    return marks;
}

// The point of `points` whose addresses hold `addr`, if one does.
const AccessPoint* pointHolding(std::span<const AccessPoint> points, uint64_t addr) {
    for (const AccessPoint& point : points)
        if (point.weight() > 0 && point.m_lo <= addr && addr <= point.m_hi) return &point;
    return nullptr;
}

}  // namespace

TEST_CASE("access summary: none below a million samples, levels of 1024 x 16^k samples above") {
    CHECK(AccessSummary::pointsFor(0) == 0);
    CHECK(AccessSummary::pointsFor(AccessSummary::kWorthFrom - 1) == 0);
    // 2^20 samples: 1024 leaves, 64, 4 and 1 group above them.
    CHECK(AccessSummary::pointsFor(AccessSummary::kWorthFrom) == (1024 + 64 + 4 + 1) * AccessSummary::kPoints);
    const std::vector<AccessMark> few(1000, markAt(1, 0x1000, false));
    CHECK(summariseAccesses(few).empty());
}

TEST_CASE("access summary: each group's points count its samples, reads and writes apart, at their addresses") {
    const std::vector<AccessMark> marks = crowdedMarks(AccessSummary::kWorthFrom + 12'345);  // a last leaf in part
    const HugeVector<AccessPoint> built = summariseAccesses(marks);
    const AccessSummary summary(built, marks.size());
    REQUIRE(summary.levels() == 4);  // 1037 leaves, 65, 5 and 1 group above them
    CHECK(summary.groups(0) == 1037);
    CHECK(summary.groups(1) == 65);
    CHECK(summary.groups(3) == 1);

    SECTION("the leaves: every sample in a point of its own group, the counts its group's") {
        size_t misplaced = 0, miscounted = 0;
        for (size_t group = 0; group < summary.groups(0); ++group) {
            const auto [first, last] = summary.marksOf(0, group);
            uint64_t reads = 0, writes = 0;
            for (size_t i = first; i < last; ++i) {
                misplaced += pointHolding(summary.points(0, group), marks[i].m_addr) == nullptr;
                (marks[i].m_write ? writes : reads) += 1;
            }
            uint64_t pointReads = 0, pointWrites = 0;
            for (const AccessPoint& point : summary.points(0, group)) {
                pointReads += point.m_reads;
                pointWrites += point.m_writes;
            }
            miscounted += pointReads != reads || pointWrites != writes;
        }
        CHECK(misplaced == 0);
        CHECK(miscounted == 0);
    }
    SECTION("each level above: its children's weight, each child's point inside one of its own") {
        for (size_t level = 1; level < summary.levels(); ++level) {
            INFO("level " << level);
            size_t outside = 0, miscounted = 0;
            for (size_t group = 0; group < summary.groups(level); ++group) {
                uint64_t children = 0, own = 0;
                for (size_t child = group * AccessSummary::kFanout;
                     child < std::min((group + 1) * AccessSummary::kFanout, summary.groups(level - 1)); ++child)
                    for (const AccessPoint& point : summary.points(level - 1, child)) {
                        if (point.weight() == 0) continue;
                        children += point.weight();
                        const AccessPoint* holder = pointHolding(summary.points(level, group), point.m_lo);
                        outside += holder == nullptr || holder->m_hi < point.m_hi;
                    }
                for (const AccessPoint& point : summary.points(level, group)) own += point.weight();
                const auto [first, last] = summary.marksOf(level, group);
                miscounted += own != children || own != last - first;
            }
            CHECK(outside == 0);
            CHECK(miscounted == 0);
        }
    }
    SECTION("no point spans the megabyte between two crowds, and a lone sample has a point of its own") {
        size_t spanning = 0;
        for (size_t level = 0; level < summary.levels(); ++level)
            for (size_t group = 0; group < summary.groups(level); ++group)
                for (const AccessPoint& point : summary.points(level, group))
                    spanning += point.weight() > 0 && point.m_hi - point.m_lo >= 0x10'0000;
        CHECK(spanning == 0);
        // Sample 100'005 is lone, in leaf 97; the root's points keep it apart too.
        const AccessPoint* lone = pointHolding(summary.points(0, 100'005 / 1024), marks[100'005].m_addr);
        REQUIRE(lone != nullptr);
        CHECK(lone->weight() == 1);
        const AccessPoint* atRoot = pointHolding(summary.points(3, 0), marks[100'005].m_addr);
        REQUIRE(atRoot != nullptr);
        CHECK(atRoot->m_lo >= 0x7f00'0000'0000);  // with the other lone samples, not with a crowd
    }
}

TEST_CASE("access summary: a model makes its own when first asked, once, whichever threads ask") {
    BlockModel model;
    model.setAccessMarks(crowdedMarks(AccessSummary::kWorthFrom + 10));
    CHECK_FALSE(model.accessSummaryMade());  // setting the samples made only their tally
    CHECK(model.accessTally().m_writes > 0);
    AccessSummary first, second;
    {
        std::jthread other([&] { second = model.accessSummary(); });
        first = model.accessSummary();
    }
    CHECK(model.accessSummaryMade());
    REQUIRE_FALSE(first.empty());
    CHECK(first.points().data() == second.points().data());  // one summary, made once
    CHECK(model.accessSummary().points().data() == first.points().data());
    const HugeVector<AccessPoint> expected = summariseAccesses(model.accessMarks());
    REQUIRE(first.points().size() == expected.size());
    CHECK(std::equal(expected.begin(), expected.end(), first.points().begin(), [](const auto& a, const auto& b) {
        return a.m_lo == b.m_lo && a.m_hi == b.m_hi && a.m_reads == b.m_reads && a.m_writes == b.m_writes;
    }));
    // Samples set again: their summary is theirs, made when asked again.
    model.setAccessMarks(crowdedMarks(1000));
    CHECK_FALSE(model.accessSummaryMade());
    CHECK(model.accessSummary().empty());  // too few for one
}

TEST_CASE("access tally: writes, traps and uses after free counted, each trap linked to the sample that armed it") {
    std::vector<AccessMark> marks;
    for (uint64_t seq = 1; seq <= 10; ++seq) marks.push_back(markAt(seq * 10, 0x1000 + seq, seq % 3 == 0));
    marks[4].m_armedBy = marks[1].m_seq;  // a trap of the sample at 1
    marks[7].m_armedBy = 5;  // armed by a sample torn off the log
    marks[8].m_useAfterFree = true;
    const AccessTally tally = tallyAccesses(marks);
    CHECK(tally.m_writes == 3);
    CHECK(tally.m_traps == 2);
    CHECK(tally.m_links == std::vector<std::pair<size_t, size_t>>{{1, 4}});
    CHECK(tally.m_usesAfterFree == std::vector<size_t>{8});
}

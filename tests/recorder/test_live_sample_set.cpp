// The set of live sampled blocks (MEMLOG_SAMPLE): what it holds, a full bucket, the filter in
// front of it, and the exponential gaps the countdown draws.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <thread>
#include <vector>

#include "record/live_sample_set.hpp"
#include "record/sample_gaps.hpp"

using memlog::preload::LiveSampleSet;

namespace {

struct MappedSet {
    explicit MappedSet(uint64_t slots)
        : m_memory(static_cast<uint64_t*>(std::aligned_alloc(64, LiveSampleSet::kFilterBytes + slots * 8))) {
        std::fill_n(reinterpret_cast<uint8_t*>(m_memory), LiveSampleSet::kFilterBytes + slots * 8, 0);
        m_set.attach(m_memory, slots);
    }
    ~MappedSet() { std::free(m_memory); }
    uint64_t* m_memory;
    LiveSampleSet m_set;
};

const void* address(uint64_t value) { return reinterpret_cast<const void*>(value); }

}  // namespace

TEST_CASE("live sample set: holds what was put in until it is taken out") {
    MappedSet mapped(1024);
    LiveSampleSet& set = mapped.m_set;
    for (uint64_t i = 1; i <= 200; ++i) REQUIRE(set.insert(address(i * 48)));
    for (uint64_t i = 1; i <= 200; ++i) CHECK(set.contains(address(i * 48)));
    for (uint64_t i = 201; i <= 2000; ++i) CHECK(!set.contains(address(i * 48)));
    for (uint64_t i = 1; i <= 200; i += 2) CHECK(set.remove(address(i * 48)));
    for (uint64_t i = 1; i <= 200; ++i) CHECK(set.contains(address(i * 48)) == (i % 2 == 0));
    CHECK(!set.remove(address(48)));  // taken out already: a double free is not matched twice
}

TEST_CASE("live sample set: a full bucket refuses, and nothing else is lost") {
    MappedSet mapped(64);  // eight buckets of eight
    LiveSampleSet& set = mapped.m_set;
    std::vector<uint64_t> kept;
    uint64_t refused = 0;
    for (uint64_t i = 1; i <= 1000; ++i) {
        if (set.insert(address(i * 16)))
            kept.push_back(i * 16);
        else
            ++refused;
    }
    CHECK(kept.size() == 64);
    CHECK(refused == 1000 - 64);
    for (uint64_t value : kept) CHECK(set.contains(address(value)));
    for (uint64_t value : kept) CHECK(set.remove(address(value)));
    for (uint64_t value : kept) CHECK(!set.contains(address(value)));
}

TEST_CASE("live sample set: the filter passes a sample's 256 bytes and no other address of its 4 MiB") {
    MappedSet mapped(1024);
    LiveSampleSet& set = mapped.m_set;
    const uint64_t sample = 0x5555'5500'0000 + 0x3'4560;
    REQUIRE(set.insert(address(sample)));
    uint64_t passed = 0;
    for (uint64_t at = 0x5555'5500'0000; at < 0x5555'5540'0000; at += 16) passed += set.mayContain(address(at));
    CHECK(passed == 256 / 16);  // the blocks that start in the sample's 256 bytes, and no others
    CHECK(set.mayContain(address(sample)));
    CHECK(set.remove(address(sample)));
    CHECK(!set.mayContain(address(sample)));
}

TEST_CASE("live sample set: threads inserting and removing their own blocks at once") {
    MappedSet mapped(1 << 16);
    LiveSampleSet& set = mapped.m_set;
    std::vector<std::thread> threads;
    std::vector<int> wrong(4);
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (int round = 0; round < 50; ++round) {
                for (uint64_t i = 0; i < 500; ++i) wrong[t] += !set.insert(address((t + 1) << 24 | i << 4));
                for (uint64_t i = 0; i < 500; ++i) wrong[t] += !set.remove(address((t + 1) << 24 | i << 4));
            }
        });
    for (auto& thread : threads) thread.join();
    for (int t = 0; t < 4; ++t) CHECK(wrong[t] == 0);
    for (uint64_t i = 0; i < 500; ++i) CHECK(!set.contains(address(1 << 24 | i << 4)));
}

TEST_CASE("sample gaps: exponential with the asked mean, the same from the same seed") {
    uint64_t state = 7, again = 7;
    double sum = 0, sumSquares = 0;
    int below = 0;
    constexpr int kDraws = 200000;
    for (int i = 0; i < kDraws; ++i) {
        const int64_t gap = memlog::preload::drawGap(state, 65536);
        REQUIRE(gap >= 1);
        REQUIRE(gap == memlog::preload::drawGap(again, 65536));
        sum += static_cast<double>(gap);
        sumSquares += static_cast<double>(gap) * static_cast<double>(gap);
        below += gap <= 65536;
    }
    const double mean = sum / kDraws, deviation = std::sqrt(sumSquares / kDraws - mean * mean);
    CHECK(mean == Approx(65536).epsilon(0.01));
    CHECK(deviation == Approx(65536).epsilon(0.02));  // an exponential's deviation is its mean
    CHECK(below / double(kDraws) == Approx(1 - std::exp(-1.0)).epsilon(0.01));
    for (double u : {0.9, 0.5, 0.1, 1e-6}) CHECK(memlog::preload::negativeLog(u) == Approx(-std::log(u)));
}

// SequenceCounter: a lone thread takes numbers without the lock; when other threads join, every
// number is still taken exactly once (no duplicate, no gap), also while the lone thread races.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "record/sequence_counter.hpp"

using memlog::preload::SequenceCounter;

namespace {

// Every number from 1 to the count of numbers taken, each once.
bool exactlyOnce(std::vector<uint64_t> numbers) {
    std::sort(numbers.begin(), numbers.end());
    for (size_t i = 0; i < numbers.size(); ++i)
        if (numbers[i] != i + 1) return false;
    return true;
}

}  // namespace

TEST_CASE("a lone thread takes consecutive numbers and stays alone") {
    SequenceCounter counter;
    counter.start();
    const bool membarrierHere = counter.isAlone();
    int self = 0;
    for (uint64_t expected = 1; expected <= 1000; ++expected) REQUIRE(counter.take(&self) == expected);
    CHECK(counter.isAlone() == membarrierHere);
    if (!membarrierHere) WARN("membarrier is not available: every number took the locked add");
}

TEST_CASE("threads that join a lone thread mid-run never share or skip a number") {
    constexpr int kRounds = 20;
    constexpr int kJoiners = 3;
    constexpr int kEach = 20000;
    for (int round = 0; round < kRounds; ++round) {
        SequenceCounter counter;
        counter.start();
        std::vector<std::vector<uint64_t>> taken(kJoiners + 1);
        std::atomic<bool> loneStarted{false};
        std::atomic<int> joinersDone{0};
        // The lone thread takes numbers without pause until every joiner has taken all of its own,
        // so the switch happens while it is in the middle of its unlocked adds.
        std::thread lone([&] {
            int self = 0;
            taken[0].push_back(counter.take(&self));
            loneStarted = true;
            while (joinersDone.load(std::memory_order_relaxed) < kJoiners) taken[0].push_back(counter.take(&self));
        });
        while (!loneStarted) std::this_thread::yield();
        std::vector<std::thread> joiners;
        for (int j = 1; j <= kJoiners; ++j)
            joiners.emplace_back([&, j] {
                int self = 0;
                for (int i = 0; i < kEach; ++i) taken[j].push_back(counter.take(&self));
                joinersDone.fetch_add(1);
            });
        for (auto& joiner : joiners) joiner.join();
        lone.join();

        std::vector<uint64_t> all;
        for (const auto& numbers : taken) all.insert(all.end(), numbers.begin(), numbers.end());
        INFO("round " << round << ": " << all.size() << " numbers, " << taken[0].size() << " by the lone thread");
        REQUIRE(exactlyOnce(all));
        CHECK(!counter.isAlone());
        // Each thread's own numbers rise: the order of a thread's events is kept.
        for (const auto& numbers : taken) CHECK(std::is_sorted(numbers.begin(), numbers.end()));
    }
}

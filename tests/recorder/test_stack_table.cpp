// StackTable: one id per distinct stack, also when threads race to claim the same stack.
#include <catch2/catch.hpp>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "stack_table.hpp"

using memlog::preload::StackTable;

namespace {

// Either the known id, or a freshly claimed one (published like the recorder does).
uint32_t intern(StackTable& table, uint64_t hash, std::atomic<int>& claims) {
    const StackTable::Claim claim = table.find(hash);
    if (!claim.m_claimed) return claim.m_id;
    claims.fetch_add(1);
    const uint32_t id = table.newId();
    table.publish(claim.m_slot, id);
    return id;
}

}  // namespace

TEST_CASE("the same frames hash alike and different frames differently") {
    const uint64_t a[] = {0x401000, 0x402000, 0x403000};
    const uint64_t b[] = {0x401000, 0x402000, 0x403001};
    CHECK(StackTable::hashFrames(a, 3) == StackTable::hashFrames(a, 3));
    CHECK(StackTable::hashFrames(a, 3) != StackTable::hashFrames(b, 3));
    CHECK(StackTable::hashFrames(a, 2) != StackTable::hashFrames(a, 3));
    CHECK(StackTable::hashFrames(a, 3) != 0);
}

TEST_CASE("each distinct stack gets exactly one id, claimed once, across racing threads") {
    StackTable table;
    REQUIRE(table.create());
    constexpr int kStacks = 5000;
    constexpr int kThreads = 4;
    std::atomic<int> claims{0};
    std::vector<std::vector<uint32_t>> ids(kThreads, std::vector<uint32_t>(kStacks));
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < kStacks; ++i) {
                const uint64_t frames[] = {0x400000u + uint64_t(i) * 16, 0x500000, 0x600000};
                ids[t][i] = intern(table, StackTable::hashFrames(frames, 3), claims);
            }
        });
    for (auto& thread : threads) thread.join();

    CHECK(claims.load() == kStacks);
    CHECK(table.count() == kStacks);
    std::set<uint32_t> distinct;
    for (int i = 0; i < kStacks; ++i) {
        for (int t = 1; t < kThreads; ++t) CHECK(ids[t][i] == ids[0][i]);
        CHECK(ids[0][i] != 0);
        distinct.insert(ids[0][i]);
    }
    CHECK(distinct.size() == kStacks);
}

TEST_CASE("a reset table forgets every stack (a fork child defines them again)") {
    StackTable table;
    REQUIRE(table.create());
    std::atomic<int> claims{0};
    const uint64_t frames[] = {0x1234, 0x5678};
    const uint64_t hash = StackTable::hashFrames(frames, 2);
    CHECK(intern(table, hash, claims) == 1);
    CHECK(intern(table, hash, claims) == 1);
    table.reset();
    CHECK(table.count() == 0);
    CHECK(intern(table, hash, claims) == 1);
    CHECK(claims.load() == 2);
}

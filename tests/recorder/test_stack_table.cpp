// StackTable: one id per distinct stack, also when threads race to claim the same stack.
#include <catch2/catch.hpp>
#include <sys/resource.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "record/stack_table.hpp"

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

// Page faults the calling thread has taken so far.
long faultsOfThisThread() {
    rusage usage{};
    getrusage(RUSAGE_THREAD, &usage);
    return usage.ru_minflt;
}

// A new stack in each of `pages` pages of the table never touched (4 KiB of 16-byte slots:
// 256 slots a page; the slot is the hash's bits from 20 up). The faults they took.
long faultsForNewStacksOnFreshPages(StackTable& table, int pages, uint64_t salt) {
    std::atomic<int> claims{0};
    std::vector<uint64_t> hashes;
    for (int page = 0; page < pages; ++page) hashes.push_back((uint64_t(page) * 256 << 20) | (salt << 44) | 1);
    const long before = faultsOfThisThread();
    for (const uint64_t hash : hashes) intern(table, hash, claims);
    return faultsOfThisThread() - before;
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

// Reading a fresh page first maps the kernel's zero page, and the claim's write then faults
// again; the table writes a page at its first touch instead.
TEST_CASE("a new stack on a page of the table never touched costs one page fault not two") {
    constexpr int kPages = 1024;
    StackTable table;
    REQUIRE(table.create());
    const long faults = faultsForNewStacksOnFreshPages(table, kPages, 1);
    CHECK(faults >= kPages);
    CHECK(faults < kPages * 5 / 4);
    table.reset();  // the pages are given back: zero pages again, and written first again
    const long again = faultsForNewStacksOnFreshPages(table, kPages, 2);
    CHECK(again >= kPages);
    CHECK(again < kPages * 5 / 4);
}

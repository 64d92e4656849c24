// The watchpoints' logic against injected traps: a device that only notes what it is asked, and
// traps made up with the cookies the real events would carry. What is checked here runs on every
// machine; tests/scenario/test_watchpoints.cpp runs the same under the real preload where the
// debug registers fire.
#include <catch2/catch.hpp>

#include <map>

#include "watch/watchpoints.hpp"

using memlog::format::AccessKind;
using memlog::format::WatchCounters;
using memlog::preload::WatchDevice;
using memlog::preload::Watchpoints;
using State = Watchpoints::State;
using Verdict = Watchpoints::Verdict;

namespace {

class FakeDevice final : public WatchDevice {
public:
    bool arm(uint32_t slot, uint64_t word, uint64_t cookie) override {
        if (m_refuse) return false;
        m_words[slot] = word;
        m_cookies[slot] = cookie;
        ++m_arms;
        return true;
    }
    void disarm(uint32_t slot) override {
        m_words.erase(slot);
        ++m_disarms;
    }
    uint64_t read(uint64_t word) override { return m_memory[word]; }

    std::map<uint32_t, uint64_t> m_words, m_cookies;
    std::map<uint64_t, uint64_t> m_memory;
    int m_arms = 0, m_disarms = 0;
    bool m_refuse = false;
};

constexpr uint32_t kSampler = 100, kOther = 200;
constexpr uint64_t kSampledIp = 0x401000, kAfterSampled = 0x401004, kElsewhere = 0x402000;
constexpr uint64_t kMs = 1'000'000;

struct Fixture {
    Fixture(uint32_t trapsPerSecond = 100000) { watches.start(&device, trapsPerSecond, &counters); }
    // A sample at `addr` by the sampler thread at `nowNs`, with sequence number `seq`.
    void sample(uint64_t addr, uint64_t seq = 7, uint64_t nowNs = 1000 * kMs) {
        watches.follow(addr, seq, nowNs, kSampler, kAfterSampled);
    }
    Verdict trap(uint32_t slot, uint32_t tid = kOther, uint64_t ip = kElsewhere, bool inAllocator = false) {
        return watches.onTrap(device.m_cookies.at(slot), tid, ip, false, inAllocator, &caught);
    }
    FakeDevice device;
    WatchCounters counters{};
    Watchpoints watches;
    Watchpoints::Caught caught;
};

}  // namespace

TEST_CASE("a sample arms its aligned word, the sampled instruction's own access is let through") {
    Fixture f;
    f.sample(0x1004);
    REQUIRE(f.device.m_words.size() == 1);
    CHECK(f.device.m_words.at(0) == 0x1000);
    CHECK(f.watches.stateOf(0) == State::Armed);
    CHECK(f.watches.active());
    CHECK(f.counters.m_armed == 1);
    // The instruction that was sampled runs after the arm and trips it: not the next access.
    CHECK(f.trap(0, kSampler, kAfterSampled) == Verdict::Ignored);
    CHECK(f.watches.stateOf(0) == State::Armed);
    // The next one, by another thread, is caught; the word changed: a write.
    f.device.m_memory[0x1000] = 42;
    CHECK(f.trap(0) == Verdict::Caught);
    CHECK(f.caught.m_word == 0x1000);
    CHECK(f.caught.m_kind == AccessKind::Write);
    CHECK(f.caught.m_armedBy == 7);
    CHECK(f.watches.stateOf(0) == State::Free);
    CHECK_FALSE(f.watches.active());
    CHECK(f.device.m_disarms == 1);
    CHECK(f.counters.m_traps == 1);
}

TEST_CASE("an unchanged word is a read, the sampler's thread elsewhere is a next access too") {
    Fixture f;
    f.device.m_memory[0x2000] = 5;
    f.sample(0x2000);
    CHECK(f.trap(0, kSampler, kElsewhere) == Verdict::Caught);
    CHECK(f.caught.m_kind == AccessKind::Read);
}

TEST_CASE("a trap of a retired watch is stale, even when the slot is armed again") {
    Fixture f;
    f.sample(0x1000);
    const uint64_t oldCookie = f.device.m_cookies.at(0);
    CHECK(f.trap(0) == Verdict::Caught);
    f.sample(0x3000, 9);  // the same slot, a new generation
    CHECK(f.device.m_cookies.at(0) != oldCookie);
    CHECK(f.watches.onTrap(oldCookie, kOther, kElsewhere, false, false, &f.caught) == Verdict::Stale);
    CHECK(f.watches.stateOf(0) == State::Armed);
    CHECK(f.counters.m_stale == 1);
    // A disarmed event's cookie, which a trap sent just after a disarm carries, is stale too.
    CHECK(f.watches.onTrap(memlog::preload::kRetiredWatchCookie, kOther, kElsewhere, false, false, &f.caught) ==
          Verdict::Stale);
    // Anything else is not the watchpoints' (a program's own perf event, say).
    CHECK(f.watches.onTrap(0x1234, kOther, kElsewhere, false, false, &f.caught) == Verdict::NotOurs);
}

TEST_CASE("traps inside the allocator or the recorder are ignored, and the watch stays") {
    Fixture f;
    f.sample(0x1000);
    CHECK(f.trap(0, kOther, kElsewhere, true) == Verdict::Ignored);
    CHECK(f.watches.onTrap(f.device.m_cookies.at(0), kOther, kElsewhere, true, false, &f.caught) == Verdict::Ignored);
    CHECK(f.watches.stateOf(0) == State::Armed);
    CHECK(f.counters.m_ignoredInAllocator == 1);
    CHECK(f.counters.m_ignoredInRecorder == 1);
    CHECK(f.trap(0) == Verdict::Caught);
}

TEST_CASE("four slots at most, a word already watched is not armed twice") {
    Fixture f;
    for (uint64_t i = 0; i < 6; ++i) f.sample(0x1000 + i * 64, i + 1);
    f.sample(0x1000 + 8 * 64);
    f.sample(0x1004);  // the first word again
    CHECK(f.device.m_arms == 4);
    for (uint32_t slot = 0; slot < Watchpoints::kSlots; ++slot) CHECK(f.watches.stateOf(slot) == State::Armed);
}

TEST_CASE("the budget bounds the arms: a tenth of a second's worth, then one per period") {
    Fixture f(100);  // 100 traps a second: an arm each 10 ms
    uint64_t now = 1000 * kMs;
    int armed = 0;
    for (int i = 0; i < 40; ++i) {
        f.sample(0x1000, static_cast<uint64_t>(i + 1), now);
        if (f.watches.stateOf(0) == State::Armed) {
            ++armed;
            CHECK(f.trap(0) == Verdict::Caught);
        }
    }
    CHECK(armed == 10);  // 100 ms saved up at 10 ms an arm
    CHECK(f.counters.m_skippedForBudget == 30);
    f.sample(0x1000, 99, now + 10 * kMs);  // a period later: one more
    CHECK(f.watches.stateOf(0) == State::Armed);
}

TEST_CASE("a watch no access reached is retired after its time limit") {
    Fixture f;
    f.sample(0x1000, 7, 1000 * kMs);
    f.watches.expire(1000 * kMs + Watchpoints::kArmedLimitNs - 1);
    CHECK(f.watches.stateOf(0) == State::Armed);
    f.watches.expire(1000 * kMs + Watchpoints::kArmedLimitNs + 1);
    CHECK(f.watches.stateOf(0) == State::Free);
    CHECK(f.counters.m_retiredByTime == 1);
    CHECK(f.device.m_disarms == 1);
}

TEST_CASE("use after free: freed, the watch stays and a trap is caught, handed out again, it ends") {
    SECTION("freed, then touched: caught (a use after free, as the reader will tell)") {
        Fixture f;
        f.sample(0x10010);
        f.watches.onFree(0x10000, 64, false, 1001 * kMs);
        CHECK(f.watches.stateOf(0) == State::Freed);
        CHECK(f.counters.m_freedWhileWatched == 1);
        // A freed block's watch outlives the armed limit, up to its own.
        f.watches.expire(1001 * kMs + Watchpoints::kArmedLimitNs + 1);
        CHECK(f.watches.stateOf(0) == State::Freed);
        // free writes its links into the block: the allocator's, not the program's.
        CHECK(f.trap(0, kOther, kElsewhere, true) == Verdict::Ignored);
        CHECK(f.trap(0) == Verdict::Caught);
        CHECK(f.caught.m_word == 0x10010);
    }
    SECTION("freed, handed out again by an allocation, then touched: no trap of it counts") {
        Fixture f;
        f.sample(0x10010);
        const uint64_t cookie = f.device.m_cookies.at(0);
        f.watches.onFree(0x10000, 64, false, 1001 * kMs);
        f.watches.onAllocate(0x10000, 32);
        CHECK(f.watches.stateOf(0) == State::Free);
        CHECK(f.counters.m_disarmedByAllocation == 1);
        CHECK(f.watches.onTrap(cookie, kOther, kElsewhere, false, false, &f.caught) == Verdict::Stale);
    }
    SECTION("a block whose memory may go back to the kernel ends the watch at its free") {
        Fixture f;
        f.sample(0x10010);
        f.watches.onFree(0x10000, 256 * 1024, true, 1001 * kMs);
        CHECK(f.watches.stateOf(0) == State::Free);
        CHECK(f.counters.m_disarmedByUnmap == 1);
    }
    SECTION("a free or an unmapping elsewhere leaves the watch alone") {
        Fixture f;
        f.sample(0x10010);
        f.watches.onFree(0x20000, 64, false, 1001 * kMs);
        f.watches.onUnmap(0x30000, 4096);
        f.watches.onAllocate(0x10018, 64);  // just above the word
        CHECK(f.watches.stateOf(0) == State::Armed);
        f.watches.onUnmap(0x10000, 4096);
        CHECK(f.watches.stateOf(0) == State::Free);
    }
}

TEST_CASE("a word the device refuses to arm frees its slot again") {
    Fixture f;
    f.device.m_refuse = true;
    f.sample(0x1000);
    CHECK(f.watches.stateOf(0) == State::Free);
    CHECK_FALSE(f.watches.active());
    CHECK(f.counters.m_armFailures == 1);
}

TEST_CASE("a fork child forgets the parent's watches without asking the device") {
    Fixture f;
    f.sample(0x1000);
    f.watches.forget();
    CHECK(f.watches.stateOf(0) == State::Free);
    CHECK_FALSE(f.watches.active());
    CHECK(f.device.m_disarms == 0);
}

// AddressTable: the live blocks' table with its sweeps, against a plain map that keeps every
// address, on enough addresses that the table sweeps and grows many times.
#include <catch2/catch.hpp>

#include <random>
#include <unordered_map>

#include "timeline/replay/address_table.hpp"

using memlog::timeline::AddressTable;

TEST_CASE("after any number of sweeps, an address is found while live and is known to have ended after") {
    AddressTable table;
    std::unordered_map<uint64_t, bool> everyAddress;  // address: live
    std::mt19937_64 random(7);
    const uint64_t base = 0x7f12'3456'0000ull;
    size_t peakLive = 0, live = 0;
    for (int step = 0; step < 400'000; ++step) {
        // 60,000 possible addresses 16 bytes apart, address 0 among them, and a few that no
        // allocator would return (odd ones, kept apart by the set of ended addresses).
        const uint64_t addr = random() % 1000 == 0 ? 0 : base + (random() % 60'000) * 16 + (random() % 500 == 0 ? 3 : 0);
        const bool allocate = step < 100'000 ? random() % 4 != 0 : random() % 2 == 0;
        if (allocate) {
            AddressTable::Entry& entry = table.findOrInsert(addr);
            REQUIRE(entry.m_addr == addr);
            REQUIRE(static_cast<bool>(entry.m_live) == (everyAddress.count(addr) && everyAddress[addr]));
            if (!entry.m_live) ++live;
            entry.m_live = true;
            entry.m_size = addr & 0xffff;
            everyAddress[addr] = true;
        } else {
            AddressTable::Entry* entry = table.find(addr);
            const auto known = everyAddress.find(addr);
            if (known != everyAddress.end() && known->second) {
                REQUIRE(entry);
                REQUIRE(entry->m_live);
                REQUIRE(entry->m_size == (addr & 0xffff));
                entry->m_live = false;
                known->second = false;
                --live;
            } else if (entry) {
                REQUIRE_FALSE(entry->m_live);  // ended since the last sweep
            } else {
                REQUIRE(table.endedBefore(addr) == (known != everyAddress.end()));
            }
        }
        peakLive = std::max(peakLive, live);
    }
    CHECK(peakLive > 20'000);
    CHECK(table.slots() >= 32'768);  // grew from 4,096 with the live blocks
    CHECK(table.slots() <= 4 * 65'536);
}

TEST_CASE("address table: addresses that a fixed hash would put in one slot (multiples of 2^40, as a crafted log may hold) probe briefly") {
    AddressTable table;
    for (uint64_t j = 1; j <= 50'000; ++j) table.findOrInsert(j << 40).m_live = true;
    for (uint64_t j = 1; j <= 50'000; ++j) REQUIRE(table.find(j << 40));
    INFO("longest probe " << table.longestProbe() << " in " << table.slots() << " slots");
    CHECK(table.longestProbe() < 200);  // the multiplicative hash before took all 50,000 to one run
}

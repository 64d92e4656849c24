// The arrays made once per log and read by every frame, and the reader's table of live blocks,
// are asked to be backed by huge pages (timeline/base/huge_pages.hpp): the mapping that holds them
// carries the kernel's "hg" flag (MADV_HUGEPAGE) in /proc/self/smaps. Whether the kernel then gives 2 MiB pages is its
// choice; without the advice, with THP in its default "madvise" mode, it never does.
#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "random_heap.hpp"
#include "timeline/replay/address_table.hpp"
#include "timeline/model/block_index.hpp"
#include "timeline/base/huge_pages.hpp"
#include "timeline/model/model_index.hpp"

using namespace memlog;

namespace {

// The VmFlags of the mapping of this process that holds `address` ("" when none does).
std::string flagsOfMapping(const void* address) {
    const auto at = reinterpret_cast<uintptr_t>(address);
    std::ifstream smaps("/proc/self/smaps");
    std::string line;
    bool inside = false;
    while (std::getline(smaps, line)) {
        uintptr_t from = 0, to = 0;
        char dash = 0;
        std::istringstream header(line);
        if (header >> std::hex >> from >> dash >> to && dash == '-' && line.find(':') > line.find(' ')) {
            inside = from <= at && at < to;
            continue;
        }
        if (inside && line.rfind("VmFlags:", 0) == 0) return line;
    }
    return "";
}

bool advisedHuge(const void* address) { return flagsOfMapping(address).find(" hg") != std::string::npos; }

// The drawing program's policy for the length of a test, then the default again.
struct HugeAndAhead {
    HugeAndAhead() { timeline::setArrayPages(timeline::ArrayPages::HugeAndAhead); }
    ~HugeAndAhead() { timeline::setArrayPages(timeline::ArrayPages::Ordinary); }
};

}  // namespace

TEST_CASE("by default (the command-line tools) the arrays are not advised into huge pages") {
    REQUIRE(timeline::arrayPages() == timeline::ArrayPages::Ordinary);
    const size_t bytes = 3 * timeline::kHugePage;
    auto* memory = static_cast<unsigned char*>(timeline::allocateHuge(bytes));
    REQUIRE(memory != nullptr);
    memory[0] = 1;
    CHECK_FALSE(advisedHuge(memory));
    timeline::freeHuge(memory, bytes);
}

TEST_CASE("allocateHuge gives zeroed memory on a huge page boundary, advised huge") {
    const HugeAndAhead policy;
    const size_t bytes = 5 * timeline::kHugePage + 12345;
    auto* memory = static_cast<unsigned char*>(timeline::allocateHuge(bytes));
    REQUIRE(memory != nullptr);
    CHECK(reinterpret_cast<uintptr_t>(memory) % timeline::kHugePage == 0);
    CHECK(memory[0] == 0);
    CHECK(memory[bytes - 1] == 0);
    memory[bytes - 1] = 7;  // the whole length is writable
    CHECK(advisedHuge(memory));
    CHECK(advisedHuge(memory + bytes - 1));
    timeline::freeHuge(memory, bytes);
}

TEST_CASE("a HugeVector takes huge pages from kHugeFrom bytes on, ordinary memory below") {
    const HugeAndAhead policy;
    timeline::HugeVector<uint64_t> small(1000), large(timeline::kHugeFrom / sizeof(uint64_t) * 4);
    CHECK_FALSE(advisedHuge(small.data()));
    CHECK(advisedHuge(large.data()));
    CHECK(reinterpret_cast<uintptr_t>(large.data()) % timeline::kHugePage == 0);
}

TEST_CASE("the model's blocks, the index's boxes and order are in huge pages") {
    const HugeAndAhead policy;
    test::RandomHeap spec;
    spec.m_events = 800'000;
    spec.m_slots = 20'000;
    const timeline::BlockModel model = test::randomHeap(spec);
    REQUIRE(model.size() * sizeof(uint32_t) > timeline::kHugeFrom);  // the order too
    CHECK(advisedHuge(&model[0]));
    CHECK(advisedHuge(&model[model.size() - 1]));
    const timeline::ModelIndex index(model, timeline::XAxis::Time);
    CHECK(advisedHuge(index.index().boxes().data()));
    CHECK(advisedHuge(index.index().order().data()));
}

TEST_CASE("the reader's table of live blocks is in huge pages whatever the policy, once it is large") {
    REQUIRE(timeline::arrayPages() == timeline::ArrayPages::Ordinary);
    timeline::AddressTable table;
    const uint64_t first = 0x7f00'0000'0000;
    auto* small = &table.findOrInsert(first);
    CHECK_FALSE(advisedHuge(small));  // 4,096 slots: 96 KiB from operator new
    constexpr uint64_t kLive = 100'000;
    for (uint64_t i = 0; i < kLive; ++i) table.findOrInsert(first + 64 * i).m_live = 1;
    REQUIRE(table.slots() * sizeof(timeline::AddressTable::Entry) >= timeline::kHugeFrom);
    const auto* entry = table.find(first + 64 * (kLive - 1));
    REQUIRE(entry != nullptr);
    CHECK(entry->m_live);
    CHECK(advisedHuge(entry));
    CHECK(advisedHuge(table.find(first)));
}

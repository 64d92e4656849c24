// The arrays made once per log and read by every frame, and the reader's table of live blocks,
// are asked to be backed by huge pages (timeline/base/huge_pages.hpp): the mapping that holds them
// carries the kernel's "hg" flag (MADV_HUGEPAGE) in /proc/self/smaps. Whether the kernel then gives 2 MiB pages is its
// choice; without the advice, with THP in its default "madvise" mode, it never does. While an
// index is built (ArraysInFiles), the same arrays are stretches of the index file instead.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "random_heap.hpp"
#include "timeline/replay/address_table.hpp"
#include "timeline/model/block_index.hpp"
#include "timeline/base/huge_pages.hpp"
#include "timeline/base/other_core.hpp"
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

TEST_CASE(
    "huge pages: while an index is built, its arrays are made in its file, kept ones stay, others are punched out") {
    const std::string path = "/tmp/memlog-arrays-in-file-" + std::to_string(getpid());
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    REQUIRE(fd >= 0);
    unlink(path.c_str());
    REQUIRE(ftruncate(fd, 8192) == 0);  // what comes before: the blocks
    auto fileSize = [&] {
        struct stat info {};
        fstat(fd, &info);
        return static_cast<uint64_t>(info.st_size);
    };
    auto blocksOnDisk = [&] {
        struct stat info {};
        fstat(fd, &info);
        return static_cast<uint64_t>(info.st_blocks) * 512;
    };
    constexpr size_t kCount = size_t{1} << 20;  // 8 MiB of words each
    {
        const timeline::ArraysInFiles inFile(fd, 8192);
        timeline::HugeVector<uint64_t> kept(kCount), temporary(kCount);
        for (size_t i = 0; i < kCount; ++i) kept[i] = i * 3, temporary[i] = i;
        const timeline::HugeVector<uint64_t> small(100);  // under kHugeFrom: operator new, as ever
        CHECK(timeline::ArraysInFiles::keep(small.data()) == -1);
        CHECK(fileSize() == 8192 + 2 * kCount * 8);  // the two stretches laid end to end past the blocks
        const int64_t at = timeline::ArraysInFiles::keep(kept.data());
        CHECK(at == 8192);
        // The array is the file's bytes there: what was written through it is read through the file.
        std::vector<uint64_t> read(kCount);
        REQUIRE(pread(fd, read.data(), kCount * 8, at) == static_cast<ssize_t>(kCount * 8));
        CHECK(read[12345] == 12345 * 3);
        CHECK(read.back() == (kCount - 1) * 3);
        // A thread it starts makes its arrays in the file too; any other thread in memory.
        int64_t started = -2, other = -2;
        timeline::startOnOtherCore([&] {
            const timeline::HugeVector<uint64_t> made(kCount);
            started = timeline::ArraysInFiles::keep(made.data());
        }).join();
        std::thread([&] {
            const timeline::HugeVector<uint64_t> made(kCount);
            other = timeline::ArraysInFiles::keep(made.data());
        }).join();
        CHECK(started == 8192 + 2 * kCount * 8);
        CHECK(other == -1);
        CHECK(fileSize() == 8192 + 3 * kCount * 8);
        const uint64_t before = blocksOnDisk();
        CHECK(before >= 2 * kCount * 8);
        timeline::HugeVector<uint64_t>().swap(temporary);  // freed: its stretch punched out
        CHECK(blocksOnDisk() <= before - kCount * 8);
        timeline::HugeVector<uint64_t>().swap(kept);  // kept: freeing it only unmaps it
        CHECK(blocksOnDisk() >= kCount * 8);
        REQUIRE(pread(fd, read.data(), 8, at + 8 * 777) == 8);
        CHECK(read[0] == 777 * 3);
    }
    // Without one: anonymous memory, nothing in any file.
    const timeline::HugeVector<uint64_t> after(kCount);
    CHECK(timeline::ArraysInFiles::keep(after.data()) == -1);
    close(fd);
}

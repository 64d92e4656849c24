// TouchedBytes: the distinct bytes each row touched, against the bytes themselves counted one by
// one in a set, over ranges that overlap, cross lines, close blocks halfway and wrap at the top.
#include <catch2/catch.hpp>

#include <random>
#include <set>
#include <tuple>

#include "timeline/accesses/touched_bytes.hpp"

using memlog::timeline::TouchedBytes;

TEST_CASE("touched bytes: overlapping ranges in one row count each byte once, across lines") {
    TouchedBytes touched;
    touched.touch(0, 0, 60, 8);  // 60..67: two lines
    touched.touch(0, 0, 64, 8);  // 64..71: four more
    touched.touch(0, 0, 0, 0);  // nothing
    touched.touch(1, 0, 60, 8);  // another row: its own bytes
    touched.touch(0, 7, 0, 200);  // block 7, offsets 0..199
    touched.touch(0, 7, 100, 200);  // 200..299 new
    const auto counts = touched.finish(3);
    REQUIRE(counts.size() == 3);
    CHECK(counts[0] == 12 + 300);
    CHECK(counts[1] == 8);
    CHECK(counts[2] == 0);
}

TEST_CASE("touched bytes: a block closed is counted once, its offsets apart from other blocks' and addresses") {
    TouchedBytes touched;
    touched.touch(2, 5, 0, 16);
    touched.touch(2, 6, 0, 16);  // the same offsets in another block: 16 more
    touched.touch(2, 0, 0, 16);  // and as absolute addresses: 16 more
    touched.close(5);
    touched.close(5);  // twice: nothing more
    touched.touch(2, 6, 8, 16);  // block 6 still open: 8 more
    const auto counts = touched.finish(1);
    REQUIRE(counts.size() == 3);  // the rows touched, at least the rows asked for
    CHECK(counts[2] == 16 + 24 + 16);
}

TEST_CASE("touched bytes: a range past the top of the address space stops there") {
    TouchedBytes touched;
    touched.touch(0, 0, UINT64_MAX - 9, 100);  // [from, from + size) ends at UINT64_MAX: 9 bytes
    touched.touch(0, 0, UINT64_MAX - 9, 5);
    CHECK(touched.finish(1)[0] == 9);
}

TEST_CASE("touched bytes: random ranges of rows and blocks agree with a set of every byte") {
    std::mt19937_64 random(38);
    TouchedBytes touched;
    std::set<std::tuple<uint32_t, uint64_t, uint64_t>> bytes;  // row, space, byte
    std::vector<uint64_t> closed(4, 0);
    std::set<uint64_t> open{1, 2, 3};
    uint64_t nextBlock = 4;
    for (int i = 0; i < 20000; ++i) {
        const uint32_t row = static_cast<uint32_t>(random() % 4);
        uint64_t space = 0;
        if (random() % 3) {  // a live block, at times closed and replaced by a new one
            auto it = open.begin();
            std::advance(it, static_cast<long>(random() % open.size()));
            space = *it;
            if (random() % 50 == 0) {
                touched.close(space);
                for (auto b = bytes.begin(); b != bytes.end();)
                    if (std::get<1>(*b) == space) {
                        ++closed[std::get<0>(*b)];
                        b = bytes.erase(b);
                    } else {
                        ++b;
                    }
                open.erase(space);
                open.insert(nextBlock++);
                continue;
            }
        }
        const uint64_t from = random() % 4096 + (space ? 0 : 0x7f00'0000);
        const uint64_t size = random() % 70;
        touched.touch(row, space, from, size);
        for (uint64_t b = from; b < from + size; ++b) bytes.insert({row, space, b});
    }
    std::vector<uint64_t> expected = closed;
    for (const auto& [row, space, byte] : bytes) ++expected[row];
    CHECK(touched.finish(4) == expected);
}

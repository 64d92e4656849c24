// BlockIndex: every box in a window is found exactly once, folded nodes stand for exactly their
// items, and the tree's boxes contain what they hold.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <set>

#include "timeline/model/block_index.hpp"
#include "timeline/base/prefault.hpp"

using memlog::timeline::BlockIndex;
using memlog::timeline::IndexBox;

namespace {

std::vector<IndexBox> randomBoxes(size_t count, uint32_t seed) {
    std::mt19937_64 random(seed);
    std::vector<IndexBox> boxes(count);
    for (IndexBox& box : boxes) {
        box.m_x0 = random() % 1'000'000;
        box.m_x1 = box.m_x0 + (random() % 8 == 0 ? random() % 500'000 : random() % 300);
        box.m_y0 = 0x5555'0000'0000ull + random() % (64 << 20);
        box.m_y1 = box.m_y0 + 16 + random() % 4096;
    }
    return boxes;
}

}  // namespace

TEST_CASE("a window query finds every box that meets it, once") {
    const auto boxes = randomBoxes(20'000, 1);
    const BlockIndex index(boxes.size(), [&](size_t i) { return boxes[i]; });
    REQUIRE(index.size() == boxes.size());
    REQUIRE(index.root()->m_items == boxes.size());
    std::mt19937_64 random(2);
    for (int trial = 0; trial < 50; ++trial) {
        IndexBox window;
        window.m_x0 = random() % 1'000'000;
        window.m_x1 = window.m_x0 + 1 + random() % 200'000;
        window.m_y0 = 0x5555'0000'0000ull + random() % (64 << 20);
        window.m_y1 = window.m_y0 + 1 + random() % (8 << 20);
        std::multiset<uint32_t> found;
        index.query(window, [](const BlockIndex::Node&) { return false; },
                    [&](uint32_t i) {
                        if (boxes[i].intersects(window)) found.insert(i);
                    });
        std::multiset<uint32_t> expected;
        for (uint32_t i = 0; i < boxes.size(); ++i)
            if (boxes[i].intersects(window)) expected.insert(i);
        REQUIRE(found == expected);
    }
}

TEST_CASE("a query visits far fewer items than the index holds when the window is small") {
    const auto boxes = randomBoxes(100'000, 3);
    const BlockIndex index(boxes.size(), [&](size_t i) { return boxes[i]; });
    const IndexBox window{500'000, 510'000, 0x5555'0000'0000ull + (32 << 20), 0x5555'0000'0000ull + (33 << 20)};
    size_t visited = 0, inside = 0;
    index.query(window, [](const BlockIndex::Node&) { return false; },
                [&](uint32_t i) {
                    ++visited;
                    inside += boxes[i].intersects(window);
                });
    CHECK(inside > 0);
    CHECK(visited < boxes.size() / 20);
}

TEST_CASE("a folded node stands for exactly the items under it, and boxes nest") {
    const auto boxes = randomBoxes(5'000, 4);
    const BlockIndex index(boxes.size(), [&](size_t i) { return boxes[i]; });
    const IndexBox everything{0, UINT64_MAX, 0, UINT64_MAX};
    // Fold every node of at most 64 items: folded and visited items together are all of them.
    std::multiset<uint32_t> seen;
    index.query(
        everything,
        [&](const BlockIndex::Node& node) {
            if (node.m_items > 64) return false;
            size_t under = 0;
            index.forEachItemUnder(node, [&](uint32_t i) {
                seen.insert(i);
                CHECK(node.m_box.contains(boxes[i]));
                ++under;
            });
            CHECK(under == node.m_items);
            return true;
        },
        [&](uint32_t i) { seen.insert(i); });
    CHECK(seen.size() == boxes.size());
    CHECK(std::set<uint32_t>(seen.begin(), seen.end()).size() == boxes.size());
    for (const auto& node : index.nodes())
        if (!node.m_leaf)
            for (uint32_t child = node.m_first; child < node.m_first + node.m_count; ++child)
                CHECK(node.m_box.contains(index.nodes()[child].m_box));
}

TEST_CASE("the leaves marked from a parent are its children, marked one by one") {
    const auto boxes = randomBoxes(5'000, 4);
    const BlockIndex index(boxes.size(), [&](size_t i) { return boxes[i]; });
    size_t parents = 0;
    for (const BlockIndex::Node& node : index.nodes()) {
        if (!index.aboveLeaves(node)) {
            // Leaves, and nodes whose children are not leaves.
            if (!node.m_leaf) CHECK_FALSE(index.nodes()[node.m_first].m_leaf);
            continue;
        }
        ++parents;
        std::vector<uint64_t> fromParent, oneByOne;
        index.clearMarks(fromParent);
        index.clearMarks(oneByOne);
        index.markLeavesUnder(node, fromParent);
        for (uint32_t child = node.m_first; child < node.m_first + node.m_count; ++child) {
            REQUIRE(index.nodes()[child].m_leaf);
            BlockIndex::mark(index.nodes()[child], oneByOne);
        }
        CHECK(fromParent == oneByOne);
    }
    const size_t leaves = (boxes.size() + BlockIndex::kFanout - 1) / BlockIndex::kFanout;
    CHECK(parents == (leaves + BlockIndex::kFanout - 1) / BlockIndex::kFanout);
}

TEST_CASE("an empty index and a single box") {
    const BlockIndex empty(0, [](size_t) { return IndexBox{}; });
    CHECK(empty.root() == nullptr);
    int calls = 0;
    empty.query(IndexBox{0, 10, 0, 10}, [](const BlockIndex::Node&) { return false; }, [&](uint32_t) { ++calls; });
    CHECK(calls == 0);
    const BlockIndex one(1, [](size_t) { return IndexBox{5, 6, 100, 116}; });
    one.query(IndexBox{0, 10, 0, 200}, [](const BlockIndex::Node&) { return false; }, [&](uint32_t i) {
        CHECK(i == 0);
        ++calls;
    });
    CHECK(calls == 1);
}

TEST_CASE("memory mapped ahead holds what a plain resize gives, at any size and alignment") {
    for (const size_t count : {size_t{0}, size_t{1}, size_t{1000}, size_t{3'000'000}}) {
        std::vector<IndexBox> boxes;
        memlog::timeline::resizePrefaulted(boxes, count);
        REQUIRE(boxes.size() == count);
        CHECK(std::all_of(boxes.begin(), boxes.end(), [](const IndexBox& b) { return b.m_x0 == 0 && b.m_y1 == 0; }));
        if (count) boxes.back().m_y1 = 7;  // writable to its end
        // Ranges of no whole page, or starting inside one, are harmless.
        std::vector<char> bytes(10'000, 'x');
        memlog::timeline::prefault(bytes.data() + 3, 5);
        memlog::timeline::prefault(bytes.data() + 1, bytes.size() - 1);
        memlog::timeline::prefault(nullptr, 0);
        CHECK(std::count(bytes.begin(), bytes.end(), 'x') == 10'000);
    }
}

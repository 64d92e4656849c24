// The colour of a folded index node (render/raster/frame_colours.hpp): the mean of its blocks'
// channels weighted by their areas^alpha, made from the blocks, or for a draft's summaries from
// its children's means, which agree with the blocks' to a level.
#include <catch2/catch.hpp>

#include <random>

#include "render/raster/frame_colours.hpp"

using namespace memlog;

namespace {

struct Fixture {
    timeline::BlockIndex m_index;
    render::FrameColours m_colours;
};

// 5,000 boxes of random sizes, each of one of the palette's slots.
Fixture randomNodes() {
    std::mt19937_64 random(7);
    std::vector<timeline::IndexBox> boxes;
    for (int i = 0; i < 5000; ++i) {
        const uint64_t x = random() % 100000, y = random() % 1000000;
        boxes.push_back({x, x + 1 + random() % 5000, y, y + 1 + random() % 4000});
    }
    Fixture fixture;
    fixture.m_index = timeline::BlockIndex(boxes.size(), [&](size_t i) { return boxes[i]; });
    fixture.m_colours.setPalette(true);
    fixture.m_colours.m_itemKey.resize(boxes.size());
    for (size_t k = 0; k < boxes.size(); ++k)
        fixture.m_colours.m_itemKey[k] = static_cast<uint16_t>(1 + random() % render::kPaletteSize);
    return fixture;
}

}  // namespace

TEST_CASE("node summaries: made from the children's means, a node's colour is its blocks' to a level") {
    Fixture fixture = randomNodes();
    const auto& nodes = fixture.m_index.nodes();
    render::NodeSummaries fromBlocks, fromChildren;
    fromBlocks.reset(nodes.size());
    fromChildren.reset(nodes.size(), true);
    fromBlocks.setAlpha(0.5);
    fromChildren.setAlpha(0.5);
    size_t parents = 0;
    for (const auto& node : nodes) {
        if (node.m_leaf) continue;
        ++parents;
        const auto a = fromBlocks.mean(fixture.m_index, node, fixture.m_colours);
        const auto b = fromChildren.mean(fixture.m_index, node, fixture.m_colours);
        for (size_t c = 0; c < 3; ++c) CHECK(std::abs(int{a[c]} - int{b[c]}) <= 1);
    }
    CHECK(parents > 20);
}

TEST_CASE("node summaries: a draft's parent is made from its children, not by reading its blocks again") {
    Fixture fixture = randomNodes();
    const auto& nodes = fixture.m_index.nodes();
    const auto& root = nodes.back();
    render::NodeSummaries fromChildren, fromBlocks;
    fromChildren.reset(nodes.size(), true);
    fromBlocks.reset(nodes.size());
    fromChildren.setAlpha(0.5);
    fromBlocks.setAlpha(0.5);
    // The leaves summarised (as a window's opening does for its drafts), then every block
    // recoloured: the root, made from the children's kept means, still has the first colours.
    for (const auto& node : nodes)
        if (node.m_leaf) fromChildren.mean(fixture.m_index, node, fixture.m_colours);
    const auto before = fromBlocks.mean(fixture.m_index, root, fixture.m_colours);
    for (auto& key : fixture.m_colours.m_itemKey) key = 1;
    render::NodeSummaries again;
    again.reset(nodes.size());
    again.setAlpha(0.5);
    const auto allOne = again.mean(fixture.m_index, root, fixture.m_colours);
    const auto kept = fromChildren.mean(fixture.m_index, root, fixture.m_colours);
    REQUIRE(allOne != before);
    for (size_t c = 0; c < 3; ++c) CHECK(std::abs(int{kept[c]} - int{before[c]}) <= 1);
}

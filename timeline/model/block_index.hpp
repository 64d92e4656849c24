// A static 2-D index over the blocks of a log, so that a window can find what is in view, and
// fold what is smaller than a pixel, without walking every block: a packed R-tree built once by
// sort-tile-recursive (blocks near each other in time and address share nodes). About 39 bytes a
// block: the item order (4), the items' boxes in that order (32: a frame reads the blocks of a
// leaf from one run of memory, where the model would be a miss a block) and a 48-byte node per
// 16 items.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "timeline/base/stored_array.hpp"

namespace memlog::timeline {

// [m_x0, m_x1) x [m_y0, m_y1): x in ns or events, y in raw addresses.
struct IndexBox {
    uint64_t m_x0 = 0, m_x1 = 0, m_y0 = 0, m_y1 = 0;
    bool intersects(const IndexBox& other) const {
        return m_x0 < other.m_x1 && other.m_x0 < m_x1 && m_y0 < other.m_y1 && other.m_y0 < m_y1;
    }
    // Axis units x bytes, as level of detail sums them (ModelIndex::NodeSums::m_boxArea).
    double area() const { return static_cast<double>(m_x1 - m_x0) * static_cast<double>(m_y1 - m_y0); }
    bool contains(const IndexBox& other) const {
        return m_x0 <= other.m_x0 && other.m_x1 <= m_x1 && m_y0 <= other.m_y0 && other.m_y1 <= m_y1;
    }
};

class BlockIndex {
public:
    static constexpr uint32_t kFanout = 16;

    struct Node {
        IndexBox m_box;  // of everything under it
        uint32_t m_first;  // first child node, or for a leaf its first position in order()
        uint32_t m_count;  // children or items
        uint32_t m_items;  // items under it, all levels down
        bool m_leaf;
        uint8_t m_unused[3] = {};  // what would be padding, zero: an index file's bytes are all set
    };
    static_assert(sizeof(Node) == 48);

    BlockIndex() = default;
    // Indexes `count` boxes; `boxOf(i)` gives box i. Zero-area boxes are kept (a block of
    // size 0, or one that ends where it began, still has a place). `progress` hears 0..1.
    BlockIndex(size_t count, const std::function<IndexBox(size_t)>& boxOf,
               const std::function<void(double)>& progress = {});

    size_t size() const { return m_order.size(); }
    const StoredArray<Node>& nodes() const { return m_nodes; }  // the root is the last node
    const StoredArray<uint32_t>& order() const { return m_order; }  // item indices, leaf by leaf
    const StoredArray<IndexBox>& boxes() const { return m_boxes; }  // boxes()[k] is order()[k]'s
    const Node* root() const { return m_nodes.empty() ? nullptr : &m_nodes.back(); }
    // The position of a node in nodes(). Children always come before their parent, so one pass
    // over nodes() in order can sum anything up from the leaves.
    size_t indexOf(const Node& node) const { return static_cast<size_t>(&node - m_nodes.data()); }

    // What intersects `window`. For each node in the way, `fold(node)` may answer true to take
    // the node whole (its items are not visited one by one: a picture draws a summary of them);
    // otherwise its children are visited, and a leaf's items go to `item(index)`. Items of a
    // leaf that meets the window are all given: the caller, who has them, tests each.
    template <typename Fold, typename Item>
    void query(const IndexBox& window, Fold&& fold, Item&& item) const {
        if (m_nodes.empty()) return;
        std::vector<uint32_t> stack{static_cast<uint32_t>(m_nodes.size() - 1)};
        while (!stack.empty()) {
            const Node& node = m_nodes[stack.back()];
            stack.pop_back();
            if (!node.m_box.intersects(window) || fold(node)) continue;
            if (node.m_leaf) {
                for (uint32_t i = node.m_first; i < node.m_first + node.m_count; ++i) item(m_order[i]);
            } else {
                for (uint32_t child = node.m_first; child < node.m_first + node.m_count; ++child)
                    stack.push_back(child);
            }
        }
    }

    // Leaves marked during a query (in its fold callback), visited afterwards in the order of
    // their items in order(): items of one leaf, then of the next leaf there, are near each
    // other in the model (sort-tile packs by x first), which the walk down the tree is not.
    // `marks` holds a bit a leaf; `leaf(first, end)` gets each marked leaf's positions in
    // order(). (Callers loop over the items themselves, asking for blocks ahead: a prefetch
    // made through one more inlined callback was dropped by GCC 12, as objdump showed.)
    void clearMarks(std::vector<uint64_t>& marks) const { marks.assign((m_order.size() / kFanout + 64) / 64, 0); }
    static void mark(const Node& leaf, std::vector<uint64_t>& marks) {
        markSlot(leaf.m_first / kFanout, marks);  // leaves hold kFanout items, the last fewer
    }
    // How many of nodes() are leaves: they come first.
    size_t leafCount() const { return m_leafSlots.size(); }
    // Whether `node`'s children are leaves (leaves come first in nodes()).
    bool aboveLeaves(const Node& node) const { return !node.m_leaf && node.m_first < m_leafSlots.size(); }
    // Marks every leaf under `parent` (aboveLeaves) without reading the leaves' nodes: their
    // places in order() sit side by side in one small array, where their nodes are 48 bytes each.
    void markLeavesUnder(const Node& parent, std::vector<uint64_t>& marks) const {
        for (uint32_t child = parent.m_first; child < parent.m_first + parent.m_count; ++child)
            markSlot(m_leafSlots[child], marks);
    }
    template <typename Leaf>
    void forEachMarkedLeaf(const std::vector<uint64_t>& marks, Leaf&& leaf) const {
        for (size_t word = 0; word < marks.size(); ++word)
            for (uint64_t bits = marks[word]; bits; bits &= bits - 1) {
                const size_t first = (word * 64 + static_cast<size_t>(__builtin_ctzll(bits))) * kFanout;
                leaf(first, first + kFanout < m_order.size() ? first + kFanout : m_order.size());
            }
    }

    // The items under `node`, in no particular order: their indices, or their positions in
    // order() (and boxes()).
    template <typename Item>
    void forEachItemUnder(const Node& node, Item&& item) const {
        forEachPositionUnder(node, [&](size_t position) { item(m_order[position]); });
    }
    template <typename Position>
    void forEachPositionUnder(const Node& node, Position&& position) const {
        std::vector<const Node*> stack{&node};
        while (!stack.empty()) {
            const Node* at = stack.back();
            stack.pop_back();
            if (at->m_leaf)
                for (size_t i = at->m_first; i < at->m_first + at->m_count; ++i) position(i);
            else
                for (uint32_t child = at->m_first; child < at->m_first + at->m_count; ++child)
                    stack.push_back(&m_nodes[child]);
        }
    }

    // The arrays, for an index file to keep (model_file.cpp) and give back: `io(array)` for each.
    template <typename Io, typename Index>
    static void arrays(Io& io, Index& index) {
        io(index.m_order), io(index.m_boxes), io(index.m_nodes), io(index.m_leafSlots);
    }
    // Whether arrays read back from a file make a tree that queries can walk for `items` items:
    // the leaves first, each over its own kFanout positions; every node but the root (the last)
    // the child of one node above it; every item index below `items`. "" when they do, else what
    // is wrong. A reading of the order and the nodes.
    std::string checkShape(size_t items) const;

private:
    // The bit of the leaf whose items start at position slot x kFanout of order().
    static void markSlot(size_t slot, std::vector<uint64_t>& marks) { marks[slot / 64] |= uint64_t{1} << (slot % 64); }

    StoredArray<uint32_t> m_order;  // item indices in leaf order
    StoredArray<IndexBox> m_boxes;  // their boxes, in the same order
    StoredArray<Node> m_nodes;  // leaves first, then each level up; the root last
    StoredArray<uint32_t> m_leafSlots;  // by leaf node: its first position in order() / kFanout
};

}  // namespace memlog::timeline

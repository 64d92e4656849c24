// Sort-tile-recursive packing: sort the boxes of a level by x centre, cut them into about
// sqrt(n / 16) vertical slices, sort each slice by y centre and pack runs of 16 into parent
// nodes; repeat on the parents until one node is left.
#include "timeline/model/block_index.hpp"

#include "timeline/base/prefault.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <stdexcept>

namespace memlog::timeline {
namespace {

// Centres doubled, so that they stay integers.
uint64_t centreX(const IndexBox& box) { return box.m_x0 + box.m_x1; }
uint64_t centreY(const IndexBox& box) { return box.m_y0 + box.m_y1; }

IndexBox unite(const IndexBox& a, const IndexBox& b) {
    return {std::min(a.m_x0, b.m_x0), std::max(a.m_x1, b.m_x1), std::min(a.m_y0, b.m_y0), std::max(a.m_y1, b.m_y1)};
}

// Orders `members` (indices into `boxes`) for packing: slices by x, each slice by y.
void tileOrder(std::span<uint32_t> members, std::span<const IndexBox> boxes) {
    const size_t n = members.size();
    const size_t parents = (n + BlockIndex::kFanout - 1) / BlockIndex::kFanout;
    const size_t slices = static_cast<size_t>(std::ceil(std::sqrt(static_cast<double>(parents))));
    const size_t perSlice = slices ? ((parents + slices - 1) / slices) * BlockIndex::kFanout : n;
    std::sort(members.begin(), members.end(),
              [&](uint32_t a, uint32_t b) { return centreX(boxes[a]) < centreX(boxes[b]); });
    for (size_t from = 0; from < n; from += perSlice) {
        const auto begin = members.begin() + static_cast<long>(from);
        const auto end = members.begin() + static_cast<long>(std::min(n, from + perSlice));
        std::sort(begin, end, [&](uint32_t a, uint32_t b) { return centreY(boxes[a]) < centreY(boxes[b]); });
    }
}

// Puts boxes[order[k]] at boxes[k] for every k, in place: one cycle of the permutation after
// another, with a bit a box for the ones already moved (a sorted copy would double the
// builder's peak).
void gather(std::span<IndexBox> boxes, std::span<const uint32_t> order) {
    std::vector<bool> moved(boxes.size());
    for (size_t start = 0; start < boxes.size(); ++start) {
        if (moved[start]) continue;
        const IndexBox first = boxes[start];
        size_t at = start;
        for (size_t from = order[at]; from != start; at = from, from = order[at]) {
            boxes[at] = boxes[from];
            moved[at] = true;
        }
        boxes[at] = first;
        moved[at] = true;
    }
}

}  // namespace

BlockIndex::BlockIndex(size_t count, const std::function<IndexBox(size_t)>& boxOf,
                       const std::function<void(double)>& progress) {
    if (count == 0) return;
    if (count > UINT32_MAX) throw std::length_error("a block index holds at most 2^32 blocks");
    resizePrefaulted(m_boxes, count);
    for (size_t i = 0; i < count; ++i) m_boxes[i] = boxOf(i);
    if (progress) progress(0.2);
    resizePrefaulted(m_order, count);
    for (size_t i = 0; i < count; ++i) m_order[i] = static_cast<uint32_t>(i);
    tileOrder(m_order, m_boxes);
    gather(m_boxes, m_order);
    if (progress) progress(0.7);

    // Leaves: runs of kFanout items in tile order.
    for (size_t first = 0; first < count; first += kFanout) {
        Node leaf{m_boxes[first], static_cast<uint32_t>(first),
                  static_cast<uint32_t>(std::min<size_t>(kFanout, count - first)), 0, true};
        for (uint32_t k = leaf.m_first; k < leaf.m_first + leaf.m_count; ++k)
            leaf.m_box = unite(leaf.m_box, m_boxes[k]);
        leaf.m_items = leaf.m_count;
        m_nodes.push_back(leaf);
    }

    const size_t leaves = m_nodes.size();
    // Levels above: the nodes of the level below, tiled and packed in the same way. A parent's
    // children must be consecutive, so each level's nodes are written in their tile order.
    size_t levelBegin = 0, levelEnd = m_nodes.size();
    while (levelEnd - levelBegin > 1) {
        std::vector<IndexBox> nodeBoxes;
        std::vector<uint32_t> members;
        for (size_t i = levelBegin; i < levelEnd; ++i) {
            nodeBoxes.push_back(m_nodes[i].m_box);
            members.push_back(static_cast<uint32_t>(i - levelBegin));
        }
        tileOrder(members, nodeBoxes);
        std::vector<Node> level;
        for (uint32_t member : members) level.push_back(m_nodes[levelBegin + member]);
        std::copy(level.begin(), level.end(), m_nodes.begin() + static_cast<long>(levelBegin));
        const size_t nextBegin = m_nodes.size();
        for (size_t first = levelBegin; first < levelEnd; first += kFanout) {
            const uint32_t children = static_cast<uint32_t>(std::min<size_t>(kFanout, levelEnd - first));
            Node parent{m_nodes[first].m_box, static_cast<uint32_t>(first), children, 0, false};
            for (size_t child = first; child < first + children; ++child) {
                parent.m_box = unite(parent.m_box, m_nodes[child].m_box);
                parent.m_items += m_nodes[child].m_items;
            }
            m_nodes.push_back(parent);
        }
        levelBegin = nextBegin;
        levelEnd = m_nodes.size();
    }
    m_leafSlots.resize(leaves);
    for (size_t leaf = 0; leaf < leaves; ++leaf) m_leafSlots[leaf] = m_nodes[leaf].m_first / kFanout;
    if (progress) progress(1.0);
}

}  // namespace memlog::timeline

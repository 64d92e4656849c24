// Sort-tile-recursive packing: sort the boxes of a level by x centre, cut them into about
// sqrt(n / 16) vertical slices, sort each slice by y centre and pack runs of 16 into parent
// nodes; repeat on the parents until one node is left.
#include "timeline/model/block_index.hpp"

#include "timeline/base/other_core.hpp"
#include "timeline/base/prefault.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

namespace memlog::timeline {
namespace {

// Centres doubled, so that they stay integers.
uint64_t centreX(const IndexBox& box) { return box.m_x0 + box.m_x1; }
uint64_t centreY(const IndexBox& box) { return box.m_y0 + box.m_y1; }

IndexBox unite(const IndexBox& a, const IndexBox& b) {
    return {std::min(a.m_x0, b.m_x0), std::max(a.m_x1, b.m_x1), std::min(a.m_y0, b.m_y0), std::max(a.m_y1, b.m_y1)};
}

// `keyed` sorted by key, on two threads when it is big enough for the second to pay: the halves
// at once, then merged into an array of their own (std::inplace_merge would take its buffer from
// operator new: 800 MB of the process's memory at 10^8 blocks, where these arrays may be files).
using Keyed = std::pair<uint64_t, uint32_t>;  // a centre, and whose
constexpr size_t kTwoThreadsFrom = size_t{1} << 16;  // keys: fewer sort faster than a thread starts
HugeVector<Keyed> sortedKeyed(HugeVector<Keyed> keyed) {
    if (keyed.size() < kTwoThreadsFrom) {
        std::sort(keyed.begin(), keyed.end());
        return keyed;
    }
    const auto middle = keyed.begin() + static_cast<long>(keyed.size() / 2);
    {
        std::jthread second = startOnOtherCore([&] { std::sort(middle, keyed.end()); });
        std::sort(keyed.begin(), middle);
    }
    HugeVector<Keyed> merged(keyed.size());
    std::merge(keyed.begin(), middle, middle, keyed.end(), merged.begin());
    return merged;
}

// Orders `members` (indices into `boxes`) for packing: slices by x, each slice by y. The keys
// sit beside the indices while sorting (a sort that looked each one up in `boxes` would wander
// over all of them); ties go by index, so that the order is the same whatever the sort.
void tileOrder(std::span<uint32_t> members, std::span<const IndexBox> boxes) {
    const size_t n = members.size();
    const size_t parents = (n + BlockIndex::kFanout - 1) / BlockIndex::kFanout;
    const size_t slices = static_cast<size_t>(std::ceil(std::sqrt(static_cast<double>(parents))));
    const size_t perSlice = slices ? ((parents + slices - 1) / slices) * BlockIndex::kFanout : n;
    HugeVector<Keyed> keyed(n);
    for (size_t k = 0; k < n; ++k) keyed[k] = {centreX(boxes[members[k]]), members[k]};
    keyed = sortedKeyed(std::move(keyed));
    for (size_t k = 0; k < n; ++k) keyed[k].first = centreY(boxes[keyed[k].second]);
    // The slices one by one, shared between two threads.
    auto sortSlices = [&](size_t firstSlice, size_t step) {
        for (size_t from = firstSlice * perSlice; from < n; from += step * perSlice)
            std::sort(keyed.begin() + static_cast<long>(from),
                      keyed.begin() + static_cast<long>(std::min(n, from + perSlice)));
    };
    if (n >= kTwoThreadsFrom && slices > 1) {
        std::jthread second = startOnOtherCore(sortSlices, 1, 2);
        sortSlices(0, 2);
    } else {
        sortSlices(0, 1);
    }
    for (size_t k = 0; k < n; ++k) members[k] = keyed[k].second;
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
    HugeVector<IndexBox> boxes;
    resizePrefaulted(boxes, count);
    for (size_t i = 0; i < count; ++i) boxes[i] = boxOf(i);
    if (progress) progress(0.2);
    HugeVector<uint32_t> order;
    resizePrefaulted(order, count);
    for (size_t i = 0; i < count; ++i) order[i] = static_cast<uint32_t>(i);
    tileOrder(order, boxes);
    gather(boxes, order);
    if (progress) progress(0.7);

    // Leaves: runs of kFanout items in tile order.
    HugeVector<Node> nodes;
    nodes.reserve(count / kFanout + count / (kFanout * (kFanout - 1)) + 64);  // every level
    for (size_t first = 0; first < count; first += kFanout) {
        Node leaf{boxes[first], static_cast<uint32_t>(first),
                  static_cast<uint32_t>(std::min<size_t>(kFanout, count - first)), 0, true};
        for (uint32_t k = leaf.m_first; k < leaf.m_first + leaf.m_count; ++k) leaf.m_box = unite(leaf.m_box, boxes[k]);
        leaf.m_items = leaf.m_count;
        nodes.push_back(leaf);
    }

    const size_t leaves = nodes.size();
    // Levels above: the nodes of the level below, tiled and packed in the same way. A parent's
    // children must be consecutive, so each level's nodes are written in their tile order.
    size_t levelBegin = 0, levelEnd = nodes.size();
    while (levelEnd - levelBegin > 1) {
        HugeVector<IndexBox> nodeBoxes;
        HugeVector<uint32_t> members;
        for (size_t i = levelBegin; i < levelEnd; ++i) {
            nodeBoxes.push_back(nodes[i].m_box);
            members.push_back(static_cast<uint32_t>(i - levelBegin));
        }
        tileOrder(members, nodeBoxes);
        HugeVector<Node> level;
        level.reserve(members.size());
        for (uint32_t member : members) level.push_back(nodes[levelBegin + member]);
        std::copy(level.begin(), level.end(), nodes.begin() + static_cast<long>(levelBegin));
        const size_t nextBegin = nodes.size();
        for (size_t first = levelBegin; first < levelEnd; first += kFanout) {
            const uint32_t children = static_cast<uint32_t>(std::min<size_t>(kFanout, levelEnd - first));
            Node parent{nodes[first].m_box, static_cast<uint32_t>(first), children, 0, false};
            for (size_t child = first; child < first + children; ++child) {
                parent.m_box = unite(parent.m_box, nodes[child].m_box);
                parent.m_items += nodes[child].m_items;
            }
            nodes.push_back(parent);
        }
        levelBegin = nextBegin;
        levelEnd = nodes.size();
    }
    HugeVector<uint32_t> leafSlots(leaves);
    for (size_t leaf = 0; leaf < leaves; ++leaf) leafSlots[leaf] = nodes[leaf].m_first / kFanout;
    m_order = std::move(order);
    m_boxes = std::move(boxes);
    m_nodes = std::move(nodes);
    m_leafSlots = std::move(leafSlots);
    if (progress) progress(1.0);
}

std::string BlockIndex::checkShape(size_t items) const {
    const size_t count = m_order.size();
    if (m_boxes.size() != count) return "its tree's boxes and order differ in length";
    for (const uint32_t item : m_order)
        if (item >= items) return "its tree names a block the model does not have";
    if (count == 0) return m_nodes.empty() && m_leafSlots.empty() ? "" : "an empty tree with nodes";
    const size_t leaves = (count + kFanout - 1) / kFanout;
    if (m_nodes.size() < leaves || m_leafSlots.size() != leaves) return "its tree has too few leaves";
    // Each leaf over its own kFanout positions; every node but the root the child of one node
    // above it, so that the nodes make one tree; a node's children all leaves or none.
    std::vector<bool> slotTaken(leaves), isChild(m_nodes.size());
    for (size_t n = 0; n < m_nodes.size(); ++n) {
        const Node& node = m_nodes[n];
        if (!boolByteIsBool(&node.m_leaf)) return "its tree's node " + std::to_string(n) + " is neither leaf nor not";
        if (node.m_leaf != (n < leaves)) return "its tree's leaves are not all first";
        if (node.m_leaf) {
            const size_t slot = node.m_first / kFanout;
            if (node.m_first % kFanout != 0 || slot >= leaves || slotTaken[slot] || m_leafSlots[n] != slot ||
                node.m_count != std::min<size_t>(kFanout, count - node.m_first))
                return "its tree's leaf " + std::to_string(n) + " is out of place";
            slotTaken[slot] = true;
            continue;
        }
        const size_t first = node.m_first, end = first + node.m_count;
        if (node.m_count == 0 || node.m_count > kFanout || end > n || (first < leaves && end > leaves))
            return "its tree's node " + std::to_string(n) + " is out of place";
        for (size_t child = first; child < end; ++child) {
            if (isChild[child]) return "its tree's node " + std::to_string(child) + " has two parents";
            isChild[child] = true;
        }
    }
    for (size_t n = 0; n + 1 < m_nodes.size(); ++n)
        if (!isChild[n]) return "its tree's node " + std::to_string(n) + " has no parent";
    return "";
}

}  // namespace memlog::timeline

// The model's index: the R-tree, sums per node (children come before parents, so one pass in
// node order sums everything up), and the two sorted lists of block ends that occupancy over
// every address reads.
#include "timeline/model/model_index.hpp"

#include "timeline/base/huge_pages.hpp"
#include "timeline/base/other_core.hpp"
#include "timeline/base/prefault.hpp"
#include "timeline/model/kept_index.hpp"

#include <algorithm>
#include <cmath>
#include <thread>

namespace memlog::timeline {

namespace {

constexpr uint64_t kPage = AddressRanges::kPage;
uint64_t pageFloor(uint64_t addr) { return addr - addr % kPage; }
uint64_t pageCeil(uint64_t addr) { return addr % kPage ? addr + kPage - addr % kPage : addr; }

// True when [lo, hi) intervals, sorted by lo, leave no gap that address compaction keeps.
bool noWideGap(std::vector<std::pair<uint64_t, uint64_t>>& pieces) {
    std::sort(pieces.begin(), pieces.end());
    uint64_t reached = pieces.front().second;
    for (const auto& [lo, hi] : pieces) {
        if (lo > reached && lo - reached >= AddressRanges::kKeepGapsBelow) return false;
        reached = std::max(reached, hi);
    }
    return true;
}

}  // namespace

// Blocks from which the leaves' sums are found on two cores: fewer take less than a thread's start.
constexpr size_t kSumsOnTwoCoresFrom = size_t{1} << 16;

IndexBox ModelIndex::boxOf(const Block& block, XAxis axis) {
    const uint64_t from = block.from(axis);
    return {from, std::max(block.to(axis), from + 1), block.addr(), block.addr() + std::max<uint64_t>(block.size(), 1)};
}

ModelIndex::ModelIndex(const BlockModel& model, XAxis axis, const std::function<void(double)>& progress)
    : m_model(&model), m_axis(axis) {
    // The ends are sorted on a second thread while the tree is packed: the two dearest steps.
    {
        std::jthread endsThread = startOnOtherCore([&] { m_ends = SortedEnds(model, axis, true); });
        m_index = BlockIndex(
            model.size(), [&](size_t i) { return boxOf(model[i], axis); },
            [&](double done) {
                if (progress) progress(done * 0.8);
            });
        m_beginnings = SortedEnds(model, axis, false);
    }  // joined here, also when the index throws
    if (progress) progress(0.9);
    sumNodes();
    measureLeaves();
    if (progress) progress(1.0);
}

std::unique_ptr<ModelIndex> ModelIndex::forModel(const BlockModel& model, XAxis axis,
                                                 const std::function<void(double)>& progress) {
    if (const KeptModelIndex* kept = model.keptIndex(); kept && kept->m_axis == axis)
        return std::make_unique<ModelIndex>(model, *kept);
    // A model read through its index is as big as the disk allows: an index for another axis
    // (the window's events, where the file keeps time) is built in a scratch file beside it, in
    // the page cache, not the process's memory (59 bytes a block, and twice that while built:
    // 832 MiB for 10^7 blocks).
    const ScratchArrays scratch(model.scratchFolder());
    return std::make_unique<ModelIndex>(model, axis, progress);
}

void ModelIndex::measureLeaves() {
    HugeVector<uint64_t> widths, heights, parentWidths, parentHeights;  // a leaf each: files while indexing
    const auto& nodes = m_index.nodes();
    // Leaves come first, then their parents.
    for (const BlockIndex::Node& node : nodes) {
        if (!node.m_leaf && !nodes[node.m_first].m_leaf) break;
        (node.m_leaf ? widths : parentWidths).push_back(node.m_box.m_x1 - node.m_box.m_x0);
        (node.m_leaf ? heights : parentHeights).push_back(node.m_box.m_y1 - node.m_box.m_y0);
    }
    auto median = [](HugeVector<uint64_t>& values) -> uint64_t {
        if (values.empty()) return 0;
        const auto middle = values.begin() + static_cast<long>(values.size() / 2);
        std::nth_element(values.begin(), middle, values.end());
        return *middle;
    };
    m_typicalLeaf = {median(widths), median(heights)};
    m_typicalParent = {median(parentWidths), median(parentHeights)};
}

void ModelIndex::sumNodes() {
    const auto& nodes = m_index.nodes();
    const auto& order = m_index.order();
    HugeVector<NodeSums> all(nodes.size());
    HugeVector<uint32_t> stacks(order.size());  // filled by the leaves, which cover every position
    HugeVector<uint16_t> threads(order.size());
    // The leaves, which come first: each reads its blocks in the tree's order, a read of the
    // model here and there (most of the time this takes); the second half on another core.
    struct Extent {
        uint64_t m_lowest = UINT64_MAX, m_highest = 0;
    };
    auto sumLeaves = [&](size_t from, size_t to, Extent& extent) {
        std::vector<std::pair<uint64_t, uint64_t>> pieces;
        for (size_t n = from; n < to; ++n) {
            const BlockIndex::Node& node = nodes[n];
            NodeSums& sums = all[n];
            pieces.clear();
            for (uint32_t i = node.m_first; i < node.m_first + node.m_count; ++i) {
                const Block& block = (*m_model)[order[i]];
                stacks[i] = block.stack();
                threads[i] = static_cast<uint16_t>(block.thread());
                const IndexBox box = boxOf(block, m_axis);
                sums.m_boxArea += box.area();
                sums.m_byteTime +=
                    static_cast<double>(block.size()) * static_cast<double>(block.to(m_axis) - block.from(m_axis));
                sums.m_events += block.liveAtEnd() ? 1 : 2;
                ++sums.m_blocks;
                pieces.emplace_back(pageFloor(box.m_y0), pageCeil(box.m_y1));
                extent.m_lowest = std::min(extent.m_lowest, box.m_y0);
                extent.m_highest = std::max(extent.m_highest, box.m_y1);
            }
            sums.m_solid = noWideGap(pieces);
        }
    };
    const size_t leaves = m_index.leafCount();
    Extent first, second;
    if (leaves * BlockIndex::kFanout >= kSumsOnTwoCoresFrom) {
        std::jthread other = startOnOtherCore([&] { sumLeaves(leaves / 2, leaves, second); });
        sumLeaves(0, leaves / 2, first);
    } else {
        sumLeaves(0, leaves, first);
    }
    m_lowestAddr = std::min(first.m_lowest, second.m_lowest);
    m_highestEnd = std::max(first.m_highest, second.m_highest);
    // Their parents, each after its children.
    std::vector<std::pair<uint64_t, uint64_t>> pieces;
    for (size_t n = leaves; n < nodes.size(); ++n) {
        const BlockIndex::Node& node = nodes[n];
        NodeSums& sums = all[n];
        pieces.clear();
        bool childrenSolid = true;
        for (uint32_t c = node.m_first; c < node.m_first + node.m_count; ++c) {
            const NodeSums& child = all[c];
            sums.m_boxArea += child.m_boxArea;
            sums.m_byteTime += child.m_byteTime;
            sums.m_events += child.m_events;
            sums.m_blocks += child.m_blocks;
            childrenSolid = childrenSolid && child.m_solid;
            pieces.emplace_back(pageFloor(nodes[c].m_box.m_y0), pageCeil(nodes[c].m_box.m_y1));
        }
        sums.m_solid = childrenSolid && noWideGap(pieces);
    }
    m_sums = std::move(all);
    m_itemStacks = std::move(stacks);
    m_itemThreads = std::move(threads);
}

void ModelIndex::addRanges(XWindow window, uint64_t addrLo, uint64_t addrHi, AddressRanges::Builder& builder) const {
    const IndexBox query{window.m_from, window.m_to, addrLo, addrHi};
    queryInOrder(
        query,
        [&](const BlockIndex::Node& node) {
            const IndexBox& box = node.m_box;
            if (!sums(node).m_solid || !wholeInside(box, window, addrLo, addrHi)) return false;
            builder.add(box.m_y0, box.m_y1, sums(node).m_blocks);
            return true;
        },
        [&](uint32_t i) {
            const Block& b = (*m_model)[i];
            if (b.meets(m_axis, window, addrLo, addrHi)) builder.add(b.addr(), b.endAddr());
        });
}

ModelIndex::Membership ModelIndex::membership(std::span<const uint8_t> groupOfPosition, size_t count) const {
    Membership made;
    made.m_starts.assign(count + 1, 0);
    for (const uint8_t group : groupOfPosition)
        if (group < count) ++made.m_starts[group + 1];
    for (size_t group = 0; group < count; ++group) made.m_starts[group + 1] += made.m_starts[group];
    made.m_positions.resize(made.m_starts[count]);
    std::vector<size_t> next(made.m_starts.begin(), made.m_starts.end() - 1);
    for (size_t k = 0; k < groupOfPosition.size(); ++k)
        if (groupOfPosition[k] < count) made.m_positions[next[groupOfPosition[k]]++] = static_cast<uint32_t>(k);
    // Children come before their parents: one pass sums the masks up from the leaves.
    const auto& nodes = m_index.nodes();
    made.m_nodeGroups.assign(nodes.size(), 0);
    for (size_t n = 0; n < nodes.size(); ++n) {
        const BlockIndex::Node& node = nodes[n];
        uint8_t& mask = made.m_nodeGroups[n];
        for (uint32_t i = node.m_first; i < node.m_first + node.m_count; ++i)
            mask |= node.m_leaf ? (groupOfPosition[i] < count ? static_cast<uint8_t>(1u << groupOfPosition[i]) : 0)
                                : made.m_nodeGroups[i];
    }
    return made;
}

ModelIndex::Live ModelIndex::liveAt(uint64_t x) const {
    Live live;
    const IndexBox line{x, x + 1, 0, UINT64_MAX};
    m_index.query(
        line, [](const BlockIndex::Node&) { return false; },
        [&](uint32_t i) {
            const Block& block = (*m_model)[i];
            if (block.from(m_axis) <= x && x < block.to(m_axis)) {
                live.m_bytes += block.size();
                ++live.m_blocks;
            }
        });
    return live;
}

std::optional<size_t> ModelIndex::blockAt(uint64_t x, uint64_t addr) const {
    // The lowest index among the blocks that hold the point: BlockModel::blockAt's answer, were
    // a block of no time or no bytes ever to hold one.
    std::optional<size_t> found;
    m_index.query(
        {x, x + 1, addr, addr + 1}, [](const BlockIndex::Node&) { return false; },
        [&](uint32_t i) {
            const Block& b = (*m_model)[i];
            if (b.from(m_axis) <= x && x < b.to(m_axis) && b.addr() <= addr && addr < b.endAddr() &&
                (!found || i < *found))
                found = i;
        });
    return found;
}

size_t ModelIndex::countIn(const IndexBox& window, size_t enough) const {
    // A node inside the window counts all of its blocks at once (every box is at least a unit
    // wide and a byte tall, so each inside meets it); only the leaves on the window's edges
    // test their boxes. A whole log's view costs nothing. Past `enough`, no node is opened.
    size_t count = 0;
    const auto& boxes = m_index.boxes();
    m_index.query(
        window,
        [&](const BlockIndex::Node& node) {
            if (count > enough) return true;
            if (window.contains(node.m_box)) {
                count += node.m_items;
                return true;
            }
            if (!node.m_leaf) return false;
            for (uint32_t k = node.m_first; k < node.m_first + node.m_count; ++k) count += boxes[k].intersects(window);
            return true;
        },
        [](uint32_t) {});
    return count;
}

std::vector<OccupancyColumn> ModelIndex::occupancy(const OccupancyQuery& query) const {
    if (query.m_columns == 0 || query.m_window.width() == 0) return std::vector<OccupancyColumn>(query.m_columns);
    if (coversAddresses(query)) return occupancyEverywhere(query, m_beginnings, m_ends);
    return occupancyInside(query);
}

ModelIndex::Groups ModelIndex::groups(HugeVector<uint8_t> groupOf, size_t count) const {
    Groups groups;
    groups.m_count = count;
    groups.m_groupOf = std::move(groupOf);
    {
        // Through startOnOtherCore, which carries this thread's ArraysInFiles over: a plain
        // thread made the ends' split (12 bytes a block) in anonymous memory, the rest in a file.
        std::jthread endsThread =
            startOnOtherCore([&] { groups.m_ends = SortedEnds::split(m_ends, groups.m_groupOf, count); });
        groups.m_beginnings = SortedEnds::split(m_beginnings, groups.m_groupOf, count);
        hullGroups(groups);
    }
    return groups;
}

// As sumNodes() finds each node solid or not, for each group's part of it: children first.
void ModelIndex::hullGroups(Groups& groups) const {
    const auto& nodes = m_index.nodes();
    const auto& order = m_index.order();
    const auto& boxes = m_index.boxes();
    const size_t count = groups.m_count;
    groups.m_hulls.assign(nodes.size() * count, Groups::Hull{});
    std::vector<std::vector<std::pair<uint64_t, uint64_t>>> pieces(count);
    for (size_t n = 0; n < nodes.size(); ++n) {
        const BlockIndex::Node& node = nodes[n];
        Groups::Hull* hulls = &groups.m_hulls[n * count];
        for (auto& group : pieces) group.clear();
        auto add = [&](size_t group, uint64_t lo, uint64_t hi, bool solid) {
            hulls[group].take(lo, hi, solid);
            pieces[group].emplace_back(pageFloor(lo), pageCeil(hi));
        };
        for (uint32_t i = node.m_first; i < node.m_first + node.m_count; ++i) {
            if (node.m_leaf) {
                const size_t group = groups.m_groupOf[order[i]];
                if (group < count) add(group, boxes[i].m_y0, boxes[i].m_y1, true);
                continue;
            }
            const Groups::Hull* child = &groups.m_hulls[i * count];
            for (size_t group = 0; group < count; ++group)
                if (child[group].present()) add(group, child[group].lo(), child[group].hi(), child[group].solid());
        }
        for (size_t group = 0; group < count; ++group)
            if (!pieces[group].empty() && !noWideGap(pieces[group])) hulls[group].markGap();
    }
}

void ModelIndex::addRanges(XWindow window, uint64_t addrLo, uint64_t addrHi, const Groups& groups,
                           const std::vector<AddressRanges::Builder*>& builders) const {
    const size_t count = std::min(groups.m_count, builders.size());
    queryInOrder(
        {window.m_from, window.m_to, addrLo, addrHi},
        [&](const BlockIndex::Node& node) {
            // Inside, and every group present solid.
            if (!wholeInside(node.m_box, window, addrLo, addrHi)) return false;
            const Groups::Hull* hulls = &groups.m_hulls[m_index.indexOf(node) * groups.m_count];
            for (size_t group = 0; group < count; ++group)
                if (hulls[group].present() && !hulls[group].solid()) return false;
            for (size_t group = 0; group < count; ++group)
                // A bin's ranges count no blocks (a hull does not know them): bytes alone share its height.
                if (hulls[group].present()) builders[group]->add(hulls[group].lo(), hulls[group].hi(), 0);
            return true;
        },
        [&](uint32_t i) {
            const size_t group = groups.m_groupOf[i];
            if (group >= count) return;
            const Block& b = (*m_model)[i];
            if (b.meets(m_axis, window, addrLo, addrHi)) builders[group]->add(b.addr(), b.endAddr(), 0);
        });
}

std::vector<OccupancyColumn> ModelIndex::occupancy(const OccupancyQuery& query, const Groups& groups,
                                                   size_t group) const {
    if (query.m_columns == 0 || query.m_window.width() == 0) return std::vector<OccupancyColumn>(query.m_columns);
    return occupancyEverywhere(query, groups.m_beginnings.at(group), groups.m_ends.at(group));
}

std::vector<OccupancyColumn> ModelIndex::occupancyInside(const OccupancyQuery& query) const {
    OccupancyColumns columns(query);
    const double limit = static_cast<double>(columns.columns());
    queryInOrder(
        occupancyReach(query.m_window, query.m_addrLo, query.m_addrHi),
        [&](const BlockIndex::Node& node) {
            const IndexBox& box = node.m_box;
            if (box.m_y0 < query.m_addrLo || box.m_y1 > query.m_addrHi) return false;
            const double first = columns.position(box.m_x0), last = columns.position(box.m_x1);
            if (!(first >= 0) || !(last < limit) || std::floor(first) != std::floor(last)) return false;
            const NodeSums& s = sums(node);
            columns.addInside(static_cast<size_t>(first), s.m_byteTime, s.m_events);
            return true;
        },
        [&](uint32_t i) { columns.add((*m_model)[i]); });
    return columns.finish();
}

// Live bytes integrated up to X: I(X) = sum over begun blocks of size (X - from) minus the same
// over ended ones of size (X - to) = X (bytes begun - bytes ended) - (bytesX begun - bytesX
// ended). The integer part of X goes into 128-bit arithmetic, so the difference of two
// neighbouring columns keeps its precision however far from zero they are.
std::vector<OccupancyColumn> ModelIndex::occupancyEverywhere(const OccupancyQuery& query, const SortedEnds& beginnings,
                                                             const SortedEnds& ends) {
    const OccupancyColumns columns(query);
    const size_t count = columns.columns();
    std::vector<OccupancyColumn> result(count);
    const double from = static_cast<double>(query.m_window.m_from);
    const double perColumn = static_cast<double>(query.m_window.width()) / static_cast<double>(count);
    struct Boundary {
        EndSums m_begun, m_ended;
        uint64_t m_live;  // bytes live just before the boundary
        __int128 m_integer;  // I at the boundary's integer part
        double m_fraction;  // and what the fraction adds: fraction x live
    };
    size_t beginHint = 0, endHint = 0;
    auto boundary = [&](size_t k) {
        Boundary b;
        const double limit = static_cast<double>(k);
        auto before = [&](uint64_t x) { return columns.position(x) < limit; };
        b.m_begun = beginnings.sumsBefore(before, beginHint);
        b.m_ended = ends.sumsBefore(before, endHint);
        b.m_live = b.m_begun.m_bytes - b.m_ended.m_bytes;
        const double at = from + limit * perColumn;
        const double whole = std::floor(at);
        b.m_integer = static_cast<__int128>(whole) * b.m_live - (b.m_begun.m_bytesX - b.m_ended.m_bytesX);
        b.m_fraction = (at - whole) * static_cast<double>(b.m_live);
        return b;
    };
    Boundary left = boundary(0);
    for (size_t k = 0; k < count; ++k) {
        const Boundary right = boundary(k + 1);
        OccupancyColumn& column = result[k];
        column.m_events =
            (right.m_begun.m_events - left.m_begun.m_events) + (right.m_ended.m_events - left.m_ended.m_events);
        if (right.m_begun.m_entries == left.m_begun.m_entries && right.m_ended.m_entries == left.m_ended.m_entries)
            column.m_liveBytes = static_cast<double>(left.m_live);  // nothing changes inside: exact
        else
            column.m_liveBytes =
                (static_cast<double>(right.m_integer - left.m_integer) + right.m_fraction - left.m_fraction) /
                perColumn;
        left = right;
    }
    return result;
}

ModelIndex::SortedEnds::SortedEnds(const BlockModel& model, XAxis axis, bool ends)
    : m_model(&model), m_axis(axis), m_ends(ends), m_inModelOrder(true) {
    const size_t count = model.size();
    for (size_t i = 1; i < count && m_inModelOrder; ++i) m_inModelOrder = xOf(model[i - 1]) <= xOf(model[i]);
    if (!m_inModelOrder) {
        // Keys beside the indices: a sort that looked each key up in the model would wander.
        HugeVector<std::pair<uint64_t, uint32_t>> keyed(count);
        for (size_t i = 0; i < count; ++i) keyed[i] = {xOf(model[i]), static_cast<uint32_t>(i)};
        std::sort(keyed.begin(), keyed.end());
        HugeVector<uint32_t> order;
        resizePrefaulted(order, count);
        for (size_t i = 0; i < count; ++i) order[i] = keyed[i].second;
        m_order = std::move(order);
    }
    if (!m_inModelOrder) m_packed.reserve(count);
    EndSums running;
    for (size_t i = 0; i < count; ++i) {
        const uint32_t index = blockOf(i);
        append(model[index], index, running);
    }
}

std::string ModelIndex::SortedEnds::adopt(const BlockModel& model, XAxis axis, bool ends, bool everyEntry) {
    m_model = &model;
    m_axis = axis;
    const size_t blocks = model.size();
    if (m_ends != ends) return "its sorted ends are swapped";
    if (m_count != blocks) return "its sorted ends do not hold every block";
    const size_t checkpoints = (m_count + kStride - 1) / kStride;
    if (m_checkX.size() != checkpoints || m_checkSums.size() != checkpoints)
        return "its sorted ends have the wrong number of checkpoints";
    if (m_inModelOrder) return m_order.empty() && m_packed.empty() ? "" : "its sorted ends are in two orders";
    if (m_order.size() != m_count || m_packed.size() != m_count) return "its sorted ends are short";
    if (!everyEntry) return "";
    for (const uint32_t block : m_order)
        if (block >= blocks) return "its sorted ends name a block the model does not have";
    for (const Packed& packed : m_packed)
        if (packed.m_size == kInModel && packed.m_offset >= blocks)
            return "its sorted ends name a block the model does not have";
    return "";
}

std::vector<ModelIndex::SortedEnds> ModelIndex::SortedEnds::split(const SortedEnds& all,
                                                                  const HugeVector<uint8_t>& groupOf, size_t count) {
    std::vector<SortedEnds> groups(count);
    for (SortedEnds& group : groups) {
        group.m_model = all.m_model;
        group.m_axis = all.m_axis;
        group.m_ends = all.m_ends;
    }
    std::vector<EndSums> running(count);
    for (size_t i = 0; i < all.m_count; ++i) {
        const uint32_t index = all.blockOf(i);
        const size_t group = groupOf[index];
        if (group >= count) continue;
        groups[group].append((*all.m_model)[index], index, running[group]);
    }
    for (SortedEnds& group : groups) group.m_packed.shrink_to_fit();
    return groups;
}

void ModelIndex::SortedEnds::append(const Block& block, uint32_t index, EndSums& running) {
    const Entry entry = fromBlock(block);
    if (m_count % kStride == 0) {
        m_checkX.push_back(entry.m_x);
        m_checkSums.push_back(running);
    }
    if (!m_inModelOrder) {
        const uint64_t offset = entry.m_x - m_checkX.back();
        if (offset < kInModel && entry.m_size < kInModel && entry.m_event)
            m_packed.push_back({static_cast<uint32_t>(offset), static_cast<uint32_t>(entry.m_size)});
        else
            m_packed.push_back({index, kInModel});
    }
    ++m_count;
    running.m_bytesX += static_cast<__int128>(entry.m_size) * entry.m_x;
    running.m_bytes += entry.m_size;
    ++running.m_entries;
    running.m_events += entry.m_event;
}

template <typename Before>
ModelIndex::EndSums ModelIndex::SortedEnds::sumsBefore(Before&& before, size_t& checkpoint) const {
    // The first checkpoint not before, by galloping from the hint, then a binary search.
    const size_t count = m_checkX.size();
    size_t lo = std::min(checkpoint, count), step = 1, hi = lo;
    while (hi < count && before(m_checkX[hi])) {
        lo = hi + 1;
        hi = std::min(count, hi + step);
        step *= 2;
    }
    const size_t first = static_cast<size_t>(std::partition_point(m_checkX.begin() + static_cast<long>(lo),
                                                                  m_checkX.begin() + static_cast<long>(hi), before) -
                                             m_checkX.begin());
    checkpoint = first ? first - 1 : 0;
    if (first == 0) return {};
    // Entries from the checkpoint before it: at most kStride of them are before.
    EndSums sums = m_checkSums[first - 1];
    const size_t end = std::min(first * kStride, m_count);
    const uint64_t checkX = m_checkX[first - 1];
    for (size_t i = (first - 1) * kStride; i < end; ++i) {
        const Entry entry = this->entry(i, checkX);
        if (!before(entry.m_x)) break;
        sums.m_bytesX += static_cast<__int128>(entry.m_size) * entry.m_x;
        sums.m_bytes += entry.m_size;
        ++sums.m_entries;
        sums.m_events += entry.m_event;
    }
    return sums;
}

}  // namespace memlog::timeline

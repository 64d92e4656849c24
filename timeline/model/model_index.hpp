// The block model indexed for pictures drawn again and again (the window's frames): which
// blocks meet a time x address window, the address ranges such a window shows, and the
// occupancy under it, in time that follows what is in view rather than the size of the log.
// Built once per model and x axis; about 59 bytes a block beside the model's 40 (32 of them the
// boxes of the blocks in the index's order).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <span>
#include <utility>
#include <vector>

#include "timeline/model/address_ranges.hpp"
#include "timeline/model/block_index.hpp"
#include "timeline/model/block_model.hpp"
#include "timeline/model/occupancy.hpp"

namespace memlog::timeline {

struct KeptModelIndex;

class ModelIndex {
public:
    // What the blocks under one index node add up to.
    struct NodeSums {
        double m_boxArea = 0;  // their boxes (boxOf), axis units x bytes
        double m_byteTime = 0;  // bytes x axis units they were live, as occupancy counts them
        uint32_t m_events = 0;  // beginnings and ends (the end of a block live at the end of the log is none)
        uint32_t m_blocks = 0;
        bool m_solid = false;  // their pages leave no gap of AddressRanges::kKeepGapsBelow or more
        uint8_t m_unused[7] = {};  // what would be padding, zero: an index file's bytes are all set
    };
    static_assert(sizeof(NodeSums) == 32);

    // `progress` hears 0..1 as it is built (from this thread).
    ModelIndex(const BlockModel& model, XAxis axis, const std::function<void(double)>& progress = {});
    // The index an index file keeps beside `model` (kept_index.hpp), its arrays mapped, not
    // built. Throws IndexError when they do not make an index of this model.
    ModelIndex(const BlockModel& model, const KeptModelIndex& kept);
    // The model's kept index when it has one for `axis`, else one built.
    static std::unique_ptr<ModelIndex> forModel(const BlockModel& model, XAxis axis,
                                                const std::function<void(double)>& progress = {});
    // Whether its arrays are mapped from an index file rather than built here.
    bool kept() const { return m_sums.mapped(); }

    // Every array and number of it, for an index file to keep and give back (kept_index.cpp):
    // `io(value)` for each, arrays as StoredArray.
    template <typename Io, typename Index>
    static void fields(Io& io, Index& index) {
        BlockIndex::arrays(io, index.m_index);
        io(index.m_sums);
        io(index.m_itemStacks), io(index.m_itemThreads);
        SortedEnds::fields(io, index.m_beginnings);
        SortedEnds::fields(io, index.m_ends);
        io(index.m_lowestAddr), io(index.m_highestEnd);
        io(index.m_typicalLeaf.m_width), io(index.m_typicalLeaf.m_height);
        io(index.m_typicalParent.m_width), io(index.m_typicalParent.m_height);
    }

    const BlockModel& model() const { return *m_model; }
    XAxis axis() const { return m_axis; }
    const BlockIndex& index() const { return m_index; }
    const NodeSums& sums(const BlockIndex::Node& node) const { return m_sums[m_index.indexOf(node)]; }
    // The allocating stack and thread (Block::stack(), thread()) of the block at each position
    // of index().order(): what a colouring by site or thread asks of a block, read in order
    // rather than from blocks all over the model (at 10^8 blocks, most of the window's opening).
    const StoredArray<uint32_t>& itemStacks() const { return m_itemStacks; }
    const StoredArray<uint16_t>& itemThreads() const { return m_itemThreads; }

    // Where a picture puts a block: [from, max(to, from + 1)) x [addr, addr + max(size, 1)), so
    // that a block of no time or no bytes still has a place.
    static IndexBox boxOf(const Block& block, XAxis axis);

    // Adds to `builder` every block that meets window x [addrLo, addrHi), as a walk over all
    // blocks would. A solid node wholly inside adds its hull instead of its blocks: once
    // finished, the ranges are the same, since its gaps would have been closed anyway.
    void addRanges(XWindow window, uint64_t addrLo, uint64_t addrHi, AddressRanges::Builder& builder) const;

    // occupancy(model(), query) for a query of this axis without bins (which it ignores). Over
    // every address: from the sorted beginnings and ends, O(columns x log blocks). Over an
    // address window: from the index, taking at once each node that lies inside the window and
    // inside one column. Equal to the walk but for rounding (relative 1e-12).
    std::vector<OccupancyColumn> occupancy(const OccupancyQuery& query) const;

    // The blocks split into groups, each with sorted beginnings and ends of its own, so that a
    // group's occupancy over every address costs what the whole model's does (correlated
    // views: a group a bin). About 14 bytes a block in a group, and 16 an index node a group.
    class Groups;
    // `groupOf[i]`: the group of model block i; `count` or more: none.
    Groups groups(HugeVector<uint8_t> groupOf, size_t count) const;
    // Where each group's blocks sit in the index's order and which groups each node holds, so
    // that a group's view reads its own blocks and opens only the nodes that hold some.
    // `groupOfPosition[k]`: the group of the block at position k of order(); `count` (at most
    // 8) or more: none.
    struct Membership {
        HugeVector<uint32_t> m_positions;  // group 0's positions, group 1's, ...: each ascending
        std::vector<size_t> m_starts;  // where each group's begin there (and one past the last)
        std::vector<uint8_t> m_nodeGroups;  // per node, a bit for each group with a block under it
        std::span<const uint32_t> positionsOf(size_t group) const {
            return std::span(m_positions).subspan(m_starts[group], m_starts[group + 1] - m_starts[group]);
        }
    };
    Membership membership(std::span<const uint8_t> groupOfPosition, size_t count) const;
    // Whether `query`'s address window holds every block, so that occupancy(query, ...) may
    // answer it.
    bool coversAddresses(const OccupancyQuery& query) const {
        return query.m_addrLo <= m_lowestAddr && query.m_addrHi >= m_highestEnd;
    }
    // occupancy() of the blocks of one group alone, for a query that coversAddresses().
    std::vector<OccupancyColumn> occupancy(const OccupancyQuery& query, const Groups& groups, size_t group) const;
    // addRanges() for each group at once, into builders[group] (groups from builders.size() on
    // are left out): a node wholly inside in which every group present is solid gives each
    // group its hull.
    void addRanges(XWindow window, uint64_t addrLo, uint64_t addrHi, const Groups& groups,
                   const std::vector<AddressRanges::Builder*>& builders) const;
    // Where the blocks that occupancy over `window` x [addrLo, addrHi) counts lie: one unit
    // more on each side, since a block that ends exactly where the window begins has its end
    // counted there, though its box does not meet the window.
    static IndexBox occupancyReach(XWindow window, uint64_t addrLo, uint64_t addrHi) {
        return {window.m_from ? window.m_from - 1 : 0, window.m_to + 1, addrLo, addrHi};
    }

    // The block at (x, addr), as BlockModel::blockAt answers it, in O(log blocks) rather than a
    // scan: for the window's brushing. Live blocks never overlap, so there is at most one.
    std::optional<size_t> blockAt(uint64_t x, uint64_t addr) const;
    // The bytes and blocks live at x (begun at or before it, not yet ended), from the blocks
    // whose boxes hold x: for the window's occupancy tooltip.
    struct Live {
        uint64_t m_bytes = 0, m_blocks = 0;
    };
    Live liveAt(uint64_t x) const;

    // How many blocks have a box that meets `window`: the window's frames ask whether a view
    // holds more than a frame can draw exactly. In time that follows the blocks near the
    // window's edges, not the blocks inside it. Once the count passes `enough`, it stops: the
    // answer is then more than `enough`, not the count.
    size_t countIn(const IndexBox& window, size_t enough = SIZE_MAX) const;

    // The median width (axis units) and height (bytes) of the index's leaves: how many pixels
    // a view must give a leaf before level of detail can fold it (a draft folds about that).
    // And of the nodes just above the leaves, which a draft of a bin's view folds (it never
    // folds a leaf). None: 0 x 0.
    struct LeafSize {
        uint64_t m_width = 0, m_height = 0;
    };
    LeafSize typicalLeaf() const { return m_typicalLeaf; }
    LeafSize typicalParent() const { return m_typicalParent; }

    // A query whose leaves are not visited as the tree is walked but listed, then visited in
    // the order of their items with the blocks asked for early: the walk reaches the leaves in
    // no order the model's memory follows, and a block read there was a cache miss.
    // leavesMeeting: the leaves that meet `window` and that `fold(node)` (true: the node is
    // taken whole by the caller) leaves open, as runs [first, end) of positions in
    // index().order(), in that order. forEachInLeaves: their blocks, as item(position, model
    // index); a caller may split the runs between threads.
    using Leaves = std::vector<std::pair<size_t, size_t>>;
    template <typename Fold>
    Leaves leavesMeeting(const IndexBox& window, Fold&& fold) const {
        std::vector<uint64_t> marks;
        m_index.clearMarks(marks);
        m_index.query(
            window,
            [&](const BlockIndex::Node& node) {
                if (fold(node)) return true;
                if (!node.m_leaf) return false;
                BlockIndex::mark(node, marks);
                return true;
            },
            [](uint32_t) {});
        Leaves leaves;
        m_index.forEachMarkedLeaf(marks, [&](size_t first, size_t end) { leaves.emplace_back(first, end); });
        return leaves;
    }
    template <typename Item>
    void forEachInLeaves(const Leaves& leaves, size_t from, size_t to, Item&& item) const {
        const auto& order = m_index.order();
        for (size_t leaf = from; leaf < to; ++leaf)
            for (size_t k = leaves[leaf].first; k < leaves[leaf].second; ++k) {
                if (k + 8 < order.size()) prefetch((*m_model)[order[k + 8]]);
                item(k, order[k]);
            }
    }
    template <typename Item>
    void forEachInLeaves(const Leaves& leaves, Item&& item) const {
        forEachInLeaves(leaves, 0, leaves.size(), item);
    }

private:
    // Asks for a block's memory ahead of its use: both of its ends, as it may straddle two
    // cache lines.
    static void prefetch(const Block& block) {
        const char* bytes = reinterpret_cast<const char*>(&block);
        __builtin_prefetch(bytes);
        __builtin_prefetch(bytes + sizeof(Block) - 1);
    }

    // Sums over a prefix of SortedEnds.
    struct EndSums {
        __int128 m_bytesX = 0;  // size x position, summed
        uint64_t m_bytes = 0;  // sizes
        uint32_t m_entries = 0;  // how many
        uint32_t m_events = 0;  // how many are events (ends at the end of the log are not)
    };

    // One end of every block, the beginnings or the ends, sorted by x, with running sums every
    // kStride entries: the sums over every entry before some x take a binary search over the
    // checkpoints and at most kStride steps. Those steps read each entry's x and size from an
    // array beside the checkpoints, not from the model: a stride's blocks lie all over it, and
    // a report waited on them (8 bins' occupancy: 400 thousand misses). Per entry: 2.5 bytes of
    // checkpoints, plus 8 of x and size unless already in the model's order, plus 4 of block
    // index for the ends of the whole log (split reads them).
    class SortedEnds {
    public:
        SortedEnds() = default;
        SortedEnds(const BlockModel& model, XAxis axis, bool ends);
        template <typename Io, typename Ends>
        static void fields(Io& io, Ends& ends) {
            io(ends.m_ends), io(ends.m_inModelOrder), io(ends.m_count);
            io(ends.m_order), io(ends.m_packed), io(ends.m_checkX), io(ends.m_checkSums);
        }
        // Read back from a file: the model it belongs to, and "" when its arrays fit it (the
        // ends, or the beginnings, of every block), else what is wrong; `everyEntry`: each block
        // index in them checked too, not only their sizes.
        std::string adopt(const BlockModel& model, XAxis axis, bool ends, bool everyEntry);
        // The entries of `all` split by group, in their order (a pass over them).
        static std::vector<SortedEnds> split(const SortedEnds& all, const HugeVector<uint8_t>& groupOf, size_t count);
        // The sums over the entries whose x passes `before` (true on a prefix of the order).
        // `checkpoint` is where to start looking, and becomes where this answer was found: a
        // caller asking for growing x passes the same variable each time.
        template <typename Before>
        EndSums sumsBefore(Before&& before, size_t& checkpoint) const;

    private:
        static constexpr size_t kStride = 16;
        // An entry's x, as an offset from its stride's checkpoint, and its size. Entries that do
        // not fit (an offset or size of 2^32 or more) or that are not events (blocks live at
        // the end) say m_size = kInModel and give their block's index in m_offset instead.
        struct Packed {
            uint32_t m_offset;
            uint32_t m_size;
        };
        static constexpr uint32_t kInModel = UINT32_MAX;
        struct Entry {
            uint64_t m_x, m_size;
            bool m_event;
        };
        Entry fromBlock(const Block& block) const { return {xOf(block), block.size(), !(m_ends && block.liveAtEnd())}; }
        Entry entry(size_t i, uint64_t checkX) const {
            if (m_inModelOrder) return fromBlock((*m_model)[i]);
            const Packed packed = m_packed[i];
            if (packed.m_size == kInModel) return fromBlock((*m_model)[packed.m_offset]);
            return {checkX + packed.m_offset, packed.m_size, true};
        }
        uint64_t xOf(const Block& block) const { return m_ends ? block.to(m_axis) : block.from(m_axis); }
        // The model's index of entry i, while the order is kept (the whole log's ends: split
        // reads them).
        uint32_t blockOf(size_t i) const { return m_inModelOrder ? static_cast<uint32_t>(i) : m_order[i]; }
        // Adds the next entry, block `index`, to the running sums, with a checkpoint when it
        // is due.
        void append(const Block& block, uint32_t index, EndSums& running);
        const BlockModel* m_model = nullptr;
        XAxis m_axis = XAxis::Time;
        bool m_ends = false;
        bool m_inModelOrder = false;  // every block, in the model's order: entry i is block i
        size_t m_count = 0;  // entries
        StoredArray<uint32_t> m_order;  // block indices by x: the whole log's, out of model order
        StoredArray<Packed> m_packed;  // unless in model order
        StoredArray<uint64_t> m_checkX;  // x of entries 0, kStride, 2 kStride, ...
        StoredArray<EndSums> m_checkSums;  // sums over the entries before each of those
    };

    template <typename Fold, typename Item>
    void queryInOrder(const IndexBox& window, Fold&& fold, Item&& item) const {
        forEachInLeaves(leavesMeeting(window, fold), [&](size_t, uint32_t i) { item(i); });
    }
    static std::vector<OccupancyColumn> occupancyEverywhere(const OccupancyQuery& query, const SortedEnds& beginnings,
                                                            const SortedEnds& ends);
    std::vector<OccupancyColumn> occupancyInside(const OccupancyQuery& query) const;
    void sumNodes();
    void measureLeaves();
    void hullGroups(Groups& groups) const;
    // Whether every block under a node of box `box` meets window x [addrLo, addrHi), as
    // Block::meets tests it (box.m_y0 > addrLo: an empty block at addrLo ends at addrLo, which
    // the test leaves out).
    static bool wholeInside(const IndexBox& box, XWindow window, uint64_t addrLo, uint64_t addrHi) {
        return box.m_x0 >= window.m_from && box.m_x1 <= window.m_to && box.m_y0 > addrLo && box.m_y1 <= addrHi;
    }

    const BlockModel* m_model;
    XAxis m_axis;
    BlockIndex m_index;
    StoredArray<NodeSums> m_sums;  // by node
    StoredArray<uint32_t> m_itemStacks;  // by position in the index's order
    StoredArray<uint16_t> m_itemThreads;  // the same; Block::thread() has 16 bits
    SortedEnds m_beginnings, m_ends;
    uint64_t m_lowestAddr = UINT64_MAX, m_highestEnd = 0;  // of all boxes
    LeafSize m_typicalLeaf, m_typicalParent;
};

class ModelIndex::Groups {
    friend class ModelIndex;

public:
    // The addresses [lo, hi) of group `group`'s boxes under index node `node`; lo is
    // UINT64_MAX when it has none there.
    std::pair<uint64_t, uint64_t> addresses(size_t node, size_t group) const {
        const Hull& hull = m_hulls[node * m_count + group];
        return {hull.lo(), hull.hi()};
    }

private:
    // What a node holds of one group: the addresses of its boxes, and whether their pages leave
    // no gap of AddressRanges::kKeepGapsBelow or more (NodeSums::m_solid for the group alone).
    // 16 bytes: the flag of a gap rides in the top bit of the end (addresses are below 2^48).
    class Hull {
    public:
        bool present() const { return m_lo != UINT64_MAX; }
        uint64_t lo() const { return m_lo; }
        uint64_t hi() const { return m_hiAndGap & ~kGap; }
        bool solid() const { return !(m_hiAndGap & kGap); }
        void take(uint64_t lo, uint64_t hi, bool solid) {
            m_lo = std::min(m_lo, lo);
            m_hiAndGap = std::max(this->hi(), hi) | (m_hiAndGap & kGap) | (solid ? 0 : kGap);
        }
        void markGap() { m_hiAndGap |= kGap; }

    private:
        static constexpr uint64_t kGap = uint64_t{1} << 63;
        uint64_t m_lo = UINT64_MAX;  // UINT64_MAX: none of the group under the node
        uint64_t m_hiAndGap = 0;
    };
    size_t m_count = 0;
    HugeVector<uint8_t> m_groupOf;  // by model block (a file's pages while ArraysInFiles lives)
    std::vector<SortedEnds> m_beginnings, m_ends;  // by group
    HugeVector<Hull> m_hulls;  // node n's of group g at n x m_count + g
};

}  // namespace memlog::timeline

// The block model: an observer of the replay (which already knows how allocations, frees,
// resizes and munmap cuts begin and end blocks) that writes every block down as it begins and
// closes it when it ends. One pass, no second walk of the log.
#include "timeline/model/block_model.hpp"

#include <algorithm>

#include "timeline/base/seeded_hash.hpp"
#include "timeline/model/access_spool.hpp"
#include "timeline/model/occupancy_sketch.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/replay/access_attribution.hpp"
#include "timeline/replay/block_observer.hpp"
#include "timeline/replay/heap_replay.hpp"
#include "timeline/replay/instruction_clock.hpp"

namespace memlog::timeline {

BlockModel::BlockModel() : BlockModel(anonymousBlocks(false)) {}

BlockModel::BlockModel(std::unique_ptr<BlockStore> store) : m_store(std::move(store)) {}

BlockModel::BlockModel(std::unique_ptr<BlockStore> store, std::vector<BlockStore::Chunk> chunks,
                       std::vector<ChunkSpan> spans, const Shape& shape, const Summary& summary,
                       std::vector<uint32_t> threads)
    : m_store(std::move(store)),
      m_chunks(std::move(chunks)),
      m_spans(std::move(spans)),
      m_size(shape.m_size),
      m_summary(summary),
      m_threads(std::move(threads)),
      m_endNs(shape.m_endNs),
      m_firstNs(shape.m_firstNs),
      m_firstSeq(shape.m_firstSeq),
      m_endSeq(shape.m_endSeq),
      m_stackCount(shape.m_stackCount),
      m_clock(shape.m_clock) {}
BlockModel::BlockModel(BlockModel&&) noexcept = default;
BlockModel& BlockModel::operator=(BlockModel&&) noexcept = default;
BlockModel::~BlockModel() = default;

AccessSummary BlockModel::accessSummary() const {
    std::call_once(m_accessPoints->m_made, [this] {
        m_accessPoints->m_points = StoredArray<AccessPoint>(summariseAccesses(m_accessMarks));
        m_accessPoints->m_done.store(true, std::memory_order_release);
    });
    const StoredArray<AccessPoint>& points = m_accessPoints->m_points;
    if (points.size() != AccessSummary::pointsFor(m_accessMarks.size())) return {};
    return AccessSummary(points, m_accessMarks.size());
}

void BlockModel::setAccessMarks(StoredArray<AccessMark> marks, uint8_t inOrder,
                                std::optional<StoredArray<AccessPoint>> points, std::optional<AccessTally> tally) {
    m_accessMarks = std::move(marks);
    m_marksInOrder = inOrder;
    m_accessPoints = std::make_unique<AccessPointsOnce>();
    if (points) {
        m_accessPoints->m_points = std::move(*points);
        std::call_once(m_accessPoints->m_made, [this] { m_accessPoints->m_done.store(true); });
    }
    m_accessTally = tally ? std::move(*tally) : tallyAccesses(m_accessMarks);
}

size_t BlockModel::append(const Block& block) {
    if ((m_size & kChunkMask) == 0) {
        m_spans.reserve(m_spans.size() + 1);
        m_chunks.push_back(m_store->add());
        m_spans.emplace_back();
    }
    at(m_size) = block;
    ChunkSpan& span = m_spans.back();
    // A block is appended open (its end 0, closed later through close()), or already closed
    // (a model put together from another's blocks).
    const uint64_t begins[2] = {block.beginNs(), block.beginSeq()}, ends[2] = {block.endNs(), block.endSeq()};
    for (size_t clock = 0; clock < 2; ++clock) {
        span.m_from[clock] = std::min(span.m_from[clock], begins[clock]);
        span.m_to[clock] = std::max({span.m_to[clock], begins[clock] + 1, ends[clock]});
    }
    if (m_size == 0 || block.beginSeq() < m_firstSeq) m_firstSeq = block.beginSeq();
    if (m_size == 0 || block.beginNs() < m_firstNs) m_firstNs = block.beginNs();
    return m_size++;
}

void BlockModel::finish(const Summary& summary, const std::vector<uint32_t>& threads, uint64_t endNs, uint64_t endSeq,
                        uint32_t stackCount) {
    m_summary = summary;
    m_threads = threads;
    m_endNs = endNs;
    m_endSeq = endSeq;
    m_stackCount = std::max<uint32_t>(stackCount, 1);
}

void BlockModel::close(size_t index, uint64_t endNs, uint64_t endSeq, bool liveAtEnd) {
    Block& block = at(index);
    block.close(endNs, endSeq, liveAtEnd);
    ChunkSpan& span = m_spans[index >> kChunkBits];
    span.m_to[0] = std::max(span.m_to[0], block.endNs());
    span.m_to[1] = std::max(span.m_to[1], block.endSeq());
}

XWindow BlockModel::extent(XAxis axis) const {
    if (axis == XAxis::Events) return {m_firstSeq, std::max(m_endSeq, m_firstSeq + 1)};
    return {m_firstNs, std::max(m_endNs, m_firstNs + 1)};
}

uint64_t BlockModel::seqAtTime(uint64_t ns) const {
    uint64_t seq = m_endSeq;
    forEach([&](const Block& b) {
        if (b.beginNs() >= ns) seq = std::min(seq, b.beginSeq());
        if (!b.liveAtEnd() && b.endNs() >= ns) seq = std::min(seq, b.endSeq());
    });
    return seq;
}

uint64_t BlockModel::clockAtSeq(uint64_t seq) const {
    uint64_t seqFound = UINT64_MAX, x = m_endNs;
    forEach([&](const Block& b) {
        if (b.beginSeq() >= seq && b.beginSeq() < seqFound) seqFound = b.beginSeq(), x = b.beginNs();
        if (!b.liveAtEnd() && b.endSeq() >= seq && b.endSeq() < seqFound) seqFound = b.endSeq(), x = b.endNs();
    });
    return x;
}

std::optional<size_t> BlockModel::blockAt(XAxis axis, uint64_t x, uint64_t addr) const {
    // Live blocks never overlap, so at most one block holds the point.
    for (size_t i = 0; i < m_size; ++i) {
        const Block& b = (*this)[i];
        if (b.from(axis) <= x && x < b.to(axis) && b.addr() <= addr && addr < b.endAddr()) return i;
    }
    return std::nullopt;
}

namespace {

// Open blocks by start address (the low bit tells mappings from heap blocks): open addressing
// with backward-shift deletion, so the table stays as small as the live set.
class OpenBlocks {
public:
    OpenBlocks() : m_slots(1u << 12) {}

    void insert(uint64_t key, uint64_t index) {
        if ((m_used + 1) * 4 > m_slots.size() * 3) grow();
        size_t i = slotOf(key);
        while (m_slots[i].m_key != kEmpty && m_slots[i].m_key != key) i = (i + 1) & mask();
        if (m_slots[i].m_key == kEmpty) ++m_used;
        m_slots[i] = {key, index};
    }

    // The index stored under `key`, removed from the table; or nullopt.
    std::optional<uint64_t> take(uint64_t key) {
        size_t i = slotOf(key);
        while (m_slots[i].m_key != key) {
            if (m_slots[i].m_key == kEmpty) return std::nullopt;
            i = (i + 1) & mask();
        }
        const uint64_t index = m_slots[i].m_index;
        // Backward shift: pull later entries of the probe run into the hole.
        for (size_t hole = i, j = (i + 1) & mask();; j = (j + 1) & mask()) {
            if (m_slots[j].m_key == kEmpty) {
                m_slots[hole].m_key = kEmpty;
                break;
            }
            const size_t home = slotOf(m_slots[j].m_key);
            if (((j - home) & mask()) >= ((j - hole) & mask())) {
                m_slots[hole] = m_slots[j];
                hole = j;
            }
        }
        --m_used;
        return index;
    }

    template <typename Visit>
    void forEach(Visit&& visit) const {
        for (const Slot& slot : m_slots)
            if (slot.m_key != kEmpty) visit(slot.m_index);
    }

private:
    static constexpr uint64_t kEmpty = UINT64_MAX;
    struct Slot {
        uint64_t m_key = kEmpty;
        uint64_t m_index = 0;
    };
    size_t mask() const { return m_slots.size() - 1; }
    size_t slotOf(uint64_t key) const { return static_cast<size_t>((key * 0x9e37'79b9'7f4a'7c15ull) >> 20) & mask(); }
    void grow() {
        std::vector<Slot> old(m_slots.size() * 2);
        old.swap(m_slots);
        m_used = 0;
        for (const Slot& slot : old)
            if (slot.m_key != kEmpty) insert(slot.m_key, slot.m_index);
    }
    std::vector<Slot> m_slots;
    size_t m_used = 0;
};

class ModelBuilder final : public BlockObserver {
public:
    // `accessFile`: a scratch file for the access samples (AccessSpool), or -1. `sketch`, when
    // given, is told of every block as it begins and ends.
    ModelBuilder(BlockModel& model, XAxis clock, int accessFile, OccupancySketch* sketch)
        : m_model(model), m_onInstructions(clock == XAxis::Instructions), m_marks(accessFile), m_sketch(sketch) {}

    void begin(const BlockChange& change) override {
        // A piece that munmap left keeps the thread of the mapping it came from.
        const uint32_t thread = change.m_piece ? m_lastEndedThread : threadIndex(change.m_tid);
        const size_t index = m_model.append(Block({change.m_addr, change.m_size, clockOf(change), 0, change.m_seq, 0,
                                                   change.m_stack, thread, change.m_mapping, false}));
        m_open.insert(keyOf(change), index);
        if (m_sketch) m_sketch->begin(change.m_addr, change.m_size, sketchX(change.m_seq, m_model[index].beginNs()));
        note(change);
    }

    void end(const BlockChange& change) override {
        if (const auto index = m_open.take(keyOf(change))) {
            const Block& block = m_model[*index];
            m_model.close(*index, std::max(clockOf(change), block.beginNs()), std::max(change.m_seq, block.beginSeq()),
                          false);
            if (m_sketch) m_sketch->end(block.addr(), block.size(), sketchX(block.endSeq(), block.endNs()));
            m_lastEndedThread = block.thread();
            if (m_model.keepsFreeStacks()) m_model.setFreeStack(*index, change.m_callStack);
        }
        note(change);
    }

    void access(const AccessSample& sample, const Attribution& where) override {
        // The replay tells of each access after every change before it in the sequence and
        // before any after it: the clock is the sum at each change's moment.
        if (sample.m_instructions) m_instructions.access(sample.m_tid, sample.m_instructions);
        if (m_sketch) m_sketch->tick();
        const AccessMark mark{.m_seq = sample.m_seq,
                              .m_timeNs = sample.m_timeNs,
                              .m_addr = sample.m_addr,
                              .m_blockSeq = where.m_blockSeq,
                              .m_tid = sample.m_tid,
                              .m_write = sample.writes(),
                              .m_kind = sample.m_kind,
                              .m_source = sample.m_source,
                              .m_useAfterFree = where.m_region == Region::Freed,
                              .m_stack = sample.m_stack,
                              .m_size = static_cast<uint32_t>(sample.m_size),
                              .m_ip = sample.m_ip,
                              .m_armedBy = sample.m_armedBy,
                              .m_instructions = m_instructions.now()};
        if (m_marks.size() > 0) m_marksInOrder &= axesInOrder(m_previousMark, mark);
        m_tallier.add(mark, m_marks.size());
        m_marks.push(mark);
        m_previousMark = mark;
    }

    // Closes what is still live at the end of the log.
    void finish(const Summary& summary, uint64_t endNs, uint32_t stackCount) {
        closeAtEnd(m_model, summary, endNs, stackCount, m_marks.finish(), m_tallier);
        if (m_sketch) m_sketch->finish();
    }

    // Told of the blocks from now on (a model in steps: each step's own sketch, or none).
    void setSketch(OccupancySketch* sketch) { m_sketch = sketch; }

    // What finish() would make, the builder left as it is to go on: its blocks copied into
    // `store`, those still open closed there.
    BlockModel snapshot(const Summary& summary, uint64_t endNs, uint32_t stackCount,
                        std::unique_ptr<BlockStore> store) const {
        BlockModel copy(std::move(store));
        for (size_t i = 0; i < m_model.size(); ++i) {
            copy.append(m_model[i]);
            if (copy.keepsFreeStacks()) copy.setFreeStack(i, m_model.freeStack(i));
        }
        AccessTallier tallier = m_tallier;
        closeAtEnd(copy, summary, endNs, stackCount, m_marks.copySoFar(), tallier);
        return copy;
    }

private:
    // `model` (the builder's, or a copy of its blocks) given its end: the blocks still open closed
    // there, the summary, the threads and the access samples with their tally.
    void closeAtEnd(BlockModel& model, const Summary& summary, uint64_t endNs, uint32_t stackCount,
                    StoredArray<AccessMark> marks, AccessTallier& tallier) const {
        endNs = m_onInstructions ? m_instructions.now() : std::max(endNs, m_lastNs);
        model.setClock(m_onInstructions ? XAxis::Instructions : XAxis::Time);
        const uint64_t endSeq = m_lastSeq + 1;
        m_open.forEach([&](uint64_t index) { model.close(index, endNs, endSeq, true); });
        model.finish(summary, m_threads, endNs, endSeq, stackCount);
        AccessTally tally = tallier.finish(marks);
        model.setAccessMarks(std::move(marks), m_marksInOrder, std::nullopt, std::move(tally));
    }

    static uint64_t keyOf(const BlockChange& change) { return change.m_addr << 1 | uint64_t{change.m_mapping}; }
    // The sketch's x: the sequence, or the clock the blocks keep.
    uint64_t sketchX(uint64_t seq, uint64_t clock) const { return m_sketch->axis() == XAxis::Events ? seq : clock; }
    uint64_t clockOf(const BlockChange& change) const {
        return m_onInstructions ? m_instructions.now() : change.m_timeNs;
    }

    void note(const BlockChange& change) {
        m_lastNs = std::max(m_lastNs, change.m_timeNs);
        m_lastSeq = std::max(m_lastSeq, change.m_seq);
    }

    uint32_t threadIndex(uint32_t tid) {
        if (tid == m_lastTid && !m_threads.empty()) return m_lastThread;
        auto [it, added] = m_threadIndex.try_emplace(tid, static_cast<uint32_t>(m_threads.size()));
        if (added) m_threads.push_back(tid);
        m_lastTid = tid;
        m_lastThread = it->second;
        return it->second;
    }

    BlockModel& m_model;
    bool m_onInstructions;  // the blocks' time words hold m_instructions, not ns
    InstructionClock m_instructions;
    OpenBlocks m_open;
    NumberMap<uint32_t, uint32_t> m_threadIndex;
    std::vector<uint32_t> m_threads;
    uint32_t m_lastTid = 0, m_lastThread = 0, m_lastEndedThread = 0;
    uint64_t m_lastNs = 0, m_lastSeq = 0;
    AccessSpool m_marks;
    AccessTallier m_tallier;
    AccessMark m_previousMark;
    uint8_t m_marksInOrder = kEveryAxis;  // the axes on which each mark comes after the one before
    OccupancySketch* m_sketch;
};

// A walk's progress for `progress` and for the sketch drawn as it goes (none: `progress` alone).
std::function<void(double)> toldToo(const std::function<void(double)>& progress, OccupancySketch* sketch) {
    return [&progress, sketch](double fraction) {
        if (sketch) sketch->read(fraction);
        if (progress) progress(fraction);
    };
}

// The end of the log as read so far, in ns since the start: its last record's time.
uint64_t endOfRead(const LogReader& reader) {
    const format::FileHeader& header = reader.header();
    if (reader.lastTsc() >= reader.firstTsc() && reader.lastTsc() > header.m_startTsc)
        return format::tscToNs(header, reader.lastTsc()) - header.m_startNs;
    return 0;
}

}  // namespace

BlockModel buildBlockModel(LogReader& reader, const std::function<void(double)>& progress, bool keepFreeStacks,
                           XAxis clock, OccupancySketch* sketch) {
    return buildBlockModel(reader, progress, anonymousBlocks(keepFreeStacks), clock, -1, sketch);
}

BlockModel buildBlockModel(LogReader& reader, const std::function<void(double)>& progress,
                           std::unique_ptr<BlockStore> store, XAxis clock, int accessFile, OccupancySketch* sketch) {
    BlockModel model(std::move(store));
    ModelBuilder builder(model, clock, accessFile, sketch);
    const Summary summary = summarize(reader, toldToo(progress, sketch), &builder);
    builder.finish(summary, endOfRead(reader), static_cast<uint32_t>(reader.stacks().size()));
    return model;
}

struct ModelInSteps::State {
    State(LogReader& reader, XAxis clock, bool keepFreeStacks, std::string scratchFolder)
        : m_reader(reader),
          m_keepFreeStacks(keepFreeStacks),
          m_scratchFolder(std::move(scratchFolder)),
          m_model(store()),
          m_builder(m_model, clock, -1, nullptr),
          m_replay(reader, &m_builder) {}
    std::unique_ptr<BlockStore> store() const {
        return m_scratchFolder.empty() ? anonymousBlocks(m_keepFreeStacks) : scratchBlocks(m_scratchFolder);
    }
    LogReader& m_reader;
    bool m_keepFreeStacks;
    std::string m_scratchFolder;
    BlockModel m_model;
    ModelBuilder m_builder;
    ReplayInSteps m_replay;
};

ModelInSteps::ModelInSteps(LogReader& reader, XAxis clock, bool keepFreeStacks, std::string scratchFolder)
    : m_state(std::make_unique<State>(reader, clock, keepFreeStacks, std::move(scratchFolder))) {}
ModelInSteps::~ModelInSteps() = default;

bool ModelInSteps::step(const std::function<void(double)>& progress, OccupancySketch* sketch) {
    State& state = *m_state;
    // The sketch is the caller's for this step only, whatever ends it.
    struct Lent {
        ModelBuilder& m_builder;
        ~Lent() { m_builder.setSketch(nullptr); }
    } lent{state.m_builder};
    state.m_builder.setSketch(sketch);
    const bool read = state.m_replay.step(toldToo(progress, sketch));
    if (sketch && read) sketch->finish();
    return read;
}

BlockModel ModelInSteps::modelNow() const {
    const State& state = *m_state;
    BlockModel model = state.m_builder.snapshot(state.m_replay.summaryNow(), endOfRead(state.m_reader),
                                                static_cast<uint32_t>(state.m_reader.stacks().size()), state.store());
    if (!state.m_scratchFolder.empty()) model.setScratchFolder(state.m_scratchFolder);
    return model;
}

bool sampledIn(const BlockModel& model, const Block& block) {
    for (const AccessMark& mark : model.accessMarks())
        if (const uint64_t x = markX(mark, model.clock()); mark.m_addr - block.addr() < block.size() &&
                                                           x >= block.beginNs() &&
                                                           (block.liveAtEnd() || x <= block.endNs()))
            return true;
    return false;
}

}  // namespace memlog::timeline

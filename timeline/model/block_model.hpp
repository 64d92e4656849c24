// The heap as blocks in time x address: every block (block.hpp) from the moment it began to the
// moment it ended (or the end of the log), built in one streaming pass over the log, kept in
// chunks of huge pages. The picture (render/) and brushing read it. Nothing here draws.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "timeline/base/stored_array.hpp"
#include "timeline/model/access_marks.hpp"
#include "timeline/model/access_summary.hpp"
#include "timeline/model/access_tally.hpp"
#include "timeline/model/address_ranges.hpp"
#include "timeline/model/block.hpp"
#include "timeline/model/block_store.hpp"
#include "timeline/model/x_axis.hpp"
#include "timeline/replay/summary.hpp"

namespace memlog::timeline {

class LogReader;
class OccupancySketch;
struct KeptModelIndex;

class BlockModel {
public:
    // In anonymous memory, without freeing stacks; or in `store` (block_store.hpp).
    BlockModel();
    explicit BlockModel(std::unique_ptr<BlockStore> store);
    BlockModel(BlockModel&&) noexcept;
    BlockModel& operator=(BlockModel&&) noexcept;
    ~BlockModel();

    // Blocks in the order they began.
    size_t size() const { return m_size; }
    const Block& operator[](size_t index) const { return m_chunks[index >> kChunkBits].m_blocks[index & kChunkMask]; }
    template <typename Visit>
    void forEach(Visit&& visit) const {
        for (size_t chunk = 0, left = m_size; left > 0; ++chunk) {
            const size_t count = left < kChunkBlocks ? left : kChunkBlocks;
            const Block* blocks = m_chunks[chunk].m_blocks;
            for (size_t i = 0; i < count; ++i) visit(blocks[i]);
            left -= count;
        }
    }

    // Every block that may meet `window` on `axis`, in model order: whole chunks of blocks that
    // all end before the window or all begin after it are passed by (ChunkSpan), so that a view
    // of a short stretch of a long log reads only the chunks around it. What is given still has
    // to be tested: a chunk that meets the window holds blocks that do not.
    // `fromChunk`, `toChunk`: only the chunks [fromChunk, toChunk) (chunkCount()), so that two
    // threads may take half each.
    template <typename Visit>
    void forEachMeeting(XAxis axis, XWindow window, Visit&& visit, size_t fromChunk = 0,
                        size_t toChunk = SIZE_MAX) const {
        const size_t clock = axis == XAxis::Events ? 1 : 0;
        for (size_t chunk = fromChunk; chunk < std::min(toChunk, chunkCount()); ++chunk) {
            const ChunkSpan& span = m_spans[chunk];
            if (span.m_to[clock] < window.m_from || span.m_from[clock] > window.m_to) continue;
            const size_t count = std::min(kChunkBlocks, m_size - chunk * kChunkBlocks);
            const Block* blocks = m_chunks[chunk].m_blocks;
            for (size_t i = 0; i < count; ++i) visit(blocks[i]);
        }
    }
    size_t chunkCount() const { return (m_size + kChunkBlocks - 1) / kChunkBlocks; }
    // Where chunk `index` (< chunkCount()) is kept: an index file copies it from there.
    const BlockStore::Chunk& storedChunk(size_t index) const { return m_chunks[index]; }
    // A chunk's blocks on the model's clock [0] and on events [1]: the earliest beginning, and the
    // latest end, an end at least one unit past its beginning (as the pictures draw it).
    struct ChunkSpan {
        uint64_t m_from[2] = {UINT64_MAX, UINT64_MAX};
        uint64_t m_to[2] = {0, 0};
    };
    const std::vector<ChunkSpan>& chunkSpans() const { return m_spans; }

    // The pages every block of the log held, as disjoint spans with their blocks, when known
    // without a walk (an index keeps them: wholeRanges reads them); else nullptr.
    const std::vector<AddressRange>* wholeSpans() const { return m_wholeSpans ? &*m_wholeSpans : nullptr; }
    void setWholeSpans(std::vector<AddressRange> spans) { m_wholeSpans = std::move(spans); }
    // The model's index for pictures (model_index.hpp) as its index file keeps it, when read
    // through one (kept_index.hpp); else nullptr. ModelIndex::forModel maps it.
    const KeptModelIndex* keptIndex() const { return m_keptIndex.get(); }
    void setKeptIndex(std::shared_ptr<const KeptModelIndex> kept) { m_keptIndex = std::move(kept); }
    // Read through an index: its folder, where what is made for the model later (an index for
    // another axis than the kept one: ModelIndex::forModel; the correlated views' bins) is made
    // in a scratch file; "" for a model in memory.
    const std::string& scratchFolder() const { return m_scratchFolder; }
    void setScratchFolder(std::string folder) { m_scratchFolder = std::move(folder); }

    const Summary& summary() const { return m_summary; }
    const std::vector<uint32_t>& threads() const { return m_threads; }  // thread ids by index
    uint64_t endNs() const { return m_endNs; }  // the last record of the log: live blocks end here
    // What the blocks' time words hold (block.hpp): XAxis::Time (ns) or XAxis::Instructions (a
    // full trace's, summed over threads). A picture on the other of the two needs another model.
    XAxis clock() const { return m_clock; }
    // The whole log on that axis: from the first block's beginning (a program's start-up
    // before its first allocation is not worth a third of a picture) to the end of the log.
    XWindow extent(XAxis axis) const;
    uint32_t stackCount() const { return m_stackCount; }  // stack ids are below this

    // Access samples to draw over the blocks (empty until the log carries them: access_marks.hpp):
    // built, or mapped from an index file (a full trace's every access: gigabytes).
    std::span<const AccessMark> accessMarks() const { return m_accessMarks; }
    // Whether they are mapped from a file (an index, or the walk's spool), not the process's own.
    bool accessMarksMapped() const { return m_accessMarks.mapped(); }
    // The axes on which they are in x order (axisBit's), as whoever built them found.
    uint8_t accessMarksInOrder() const { return m_marksInOrder; }
    // Their coarse levels, for drafts of views holding millions (access_summary.hpp): empty for
    // fewer than AccessSummary::kWorthFrom. Made when first asked, by one caller while any
    // others wait (an export never asks: 1.3 s and 25 MB for sqlite3's trace), or mapped from
    // an index.
    AccessSummary accessSummary() const;
    // Whether it is made (or came with the samples) already.
    bool accessSummaryMade() const { return m_accessPoints->m_done.load(std::memory_order_acquire); }
    // Their counts and notable samples (access_tally.hpp): counted as the walk made them, or when
    // they are set.
    const AccessTally& accessTally() const { return m_accessTally; }
    // `points` and `tally`: summariseAccesses(marks) and tallyAccesses(marks), made here when not
    // given (an index keeps them; the points when first asked).
    void setAccessMarks(StoredArray<AccessMark> marks, uint8_t inOrder,
                        std::optional<StoredArray<AccessPoint>> points = std::nullopt,
                        std::optional<AccessTally> tally = std::nullopt);
    void setAccessMarks(const std::vector<AccessMark>& marks) {  // tests' lists: their order found here
        uint8_t inOrder = kEveryAxis;
        for (size_t i = 1; i < marks.size(); ++i) inOrder &= axesInOrder(marks[i - 1], marks[i]);
        setAccessMarks(HugeVector<AccessMark>(marks.begin(), marks.end()), inOrder);
    }

    // The first block event (a begin or an end) at or after `ns` (on the model's clock), as a
    // sequence number: where a time lands on the event axis. The end of the log when nothing
    // comes after.
    uint64_t seqAtTime(uint64_t ns) const;
    // The other way: the model's clock at the first block event at or after sequence number
    // `seq` (a phase mark's place on the instruction axis); the end of the log when none.
    uint64_t clockAtSeq(uint64_t seq) const;

    // The stack of the call that ended block `index` (its free, or the realloc that moved it);
    // 0 for a block never freed, a free without a stack, or a model built without them.
    uint32_t freeStack(size_t index) const {
        const uint32_t* stacks = index < m_size ? m_chunks[index >> kChunkBits].m_freeStacks : nullptr;
        return stacks ? stacks[index & kChunkMask] : 0;
    }

    // The block at (x, addr), if any: for brushing. A linear scan (about 50 ms for ten million
    // blocks), enough for a click.
    std::optional<size_t> blockAt(XAxis axis, uint64_t x, uint64_t addr) const;

    // Building (buildBlockModel, tests): blocks are appended as they begin and closed as they end.
    size_t append(const Block& block);
    // Ends block `index` (Block::close), its chunk's span stretched to the end.
    void close(size_t index, uint64_t endNs, uint64_t endSeq, bool liveAtEnd);
    // Whether the store has room for them (known from the first chunk on).
    bool keepsFreeStacks() const { return !m_chunks.empty() && m_chunks.front().m_freeStacks; }
    void setFreeStack(size_t index, uint32_t stack) {
        m_chunks[index >> kChunkBits].m_freeStacks[index & kChunkMask] = stack;
    }
    void finish(const Summary& summary, const std::vector<uint32_t>& threads, uint64_t endNs, uint64_t endSeq,
                uint32_t stackCount);
    void setClock(XAxis clock) { m_clock = clock; }

    // What an index on disk keeps besides the blocks (model_file.hpp): the model is these and
    // its chunks.
    struct Shape {
        size_t m_size = 0;
        uint64_t m_endNs = 0, m_firstNs = 0, m_firstSeq = 0, m_endSeq = 0;
        uint32_t m_stackCount = 1;
        XAxis m_clock = XAxis::Time;
    };
    Shape shape() const { return {m_size, m_endNs, m_firstNs, m_firstSeq, m_endSeq, m_stackCount, m_clock}; }
    // A model over chunks already written (an index read back): `store` holds them, in order.
    BlockModel(std::unique_ptr<BlockStore> store, std::vector<BlockStore::Chunk> chunks, std::vector<ChunkSpan> spans,
               const Shape& shape, const Summary& summary, std::vector<uint32_t> threads);

private:
    Block& at(size_t index) { return m_chunks[index >> kChunkBits].m_blocks[index & kChunkMask]; }
    // Fixed chunks rather than one vector: growing never copies, so the peak stays at the
    // blocks themselves (a doubling vector would briefly hold 1.5 times as many).
    static constexpr size_t kChunkBits = BlockStore::kChunkBits, kChunkBlocks = BlockStore::kChunkBlocks,
                            kChunkMask = kChunkBlocks - 1;
    std::unique_ptr<BlockStore> m_store;
    std::vector<BlockStore::Chunk> m_chunks;
    std::vector<ChunkSpan> m_spans;  // by chunk
    size_t m_size = 0;
    Summary m_summary;
    std::vector<uint32_t> m_threads;
    uint64_t m_endNs = 0;
    uint64_t m_firstNs = 0, m_firstSeq = 0, m_endSeq = 0;
    uint32_t m_stackCount = 1;
    XAxis m_clock = XAxis::Time;
    StoredArray<AccessMark> m_accessMarks;
    // The summary's points, made once (accessSummary is const, and a frame's threads may ask at
    // once); behind a pointer, so that the model still moves.
    struct AccessPointsOnce {
        std::once_flag m_made;
        std::atomic<bool> m_done{false};
        StoredArray<AccessPoint> m_points;
    };
    std::unique_ptr<AccessPointsOnce> m_accessPoints = std::make_unique<AccessPointsOnce>();
    AccessTally m_accessTally;
    uint8_t m_marksInOrder = kEveryAxis;
    std::optional<std::vector<AddressRange>> m_wholeSpans;
    std::shared_ptr<const KeptModelIndex> m_keptIndex;
    std::string m_scratchFolder;
};

// Whether one of the model's access samples fell in `block` while it was live (a pass over the
// samples, not the blocks: the window asks it before an array view of the block).
bool sampledIn(const BlockModel& model, const Block& block);

// The model of a log read on as it grows (LogReader::followGrowth, asked before the first step):
// each step reads the log on (the first from its start), and modelNow() is the model
// buildBlockModel would make of the records read so far, the blocks still live closed at their
// end; made in the time the blocks take to copy, not the log to read. Owned by one thread at a
// time. With a `scratchFolder`, the blocks (those being built, and each copy's) are in unnamed
// scratch files there (scratchBlocks), and each copy's pictures make their arrays there too
// (BlockModel::scratchFolder): anonymous memory holds the live blocks, not every block.
class ModelInSteps {
public:
    ModelInSteps(LogReader& reader, XAxis clock, bool keepFreeStacks, std::string scratchFolder = "");
    ~ModelInSteps();
    ModelInSteps(const ModelInSteps&) = delete;
    ModelInSteps& operator=(const ModelInSteps&) = delete;

    // False when the log cannot be read on (ReplayInSteps::step): the caller starts anew.
    // `sketch`, when given, is told of the blocks this step reads (the first step: all of them).
    bool step(const std::function<void(double)>& progress = {}, OccupancySketch* sketch = nullptr);
    BlockModel modelNow() const;

private:
    struct State;
    std::unique_ptr<State> m_state;
};

// Reads the whole log once. Throws LogError on bad input. `progress` as in LogReader::forEachEvent.
// `keepFreeStacks`: also remember each block's freeing stack (4 bytes a block more), for the
// window's brushing; a report does not need them. `clock`: what the blocks' time words hold,
// ns (XAxis::Time) or the program's instructions (XAxis::Instructions: a full trace's; on any
// other log every block would begin at 0). `sketch`, when given, is told of the blocks as they
// begin and end, for a picture while the walk goes on (the window's loading screen).
BlockModel buildBlockModel(LogReader& reader, const std::function<void(double)>& progress = {},
                           bool keepFreeStacks = false, XAxis clock = XAxis::Time, OccupancySketch* sketch = nullptr);
// The same, its blocks in `store` (an index being written: blocksInFile keeps the freeing stacks)
// and its access samples written to `accessFile` from its start, which it closes (a scratch file
// or the index itself: AccessSpool), when not -1.
BlockModel buildBlockModel(LogReader& reader, const std::function<void(double)>& progress,
                           std::unique_ptr<BlockStore> store, XAxis clock, int accessFile = -1,
                           OccupancySketch* sketch = nullptr);

}  // namespace memlog::timeline

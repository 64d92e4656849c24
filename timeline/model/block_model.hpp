// The heap as blocks in time x address: every block from the moment it began to the moment it
// ended (or the end of the log), built in one streaming pass over the log. A block takes 40
// bytes, so ten million fit in 400 MB; the picture (render/) and, later, brushing read it.
// Nothing here draws.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "timeline/model/access_marks.hpp"
#include "timeline/base/huge_pages.hpp"
#include "timeline/replay/summary.hpp"

namespace memlog::timeline {

class LogReader;

// What x means in a picture: ns since the recording started, or the event sequence number
// (the recorder's global order, so a burst of a thousand events is a thousand units wide).
enum class XAxis : uint8_t { Time, Events };

// A stretch of the x axis, [m_from, m_to), in the units of its XAxis.
struct XWindow {
    uint64_t m_from = 0;
    uint64_t m_to = 0;
    uint64_t width() const { return m_to - m_from; }
    bool operator==(const XWindow&) const = default;
};

// One block, packed into five words (bit positions in the accessors). Limits, far beyond what
// a recording reaches: addresses below 2^48 (x86-64 user space is below 2^47), sizes below
// 16 TiB, times below 78 hours, sequence numbers below 2^40, 65,535 threads (later threads
// share the last index).
class Block {
public:
    struct Fields {
        uint64_t m_addr, m_size, m_beginNs, m_endNs, m_beginSeq, m_endSeq;
        uint32_t m_stack, m_thread;
        bool m_mapping, m_liveAtEnd;
    };
    Block() = default;
    explicit Block(const Fields& fields);

    uint64_t addr() const { return m_word[0] & kLow48; }
    uint64_t size() const { return m_word[3] & kLow44; }
    uint64_t endAddr() const { return addr() + size(); }
    uint32_t thread() const { return static_cast<uint32_t>(m_word[0] >> 48); }  // BlockModel::threads()
    uint32_t stack() const { return static_cast<uint32_t>((m_word[1] >> 48) | (m_word[2] >> 48 << 16)); }
    uint64_t beginNs() const { return m_word[1] & kLow48; }
    uint64_t endNs() const { return m_word[2] & kLow48; }
    uint64_t beginSeq() const { return m_word[4] & kLow40; }
    uint64_t endSeq() const { return (m_word[3] >> 48) | (m_word[4] >> 40 << 16); }
    bool mapping() const { return m_word[3] >> 44 & 1; }  // an anonymous mmap, not a heap block
    bool liveAtEnd() const { return m_word[3] >> 45 & 1; }  // never freed in the log
    uint64_t from(XAxis axis) const { return axis == XAxis::Time ? beginNs() : beginSeq(); }
    uint64_t to(XAxis axis) const { return axis == XAxis::Time ? endNs() : endSeq(); }
    // Whether it held an address of [addrLo, addrHi) during `window`, as address ranges count
    // it: one unit of the axis at least (a block of no time still had its place).
    bool meets(XAxis axis, XWindow window, uint64_t addrLo, uint64_t addrHi) const {
        return from(axis) < window.m_to && std::max(to(axis), from(axis) + 1) > window.m_from && endAddr() > addrLo &&
               addr() < addrHi;
    }

    // Ends the block (or marks it live at the end of the log).
    void close(uint64_t endNs, uint64_t endSeq, bool liveAtEnd);

private:
    static constexpr uint64_t kLow40 = (1ull << 40) - 1, kLow44 = (1ull << 44) - 1, kLow48 = (1ull << 48) - 1;
    uint64_t m_word[5];  // left uninitialised: chunks of blocks are written before they are read
};
static_assert(sizeof(Block) == 40);

// The bytes malloc really set aside for a request, as glibc 2.36 on x86-64 sizes its chunks
// (8 bytes of header, 16-byte steps, 24 at least; page-rounded mmapped chunks from 128 KiB,
// glibc's default threshold). An estimate: the log holds the requested size only.
uint64_t estimatedUsableSize(const Block& block);

class BlockModel {
public:
    BlockModel();
    BlockModel(BlockModel&&) noexcept;
    BlockModel& operator=(BlockModel&&) noexcept;
    ~BlockModel();

    // Blocks in the order they began.
    size_t size() const { return m_size; }
    const Block& operator[](size_t index) const { return m_chunks[index >> kChunkBits][index & kChunkMask]; }
    template <typename Visit>
    void forEach(Visit&& visit) const {
        for (size_t chunk = 0, left = m_size; left > 0; ++chunk) {
            const size_t count = left < kChunkBlocks ? left : kChunkBlocks;
            const Block* blocks = m_chunks[chunk].get();
            for (size_t i = 0; i < count; ++i) visit(blocks[i]);
            left -= count;
        }
    }

    const Summary& summary() const { return m_summary; }
    const std::vector<uint32_t>& threads() const { return m_threads; }  // thread ids by index
    uint64_t endNs() const { return m_endNs; }  // the last record of the log: live blocks end here
    // The whole log on that axis: from the first block's beginning (a program's start-up
    // before its first allocation is not worth a third of a picture) to the end of the log.
    XWindow extent(XAxis axis) const;
    uint32_t stackCount() const { return m_stackCount; }  // stack ids are below this

    // Access samples to draw over the blocks (empty until the log carries them: access_marks.hpp).
    const std::vector<AccessMark>& accessMarks() const { return m_accessMarks; }
    void setAccessMarks(std::vector<AccessMark> marks) { m_accessMarks = std::move(marks); }

    // The first block event (a begin or an end) at or after `ns`, as a sequence number: where a
    // time lands on the event axis. The end of the log when nothing comes after.
    uint64_t seqAtTime(uint64_t ns) const;

    // The stack of the call that ended block `index` (its free, or the realloc that moved it);
    // 0 for a block never freed, a free without a stack, or a model built without them.
    uint32_t freeStack(size_t index) const { return index < m_freeStacks.size() ? m_freeStacks[index] : 0; }

    // The block at (x, addr), if any: for brushing. A linear scan (about 50 ms for ten million
    // blocks), enough for a click.
    std::optional<size_t> blockAt(XAxis axis, uint64_t x, uint64_t addr) const;

    // Building (buildBlockModel, tests): blocks are appended as they begin and closed as they end.
    size_t append(const Block& block);
    Block& at(size_t index) { return m_chunks[index >> kChunkBits][index & kChunkMask]; }
    void finish(const Summary& summary, const std::vector<uint32_t>& threads, uint64_t endNs, uint64_t endSeq,
                uint32_t stackCount);
    void setFreeStacks(std::vector<uint32_t> stacks) { m_freeStacks = std::move(stacks); }

private:
    // Fixed chunks rather than one vector: growing never copies, so the peak stays at the
    // blocks themselves (a doubling vector would briefly hold 1.5 times as many).
    static constexpr size_t kChunkBits = 16, kChunkBlocks = size_t{1} << kChunkBits, kChunkMask = kChunkBlocks - 1;
    // In huge pages (timeline/base/huge_pages.hpp).
    struct FreeChunk {
        void operator()(Block* blocks) const { freeHuge(blocks, kChunkBlocks * sizeof(Block)); }
    };
    std::vector<std::unique_ptr<Block[], FreeChunk>> m_chunks;
    size_t m_size = 0;
    Summary m_summary;
    std::vector<uint32_t> m_threads;
    uint64_t m_endNs = 0;
    uint64_t m_firstNs = 0, m_firstSeq = 0, m_endSeq = 0;
    uint32_t m_stackCount = 1;
    std::vector<AccessMark> m_accessMarks;
    std::vector<uint32_t> m_freeStacks;  // by block index, when kept
};

// Reads the whole log once. Throws LogError on bad input. `progress` as in LogReader::forEachEvent.
// `keepFreeStacks`: also remember each block's freeing stack (4 bytes a block more), for the
// window's brushing; a report does not need them.
BlockModel buildBlockModel(LogReader& reader, const std::function<void(double)>& progress = {},
                           bool keepFreeStacks = false);

}  // namespace memlog::timeline

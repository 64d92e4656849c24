// Where the block model's blocks live, a chunk of 65,536 blocks at a time: anonymous memory (a
// model built to draw once), a file that grows chunk by chunk (a model written into its index on
// disk as it is built, so that building holds only the live blocks in anonymous memory), or an
// index's file mapped for reading (the page cache holds the blocks, not the process).
//
// A chunk is the blocks (40 bytes each) and, where kept, each block's freeing stack (4 bytes
// each). In a file they sit side by side, chunk after chunk, each part on a page boundary, so
// that the file an index is built into is the file it is read from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "timeline/base/stored_array.hpp"
#include "timeline/model/block.hpp"

namespace memlog::timeline {

// An index that could not be written (a full disk): the message names the file and the reason.
class IndexError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Arrays in an index file begin on a page boundary, so that a mapping of the file gives them
// their alignment: `offset` rounded up to the next.
constexpr uint64_t kIndexPage = 4096;
constexpr uint64_t pageAligned(uint64_t offset) { return (offset + kIndexPage - 1) / kIndexPage * kIndexPage; }

// Writes all of `bytes` at `offset` of the index file `fd` (`path` in errors); IndexError when
// it cannot.
void writeIndexBytes(int fd, const std::string& path, uint64_t offset, const void* bytes, size_t size);
// Reads `size` bytes at `offset` of `fd` into `bytes`, in as many calls as it takes (Linux reads
// at most 2 GiB a call: a full trace's rest is larger); false when the file ends first or a read
// fails.
bool readIndexBytes(int fd, uint64_t offset, void* bytes, size_t size);

class BlockStore {
public:
    static constexpr size_t kChunkBits = 16, kChunkBlocks = size_t{1} << kChunkBits;
    static constexpr size_t kBlockBytes = kChunkBlocks * sizeof(Block);
    static constexpr size_t kFreeStackBytes = kChunkBlocks * sizeof(uint32_t);
    static constexpr size_t kFileChunkBytes = kBlockBytes + kFreeStackBytes;  // in a file
    static_assert(kBlockBytes % 4096 == 0 && kFreeStackBytes % 4096 == 0);

    struct Chunk {
        Block* m_blocks;
        uint32_t* m_freeStacks;  // nullptr where the freeing stacks are not kept
    };

    virtual ~BlockStore() = default;
    // Room for the next chunk (throws std::bad_alloc, or IndexError).
    virtual Chunk add() = 0;
};

// Anonymous chunks in huge pages; with `freeStacks`, room for the freeing stacks too.
std::unique_ptr<BlockStore> anonymousBlocks(bool freeStacks);

// Chunks appended to the open file `fd` from offset 0 (`path` names it in errors), freeing stacks
// kept. The file's length is always a whole number of chunks.
std::unique_ptr<BlockStore> blocksInFile(int fd, std::string path);
// Chunks in an unnamed scratch file in `folder` (scratchFile), which goes with the store; anonymous
// chunks where no scratch file can be made there. Freeing stacks kept.
std::unique_ptr<BlockStore> scratchBlocks(const std::string& folder);

// The chunks side by side from `offset` in a file's mapping, read-only; the store holds the
// mapping (shared with the index's other arrays). add() is refused: a model read back does not
// grow.
class MappedBlocks final : public BlockStore {
public:
    MappedBlocks(std::shared_ptr<const FileMapping> mapping, uint64_t offset)
        : m_mapping(std::move(mapping)), m_offset(offset) {}
    Chunk add() override;
    Chunk chunk(size_t index) const;

private:
    std::shared_ptr<const FileMapping> m_mapping;
    uint64_t m_offset;
};

}  // namespace memlog::timeline

// The three homes of the model's chunks (block_store.hpp).
#include "timeline/model/block_store.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <stdexcept>
#include <type_traits>

#include "timeline/base/huge_pages.hpp"
#include "timeline/base/prefault.hpp"

namespace memlog::timeline {

static_assert(std::is_trivially_default_constructible_v<Block> && std::is_trivially_destructible_v<Block>);

namespace {

class AnonymousBlocks final : public BlockStore {
public:
    explicit AnonymousBlocks(bool freeStacks) : m_freeStacks(freeStacks) {}
    ~AnonymousBlocks() override {
        for (const Chunk& chunk : m_chunks) {
            freeHuge(chunk.m_blocks, kBlockBytes);
            if (chunk.m_freeStacks) freeHuge(chunk.m_freeStacks, kFreeStackBytes);
        }
    }

    Chunk add() override {
        m_chunks.reserve(m_chunks.size() + 1);  // a failure below then leaks nothing
        void* blocks = allocateHuge(kBlockBytes);
        if (!blocks) throw std::bad_alloc();
        prefault(blocks, kBlockBytes);
        void* stacks = nullptr;
        if (m_freeStacks && !(stacks = allocateHuge(kFreeStackBytes))) {  // zeroed: no stack until freed
            freeHuge(blocks, kBlockBytes);
            throw std::bad_alloc();
        }
        m_chunks.push_back({static_cast<Block*>(blocks), static_cast<uint32_t*>(stacks)});
        return m_chunks.back();
    }

private:
    bool m_freeStacks;
    std::vector<Chunk> m_chunks;
};

class FileBlocks final : public BlockStore {
public:
    // `owned`: the store closes `fd` when it goes (a scratch file, which goes with it).
    FileBlocks(int fd, std::string path, bool owned = false) : m_fd(fd), m_path(std::move(path)), m_owned(owned) {}
    ~FileBlocks() override {
        for (void* chunk : m_mapped) munmap(chunk, kFileChunkBytes);
        if (m_owned) close(m_fd);
    }

    Chunk add() override {
        const off_t offset = static_cast<off_t>(m_mapped.size() * kFileChunkBytes);
        m_mapped.reserve(m_mapped.size() + 1);
        // The file grows by a chunk of zeros (the freeing stacks start 0), its disk blocks taken
        // now: a full disk is an error here, where a hole filled through the mapping would be
        // SIGBUS at the first write.
        if (const int error = posix_fallocate(m_fd, offset, static_cast<off_t>(kFileChunkBytes)); error != 0) {
            errno = error;
            fail("cannot grow");
        }
        void* chunk = mmap(nullptr, kFileChunkBytes, PROT_READ | PROT_WRITE, MAP_SHARED, m_fd, offset);
        if (chunk == MAP_FAILED) fail("cannot map");
        m_mapped.push_back(chunk);
        auto* bytes = static_cast<unsigned char*>(chunk);
        return {reinterpret_cast<Block*>(bytes), reinterpret_cast<uint32_t*>(bytes + kBlockBytes)};
    }

private:
    [[noreturn]] void fail(const char* what) const {
        throw IndexError(m_path + ": " + what + " the index: " + std::strerror(errno));
    }
    int m_fd;
    std::string m_path;
    bool m_owned;
    std::vector<void*> m_mapped;
};

}  // namespace

void writeIndexBytes(int fd, const std::string& path, uint64_t offset, const void* bytes, size_t size) {
    const auto* at = static_cast<const unsigned char*>(bytes);
    while (size > 0) {
        const ssize_t wrote = pwrite(fd, at, size, static_cast<off_t>(offset));
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) throw IndexError(path + ": cannot write the index: " + std::strerror(errno));
        at += wrote;
        size -= static_cast<size_t>(wrote);
        offset += static_cast<uint64_t>(wrote);
    }
}

bool readIndexBytes(int fd, uint64_t offset, void* bytes, size_t size) {
    auto* at = static_cast<unsigned char*>(bytes);
    while (size > 0) {
        const ssize_t got = pread(fd, at, size, static_cast<off_t>(offset));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        at += got;
        size -= static_cast<size_t>(got);
        offset += static_cast<uint64_t>(got);
    }
    return true;
}

std::unique_ptr<BlockStore> anonymousBlocks(bool freeStacks) { return std::make_unique<AnonymousBlocks>(freeStacks); }

std::unique_ptr<BlockStore> blocksInFile(int fd, std::string path) {
    return std::make_unique<FileBlocks>(fd, std::move(path));
}

std::unique_ptr<BlockStore> scratchBlocks(const std::string& folder) {
    const int fd = scratchFile(folder);
    if (fd < 0) return anonymousBlocks(true);
    return std::make_unique<FileBlocks>(fd, folder + "/(a scratch file)", true);
}

BlockStore::Chunk MappedBlocks::add() { throw std::logic_error("a model read from its index does not grow"); }

BlockStore::Chunk MappedBlocks::chunk(size_t index) const {
    auto* bytes = const_cast<unsigned char*>(m_mapping->data()) + m_offset + index * kFileChunkBytes;  // read-only
    return {reinterpret_cast<Block*>(bytes), reinterpret_cast<uint32_t*>(bytes + kBlockBytes)};
}

}  // namespace memlog::timeline

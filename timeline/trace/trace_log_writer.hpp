// Writes accesses into a new .memlog log of accesses alone (an imported trace, memlog import) as
// a stream, chunks of kChunkBytes written as they fill and the header last.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "memlog/format.hpp"

namespace memlog::timeline {

class TraceLogWriter {
public:
    static constexpr uint32_t kChunkBytes = 64 * 1024;

    // Creates `path` (replacing it); throws std::runtime_error naming the path when it cannot.
    // `program` and `origin` go into the header (the program's name, and where the trace came
    // from, which `memlog stat` shows).
    TraceLogWriter(const std::string& path, const std::string& program, const std::string& origin);
    ~TraceLogWriter();
    TraceLogWriter(const TraceLogWriter&) = delete;
    TraceLogWriter& operator=(const TraceLogWriter&) = delete;

    // Appends an access of thread `tid`; its m_seq and m_tsc must not go backwards.
    void add(uint32_t tid, const format::AccessRecord& record);
    // Writes the last chunk and the header; throws std::runtime_error when the disk refuses.
    void finish();

private:
    void flushChunk();
    void writeAt(uint64_t offset, const void* data, size_t bytes);

    std::string m_path;
    std::FILE* m_file = nullptr;
    format::FileHeader m_header{};
    std::vector<uint8_t> m_chunk;
    uint32_t m_chunkTid = 0;
    format::ChunkCursorState m_deltas{};
    uint64_t m_offset = format::kHeaderBytes;
    uint64_t m_lastTsc = 0;
    bool m_finished = false;
};

}  // namespace memlog::timeline

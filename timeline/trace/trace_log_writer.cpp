#include "timeline/trace/trace_log_writer.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace memlog::timeline {

TraceLogWriter::TraceLogWriter(const std::string& path, const std::string& program, const std::string& origin)
    : m_path(path) {
    m_file = std::fopen(path.c_str(), "wb");
    if (!m_file) throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
    std::memcpy(m_header.m_magic, format::kMagic, sizeof m_header.m_magic);
    m_header.m_version = format::kFormatVersion;
    m_header.m_headerBytes = format::kHeaderBytes;
    m_header.m_endReason = format::EndReason::Exit;
    m_header.m_tscPerNsQ32 = 1ull << 32;  // timestamps are nanoseconds already
    m_header.m_accessSampler = format::AccessSampler::FullTrace;
    std::strncpy(m_header.m_exe, program.c_str(), sizeof m_header.m_exe - 1);
    std::strncpy(m_header.m_commandLine, origin.c_str(), sizeof m_header.m_commandLine - 1);
    m_chunk.reserve(kChunkBytes);
}

TraceLogWriter::~TraceLogWriter() {
    if (m_file) std::fclose(m_file);
}

void TraceLogWriter::writeAt(uint64_t offset, const void* data, size_t bytes) {
    if (std::fseek(m_file, static_cast<long>(offset), SEEK_SET) != 0 || std::fwrite(data, 1, bytes, m_file) != bytes)
        throw std::runtime_error("cannot write " + m_path + ": " + std::strerror(errno));
}

void TraceLogWriter::flushChunk() {
    if (m_chunk.empty()) return;
    std::vector<uint8_t> page(kChunkBytes, 0);
    const format::ChunkHeader header{format::kChunkMagic, kChunkBytes, m_chunkTid, 0};
    std::memcpy(page.data(), &header, sizeof header);
    std::memcpy(page.data() + sizeof header, m_chunk.data(), m_chunk.size());
    writeAt(m_offset, page.data(), page.size());
    m_offset += kChunkBytes;
    m_chunk.clear();
    m_deltas = {};
}

void TraceLogWriter::add(uint32_t tid, const format::AccessRecord& record) {
    if (tid != m_chunkTid) flushChunk();  // a chunk holds one thread's records
    m_chunkTid = tid;
    uint8_t buffer[format::kMaxAccessRecordBytes];
    uint8_t* end = format::encodeAccessPayload(buffer, record, m_deltas);
    if (m_chunk.size() + static_cast<size_t>(end - buffer) > kChunkBytes - sizeof(format::ChunkHeader)) {
        flushChunk();
        m_chunkTid = tid;
        end = format::encodeAccessPayload(buffer, record, m_deltas);
    }
    buffer[0] = static_cast<uint8_t>(format::Kind::Access);
    m_chunk.insert(m_chunk.end(), buffer, end);
    ++m_header.m_accessCounters.m_samples;
    m_lastTsc = record.m_tsc;
}

void TraceLogWriter::finish() {
    if (m_finished) return;
    flushChunk();
    m_header.m_dataEnd = m_offset;
    m_header.m_flags = format::kFlagCleanEnd;  // the trace is all there is; its times are nanoseconds
    m_header.m_endTsc = m_lastTsc;
    m_header.m_endNs = m_lastTsc;
    std::vector<uint8_t> page(format::kHeaderBytes, 0);
    std::memcpy(page.data(), &m_header, sizeof m_header);
    writeAt(0, page.data(), page.size());
    if (std::fflush(m_file) != 0) throw std::runtime_error("cannot write " + m_path + ": " + std::strerror(errno));
    m_finished = true;
}

}  // namespace memlog::timeline

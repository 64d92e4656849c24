// LogBuilder: chunk layout as the recorder makes it, records encoded by format.hpp.
#include "log_builder.hpp"

#include <cstring>
#include <fstream>
#include <stdexcept>

namespace memlog::test {

using format::Kind;

LogBuilder::LogBuilder() {
    std::memcpy(m_header.m_magic, format::kMagic, sizeof m_header.m_magic);
    m_header.m_version = format::kFormatVersion;
    m_header.m_headerBytes = format::kHeaderBytes;
    m_header.m_flags = format::kFlagCleanEnd;
    m_header.m_pid = 4242;
    m_header.m_endReason = format::EndReason::Exit;
    m_header.m_tscPerNsQ32 = 1ull << 32;  // 1 tick per ns
    std::strcpy(m_header.m_exe, "/usr/bin/synthetic");
}

LogBuilder::Thread& LogBuilder::thread(uint32_t tid, uint32_t chunkBytes) {
    auto [it, added] = m_threads.try_emplace(tid);
    if (added) {
        it->second.m_chunkBytes = chunkBytes;
        m_order.push_back(tid);
    }
    return it->second;
}

LogBuilder::Thread& LogBuilder::traceStream(uint32_t tid, uint32_t chunkBytes) {
    const uint64_t key = uint64_t{format::kTraceStream} << 32 | tid;
    auto [it, added] = m_threads.try_emplace(key);
    if (added) {
        it->second.m_chunkBytes = chunkBytes;
        m_order.push_back(key);
    }
    return it->second;
}

LogBuilder::Thread& LogBuilder::Thread::raw(const std::vector<uint8_t>& record) {
    append(record.data(), record.data() + record.size());
    return *this;
}

void LogBuilder::Thread::append(const uint8_t* begin, const uint8_t* end) {
    const size_t bytes = static_cast<size_t>(end - begin);
    if (m_chunks.empty() || m_chunks.back().size() + bytes > m_chunkBytes - sizeof(format::ChunkHeader)) {
        m_chunks.emplace_back();
        m_deltas = {};  // a chunk starts its deltas afresh (these records carry none)
    }
    m_chunks.back().insert(m_chunks.back().end(), begin, end);
}

void LogBuilder::Thread::appendRecord(Kind kind,
                                      const std::function<uint8_t*(uint8_t*, format::ChunkCursorState&)>& encode) {
    uint8_t buffer[256];
    buffer[0] = static_cast<uint8_t>(kind);
    uint8_t* end = encode(buffer, m_deltas);
    if (m_chunks.empty() ||
        m_chunks.back().size() + static_cast<size_t>(end - buffer) > m_chunkBytes - sizeof(format::ChunkHeader)) {
        m_chunks.emplace_back();
        m_deltas = {};
        buffer[0] = static_cast<uint8_t>(kind);
        end = encode(buffer, m_deltas);
    }
    m_chunks.back().insert(m_chunks.back().end(), buffer, end);
}

LogBuilder::Thread& LogBuilder::Thread::heap(const format::HeapRecord& record) {
    appendRecord(record.m_kind, [&](uint8_t* out, format::ChunkCursorState& deltas) {
        const format::EncodedHeapRecord encoded = format::encodeHeapPayload(out, record, deltas);
        out[0] = encoded.m_tag;
        return encoded.m_end;
    });
    return *this;
}

LogBuilder::Thread& LogBuilder::Thread::malloc(uint64_t seq, uint64_t addr, uint64_t size, uint32_t stack) {
    format::HeapRecord record;
    record.m_kind = Kind::Malloc;
    record.m_seq = seq;
    record.m_tsc = seq * kTicksPerSeq;
    record.m_addr = addr;
    record.m_size = size;
    record.m_stack = stack;
    return heap(record);
}

LogBuilder::Thread& LogBuilder::Thread::free(uint64_t seq, uint64_t addr, uint32_t stack) {
    format::HeapRecord record;
    record.m_kind = Kind::Free;
    record.m_seq = seq;
    record.m_tsc = seq * kTicksPerSeq;
    record.m_addr = addr;
    record.m_stack = stack;
    return heap(record);
}

LogBuilder::Thread& LogBuilder::Thread::access(const format::AccessRecord& given) {
    format::AccessRecord record = given;
    if (record.m_tsc == 0) record.m_tsc = record.m_seq * kTicksPerSeq;
    appendRecord(Kind::Access, [&](uint8_t* out, format::ChunkCursorState& deltas) {
        return format::encodeAccessPayload(out, record, deltas);
    });
    return *this;
}

namespace {

format::AccessRecord tickSample(uint64_t seq, uint64_t addr, format::AccessKind kind, uint32_t stack) {
    format::AccessRecord record;
    record.m_seq = seq;
    record.m_addr = addr;
    record.m_size = 8;
    record.m_kind = kind;
    record.m_ip = (kind == format::AccessKind::Read ? 0x401000 : 0x402000) + (addr & 0xfff);
    record.m_stack = stack;
    return record;
}

format::AccessRecord watchedSample(uint64_t seq, uint64_t blockSeq, uint64_t blockStart, uint64_t offset,
                                   format::AccessKind kind) {
    format::AccessRecord record = tickSample(seq, blockStart + offset, kind, 0);
    record.m_blockSeq = blockSeq;
    record.m_offset = offset;
    return record;
}

}  // namespace

LogBuilder::Thread& LogBuilder::Thread::read(uint64_t seq, uint64_t addr, uint32_t stack) {
    return access(tickSample(seq, addr, format::AccessKind::Read, stack));
}

LogBuilder::Thread& LogBuilder::Thread::write(uint64_t seq, uint64_t addr, uint32_t stack) {
    return access(tickSample(seq, addr, format::AccessKind::Write, stack));
}

LogBuilder::Thread& LogBuilder::Thread::threadStack(uint64_t lo, uint64_t hi) {
    appendRecord(Kind::ThreadStack,
                 [&](uint8_t* out, format::ChunkCursorState&) { return format::encodeRangePayload(out, lo, hi); });
    return *this;
}

LogBuilder::Thread& LogBuilder::Thread::accessVersion2(const format::AccessRecord& given) {
    format::AccessRecord record = given;
    if (record.m_tsc == 0) record.m_tsc = record.m_seq * kTicksPerSeq;
    appendRecord(Kind::Access, [&](uint8_t* out, format::ChunkCursorState& deltas) {
        return format::encodeAccessPayloadVersion2(out, record, deltas);
    });
    return *this;
}

LogBuilder::Thread& LogBuilder::Thread::readVersion2(uint64_t seq, uint64_t blockSeq, uint64_t blockStart,
                                                     uint64_t offset) {
    return accessVersion2(watchedSample(seq, blockSeq, blockStart, offset, format::AccessKind::Read));
}

LogBuilder::Thread& LogBuilder::Thread::writeVersion2(uint64_t seq, uint64_t blockSeq, uint64_t blockStart,
                                                      uint64_t offset) {
    return accessVersion2(watchedSample(seq, blockSeq, blockStart, offset, format::AccessKind::Write));
}

LogBuilder::Thread& LogBuilder::Thread::stack(uint64_t id, const std::vector<uint64_t>& frames) {
    std::vector<uint8_t> buffer(format::stackRecordMaxBytes(static_cast<uint32_t>(frames.size())));
    uint8_t* end = format::encodeStackPayload(buffer.data(), id, frames.data(), static_cast<uint32_t>(frames.size()));
    buffer[0] = static_cast<uint8_t>(Kind::Stack);
    append(buffer.data(), end);
    return *this;
}

LogBuilder::Thread& LogBuilder::Thread::lost(uint64_t count) {
    uint8_t buffer[16];
    buffer[0] = static_cast<uint8_t>(Kind::Lost);
    uint8_t* end = format::putVarint(buffer + 1, count);
    append(buffer, end);
    return *this;
}

LogBuilder::Thread& LogBuilder::Thread::module(const std::string& path, uint64_t base, uint64_t lo, uint64_t hi) {
    format::ModuleView view;
    view.m_base = base;
    view.m_lo = lo;
    view.m_hi = hi;
    view.m_path = path.data();
    view.m_pathBytes = static_cast<uint32_t>(path.size());
    std::vector<uint8_t> buffer(format::moduleRecordMaxBytes(view.m_pathBytes, 0));
    uint8_t* end = format::encodeModulePayload(buffer.data(), view);
    buffer[0] = static_cast<uint8_t>(Kind::Module);
    append(buffer.data(), end);
    return *this;
}

LogBuilder::Thread& LogBuilder::Thread::threadExit(uint64_t seq) {
    uint8_t buffer[32];
    if (m_chunks.empty()) m_chunks.emplace_back();
    uint8_t* end = format::encodeMarkPayload(buffer, seq, seq * kTicksPerSeq, m_deltas);
    buffer[0] = static_cast<uint8_t>(Kind::ThreadExit);
    m_chunks.back().insert(m_chunks.back().end(), buffer, end);
    return *this;
}

std::vector<uint8_t> LogBuilder::bytes() const {
    std::vector<uint8_t> file(format::kHeaderBytes, 0);
    std::memcpy(file.data(), &m_header, sizeof m_header);
    // Chunks in round-robin order over threads, as concurrent threads would reserve them.
    for (size_t round = 0;; ++round) {
        bool any = false;
        for (const uint64_t key : m_order) {
            const Thread& thread = m_threads.at(key);
            const auto tid = static_cast<uint32_t>(key), stream = static_cast<uint32_t>(key >> 32);
            if (round >= thread.m_chunks.size()) continue;
            any = true;
            const size_t start = file.size();
            file.resize(start + thread.m_chunkBytes, 0);
            format::ChunkHeader header{format::kChunkMagic, thread.m_chunkBytes, tid, stream};
            std::memcpy(file.data() + start, &header, sizeof header);
            const auto& payload = thread.m_chunks[round];
            std::memcpy(file.data() + start + sizeof header, payload.data(), payload.size());
        }
        if (!any) break;
    }
    return file;
}

void LogBuilder::write(const std::string& path) const {
    const std::vector<uint8_t> data = bytes();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
    if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace memlog::test

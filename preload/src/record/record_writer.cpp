// Per-thread chunks: the first is 4 KiB, the second 16 KiB, then 64 KiB each. Small first chunks
// keep thousands of short threads from filling the file with empty space; 64 KiB later keeps
// the atomic reservation rare (one per several thousand events).
#include "record/record_writer.hpp"

#include <cstring>

#include "base/header_field.hpp"
#include "base/system.hpp"
#include "start/log_file.hpp"
#include "start/process_events.hpp"

namespace memlog::preload {
namespace {

LogFile* s_file = nullptr;

uint32_t chunkBytesFor(uint32_t chunksSoFar, uint32_t needed) {
    uint32_t bytes = chunksSoFar == 0 ? 4096 : chunksSoFar == 1 ? 16384 : 65536;
    const uint32_t minimum = needed + sizeof(format::ChunkHeader);
    while (bytes < minimum) bytes *= 2;
    return bytes;
}

[[gnu::noinline]] uint8_t* openChunk(ThreadState& thread, uint32_t maxBytes) {
    ThreadState::Writer& writer = thread.m_writer;
    writer.m_cursor = writer.m_limit = nullptr;
    if (!s_file) return nullptr;
    const uint32_t bytes = chunkBytesFor(writer.m_chunks, maxBytes);
    uint8_t* chunk = s_file->reserveChunk(bytes);
    if (!chunk) return nullptr;
    if (thread.m_tid == 0) thread.m_tid = sys::threadId();
    if (writer.m_chunks == 0) noteThreadStarted();
    auto* header = reinterpret_cast<format::ChunkHeader*>(chunk);
    header->m_bytes = bytes;
    header->m_tid = thread.m_tid;
    header->m_reserved = 0;
    __atomic_store_n(headerField(&header->m_magic), format::kChunkMagic, __ATOMIC_RELEASE);  // valid last
    writer.m_chunks++;
    writer.m_deltas = {};
    writer.m_cursor = chunk + sizeof(format::ChunkHeader);
    writer.m_limit = chunk + bytes;
    return writer.m_cursor;
}

}  // namespace

void attachWriter(LogFile* file) { s_file = file; }

uint8_t* beginRecordInNewChunk(ThreadState& thread, uint32_t maxBytes) {
    uint8_t* room = openChunk(thread, maxBytes);
    if (!room) countLostEvent();
    return room;
}

uint8_t* beginMetaRecord(ThreadState& thread, uint32_t maxBytes) {
    const ThreadState::Writer& writer = thread.m_writer;
    if (static_cast<uint32_t>(writer.m_limit - writer.m_cursor) >= maxBytes && writer.m_cursor) [[likely]]
        return writer.m_cursor;
    uint8_t* room = openChunk(thread, maxBytes);
    if (!room && s_file) __atomic_fetch_add(headerField(&s_file->header()->m_lostMetaRecords), 1, __ATOMIC_RELAXED);
    return room;
}

void countLostEvent() {
    if (s_file) __atomic_fetch_add(headerField(&s_file->header()->m_lostEvents), 1, __ATOMIC_RELAXED);
}

void countInHeader(uint64_t format::FileHeader::*counter) {
    if (s_file) __atomic_fetch_add(&(s_file->header()->*counter), 1, __ATOMIC_RELAXED);
}

}  // namespace memlog::preload

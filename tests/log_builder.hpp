// Writes synthetic .memlog files through the real format encoders, for tests that need exact,
// hand-made logs: torn and corrupt files, known geometry, interleaved threads.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "memlog/format.hpp"

namespace memlog::test {

class LogBuilder {
public:
    // Records of one thread, in the order added; chunks are cut at `chunkBytes`.
    class Thread {
    public:
        Thread& heap(const format::HeapRecord& record);
        Thread& malloc(uint64_t seq, uint64_t addr, uint64_t size, uint32_t stack = 0);
        Thread& free(uint64_t seq, uint64_t addr, uint32_t stack = 0);
        Thread& access(const format::AccessRecord& record);  // m_tsc 0: seq * kTicksPerSeq
        // A tick's 8-byte read or write at addr; ip 0x401000 (reads) or 0x402000 (writes) plus
        // the address's low 12 bits.
        Thread& read(uint64_t seq, uint64_t addr, uint32_t stack = 0);
        Thread& write(uint64_t seq, uint64_t addr, uint32_t stack = 0);
        Thread& threadStack(uint64_t lo, uint64_t hi);
        // Version 2 logs (set header().m_version = 2): samples that name their block.
        Thread& accessVersion2(const format::AccessRecord& record);
        Thread& readVersion2(uint64_t seq, uint64_t blockSeq, uint64_t blockStart, uint64_t offset);
        Thread& writeVersion2(uint64_t seq, uint64_t blockSeq, uint64_t blockStart, uint64_t offset);
        Thread& stack(uint64_t id, const std::vector<uint64_t>& frames);
        Thread& lost(uint64_t count);
        // One object of the module map the thread's last ModuleMap record began (none: the first).
        Thread& module(const std::string& path, uint64_t base, uint64_t lo, uint64_t hi);
        Thread& threadExit(uint64_t seq);
        // A record's bytes as they are (a full trace's: its stream's state runs on across chunks).
        Thread& raw(const std::vector<uint8_t>& record);

    private:
        friend class LogBuilder;
        void append(const uint8_t* begin, const uint8_t* end);
        // A record whose payload `encode` writes with this chunk's deltas after out[0], which holds
        // `kind` (a heap record's encoder adds its tag's flags there): encoded once to learn its
        // size and again, in a new chunk, when it does not fit.
        void appendRecord(format::Kind kind, const std::function<uint8_t*(uint8_t*, format::ChunkCursorState&)>& encode);
        std::vector<std::vector<uint8_t>> m_chunks;  // payload bytes of each chunk
        format::ChunkCursorState m_deltas;
        uint32_t m_chunkBytes = 4096;
    };

    LogBuilder();
    format::FileHeader& header() { return m_header; }
    Thread& thread(uint32_t tid, uint32_t chunkBytes = 4096);
    // Thread `tid`'s full-trace stream (chunks marked format::kTraceStream), beside its recorder's.
    Thread& traceStream(uint32_t tid, uint32_t chunkBytes = 4096);

    // Timestamps: each record's TSC is its sequence number times this (1 tick = 1 ns by default).
    static constexpr uint64_t kTicksPerSeq = 1000;

    std::vector<uint8_t> bytes() const;  // the whole file
    void write(const std::string& path) const;

private:
    format::FileHeader m_header{};
    // By stream << 32 | tid.
    std::map<uint64_t, Thread> m_threads;
    std::vector<uint64_t> m_order;  // chunk order in the file: round robin over threads' streams
};

}  // namespace memlog::test

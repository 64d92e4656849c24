// The output file: created new, mapped MAP_SHARED into one reserved range of address space, and
// handed out to threads in page-aligned chunks. Stores into the mapping are the log: nothing is
// buffered in the process, so a crash or kill -9 loses at most the record being written.
#pragma once

#include <atomic>
#include <cstdint>

#include "memlog/format.hpp"

namespace memlog::preload {

class LogFile {
public:
    // Creates the file named by `path`, or a numbered neighbour when it exists. Writes the chosen
    // name into `chosen`. Returns false, with the reason in `error`, when nothing could be created.
    bool create(const char* path, char* chosen, uint32_t chosenCapacity, const char** error);

    format::FileHeader* header() { return reinterpret_cast<format::FileHeader*>(m_base); }

    // A chunk of `bytes` (a multiple of the page size) at the tail, or nullptr when the file
    // cannot grow (disk full, address range exhausted). Lock-free unless the mapping must grow.
    uint8_t* reserveChunk(uint32_t bytes);

    // A clean end: cuts the file to the data written so far. Threads that still record later
    // grow it again through the slow path.
    void trimToData();
    uint64_t dataEnd() const { return m_tail.load(std::memory_order_acquire) & ~kClosed; }
    // The tail itself, for memlog's Valgrind tool (full_trace.hpp), which reserves its chunks by
    // adding to it between the program's instructions, never during one.
    uint64_t* tailWord() { return reinterpret_cast<uint64_t*>(&m_tail); }

    // In a fork child: forget the parent's file without touching it.
    void abandon();

    // A full trace: most of the file is the Valgrind tool's chunks, which this process maps as
    // the file grows but never touches; faulting them in ahead (as growth does otherwise) would
    // make the whole trace resident in the traced process (155 MB for sqlite3's 2-second trace).
    void leaveUnpopulated() { m_populate = false; }

private:
    uint8_t* reserveSlow(uint32_t bytes);
    bool growTo(uint64_t end);
    void lock();
    void unlock();

    static constexpr uint64_t kClosed = 1ull << 63;  // set in m_tail by trimToData
    int m_fd = -1;
    uint8_t* m_base = nullptr;
    uint64_t m_capacity = 0;             // bytes of reserved address space
    std::atomic<uint64_t> m_tail{0};     // next free file offset (| kClosed after a trim)
    static_assert(sizeof(std::atomic<uint64_t>) == sizeof(uint64_t));
    std::atomic<uint64_t> m_mapped{0};   // file bytes mapped and backed
    std::atomic<int> m_growLock{0};
    bool m_populate = true;
};

}  // namespace memlog::preload

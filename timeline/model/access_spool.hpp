// The access samples as a walk makes them, one after another: in the process's memory, or,
// given a file (a scratch file, or the index being written), written to it from its start in
// batches and mapped back read-only once the walk is done. A full trace makes gigabytes of them:
// an array growing in a mapped file had the kernel zero every page it touched, twice over as it
// doubled (a third of indexing sqlite3's trace).
#pragma once

#include <cassert>

#include <cstddef>
#include <vector>

#include "timeline/base/huge_pages.hpp"
#include "timeline/base/stored_array.hpp"
#include "timeline/model/access_marks.hpp"

namespace memlog::timeline {

class AccessSpool {
public:
    // `fd`: an empty file's descriptor, this spool's own from now on (closed when it is done), or -1.
    explicit AccessSpool(int fd = -1) : m_fd(fd) {}
    ~AccessSpool();
    AccessSpool(const AccessSpool&) = delete;
    AccessSpool& operator=(const AccessSpool&) = delete;

    void push(const AccessMark& mark);
    size_t size() const { return m_memory.size() + m_written + m_batch.size(); }

    // Every sample pushed, mapped from the file or in memory. A file that cannot be written or
    // mapped back leaves them in memory, as without one.
    StoredArray<AccessMark> finish();
    // A copy of the samples pushed so far, the spool going on (a model built in steps); only a
    // spool without a file.
    StoredArray<AccessMark> copySoFar() const {
        assert(m_fd < 0);
        return StoredArray<AccessMark>(HugeVector<AccessMark>(m_memory));
    }

private:
    // Samples written at once: 288 KiB, still in the core's cache when the kernel copies them
    // (batches of 4.5 MiB took twice the system time to index sqlite3's trace).
    static constexpr size_t kBatch = 1 << 12;
    bool flush();  // false when the file took no more: the samples are then in m_memory
    void intoMemory();  // the file's samples read back into memory, the file given up

    int m_fd;
    size_t m_written = 0;  // samples in the file
    std::vector<AccessMark> m_batch;
    HugeVector<AccessMark> m_memory;  // without a file
};

}  // namespace memlog::timeline

#include "timeline/model/access_spool.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <memory>

namespace memlog::timeline {

AccessSpool::~AccessSpool() {
    if (m_fd >= 0) close(m_fd);
}

void AccessSpool::push(const AccessMark& mark) {
    if (m_fd < 0) {
        m_memory.push_back(mark);
        return;
    }
    if (m_batch.empty()) m_batch.reserve(kBatch);
    m_batch.push_back(mark);
    if (m_batch.size() == kBatch) flush();
}

bool AccessSpool::flush() {
    const auto* bytes = reinterpret_cast<const unsigned char*>(m_batch.data());
    const size_t length = m_batch.size() * sizeof(AccessMark);
    const off_t at = static_cast<off_t>(m_written * sizeof(AccessMark));
    for (size_t done = 0; done < length;) {
        const ssize_t wrote = pwrite(m_fd, bytes + done, length - done, at + static_cast<off_t>(done));
        if (wrote <= 0) {  // a full disk: the samples go on in memory
            intoMemory();
            return false;
        }
        done += static_cast<size_t>(wrote);
    }
    m_written += m_batch.size();
    m_batch.clear();
    return true;
}

void AccessSpool::intoMemory() {
    m_memory.resize(m_written);
    const size_t length = m_written * sizeof(AccessMark);
    auto* bytes = reinterpret_cast<unsigned char*>(m_memory.data());
    for (size_t done = 0; done < length;) {
        const ssize_t got = pread(m_fd, bytes + done, length - done, static_cast<off_t>(done));
        if (got <= 0) break;  // what was written and cannot be read back is lost with the file
        done += static_cast<size_t>(got);
    }
    m_memory.insert(m_memory.end(), m_batch.begin(), m_batch.end());
    m_batch.clear();
    m_batch.shrink_to_fit();
    close(m_fd);
    m_fd = -1;
    m_written = 0;
}

StoredArray<AccessMark> AccessSpool::finish() {
    if (m_fd >= 0 && (m_batch.empty() || flush()) && m_written > 0) {
        const size_t length = m_written * sizeof(AccessMark);
        void* mapped = mmap(nullptr, length, PROT_READ, MAP_SHARED, m_fd, 0);
        if (mapped != MAP_FAILED) {
            close(m_fd);
            m_fd = -1;
            auto mapping = std::make_shared<const FileMapping>(mapped, length);
            const auto* marks = static_cast<const AccessMark*>(mapped);
            return StoredArray<AccessMark>(std::move(mapping), marks, m_written);
        }
        intoMemory();
    }
    return StoredArray<AccessMark>(std::move(m_memory));
}

}  // namespace memlog::timeline

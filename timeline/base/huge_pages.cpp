#include "timeline/base/huge_pages.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace memlog::timeline {

namespace {

std::atomic<ArrayPages> g_arrayPages{ArrayPages::Ordinary};

thread_local ArraysInFiles::Files* t_files = nullptr;

size_t wholePages(size_t bytes) {
    constexpr size_t kPage = 4096;
    return (bytes + kPage - 1) / kPage * kPage;
}

}  // namespace

void setArrayPages(ArrayPages pages) { g_arrayPages.store(pages, std::memory_order_relaxed); }

ArrayPages arrayPages() { return g_arrayPages.load(std::memory_order_relaxed); }

// The file an ArraysInFiles makes arrays in, and the stretches of it they hold.
struct ArraysInFiles::Files {
    struct Stretch {
        uintptr_t m_address;
        uint64_t m_offset, m_bytes;
        bool m_kept;
    };
    std::mutex m_mutex;  // the threads that joined it make arrays at once
    int m_fd;
    uint64_t m_end;  // guarded by m_mutex, as the stretches
    std::vector<Stretch> m_stretches;

    // A stretch of `length` bytes, mapped; nullptr when the disk has no room for it (taken first:
    // a full disk is then anonymous memory, not a SIGBUS at a later write).
    void* add(uint64_t length) {
        const std::lock_guard lock(m_mutex);
        if (posix_fallocate(m_fd, static_cast<off_t>(m_end), static_cast<off_t>(length)) != 0) return nullptr;
        void* mapped = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, m_fd, static_cast<off_t>(m_end));
        if (mapped == MAP_FAILED) return nullptr;
        m_stretches.push_back({reinterpret_cast<uintptr_t>(mapped), m_end, length, false});
        m_end += length;
        return mapped;
    }
    Stretch* find(const void* data) {
        for (Stretch& stretch : m_stretches)
            if (stretch.m_address == reinterpret_cast<uintptr_t>(data)) return &stretch;
        return nullptr;
    }
    // After `pointer`'s stretch was unmapped: its pages dropped unwritten and its blocks given
    // back, unless the index keeps it (a file system that cannot punch keeps them: the index is
    // only bigger).
    void remove(const void* pointer) {
        const std::lock_guard lock(m_mutex);
        Stretch* stretch = find(pointer);
        if (!stretch) return;
        if (!stretch->m_kept)
            fallocate(m_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(stretch->m_offset),
                      static_cast<off_t>(stretch->m_bytes));
        m_stretches.erase(m_stretches.begin() + (stretch - m_stretches.data()));
    }
};

ArraysInFiles::ArraysInFiles(int fd, uint64_t from) : m_files(std::make_unique<Files>()), m_previous(t_files) {
    m_files->m_fd = fd;
    m_files->m_end = wholePages(from);
    t_files = m_files.get();
}

ArraysInFiles::~ArraysInFiles() { t_files = m_previous; }  // arrays still mapped stay so until freed

int64_t ArraysInFiles::keep(const void* data) {
    Files* files = t_files;
    if (!files) return -1;
    const std::lock_guard lock(files->m_mutex);
    Files::Stretch* stretch = files->find(data);
    if (!stretch) return -1;
    stretch->m_kept = true;
    return static_cast<int64_t>(stretch->m_offset);
}

ArraysInFiles::Files* ArraysInFiles::current() { return t_files; }

int scratchFile(const std::string& folder) {
    const int fd = open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR)) return fd;
    std::string named = folder + "/.memlog-scratch-" + std::to_string(getpid()) + "-XXXXXX";
    const int made = mkostemp(named.data(), O_CLOEXEC);  // a file system without O_TMPFILE
    if (made >= 0) unlink(named.c_str());
    return made;
}

ScratchArrays::ScratchArrays(const std::string& folder) : m_fd(folder.empty() ? -1 : scratchFile(folder)) {
    if (m_fd >= 0) m_arrays = std::make_unique<ArraysInFiles>(m_fd, 0);
}

ScratchArrays::~ScratchArrays() {
    m_arrays.reset();
    if (m_fd >= 0) close(m_fd);
}

ArraysInFiles::Joined::Joined(Files* files) : m_previous(t_files) { t_files = files; }

ArraysInFiles::Joined::~Joined() { t_files = m_previous; }

void* allocateHuge(size_t bytes, HugeAdvice advice) {
    if (ArraysInFiles::Files* files = t_files)
        if (void* mapped = files->add(wholePages(bytes))) return mapped;
    // A huge page extra, then the unaligned ends given back: mmap aligns to 4 KiB only, and a
    // huge page must start on a 2 MiB boundary.
    const size_t length = wholePages(bytes);
    void* mapped = mmap(nullptr, length + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) return nullptr;
    const uintptr_t start = reinterpret_cast<uintptr_t>(mapped);
    const uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
    if (aligned > start) munmap(mapped, aligned - start);
    const uintptr_t end = start + length + kHugePage;
    if (end > aligned + length) munmap(reinterpret_cast<void*>(aligned + length), end - (aligned + length));
    if (advice == HugeAdvice::Always || arrayPages() == ArrayPages::HugeAndAhead)
        madvise(reinterpret_cast<void*>(aligned), length, MADV_HUGEPAGE);  // a hint: without it, small pages
    return reinterpret_cast<void*>(aligned);
}

void freeHuge(void* pointer, size_t bytes) {
    if (!pointer) return;
    munmap(pointer, wholePages(bytes));
    // A temporary of the builder's, freed by a thread that joined its file: punched out. Freed by
    // another thread (an array the index keeps, freed long after): only unmapped.
    if (ArraysInFiles::Files* files = t_files) files->remove(pointer);
}

}  // namespace memlog::timeline

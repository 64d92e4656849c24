// Memory in transparent huge pages (2 MiB) for the arrays that hold a value per block or per
// index node: the model's blocks, the index, the sorted ends, colours and bins. They are made
// once per log and read by every frame.
//
// Why: on this project's VM (software-virtualised page tables), a thread of the process that
// starts running on a core which was idle first waits, and slows the core that woke it, for
// about 20 us per MB of the process's memory mapped in 4 KiB pages. A frame's second thread
// (and the occupancy's) started 9 to 25 ms late on the 10 M block log, with about 1.2 GB
// mapped; the same arrays in 2 MiB pages leave almost nothing in small pages, and the start
// takes 0.3 ms. See docs/BENCHMARKS.md, "huge pages for the model's arrays".
//
// And the reader's table of live blocks (address_table.hpp), whatever the policy: its lookups
// land anywhere in tens of MiB, and in 4 KiB pages each also missed the TLB (`memlog stat` on a
// CPython log of 336,720 live blocks: 0.91-0.99 of the time before, medians of four series).
//
// Only these arrays: every allocation in huge pages (glibc's glibc.malloc.hugetlb=1) made
// the window's short-lived buffers fault fresh 2 MiB pages each frame, and reports took 11 ms
// instead of 1.3. Arrays smaller than kHugeFrom come from operator new, as before.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace memlog::timeline {

// The policy: whether the arrays are advised into huge pages, and mapped ahead of their first
// write (prefault.hpp). What the window's frames need on a virtualised host, so the program that
// draws chooses it (memtimeline does); off by default: a command-line tool reads a model once.
enum class ArrayPages { Ordinary, HugeAndAhead };
void setArrayPages(ArrayPages pages);
ArrayPages arrayPages();

inline constexpr size_t kHugePage = size_t{2} << 20;
inline constexpr size_t kHugeFrom = size_t{1} << 20;

// Whether an array asks for huge pages as the policy says, or always (an array read at random).
enum class HugeAdvice { ByPolicy, Always };

// While one lives, the arrays below made by this thread (and by the threads it starts with
// startOnOtherCore, other_core.hpp) are made in the file `fd` (an index being built), each in a
// stretch of it from `from` on, mapped shared, rather than in anonymous memory: the kernel pages
// them to the disk when memory is short, so that building an index takes little of the
// process's own memory however big the log. An array the index keeps (keep()) stays where it
// is, and is written no second time; the others' stretches are punched out of the file when they
// are freed, before most of their pages ever reach the disk. Where the disk has no room, an array
// is made in anonymous memory as ever. Other threads are not concerned: a window drawing while
// its loader builds an index keeps its arrays in memory.
class ArraysInFiles {
public:
    ArraysInFiles(int fd, uint64_t from);
    ~ArraysInFiles();
    ArraysInFiles(const ArraysInFiles&) = delete;
    ArraysInFiles& operator=(const ArraysInFiles&) = delete;
    // Where in the file the array at `data` begins, if this thread made it in the file; from then
    // on it is the index's, and freeing it only unmaps it. -1 when it is not in the file.
    static int64_t keep(const void* data);

    // The file of the calling thread's arrays (nullptr: none), and a thread's joining it: how
    // startOnOtherCore passes it on.
    struct Files;
    static Files* current();
    class Joined {
    public:
        explicit Joined(Files* files);
        ~Joined();
        Joined(const Joined&) = delete;
        Joined& operator=(const Joined&) = delete;

    private:
        Files* m_previous;
    };

private:
    std::unique_ptr<Files> m_files;
    Files* m_previous;
};

// An unnamed file in `folder` for arrays made in it (ArraysInFiles), gone once closed and its
// arrays unmapped; -1 when the folder takes none.
int scratchFile(const std::string& folder);

// While one lives, this thread's arrays (and those of the threads it starts) are made in a
// scratch file in `folder`: the page cache's, not the process's memory. In anonymous memory as
// ever when `folder` is "" or takes no file. The arrays outlive it; the file goes with them.
class ScratchArrays {
public:
    explicit ScratchArrays(const std::string& folder);
    ~ScratchArrays();
    ScratchArrays(const ScratchArrays&) = delete;
    ScratchArrays& operator=(const ScratchArrays&) = delete;

private:
    int m_fd = -1;
    std::unique_ptr<ArraysInFiles> m_arrays;
};

// `bytes` of zeroed memory starting on a huge page boundary (a page boundary in a file), asked to be backed by huge
// pages (a hint: a kernel without them gives ordinary pages) when `advice` or the policy says so; nullptr when mmap
// fails. Freed with freeHuge(pointer, bytes).
void* allocateHuge(size_t bytes, HugeAdvice advice = HugeAdvice::ByPolicy);
void freeHuge(void* pointer, size_t bytes);

// For std::vector: huge pages from kHugeFrom bytes on, operator new below.
template <typename T, HugeAdvice kAdvice = HugeAdvice::ByPolicy>
struct HugePageAllocator {
    using value_type = T;
    template <typename U>
    struct rebind {
        using other = HugePageAllocator<U, kAdvice>;
    };

    HugePageAllocator() = default;
    template <typename U>
    HugePageAllocator(const HugePageAllocator<U, kAdvice>&) {}

    T* allocate(size_t count) {
        const size_t bytes = count * sizeof(T);
        if (bytes < kHugeFrom) return static_cast<T*>(::operator new (bytes, std::align_val_t{alignof(T)}));
        void* memory = allocateHuge(bytes, kAdvice);
        if (!memory) throw std::bad_alloc();
        return static_cast<T*>(memory);
    }
    void deallocate(T* pointer, size_t count) {
        const size_t bytes = count * sizeof(T);
        if (bytes < kHugeFrom)
            ::operator delete (pointer, std::align_val_t{alignof(T)});
        else
            freeHuge(pointer, bytes);
    }

    template <typename U>
    bool operator==(const HugePageAllocator<U, kAdvice>&) const {
        return true;
    }
};

template <typename T>
using HugeVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace memlog::timeline

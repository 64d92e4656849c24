// A coarse picture of the heap made while a log is still being read, for the window to show
// under its loading bar: the bytes of the blocks live in each address region (a page at first)
// at the end of each column of x (the model's clock, or the sequence). A block adds its bytes to
// the column it begins in and takes them away in the column it ends in, so it costs the walk two
// additions a region it covers, whatever its length.
//
// Bounded whatever the log's size: at most kRows regions and kColumns columns. Past them, the
// regions are merged in pairs (each twice as many bytes) and so are the columns (each twice as
// wide); counting where blocks begin and end, not their differences, keeps the pairs exact.
//
// The walk adds (one thread); every quarter second it publishes a Picture, which the window
// takes from another thread: the lock is taken only then.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "timeline/model/x_axis.hpp"

namespace memlog::timeline {

class OccupancySketch {
public:
    static constexpr size_t kColumns = 512;
    static constexpr size_t kRows = 1024;
    // Regions begin at a page, so that a small heap is seen in detail; a large one merges them.
    static constexpr unsigned kFirstRegionShift = 12;

    // What the window draws: rows of regions in address order, columns from x = 0.
    struct Picture {
        std::vector<uint64_t> m_regions;  // each row's first address, ascending
        uint64_t m_regionBytes = 0;
        uint64_t m_columnWidth = 0;  // x a column spans
        size_t m_columns = 0;  // columns up to the last x seen
        // rows x m_columns: the bytes of the blocks live at the column's end (a block begun and
        // ended within one column is not among them, as it is a sliver in the picture)
        std::vector<uint64_t> m_bytes;
        uint64_t m_lastX = 0;
        double m_read = 0;  // the share of the log read when it was published
        uint64_t bytes(size_t row, size_t column) const { return m_bytes[row * m_columns + column]; }
    };

    explicit OccupancySketch(XAxis axis) : m_axis(axis) {}
    OccupancySketch(const OccupancySketch&) = delete;
    OccupancySketch& operator=(const OccupancySketch&) = delete;

    // Which x the walk gives: XAxis::Events the changes' sequence numbers, else the model's clock.
    XAxis axis() const { return m_axis; }

    // On the walk's thread. A block of `size` bytes at `addr` began at `x`, or ended at `x`
    // (never before it began).
    void begin(uint64_t addr, uint64_t size, uint64_t x) { add(addr, size, x, 0); }
    void end(uint64_t addr, uint64_t size, uint64_t x) { add(addr, size, x, 1); }
    // Something else was read (an access sample): a picture is published when a quarter second
    // has passed since the last, also through a stretch of the log without blocks.
    void tick() {
        if (++m_changes % kChangesBetweenLooks == 0) publishIfDue();
    }
    // The walk is done: its last picture, published now.
    void finish();

    // The share of the log read so far, from any thread (the reader's progress).
    void read(double fraction) { m_read.store(fraction); }

    // The last picture published; null before the first.
    std::shared_ptr<const Picture> picture() const;

private:
    // How often the walk looks at the clock: about every millisecond at the walk's pace.
    static constexpr uint32_t kChangesBetweenLooks = 4096;

    void add(uint64_t addr, uint64_t size, uint64_t x, size_t which);
    size_t rowOf(uint64_t addr);
    void addRow(size_t slot, uint64_t region);
    void widenColumns(uint64_t x);
    void mergeRegions();
    void publishIfDue();
    void publish();

    XAxis m_axis;
    unsigned m_regionShift = kFirstRegionShift;
    unsigned m_columnShift = 0;
    uint64_t m_lastX = 0;
    // Rows numbered in the order their regions (addresses >> m_regionShift) were first met.
    std::vector<uint64_t> m_regions;
    // Column by column, row by row: the bytes begun there, then the bytes ended. A column's rows
    // side by side: the walk's blocks at one moment fall all over the heap, and its counts then
    // share a few cache lines, not one 4 KiB apart each. Made at the first block (8 MiB).
    std::vector<uint64_t> m_counts;
    // Each region's row: open addressing over twice kRows slots, each probe a multiplication and
    // a compare (finding rows was 0.09 s of the 0.3 s the sketch adds to 10^7 blocks' walk).
    static constexpr size_t kSlots = 2 * kRows;
    struct Slot {
        uint64_t m_region = UINT64_MAX;
        uint32_t m_row = 0;
    };
    std::vector<Slot> m_slots = std::vector<Slot>(kSlots);
    size_t slotOf(uint64_t region) const;
    uint64_t m_lastRegion = UINT64_MAX;
    uint32_t m_lastRow = 0;
    uint32_t m_changes = 0;

    std::atomic<double> m_read{0};
    std::chrono::steady_clock::time_point m_publishedAt{};
    mutable std::mutex m_lock;
    std::shared_ptr<const Picture> m_picture;
};

}  // namespace memlog::timeline

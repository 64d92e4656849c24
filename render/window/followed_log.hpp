// The log the window shows and follows: its first read and, with --follow, its reads again as it
// grows, each on the loader's thread behind the window's own; what is wrong with it said once
// however often it is read; and the log a page was made of, kept while that page shows it. No
// SDL: times are the caller's milliseconds (tests/render/test_window_parts.cpp). An index kept
// on disk, built behind a progress bar, plugs in at read() and take().
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>

#include "render/window/loaded_log.hpp"

namespace memlog::render {

class FollowedLog {
public:
    // `wake` is called from the loader's thread when it has news. Reads prepare the frame
    // context for drafts of views of more than `draftAbove` blocks.
    // `index`: whether the log is read through its index on disk (log_index.hpp). `following`:
    // the log is followed (--follow): each read after the first reads it on from the last
    // (growing_model.hpp), in memory, where it can.
    FollowedLog(std::string path, size_t draftAbove, timeline::IndexUse index, std::function<void()> wake,
                bool following = false);
    ~FollowedLog();
    FollowedLog(const FollowedLog&) = delete;
    FollowedLog& operator=(const FollowedLog&) = delete;

    const std::string& path() const { return m_path; }
    // Begins a read, its frame context prepared for `axis` and `by`, unless one is under way.
    void read(timeline::XAxis axis, ColourBy by, uint32_t now);
    // A read under way, and how far it is.
    bool reading() const { return m_loader != nullptr; }
    double progress() const { return m_loader ? m_loader->progress() : 0; }
    // Seconds since the read under way (or the last) began, at the caller's `now`.
    double secondsReading(uint32_t now) const { return (now - m_readStartedAt) / 1000.0; }
    std::string stage() const { return m_loader ? m_loader->stage() : "opening"; }
    // The heap as the read under way has found it so far, coarse; null when there is none yet.
    std::shared_ptr<const timeline::OccupancySketch::Picture> sketch() const {
        return m_loader ? m_loader->sketch() : nullptr;
    }

    // A read that finished, taken (none while one is under way or none was begun): the log now
    // shown and the one before it, or why it could not be read. A failed read again leaves the
    // log read before; its warnings, and every warning of a log read, are said once.
    struct Arrival {
        enum class What { Nothing, Read, Unreadable } m_what = What::Nothing;
        bool m_first = false;  // the first read (no log before it)
        std::unique_ptr<LoadedLog> m_previous;  // with Read: the log shown until now, if any
        std::string m_error;  // with Unreadable: the file and the offset
    };
    Arrival take(uint32_t now);

    // The log read last: null until the first read has finished.
    LoadedLog* log() { return m_log.get(); }
    const LoadedLog* log() const { return m_log.get(); }
    // How many reads have brought a log, and of them how many read it on from the read before.
    uint64_t reads() const { return m_reads; }
    uint64_t readsOn() const { return m_readsOn; }
    // How long the last read that finished took, in ms.
    uint32_t lastReadMs() const { return m_lastReadMs; }

    // With --follow, now and then: begins a read again when the file changed or the program
    // still runs (no clean end), pausing four times as long as a read took (at least a second)
    // so that following costs at most a fifth of a core. True when a read began.
    bool follow(timeline::XAxis axis, ColourBy by, uint32_t now);

    // A read arrived with a page open: the page goes on showing `previous` (when it reads the
    // model) until it closes or another opens. True the first time for this page: say so once.
    bool keepForPage(std::unique_ptr<LoadedLog> previous, bool pageReadsModel);
    // A page opened or closed: the log kept for the one before goes.
    void pageChanged();

    // Says `warning` on stderr unless it was said before.
    void warnOnce(const std::string& warning);

private:
    std::string m_path;
    size_t m_draftAbove;
    timeline::IndexUse m_index;
    std::function<void()> m_wake;
    // Before the loader, which uses it: it outlives a loader dropped while reading.
    std::unique_ptr<timeline::GrowingModel> m_growing;
    std::unique_ptr<LogLoader> m_loader;
    std::unique_ptr<LoadedLog> m_log;
    std::unique_ptr<LoadedLog> m_pageLog;  // the log an open page was made of
    bool m_pageTold = false;  // the open page was told it shows an older read
    uint64_t m_reads = 0, m_readsOn = 0;
    uint64_t m_readOnBefore = 0;  // the growing model's reads on when the read under way began
    std::set<std::string> m_warned;
    uint32_t m_readStartedAt = 0, m_readFinishedAt = 0, m_lastReadMs = 0, m_lastCheck = 0;
};

}  // namespace memlog::render

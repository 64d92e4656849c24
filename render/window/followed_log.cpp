// Reading, reading again and following: the loader's result taken on the window's thread.
#include "render/window/followed_log.hpp"

#include <algorithm>
#include <utility>

#include "timeline/base/diagnostics.hpp"

namespace memlog::render {

FollowedLog::FollowedLog(std::string path, size_t draftAbove, timeline::IndexUse index, std::function<void()> wake,
                         bool following)
    : m_path(std::move(path)), m_draftAbove(draftAbove), m_index(index), m_wake(std::move(wake)) {
    // The blocks on the clock of the time axis (a followed log is the recorder's, not a full
    // trace's), with their freeing stacks for brushing, as loadLog builds them; in scratch files
    // where an index would be (they go with the window), so that a log followed for hours holds
    // its live blocks in memory, not all of them.
    if (following)
        m_growing = std::make_unique<timeline::GrowingModel>(m_path, timeline::XAxis::Time, true,
                                                             timeline::scratchFolderFor(m_path));
}

FollowedLog::~FollowedLog() = default;

void FollowedLog::read(timeline::XAxis axis, ColourBy by, uint32_t now) {
    if (m_loader) return;
    m_readStartedAt = now;
    // A followed log read on is on the time clock: a read on another (a full trace's instructions)
    // reads it whole, as a log not followed.
    timeline::GrowingModel* growing = timeline::clockOf(axis) == timeline::XAxis::Time ? m_growing.get() : nullptr;
    m_readOnBefore = m_growing ? m_growing->readsOn() : 0;
    m_loader = std::make_unique<LogLoader>(m_path, axis, by, m_draftAbove, m_index, m_wake, growing);
}

FollowedLog::Arrival FollowedLog::take(uint32_t now) {
    Arrival arrival;
    if (!m_loader || !m_loader->done()) return arrival;
    std::unique_ptr<LoadedLog> log = m_loader->take();
    const std::string error = m_loader->error();
    m_loader.reset();
    m_readFinishedAt = now;
    m_lastReadMs = now - m_readStartedAt;
    arrival.m_first = !m_log;
    if (!log) {
        arrival.m_what = Arrival::What::Unreadable;
        arrival.m_error = error;
        // Read again, the file and the offset are kept: said once, the log read before stays.
        if (!arrival.m_first) warnOnce("could not re-read the log: " + error);
        return arrival;
    }
    for (const std::string& warning : log->m_warnings) warnOnce(warning);
    arrival.m_what = Arrival::What::Read;
    arrival.m_previous = std::exchange(m_log, std::move(log));
    ++m_reads;
    if (m_growing && m_growing->readsOn() > m_readOnBefore) ++m_readsOn;
    return arrival;
}

// A log whose program still runs (no clean end) is read again every so often: its recorder
// writes into chunks reserved ahead, so neither its size nor (until writeback) its time need
// change. A finished log is read again only when the file changes (a new recording over it).
bool FollowedLog::follow(timeline::XAxis axis, ColourBy by, uint32_t now) {
    if (m_loader || !m_log) return false;
    const uint32_t pause = std::max<uint32_t>(1000, 4 * m_lastReadMs);
    if (now - m_readFinishedAt < pause || now - m_lastCheck < 1000) return false;
    m_lastCheck = now;
    const std::string version = fileVersion(m_path);
    if (version.empty()) return false;
    if (m_log->m_reader->complete() && version == m_log->m_version) return false;
    read(axis, by, now);
    return true;
}

// A page open over a read again stays, showing the log as it was when it opened (a page of the
// cache replays every access of a full trace: made again at each read of a followed log, it
// would start over every few seconds).
bool FollowedLog::keepForPage(std::unique_ptr<LoadedLog> previous, bool pageReadsModel) {
    if (pageReadsModel && !m_pageLog) m_pageLog = std::move(previous);
    return !std::exchange(m_pageTold, true);
}

void FollowedLog::pageChanged() {
    m_pageLog.reset();
    m_pageTold = false;
}

// A followed log is read again and again: what is wrong with it is said once, not at each read.
void FollowedLog::warnOnce(const std::string& warning) {
    if (m_warned.insert(warning).second) diagnostics::warn(warning);
}

}  // namespace memlog::render

// The steps of opening a log (opened_log.hpp), one function each, called in their order by the
// constructor; each part's accessor says which part was not asked for rather than hand back an
// empty one.
#include "timeline/open/opened_log.hpp"

#include <chrono>
#include <stdexcept>

#include "timeline/names/sites_beside_suppressions.hpp"
#include "timeline/names/stack_names.hpp"
#include "timeline/open/growing_model.hpp"
#include "timeline/names/suppressions.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/replay/block_observer.hpp"

namespace memlog::timeline {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// A part asked for that the opening did not build: a mistake of the program, not of the log.
[[noreturn]] void notBuilt(const char* part) {
    throw std::logic_error(std::string("OpenedLog: ") + part + " was not among the parts asked for");
}

}  // namespace

OpenedLog::OpenedLog(const std::string& path, Parts parts, Reporting reporting)
    : m_parts(std::move(parts)), m_warn(std::move(reporting.m_warn)), m_sketch(reporting.m_sketch) {
    const std::function<void(Step, double)>& progress = reporting.m_progress;
    m_reader = std::make_unique<LogReader>(path);
    if (m_parts.m_refuse) {
        m_refusal = m_parts.m_refuse(*m_reader);
        if (!m_refusal.empty()) return;
    }
    if (m_parts.m_heapOnly) m_reader->leaveOutTraces();
    const Clock::time_point walkStarted = Clock::now();
    const bool walked = walk(path, progress);
    m_walkSeconds = secondsSince(walkStarted);
    if (walked) warnOfTheWalk();
    const Clock::time_point namingStarted = Clock::now();
    if (needsNames()) makeNames(progress);
    findSites(progress);
    suppressLeaks(progress);
    m_namingSeconds = secondsSince(namingStarted);
}

OpenedLog::OpenedLog(const std::string& path, Parts parts) : OpenedLog(path, std::move(parts), Reporting{}) {}

OpenedLog::OpenedLog(OpenedLog&&) noexcept = default;
OpenedLog& OpenedLog::operator=(OpenedLog&&) noexcept = default;
OpenedLog::~OpenedLog() = default;

bool OpenedLog::walk(const std::string& path, const std::function<void(Step, double)>& progress) {
    if (m_parts.m_walk == Walk::None && !m_parts.m_ownWalk) return false;
    const std::function<void(double)> walkProgress = [&](double fraction) {
        if (progress) progress(Step::Walk, fraction);
    };
    walkProgress(0);
    m_logWalked = true;  // but for a model and the reader's state both read back
    if (m_parts.m_ownWalk) {
        m_parts.m_ownWalk(*m_reader, walkProgress);
    } else {
        switch (m_parts.m_walk) {
            case Walk::None:
                break;
            case Walk::Stacks:
                m_reader->forEachEvent([](const Event&) {}, walkProgress);
                break;
            case Walk::Summary:
                m_summary = summarize(*m_reader, walkProgress);
                break;
            case Walk::Measure:
                m_measured = measureStacks(*m_reader, walkProgress);
                break;
            case Walk::Model:
                walkForModel(path, walkProgress, [&](double fraction) {
                    if (progress) progress(Step::Index, fraction);
                });
                break;
        }
    }
    walkProgress(1);
    return true;
}

void OpenedLog::walkForModel(const std::string& path, const std::function<void(double)>& progress,
                             const std::function<void(double)>& indexing) {
    if (m_parts.m_growing) {
        m_model = m_parts.m_growing->step(progress, m_sketch);
        // This opening's reader knows the file as it was before the step: one that knows it as it
        // is now, given what the step's reader read (every stack the model names).
        m_reader = std::make_unique<LogReader>(path);
        if (m_parts.m_heapOnly) m_reader->leaveOutTraces();
        if (!m_reader->restoreWalkResults(m_parts.m_growing->reader().walkResults()))
            throw LogError(path, 0, "the log changed under its reader while it was read on");
        return;
    }
    std::optional<IndexedModel> indexed;
    try {
        indexed = modelThroughIndex(*m_reader, path, m_parts.m_index, m_parts.m_clock, indexing, m_warn, m_sketch);
    } catch (const IndexError& error) {
        // An index asked for (memlog index) is the work: its failure is the program's. One the
        // program would merely have liked leaves the log read as without it (a walk again).
        if (m_parts.m_index == IndexUse::Always) throw;
        if (m_warn) m_warn(std::string(error.what()) + "; reading the log without an index");
    }
    if (indexed) {
        m_indexPath = indexed->m_path;
        m_indexBuilt = indexed->m_built;
        m_model = std::move(indexed->m_model);
        // Read back, with what the walk that built it left in its reader (the stacks, the
        // module maps, the annotations); an index without them is walked for them.
        if (m_indexBuilt) return;
        if (m_reader->restoreWalkResults(indexed->m_readerWalk)) {
            m_logWalked = false;
            return;
        }
        m_reader->leaveOutTraces(true);
        m_reader->forEachEvent([](const Event&) {}, progress);
        m_reader->leaveOutTraces(m_parts.m_heapOnly);
        return;
    }
    m_model = buildBlockModel(*m_reader, progress, m_parts.m_freeStacks, m_parts.m_clock, m_sketch);
}

std::string OpenedLog::indexNote() const {
    if (m_indexPath.empty()) return "";
    return m_reader->path() + (m_indexBuilt ? ": indexed into " : ": read through its index ") + m_indexPath;
}

// After the walk, once: a warning names the file and the offset.
void OpenedLog::warnOfTheWalk() const {
    if (!m_warn) return;
    if (const auto skipped = m_reader->whatWasSkipped()) m_warn(*skipped);
    if (const auto stopped = m_reader->whereReadingStopped()) m_warn(*stopped);
}

uint64_t OpenedLog::leakedBlocks() const {
    if (m_measured) return m_measured->m_summary.m_leakedBlocks;
    if (m_model) return m_model->summary().m_leakedBlocks;
    return 0;
}

bool OpenedLog::needsNames() const {
    return m_parts.m_names != Names::None || m_parts.m_siteIndex || m_parts.m_siteRows ||
           (m_parts.m_suppressions && leakedBlocks() > 0);
}

void OpenedLog::makeNames(const std::function<void(Step, double)>& progress) {
    if (progress) progress(Step::Names, 0);
    m_names = std::make_unique<StackNames>(*m_reader, m_warn);
    if (m_parts.m_names == Names::Every)
        m_names->resolveAll([&](double fraction) {
            if (progress) progress(Step::Names, fraction);
        });
    if (progress) progress(Step::Names, 1);
}

void OpenedLog::findSites(const std::function<void(Step, double)>& progress) {
    if (!m_parts.m_siteIndex && !m_parts.m_siteRows) return;
    if (progress) progress(Step::Sites, 0);
    if (m_parts.m_siteIndex)
        m_siteIndex =
            indexSites(*m_names, m_model ? m_model->stackCount() : static_cast<uint32_t>(m_reader->stacks().size()));
    if (m_parts.m_siteRows) {
        if (!m_measured) notBuilt("a Measure walk (for the site rows)");
        // With suppressions, both at once: the suppressions step is this one.
        m_siteRows = m_parts.m_suppressions ? suppressAndNameSites(*m_reader, *m_measured, *m_names,
                                                                   *m_parts.m_suppressions, *m_parts.m_siteRows)
                                            : timeline::siteRows(*m_names, *m_measured, *m_parts.m_siteRows);
    }
    if (progress) progress(Step::Sites, 1);
}

void OpenedLog::suppressLeaks(const std::function<void(Step, double)>& progress) {
    if (!m_parts.m_suppressions || (m_parts.m_siteRows && m_measured)) return;
    if (progress) progress(Step::Suppressions, 0);
    // Nothing leaked, nothing to match: the names were not made for it.
    if (leakedBlocks() > 0) {
        if (m_measured)
            applySuppressions(*m_measured, *m_names, *m_parts.m_suppressions);
        else if (m_model)
            m_suppressedLeaks = timeline::suppressedLeaks(*m_model, *m_names, *m_parts.m_suppressions);
    }
    if (progress) progress(Step::Suppressions, 1);
}

const Summary& OpenedLog::summary() const {
    if (m_summary) return *m_summary;
    if (m_measured) return m_measured->m_summary;
    if (m_model) return m_model->summary();
    notBuilt("a walk with a summary");
}

MeasuredLog& OpenedLog::measured() {
    if (!m_measured) notBuilt("a Measure walk");
    return *m_measured;
}

const BlockModel& OpenedLog::model() const {
    if (!m_model) notBuilt("a Model walk");
    return *m_model;
}

StackNames& OpenedLog::names() {
    if (!m_reader) notBuilt("the reader (taken)");
    if (!m_names) m_names = std::make_unique<StackNames>(*m_reader, m_warn);
    return *m_names;
}

const SiteIndex& OpenedLog::siteIndex() const {
    if (!m_siteIndex) notBuilt("the site index");
    return *m_siteIndex;
}

const std::vector<SiteRow>& OpenedLog::siteRows() const {
    if (!m_siteRows) notBuilt("the site rows");
    return *m_siteRows;
}

std::unique_ptr<LogReader> OpenedLog::takeReader() { return std::move(m_reader); }

BlockModel OpenedLog::takeModel() {
    if (!m_model) notBuilt("a Model walk");
    BlockModel model = std::move(*m_model);
    m_model.reset();
    return model;
}

std::unique_ptr<StackNames> OpenedLog::takeNames() {
    if (!m_names) notBuilt("the names");
    return std::move(m_names);
}

SiteIndex OpenedLog::takeSiteIndex() {
    if (!m_siteIndex) notBuilt("the site index");
    SiteIndex index = std::move(*m_siteIndex);
    m_siteIndex.reset();
    return index;
}

}  // namespace memlog::timeline

// Loading in stages, each with its share of the progress bar: reading the log and building the
// model (most of the time), naming the stacks, compacting addresses, indexing both x axes.
#include "render/window/loaded_log.hpp"

#include <sys/stat.h>

#include "timeline/base/diagnostics.hpp"
#include "timeline/names/suppressions.hpp"
#include "timeline/model/view_contents.hpp"
#include "timeline/open/opened_log.hpp"

namespace memlog::render {

using timeline::XAxis;

std::optional<size_t> LoadedLog::blockAt(uint64_t x, uint64_t addr) const { return m_frame->index().blockAt(x, addr); }

std::pair<uint64_t, uint64_t> LoadedLog::liveAt(uint64_t x) const {
    const timeline::ModelIndex::Live live = m_frame->index().liveAt(x);
    return {live.m_bytes, live.m_blocks};
}

std::string fileVersion(const std::string& path) {
    struct stat info {};
    if (stat(path.c_str(), &info) != 0) return "";
    return std::to_string(info.st_ino) + ":" + std::to_string(info.st_size) + ":" +
           std::to_string(info.st_mtim.tv_sec) + "." + std::to_string(info.st_mtim.tv_nsec);
}

std::unique_ptr<LoadedLog> loadLog(const std::string& path, XAxis axis, ColourBy by,
                                   const std::function<void(const char*, double)>& progress, size_t draftAbove,
                                   timeline::IndexUse index, timeline::OccupancySketch* sketch,
                                   timeline::GrowingModel* growing) {
    auto tell = [&](const char* stage, double fraction) {
        if (progress) progress(stage, fraction);
    };
    auto log = std::make_unique<LoadedLog>();
    log->m_version = fileVersion(path);
    // The bar's share of reading the log: building an index takes nearly all of the loading (the
    // tree is built then, and kept), where reading without one leaves the tree to the end. The
    // stages after it share what is left, so that the bar never goes back and the time left it
    // guesses (progressText) holds.
    double readShare = 0.6;
    auto after = [&](double part) { return readShare + (1 - readShare) * part; };
    {
        // The model with its freeing stacks (for brushing), the names kept for brushing, the
        // sites, the runtime's one-time blocks among the leaks; the warnings (the reader's and the
        // stacks' problems) kept for the window to say.
        const timeline::Suppressions builtIn;
        LoadedLog* const loaded = log.get();
        timeline::OpenedLog opened(
            path,
            {.m_walk = timeline::OpenedLog::Walk::Model,
             .m_freeStacks = true,
             .m_clock = timeline::clockOf(axis),
             .m_index = index,
             .m_growing = growing,
             .m_names = timeline::OpenedLog::Names::AsAsked,
             .m_siteIndex = true,
             .m_suppressions = &builtIn},
            {.m_progress =
                 [&](timeline::OpenedLog::Step step, double fraction) {
                     if (step == timeline::OpenedLog::Step::Walk) {
                         tell("reading the log", readShare * fraction);
                     } else if (step == timeline::OpenedLog::Step::Index) {
                         readShare = 0.9;
                         tell("reading the log and indexing it for the next time", readShare * fraction);
                     } else {
                         tell("naming the stacks", readShare);
                     }
                 },
             .m_warn = [loaded](const std::string& problem) { loaded->m_warnings.push_back(problem); },
             .m_sketch = sketch});
        if (const std::string note = opened.indexNote(); !note.empty()) diagnostics::debug(note);
        log->m_model = opened.takeModel();
        log->m_sites = opened.takeSiteIndex();
        log->m_suppressed = opened.suppressedLeaks();
        log->m_names = opened.takeNames();
        log->m_reader = opened.takeReader();
    }
    // The accesses' summary for the window's drafts (made when first asked): now, under the bar,
    // not in the first frame.
    if (log->m_model.accessMarks().size() >= timeline::AccessSummary::kWorthFrom) {
        tell("summarising the accesses", after(0.25));
        log->m_model.accessSummary();
    }
    tell("compacting addresses", after(0.375));
    log->m_ranges = timeline::wholeRanges(log->m_model);
    tell("indexing", after(0.5));
    log->m_frame = std::make_unique<FrameContext>(log->m_model, &log->m_sites);
    log->m_frame->policy().setCeiling(draftAbove);
    log->m_frame->policy().followMachineSpeed();
    log->m_frame->prepare(axis, by, [&](double f) { tell("indexing", after(0.5 + 0.5 * f)); });
    tell("done", 1);
    return log;
}

LogLoader::LogLoader(std::string path, XAxis axis, ColourBy by, size_t draftAbove, timeline::IndexUse index,
                     std::function<void()> onProgress, timeline::GrowingModel* growing)
    : m_path(std::move(path)),
      m_axis(axis),
      m_colourBy(by),
      m_draftAbove(draftAbove),
      m_index(index),
      m_onProgress(std::move(onProgress)),
      m_growing(growing),
      m_sketch(axis),
      m_thread([this] { run(); }) {}

LogLoader::~LogLoader() {
    m_givenUp.store(true);
    if (m_thread.joinable()) m_thread.join();
}

std::string LogLoader::stage() const {
    std::lock_guard<std::mutex> lock(m_stageLock);
    return m_stage;
}

void LogLoader::report(const char* stage, double fraction) {
    if (m_givenUp.load()) throw GivenUp();
    {
        std::lock_guard<std::mutex> lock(m_stageLock);
        m_stage = stage;
    }
    m_progress.store(fraction);
    if (m_onProgress) m_onProgress();
}

void LogLoader::run() {
    try {
        m_log = loadLog(
            m_path, m_axis, m_colourBy, [this](const char* stage, double fraction) { report(stage, fraction); },
            m_draftAbove, m_index, &m_sketch, m_growing);
    } catch (const std::bad_alloc&) {
        m_error = "out of memory reading " + m_path;
    } catch (const std::exception& error) {  // a LogError, or an index that could not be written
        m_error = error.what();
    }
    m_done.store(true);
    if (m_onProgress) m_onProgress();
}

std::unique_ptr<LoadedLog> LogLoader::take() {
    if (m_thread.joinable()) m_thread.join();
    return std::move(m_log);
}

}  // namespace memlog::render

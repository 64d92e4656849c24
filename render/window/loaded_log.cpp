// Loading in stages, each with its share of the progress bar: reading the log and building the
// model (most of the time), naming the stacks, compacting addresses, indexing both x axes.
#include "render/window/loaded_log.hpp"

#include <sys/stat.h>

namespace memlog::render {

using timeline::Block;
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
                                   const std::function<void(const char*, double)>& progress, size_t draftAbove) {
    auto tell = [&](const char* stage, double fraction) {
        if (progress) progress(stage, fraction);
    };
    auto log = std::make_unique<LoadedLog>();
    log->m_version = fileVersion(path);
    log->m_reader = std::make_unique<timeline::LogReader>(path);
    tell("reading the log", 0);
    log->m_model = timeline::buildBlockModel(
        *log->m_reader, [&](double f) { tell("reading the log", 0.6 * f); }, true);
    // What the reader skipped or where it stopped, said like the stacks' problems (on stderr).
    if (const auto skipped = log->m_reader->whatWasSkipped()) log->m_warnings.push_back(*skipped);
    if (const auto stopped = log->m_reader->whereReadingStopped()) log->m_warnings.push_back(*stopped);
    tell("naming the stacks", 0.6);
    log->m_names = std::make_unique<timeline::StackNames>(
        *log->m_reader, [&](const std::string& problem) { log->m_warnings.push_back(problem); });
    log->m_sites = timeline::indexSites(*log->m_names, log->m_model.stackCount());
    log->m_suppressed = timeline::suppressedLeaks(log->m_model, *log->m_names, timeline::Suppressions());
    tell("compacting addresses", 0.75);
    timeline::AddressRanges::Builder ranges;
    log->m_model.forEach([&](const Block& b) { ranges.add(b.addr(), b.endAddr()); });
    log->m_ranges = ranges.finish();
    tell("indexing", 0.8);
    log->m_frame = std::make_unique<FrameContext>(log->m_model, &log->m_sites);
    log->m_frame->policy().setCeiling(draftAbove);
    log->m_frame->policy().followMachineSpeed();
    log->m_frame->prepare(axis, by, [&](double f) { tell("indexing", 0.8 + 0.2 * f); });
    tell("done", 1);
    return log;
}

LogLoader::LogLoader(std::string path, XAxis axis, ColourBy by, size_t draftAbove, std::function<void()> onProgress)
    : m_path(std::move(path)),
      m_axis(axis),
      m_colourBy(by),
      m_draftAbove(draftAbove),
      m_onProgress(std::move(onProgress)),
      m_thread([this] { run(); }) {}

LogLoader::~LogLoader() {
    if (m_thread.joinable()) m_thread.join();
}

std::string LogLoader::stage() const {
    std::lock_guard<std::mutex> lock(m_stageLock);
    return m_stage;
}

void LogLoader::report(const char* stage, double fraction) {
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
            m_draftAbove);
    } catch (const timeline::LogError& error) {
        m_error = error.what();
    } catch (const std::bad_alloc&) {
        m_error = "out of memory reading " + m_path;
    }
    m_done.store(true);
    if (m_onProgress) m_onProgress();
}

std::unique_ptr<LoadedLog> LogLoader::take() {
    if (m_thread.joinable()) m_thread.join();
    return std::move(m_log);
}

}  // namespace memlog::render

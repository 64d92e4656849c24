// Finding, checking and building a log's index (log_index.hpp).
#include "timeline/open/log_index.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>

#include "timeline/base/checksum.hpp"
#include "timeline/base/huge_pages.hpp"
#include "timeline/model/model_file.hpp"
#include "timeline/model/model_index.hpp"
#include "timeline/read/log_reader.hpp"

namespace memlog::timeline {

namespace fs = std::filesystem;

namespace {

const char* suffixOf(XAxis clock) { return clock == XAxis::Instructions ? ".instructions.index" : ".index"; }

// The folder the cache's indexes go in: $XDG_CACHE_HOME/memlog, else ~/.cache/memlog; "" when
// neither is set (a daemon's environment).
std::string cacheFolder() {
    if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache && cache[0] == '/')
        return std::string(cache) + "/memlog";
    if (const char* home = std::getenv("HOME"); home && home[0] == '/') return std::string(home) + "/.cache/memlog";
    return "";
}

std::string folderOf(const std::string& path) {
    const fs::path parent = fs::path(path).parent_path();
    return parent.empty() ? "." : parent.string();
}

// Which log an index belongs to (log_index.hpp), from its header and the file's `info`.
std::string logIdentity(const LogReader& reader, const struct stat& info, XAxis clock) {
    const format::FileHeader& header = reader.header();
    return "pid " + std::to_string(header.m_pid) + " started " + std::to_string(header.m_startRealtimeNs) + " tsc " +
           std::to_string(header.m_startTsc) + " size " + std::to_string(info.st_size) + " modified " +
           std::to_string(info.st_mtim.tv_sec) + "." + std::to_string(info.st_mtim.tv_nsec) + " clock " +
           xAxisName(clock);
}

// A new file beside `target` for the index to be written into, then renamed over `target`; -1
// when the folder takes no new file.
int createTemporary(const std::string& target, mode_t mode, std::string& temporary) {
    for (int attempt = 0; attempt < 100; ++attempt) {
        temporary = target + ".part." + std::to_string(getpid()) + "." + std::to_string(attempt);
        const int fd = open(temporary.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1;
}

// A scratch file closed when its holder goes; what was mapped of it stays mapped until unmapped.
struct Scratch {
    int m_fd;
    explicit Scratch(const std::string& folder) : m_fd(scratchFile(folder)) {}
    ~Scratch() {
        if (m_fd >= 0) close(m_fd);
    }
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
};

// What the walk writes into the index as it goes. A full trace's access samples, 72 bytes each,
// outweigh its blocks a hundredfold (sqlite3's: 4.5 GB against 3 MB): they go in as they come,
// once, and the chunks are copied in after them. Copying the samples instead doubled the
// kernel's share of indexing.
IndexLead leadOf(const LogReader& reader) {
    return reader.header().m_accessSampler == format::AccessSampler::FullTrace ? IndexLead::AccessMarks
                                                                               : IndexLead::Blocks;
}

// The model built by a walk of the log into `fd` as `lead` says, with every array the walk makes
// in a scratch file beside the index, not in the process's memory; the part that does not lead
// in another, copied in by finishModelFile (a full trace's few blocks: in memory when the folder
// takes no scratch file).
BlockModel walkInto(LogReader& reader, int fd, const std::string& temporary, XAxis clock, IndexLead lead,
                    const std::function<void(double)>& progress, OccupancySketch* sketch) {
    const std::string folder = folderOf(temporary);
    const ScratchArrays arrays(folder);
    if (lead == IndexLead::Blocks)
        return buildBlockModel(reader, progress, blocksInFile(fd, temporary), clock, scratchFile(folder), sketch);
    // The samples from the index's start, through a descriptor of the spool's own.
    const Scratch blocks(folder);
    return buildBlockModel(reader, progress,
                           blocks.m_fd >= 0 ? blocksInFile(blocks.m_fd, temporary) : anonymousBlocks(true), clock,
                           fcntl(fd, F_DUPFD_CLOEXEC, 0), sketch);
}

// Builds the index at `target` by a walk of the log, then the model's index for pictures over
// the blocks just written; the model is then read back from the file, its index mapped too.
IndexedModel buildInto(LogReader& reader, const std::string& target, int fd, const std::string& temporary,
                       const std::string& identity, XAxis clock, const std::function<void(double)>& progress,
                       OccupancySketch* sketch) {
    try {
        {
            const IndexLead lead = leadOf(reader);
            // Of the time it takes, the walk about half and the tree the rest; a full trace's
            // walk nearly all (its tree holds few blocks: sqlite3's, 41,437 against 62 M accesses).
            const double walkShare = lead == IndexLead::AccessMarks ? 0.95 : 0.5;
            BlockModel model = walkInto(
                reader, fd, temporary, clock, lead,
                [&](double done) {
                    if (progress) progress(done * walkShare);
                },
                sketch);
            // The tree's 59 bytes a block, and what building it takes besides: in the index file,
            // past what the walk wrote (the page cache's, not the process's).
            const off_t walked = lseek(fd, 0, SEEK_END);
            if (walked < 0) throw IndexError(temporary + ": cannot write the index: " + std::strerror(errno));
            const ArraysInFiles inFile(fd, static_cast<uint64_t>(walked));
            const ModelIndex index(model, clock, [&](double done) {
                if (progress) progress(walkShare + done * (1 - walkShare));
            });
            finishModelFile(fd, temporary, model, identity, reader.walkResults(), &index, lead);
        }
        if (rename(temporary.c_str(), target.c_str()) != 0)
            throw IndexError(target + ": cannot put the index in place: " + std::strerror(errno));
        close(fd);
        fd = -1;
        ModelFileRead read = readModelFile(target, identity);
        if (!read.m_model) {
            unlink(target.c_str());  // not left for the next opening to find damaged
            throw IndexError(target + ": the index just written cannot be read: " + read.m_problem);
        }
        return {std::move(*read.m_model), target, true, {}};
    } catch (...) {
        if (fd >= 0) {
            close(fd);
            unlink(temporary.c_str());
        }
        throw;
    }
}

}  // namespace

std::string besideIndexPath(const std::string& logPath, XAxis clock) { return logPath + suffixOf(clock); }

std::string cachedIndexPath(const std::string& logPath, XAxis clock) {
    const std::string folder = cacheFolder();
    if (folder.empty()) return "";
    std::error_code error;
    const std::string full = fs::absolute(logPath, error).lexically_normal().string();
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(fnv1a64(full.data(), full.size())));
    return folder + "/" + fs::path(logPath).filename().string() + "." + hash + suffixOf(clock);
}

std::string scratchFolderFor(const std::string& logPath) {
    if (access(folderOf(logPath).c_str(), W_OK) == 0) return folderOf(logPath);
    const std::string cached = cachedIndexPath(logPath, XAxis::Time);
    if (cached.empty()) return "";
    std::error_code error;
    fs::create_directories(folderOf(cached), error);
    return access(folderOf(cached).c_str(), W_OK) == 0 ? folderOf(cached) : "";
}

std::optional<IndexedModel> modelThroughIndex(LogReader& reader, const std::string& logPath, IndexUse use, XAxis clock,
                                              const std::function<void(double)>& progress,
                                              const std::function<void(const std::string&)>& warn,
                                              OccupancySketch* sketch) {
    if (use == IndexUse::Off) return std::nullopt;
    struct stat info {};
    if (stat(logPath.c_str(), &info) != 0) return std::nullopt;
    const std::string identity = logIdentity(reader, info, clock);
    const std::string beside = besideIndexPath(logPath, clock), cached = cachedIndexPath(logPath, clock);
    bool found = false;  // an index that will not do: built again, whatever the log's size
    for (const std::string& path : {beside, cached}) {
        if (path.empty()) continue;
        ModelFileRead read = readModelFile(path, identity);
        if (read.m_model) return IndexedModel{std::move(*read.m_model), path, false, std::move(read.m_readerWalk)};
        if (read.m_missing) continue;
        found = true;
        if (warn) warn(path + ": " + read.m_problem + "; building the index again");
    }
    // A full trace too: its accesses (72 bytes each) are then mapped from the index, not held.
    if (use == IndexUse::Auto && !found && static_cast<uint64_t>(info.st_size) < kIndexFrom) return std::nullopt;
    // Beside the log where its folder takes new files, else in the cache folder.
    const mode_t mode = info.st_mode & 0666;
    std::string temporary;
    if (access(folderOf(logPath).c_str(), W_OK) == 0) {
        if (const int fd = createTemporary(beside, mode, temporary); fd >= 0)
            return buildInto(reader, beside, fd, temporary, identity, clock, progress, sketch);
    }
    if (!cached.empty()) {
        std::error_code error;
        fs::create_directories(folderOf(cached), error);
        if (const int fd = createTemporary(cached, mode, temporary); fd >= 0)
            return buildInto(reader, cached, fd, temporary, identity, clock, progress, sketch);
    }
    if (warn)
        warn(logPath + ": no index could be written beside it or in " +
             (cached.empty() ? std::string("a cache folder (no HOME)") : folderOf(cached)) +
             "; reading it without one");
    return std::nullopt;
}

}  // namespace memlog::timeline

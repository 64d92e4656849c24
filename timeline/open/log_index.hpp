// A log's index on disk (model_file.hpp): where it lives, which log it belongs to, and the model
// read back through it or built into it.
//
// Where: beside the log (LOG.index, or LOG.instructions.index for a model on a full trace's
// instructions) when the log's folder is writable; else in the user's cache folder
// ($XDG_CACHE_HOME/memlog, ~/.cache/memlog), named after the log and a hash of its full path.
// Which log: the header's pid, start time and start TSC, the file's size and modification time,
// and the clock; a log that changed, or another log under the same name, gets a new index.
// An index is written to a file of its own and renamed into place, so that two programs opening
// one log at once each read a whole index, whichever wrote it.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "timeline/model/block_model.hpp"

namespace memlog::timeline {

class LogReader;

enum class IndexUse : uint8_t {
    Off,  // the model is built in memory, no index read or written
    Auto,  // an index read when there is a good one; built when there was a bad one (the log
           // changed, or the index is damaged) or the log is kIndexFrom or larger
    Always,  // an index read, or built whatever the log's size (memlog index)
};
inline constexpr uint64_t kIndexFrom = uint64_t{16} << 20;  // about a million events

// Where the index of `logPath` is read from: beside it, else in the cache folder.
std::string besideIndexPath(const std::string& logPath, XAxis clock);
std::string cachedIndexPath(const std::string& logPath, XAxis clock);  // "" without a home folder
// The folder an index of `logPath` would be written to, for scratch files that must not fill
// memory (a followed log's model: growing_model.hpp): the log's own when it is writable, else
// the cache folder (made when missing); "" when neither will do.
std::string scratchFolderFor(const std::string& logPath);

struct IndexedModel {
    BlockModel m_model;
    std::string m_path;  // the index
    bool m_built = false;  // false: read back
    std::vector<unsigned char> m_readerWalk;  // read back: what the walk left (LogReader::walkResults)
};

// The model of `reader`'s log (at `logPath`) through its index: read back when a good one is
// there (the log not walked: the caller walks it for the stacks when it needs their names), else
// built into one by a walk of the log (which `progress` hears). An index found bad is said through `warn`, with the
// reason, and built again; `sketch`, when given, is drawn as the walk goes (OccupancySketch). nullopt, with nothing
// walked, when the log needs no index (Auto, a small log with none) or none can be written (said through `warn`).
// Throws LogError at a corrupt record, IndexError when the index cannot be written in full (the disk full).
std::optional<IndexedModel> modelThroughIndex(LogReader& reader, const std::string& logPath, IndexUse use, XAxis clock,
                                              const std::function<void(double)>& progress,
                                              const std::function<void(const std::string&)>& warn,
                                              OccupancySketch* sketch = nullptr);

}  // namespace memlog::timeline

// Everything the window knows of a log, read on a thread of its own so the window stays
// responsive while a big log loads: the block model (with freeing stacks, for brushing), the
// stacks' names and sites, the whole log's address compaction, and the frame context (the
// model's index and colours, render/frame/frame_context.hpp), prepared for the first frame.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "render/frame/frame_context.hpp"
#include "timeline/model/address_ranges.hpp"
#include "timeline/model/block_model.hpp"
#include "timeline/model/occupancy_sketch.hpp"
#include "timeline/model/suppressed_leaks.hpp"
#include "timeline/names/site_index.hpp"
#include "timeline/names/stack_names.hpp"
#include "timeline/open/growing_model.hpp"
#include "timeline/open/log_index.hpp"
#include "timeline/read/log_reader.hpp"

namespace memlog::render {

struct LoadedLog {
    std::string m_version;  // fileVersion() of the file as it was when reading began
    std::unique_ptr<timeline::LogReader> m_reader;  // kept: the names need its module map
    timeline::BlockModel m_model;
    std::unique_ptr<timeline::StackNames> m_names;
    timeline::SiteIndex m_sites;
    timeline::SuppressedLeaks m_suppressed;  // of the blocks live at the end (the built-in rules)
    timeline::AddressRanges m_ranges;  // the whole log, compacted
    std::unique_ptr<FrameContext> m_frame;  // after m_model and m_sites, which it refers to
    std::vector<std::string> m_warnings;  // a changed binary and the like, once each

    // The block under (x, addr) on the frame context's axis, if any: the index finds it.
    std::optional<size_t> blockAt(uint64_t x, uint64_t addr) const;
    // Live bytes and blocks at x on that axis (a vertical line through the index).
    std::pair<uint64_t, uint64_t> liveAt(uint64_t x) const;
};

// Reads a log into a LoadedLog on a background thread. The window polls progress() and takes
// the result when done(); `onProgress` is called from the loading thread (to wake the window).
// A loader dropped before it is done gives its read up at the next word of progress (a
// fifth of a second or so into a walk, longer inside a sort of the index's), its index file
// half written removed: closing the window does not wait for the whole read.
class LogLoader {
public:
    // The model is built on `axis`' clock (time, or a full trace's instructions: clockOf), the
    // frame context prepared for frames on `axis` coloured `by`, and for drafts of
    // views of more than `draftAbove` blocks (DraftPolicy).
    // `index`: whether through the log's index on disk (log_index.hpp).
    // `growing`: a followed log's model, read on at this read (FollowedLog owns it; the loader
    // alone uses it until done).
    LogLoader(std::string path, timeline::XAxis axis, ColourBy by, size_t draftAbove, timeline::IndexUse index,
              std::function<void()> onProgress, timeline::GrowingModel* growing = nullptr);
    ~LogLoader();
    LogLoader(const LogLoader&) = delete;
    // What report() throws into the read once the loader is being dropped.
    struct GivenUp : std::runtime_error {
        GivenUp() : std::runtime_error("the read was given up") {}
    };
    LogLoader& operator=(const LogLoader&) = delete;

    double progress() const { return m_progress.load(); }
    std::string stage() const;
    // The heap as read so far, coarse (drawn under the bar): null until the walk's first picture,
    // and when the model is read back from an index (no walk).
    std::shared_ptr<const timeline::OccupancySketch::Picture> sketch() const { return m_sketch.picture(); }
    bool done() const { return m_done.load(); }
    // After done(): the log, or nullptr with error() saying why.
    std::unique_ptr<LoadedLog> take();
    const std::string& error() const { return m_error; }

private:
    void run();
    void report(const char* stage, double fraction);

    std::string m_path;
    timeline::XAxis m_axis;
    ColourBy m_colourBy;
    size_t m_draftAbove;
    timeline::IndexUse m_index;
    std::function<void()> m_onProgress;
    timeline::GrowingModel* m_growing;
    std::atomic<double> m_progress{0};
    std::atomic<bool> m_done{false};
    std::atomic<bool> m_givenUp{false};
    mutable std::mutex m_stageLock;
    std::string m_stage = "opening";
    std::unique_ptr<LoadedLog> m_log;
    std::string m_error;
    timeline::OccupancySketch m_sketch;
    std::thread m_thread;
};

// The file's inode, size and modification time as text: it changes when a recorder writes to
// a new page of the log (its size alone changes seldom: chunks are reserved ahead) or when the
// file is replaced. "" when the file cannot be looked at.
std::string fileVersion(const std::string& path);

// Reads a log in the calling thread (the same steps, for tests and benchmarks); the walk, when
// there is one, draws into `sketch` as it goes. With `growing`, the model is its next step
// (a followed log read on), neither walked nor indexed.
std::unique_ptr<LoadedLog> loadLog(const std::string& path, timeline::XAxis axis, ColourBy by,
                                   const std::function<void(const char*, double)>& progress = {},
                                   size_t draftAbove = DraftPolicy::kDraftAbove,
                                   timeline::IndexUse index = timeline::IndexUse::Off,
                                   timeline::OccupancySketch* sketch = nullptr,
                                   timeline::GrowingModel* growing = nullptr);

}  // namespace memlog::render

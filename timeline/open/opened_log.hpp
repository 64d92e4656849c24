// A log opened for a program that reads it: the parts it asks for, built in one order whatever it
// asks. memlog's commands, memtimeline (its export and its window's loading) and the frame bench
// open their logs here, so that each part sees the same log and the warnings are said once.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "timeline/model/block_model.hpp"
#include "timeline/model/suppressed_leaks.hpp"
#include "timeline/open/log_index.hpp"
#include "timeline/names/site_index.hpp"
#include "timeline/names/site_table.hpp"
#include "timeline/replay/stack_metrics.hpp"
#include "timeline/replay/summary.hpp"

namespace memlog::timeline {

class GrowingModel;
class LogReader;
class StackNames;
class Suppressions;

// The order, each step taken only when a part asked for needs it:
//   1. the reader: the file mapped, its header and chunks checked (LogError when it is no log
//      memlog reads); then Parts::m_refuse, which may stop the opening here (refusal()), and
//      Parts::m_heapOnly, which leaves a full trace's accesses out of the walk;
//   2. the walk: the one pass over the records that builds the summary, the per-stack metrics or
//      the block model (Walk), or the caller's own pass (Parts::m_ownWalk);
//   3. the walk's warnings, each once: data skipped behind a damaged chunk header, a torn tail;
//   4. the stacks' names (StackNames), which need the module map and the stacks the walk read;
//   5. the sites: every stack's site (SiteIndex) or the site table's rows;
//   6. the suppressed leaks: moved apart in the per-stack metrics and the summary (a Measure
//      walk), or counted over the block model (a Model walk).
// Sites and suppressed leaks need names, which are made for them; suppressions need them only
// when something leaked. The rows and the suppressions of a Measure walk are named side by side
// when a core is idle (sites_beside_suppressions.hpp). A Model walk goes through the log's index
// on disk as Parts::m_index says (log_index.hpp): the model read back, and the walk only over the
// records' stacks, module maps and annotations; or built into a new index by the walk.
class OpenedLog {
public:
    enum class Walk : uint8_t {
        None,  // the header and the chunks only
        Stacks,  // the stacks, the module map and the annotations; nothing kept per event
        Summary,  // the numbers of `memlog stat` (summary.hpp)
        Measure,  // the summary and each stack's metrics (stack_metrics.hpp): `memlog stat`, `sites`
        Model,  // the block model (block_model.hpp): the pictures
    };
    enum class Names : uint8_t {
        None,  // only when a later part needs them (or names() is asked)
        AsAsked,  // a symboliser that names each frame when it is first asked for
        Every,  // every frame of every stack named while opening (a step with progress)
    };
    // What the progress is told of, in this order; each from 0 to 1 (the walk and the naming of
    // every stack in between as well). Index: inside the Walk's 0 and 1, the walk that builds an
    // index on disk, told instead of the Walk's fractions (a program may say "indexing").
    enum class Step : uint8_t { Walk, Names, Sites, Suppressions, Index };

    struct Parts {
        // Before the walk: why this log cannot serve the program ("" when it can).
        std::function<std::string(LogReader&)> m_refuse = {};
        Walk m_walk = Walk::None;
        // The walk reads the recorder's records alone, not a full trace's accesses: a list of
        // logs wants their events and peaks, not hundreds of millions of accesses.
        bool m_heapOnly = false;
        // Instead of m_walk: the caller's own pass over the records (an analysis that reads the
        // whole log: accessTable, findUsesAfterFree), told where the progress goes.
        std::function<void(LogReader&, const std::function<void(double)>&)> m_ownWalk = {};
        bool m_freeStacks = false;  // a Model walk: each block's freeing stack too (4 bytes a block)
        // A Model walk: what the blocks' time words hold (BlockModel::clock()): ns, or a full
        // trace's instructions (XAxis::Instructions).
        XAxis m_clock = XAxis::Time;
        // A Model walk: whether through an index on disk (log_index.hpp). An index keeps the
        // freeing stacks whatever m_freeStacks says. An index that cannot be written (a full
        // disk) is said and the log read without one, but with Always (IndexError).
        IndexUse m_index = IndexUse::Off;
        // A Model walk of a followed log: the model of its next step (growing_model.hpp), read on
        // from the last, instead of a walk or an index. The reader is opened after the step,
        // with what the step's walks left (LogReader::restoreWalkResults).
        GrowingModel* m_growing = nullptr;
        Names m_names = Names::None;
        bool m_siteIndex = false;  // every stack's site (colours, bins and legends by site)
        std::optional<SiteGrouping> m_siteRows = {};  // a Measure walk: the site table's rows
        // The leaks of a Measure or a Model walk that these match; read while opening only.
        const Suppressions* m_suppressions = nullptr;
    };
    struct Reporting {
        std::function<void(Step, double)> m_progress = {};  // called while opening only
        // One line a problem: the walk's warnings and the symboliser's (a binary changed since
        // the recording); kept for names() made later. Nothing is said without it.
        std::function<void(const std::string&)> m_warn = {};
        // A Model walk's coarse picture as it goes (occupancy_sketch.hpp), for a loading screen;
        // untouched when the model is read back from an index.
        OccupancySketch* m_sketch = nullptr;
    };

    // Throws LogError for a file that is no readable log and at a corrupt record.
    OpenedLog(const std::string& path, Parts parts, Reporting reporting);
    OpenedLog(const std::string& path, Parts parts);  // nothing told: no progress, no warning
    OpenedLog(OpenedLog&&) noexcept;
    OpenedLog& operator=(OpenedLog&&) noexcept;
    ~OpenedLog();

    LogReader& reader() { return *m_reader; }
    const LogReader& reader() const { return *m_reader; }
    // Why m_refuse refused the log: then nothing after the reader was built.
    const std::string& refusal() const { return m_refusal; }

    // The walk's summary (a Summary, Measure or Model walk).
    const Summary& summary() const;
    MeasuredLog& measured();  // a Measure walk
    const BlockModel& model() const;  // a Model walk
    // The names, made now (after the walk, as ever) when no part needed them: for a program that
    // names only some logs, such as one with uses after free to show.
    StackNames& names();
    const SiteIndex& siteIndex() const;  // m_siteIndex
    const std::vector<SiteRow>& siteRows() const;  // m_siteRows
    // The model's blocks live at the end that a suppression matched (a Model walk).
    const SuppressedLeaks& suppressedLeaks() const { return m_suppressedLeaks; }

    // Seconds the walk took, and the names, sites and suppressions after it (`memlog -v stat`).
    double walkSeconds() const { return m_walkSeconds; }
    // The index the model came through ("" without one), and whether this opening built it.
    const std::string& indexPath() const { return m_indexPath; }
    bool indexBuilt() const { return m_indexBuilt; }
    // Whether the walk read the log's records; false when the index gave all the walk gives.
    bool logWalked() const { return m_logWalked; }
    // What the index did, for a verbose line: "LOG: read through its index INDEX", "LOG:
    // indexed into INDEX"; "" without one.
    std::string indexNote() const;
    double namingSeconds() const { return m_namingSeconds; }

    // Parts moved out for a program that keeps them past the log (the window), or keeps only
    // the model and unmaps the file (an export). The names read the reader: take both or neither.
    std::unique_ptr<LogReader> takeReader();
    BlockModel takeModel();
    std::unique_ptr<StackNames> takeNames();
    SiteIndex takeSiteIndex();

private:
    bool walk(const std::string& path, const std::function<void(Step, double)>& progress);  // false: none asked for
    void walkForModel(const std::string& path, const std::function<void(double)>& progress,
                      const std::function<void(double)>& indexing);
    void warnOfTheWalk() const;
    bool needsNames() const;
    void makeNames(const std::function<void(Step, double)>& progress);
    void findSites(const std::function<void(Step, double)>& progress);
    void suppressLeaks(const std::function<void(Step, double)>& progress);
    uint64_t leakedBlocks() const;

    Parts m_parts;
    std::function<void(const std::string&)> m_warn;
    OccupancySketch* m_sketch;
    std::unique_ptr<LogReader> m_reader;
    std::string m_refusal;
    std::optional<Summary> m_summary;  // a Summary walk
    std::optional<MeasuredLog> m_measured;
    std::optional<BlockModel> m_model;
    std::unique_ptr<StackNames> m_names;
    std::optional<SiteIndex> m_siteIndex;
    std::optional<std::vector<SiteRow>> m_siteRows;
    SuppressedLeaks m_suppressedLeaks;
    double m_walkSeconds = 0;
    double m_namingSeconds = 0;
    std::string m_indexPath;
    bool m_indexBuilt = false;
    bool m_logWalked = false;
};

}  // namespace memlog::timeline

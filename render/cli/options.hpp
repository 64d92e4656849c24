// The memtimeline command line: every option parsed and checked before the log is read, so a
// mistake costs one line on stderr and exit status 2, not a wasted read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "render/raster/array_grid.hpp"
#include "render/report/export.hpp"
#include "render/report/report.hpp"

namespace memlog::cli {

// A point on the x axis as typed: a time with a unit, or a plain event number.
struct XValue {
    bool m_time = false;
    uint64_t m_value = 0;  // ns, or a sequence number
};

// --view: the time x address picture, or one of the cache's views of a full trace.
enum class ViewKind { Time, Memory, WorkingSet };
// --array and what goes with it: the array page instead of the heap's report.
struct ArrayViewOptions {
    std::string m_spec;  // as findArray takes it
    uint64_t m_elementSize = 0;  // --elem; 0: not given
    uint64_t m_rows = 0, m_columns = 0, m_depth = 0;  // --dims; 0: not given
    timeline::ArrayOrder m_order = timeline::ArrayOrder::RowMajor;
    render::CellColouring m_colouring = render::CellColouring::FirstTouch;
    timeline::AccessFilter m_accesses = timeline::AccessFilter::Both;
    uint32_t m_frames = 0;  // --frames; 0: the cells' picture
    uint64_t m_tile = 0;  // --tile; 0: as the samples ask
};

struct TimelineOptions {
    std::string m_log;
    std::string m_compare;  // --compare NEW: LOG is the base
    std::string m_export;
    render::OutputFormat m_format = render::OutputFormat::Png;
    render::ReportOptions m_report;  // m_axis: resolveAxis() sets it from m_axis and the log
    std::optional<timeline::XAxis> m_axis;  // --x, when given
    std::optional<XValue> m_rangeFrom, m_rangeTo;
    std::vector<XValue> m_cursors;
    bool m_follow = false;  // the window: re-read the log as it grows
    bool m_noIndex = false;  // never through an index on disk (timeline/open/log_index.hpp)
    bool m_trace = false;  // the window: one line per frame on stderr
    double m_scale = 0;  // the window: --scale (0: GDK_SCALE, else 1)
    std::optional<uint64_t> m_draftAbove;  // the window: --draft-above
    bool m_sizeGiven = false;
    ViewKind m_view = ViewKind::Time;
    std::optional<uint64_t> m_idleNs;  // --idle, for --view working-set
    std::optional<ArrayViewOptions> m_array;
    int m_exit = -1;  // >= 0: stop with this status (help printed, or a usage error)
};

TimelineOptions parseOptions(const std::vector<std::string>& arguments);

// The report's x axis: --x, else the log's own: a full trace's instructions (the program's time,
// not Valgrind's), else time; `countsInstructions`: the log is a full trace of memlog's tool, whose
// accesses carry instruction counts. An empty string, or why --x cannot serve the log.
std::string resolveAxis(TimelineOptions& options, bool countsInstructions);

// One line on stderr, "memtimeline: <message>"; returns 2.
int fail(const std::string& message);

}  // namespace memlog::cli

// memtimeline: draws a .memlog log in a window (render/window/) or as a report file (PNG, SVG,
// PDF); both are the same drawing (render/report/report.hpp).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>

#include "render/cli/options.hpp"
#include "render/report/array_page.hpp"
#include "render/report/array_page_shape.hpp"
#include "render/report/cache_pages.hpp"
#include "render/report/compare_page.hpp"
#include "render/report/export.hpp"
#include "render/report/report.hpp"
#include "render/window/sdl_window.hpp"
#include "render/window/timeline_window.hpp"
#include "unwind/name_cache.hpp"
#include "timeline/base/diagnostics.hpp"
#include "timeline/base/huge_pages.hpp"
#include "timeline/base/sigbus_guard.hpp"
#include "timeline/base/text_format.hpp"
#include "timeline/model/block_model.hpp"
#include "timeline/names/site_index.hpp"
#include "timeline/names/suppressions.hpp"
#include "timeline/open/opened_log.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/trace/cache_report.hpp"

namespace memlog::cli {
namespace {

// The report goes to a temporary file beside the target, renamed into place when complete:
// an unwritable place is found before the log is read, and a failure leaves no half report.
class OutputFile {
public:
    explicit OutputFile(const std::string& path) : m_path(path) {
        const size_t slash = path.rfind('/');
        m_temporary = (slash == std::string::npos ? std::string() : path.substr(0, slash + 1)) + ".memtimeline-XXXXXX";
        const int fd = mkstemp(m_temporary.data());
        if (fd < 0) {
            m_error = std::strerror(errno);
            return;
        }
        m_pending = true;
        fchmod(fd, 0644 & ~currentUmask());  // mkstemp makes it 0600: a report is an ordinary file
        m_file = fdopen(fd, "wb");
    }
    ~OutputFile() {
        if (m_file) std::fclose(m_file);
        if (m_pending) unlink(m_temporary.c_str());
    }
    std::FILE* file() const { return m_file; }
    const std::string& error() const { return m_error; }
    bool commit() {
        const bool closed = std::fclose(m_file) == 0;
        m_file = nullptr;
        if (!closed || std::rename(m_temporary.c_str(), m_path.c_str()) != 0) {
            m_error = std::strerror(errno);
            return false;
        }
        m_pending = false;
        return true;
    }

private:
    static mode_t currentUmask() {
        const mode_t mask = umask(0);
        umask(mask);
        return mask;
    }
    std::string m_path, m_temporary, m_error;
    std::FILE* m_file = nullptr;
    bool m_pending = false;  // a temporary exists, not yet renamed into place
};

// A typed x value on the report's axis: times become event numbers on the event axis; an event
// number on the time axis is a mistake, and so is a time on the instruction axis (a full trace's
// times are Valgrind's, not the program's).
std::optional<uint64_t> onAxis(const XValue& value, timeline::XAxis axis, const timeline::BlockModel& model,
                               const std::string& option) {
    if (axis == timeline::XAxis::Events) return value.m_time ? model.seqAtTime(value.m_value) : value.m_value;
    if (axis == timeline::XAxis::Instructions) {
        if (value.m_time) {
            fail(option + ": a time is no place on --x instructions: give a count of instructions (such as 2000000)");
            return std::nullopt;
        }
        return value.m_value;
    }
    if (!value.m_time) {
        fail(option + ": " + std::to_string(value.m_value) +
             " is an event number: give a unit (such as 1.5s) or --x events");
        return std::nullopt;
    }
    return value.m_value;
}

// The parts of the log every picture needs: a cache, and a working set, need every access, and
// a log without them is refused before it is read.
timeline::OpenedLog::Parts pictureParts(const TimelineOptions& options) {
    timeline::OpenedLog::Parts parts;
    if (options.m_report.m_cache || options.m_view != ViewKind::Time) parts.m_refuse = timeline::cacheRefusal;
    return parts;
}

// Why the log at `path` was refused, said as the option that asked for what it lacks.
int refused(const TimelineOptions& options, const std::string& path, const std::string& refusal) {
    return fail(std::string(options.m_view == ViewKind::Memory       ? "--view memory"
                            : options.m_view == ViewKind::WorkingSet ? "--view working-set"
                                                                     : "--cache") +
                ": " + path + ": " + refusal);
}

// A log read for a report: its model, its sites when the colours or bins need them; its path,
// phases and suppressed leaks set in `report`. The log is unmapped on return: memory holds the
// model, not the file.
struct ReportedLog {
    timeline::BlockModel m_model;
    std::optional<timeline::SiteIndex> m_sites;
    std::string m_refusal;  // not empty: the log lacks what the options ask for
    const timeline::SiteIndex* sites() const { return m_sites ? &*m_sites : nullptr; }
};

// `allSites`: the sites whatever the colours (the window may colour by site later).
ReportedLog readForReport(const std::string& path, const TimelineOptions& options, render::ReportOptions& report,
                          bool allSites = false) {
    ReportedLog read;
    report.m_logPath = path;
    const bool needSites =
        allSites || report.m_colourBy == render::ColourBy::Site || report.m_bins == timeline::BinKind::Site;
    timeline::OpenedLog::Parts parts = pictureParts(options);
    parts.m_walk = timeline::OpenedLog::Walk::Model;
    parts.m_clock = timeline::clockOf(report.m_axis);
    parts.m_index = options.m_noIndex ? timeline::IndexUse::Off : timeline::IndexUse::Auto;
    parts.m_siteIndex = needSites;
    // The header counts the runtime's one-time blocks among those live at the end apart.
    const timeline::Suppressions builtIn;
    parts.m_suppressions = &builtIn;
    timeline::OpenedLog log(path, std::move(parts),
                            {.m_warn = [](const std::string& problem) { diagnostics::warn(problem); }});
    read.m_refusal = log.refusal();
    if (!read.m_refusal.empty()) return read;
    if (const std::string note = log.indexNote(); !note.empty()) diagnostics::debug(note);
    report.m_phases = render::phaseMarks(log.reader().annotations(), log.model());
    report.m_suppressedBytes = log.suppressedLeaks().m_bytes;
    report.m_suppressedBlocks = log.suppressedLeaks().m_blocks;
    if (needSites) read.m_sites = log.takeSiteIndex();
    read.m_model = log.takeModel();
    return read;
}

// Without --export: the window. A missing display or an unreadable log is found before any
// window opens; the rest of the log is read behind a progress bar.
int runWindow(TimelineOptions& options) {
    if (const std::string problem = render::SdlWindow::displayProblem(); !problem.empty())
        return fail(problem + ": the window needs one; use --export REPORT.png to write the picture to a file");
    {
        // Opened and let go (the window's loader opens it again): throws LogError for bad magic,
        // version or chunks.
        const timeline::OpenedLog check(options.m_log, pictureParts(options));
        if (!check.refusal().empty()) return refused(options, options.m_log, check.refusal());
        if (const std::string problem = resolveAxis(options, check.reader().countsInstructions()); !problem.empty())
            return fail(problem);
    }
    render::WindowOptions window;
    window.m_log = options.m_log;
    if (!options.m_compare.empty()) {
        // The new run is read here, before the window opens (the base behind the window's
        // progress bar): a bad log is one line and status 2, as in an export.
        auto compared = std::make_shared<render::ComparedLog>();
        ReportedLog read = readForReport(options.m_compare, options, compared->m_options, true);
        if (!read.m_refusal.empty()) return refused(options, options.m_compare, read.m_refusal);
        compared->m_model = std::move(read.m_model);
        compared->m_sites = std::move(read.m_sites);
        window.m_compare = std::move(compared);
    }
    const render::ReportOptions& report = options.m_report;
    render::WindowState& state = window.m_state;
    state.m_colourBy = report.m_colourBy;
    state.m_alpha = report.m_alpha;
    state.m_cushion = report.m_cushion;
    state.m_accessMarks = report.m_accessMarks;
    state.m_axis = report.m_axis;
    state.m_bins = report.m_bins;
    state.m_layout = report.m_layout;
    if (options.m_sizeGiven) {
        window.m_width = report.m_width;
        window.m_height = report.m_height;
    }
    window.m_follow = options.m_follow;
    // A followed log changes as it is read: an index of it would be built again each time.
    window.m_index = options.m_noIndex || options.m_follow ? timeline::IndexUse::Off : timeline::IndexUse::Auto;
    window.m_scale = options.m_scale;
    if (window.m_scale == 0) {
        // X11 desktops that scale for HiDPI tell their programs so through GDK_SCALE.
        const char* gdk = std::getenv("GDK_SCALE");
        const double scale = gdk ? std::atof(gdk) : 1;
        window.m_scale = scale >= 0.5 && scale <= 4 ? scale : 1;
    }
    window.m_trace = options.m_trace;
    window.m_cache = report.m_cache;
    window.m_idleNs = options.m_idleNs.value_or(0);
    window.m_startPage = options.m_view == ViewKind::Memory       ? render::WindowOptions::StartPage::Memory
                         : options.m_view == ViewKind::WorkingSet ? render::WindowOptions::StartPage::WorkingSet
                                                                  : render::WindowOptions::StartPage::Timeline;
    window.m_fullPaths = options.m_report.m_fullPaths;
    if (options.m_draftAbove) window.m_draftAbove = static_cast<size_t>(*options.m_draftAbove);
    // --range and --cursor are resolved against the model once it is read: a time on the
    // event axis needs the log's order of events.
    window.m_resolve = [options](const timeline::BlockModel& model, render::WindowState& resolved,
                                 std::optional<timeline::XWindow>& range) {
        const timeline::XAxis axis = resolved.m_axis;
        if (options.m_rangeFrom || options.m_rangeTo) {
            timeline::XWindow shown = model.extent(axis);
            if (options.m_rangeFrom) {
                if (const auto from = onAxis(*options.m_rangeFrom, axis, model, "--range")) shown.m_from = *from;
            }
            if (options.m_rangeTo) {
                if (const auto to = onAxis(*options.m_rangeTo, axis, model, "--range")) shown.m_to = *to;
            }
            if (shown.m_from < shown.m_to) range = shown;
        }
        for (const XValue& cursor : options.m_cursors)
            if (const auto at = onAxis(cursor, axis, model, "--cursor")) resolved.m_cursors.push_back(*at);
    };
    return render::runWindow(window);
}

// --array: the array page instead of the heap's report.
int runArrayPage(const TimelineOptions& options, OutputFile& output) {
    const ArrayViewOptions& given = *options.m_array;
    timeline::OpenedLog log(
        options.m_log, {.m_walk = timeline::OpenedLog::Walk::Stacks, .m_names = timeline::OpenedLog::Names::AsAsked},
        {.m_warn = [](const std::string& problem) { diagnostics::warn(problem); }});
    std::string error;
    const std::optional<timeline::SampledArray> array =
        timeline::findArray(log.reader(), log.names(), given.m_spec, &error);
    if (!array) return fail("--array " + given.m_spec + ": " + error);
    render::ArrayPageOptions page;
    page.m_width = options.m_report.m_width;
    page.m_height = options.m_report.m_height;
    page.m_order = given.m_order;
    page.m_colouring = given.m_colouring;
    page.m_accesses = given.m_accesses;
    page.m_frames = given.m_frames;
    page.m_tile = given.m_tile;
    page.m_fade = std::min<uint32_t>(3, std::max<uint32_t>(given.m_frames, 1));
    const size_t slash = options.m_log.rfind('/');
    page.m_logName = slash == std::string::npos ? options.m_log : options.m_log.substr(slash + 1);
    for (const timeline::Annotation& annotation : log.reader().annotations())
        if (annotation.m_what == format::AnnotationKind::Phase)
            page.m_phases.push_back({annotation.m_timeNs, annotation.m_text});
    const render::GivenShape shape{given.m_elementSize, given.m_rows, given.m_columns, given.m_depth};
    if (const std::string problem = render::settleArrayShape(shape, *array, page); !problem.empty())
        return fail("--array " + given.m_spec + ": " + problem);
    const render::ArrayPage drawn(*array, page);
    render::exportPage(render::PaintedPage(page.m_width, page.m_height, [&drawn](cairo_t* cr) { drawn.paint(cr); }),
                       options.m_format, output.file(), options.m_export);
    if (!output.commit()) return fail("cannot write " + options.m_export + ": " + output.error());
    return 0;
}

// --compare: the base (LOG) above the new run on one page, on one time scale.
int runCompare(const TimelineOptions& options, OutputFile& output) {
    render::ComparedRun base{nullptr, nullptr, options.m_report}, next{nullptr, nullptr, options.m_report};
    const ReportedLog baseLog = readForReport(options.m_log, options, base.m_options);
    if (!baseLog.m_refusal.empty()) return refused(options, options.m_log, baseLog.m_refusal);
    const ReportedLog nextLog = readForReport(options.m_compare, options, next.m_options);
    if (!nextLog.m_refusal.empty()) return refused(options, options.m_compare, nextLog.m_refusal);
    base.m_model = &baseLog.m_model;
    base.m_sites = baseLog.sites();
    next.m_model = &nextLog.m_model;
    next.m_sites = nextLog.sites();
    if (options.m_rangeFrom || options.m_rangeTo) {
        // Times since each run started: the same numbers on both runs' axes.
        timeline::XWindow window = render::ComparePage::sharedWindow(baseLog.m_model, nextLog.m_model);
        if (options.m_rangeFrom) {
            const auto from = onAxis(*options.m_rangeFrom, timeline::XAxis::Time, baseLog.m_model, "--range");
            if (!from) return 2;
            window.m_from = *from;
        }
        if (options.m_rangeTo) {
            const auto to = onAxis(*options.m_rangeTo, timeline::XAxis::Time, baseLog.m_model, "--range");
            if (!to) return 2;
            window.m_to = *to;
        }
        const uint64_t end = render::ComparePage::sharedWindow(baseLog.m_model, nextLog.m_model).m_to;
        if (window.m_from >= end)
            return fail("--range starts after both runs end (at " + timeline::durationText(static_cast<double>(end)) +
                        ")");
        if (window.m_from >= window.m_to) return fail("--range: FROM must come before TO");
        base.m_options.m_window = window;
    }
    for (const XValue& cursor : options.m_cursors) {
        const auto at = onAxis(cursor, timeline::XAxis::Time, baseLog.m_model, "--cursor");
        if (!at) return 2;
        base.m_options.m_cursors.push_back(*at);
        next.m_options.m_cursors.push_back(*at);
    }
    const render::ComparePage page(std::move(base), std::move(next));
    render::exportPage(page, options.m_format, output.file(), options.m_export);
    if (!output.commit()) return fail("cannot write " + options.m_export + ": " + output.error());
    return 0;
}

int run(TimelineOptions& options) {
    if (options.m_export.empty()) return runWindow(options);
    OutputFile output(options.m_export);
    if (!output.file()) return fail("cannot write " + options.m_export + ": " + output.error());
    if (options.m_array) return runArrayPage(options, output);
    if (!options.m_compare.empty()) return runCompare(options, output);
    render::ReportOptions& report = options.m_report;
    if (const std::string problem = resolveAxis(options, timeline::LogReader(options.m_log).countsInstructions());
        !problem.empty())
        return fail(problem);
    ReportedLog read = readForReport(options.m_log, options, report);
    if (!read.m_refusal.empty()) return refused(options, options.m_log, read.m_refusal);
    const timeline::BlockModel& model = read.m_model;
    const timeline::SiteIndex* sites = read.sites();
    if (options.m_view != ViewKind::Time) {
        const render::CachePageOptions page{report.m_width, report.m_height, options.m_log, report.m_fullPaths};
        const timeline::CacheGeometry cache = report.m_cache.value_or(timeline::CacheGeometry{});
        if (options.m_view == ViewKind::Memory)
            render::exportPage(render::MemoryDisplayPage(model, cache, page), options.m_format, output.file(),
                               options.m_export);
        else
            render::exportPage(render::WorkingSetPage(model, cache.m_line, options.m_idleNs.value_or(0), page),
                               options.m_format, output.file(), options.m_export);
        if (!output.commit()) return fail("cannot write " + options.m_export + ": " + output.error());
        return 0;
    }
    const timeline::XWindow extent = model.extent(report.m_axis);
    if (options.m_rangeFrom || options.m_rangeTo) {
        timeline::XWindow window = extent;
        if (options.m_rangeFrom) {
            const auto from = onAxis(*options.m_rangeFrom, report.m_axis, model, "--range");
            if (!from) return 2;
            window.m_from = *from;
        }
        if (options.m_rangeTo) {
            const auto to = onAxis(*options.m_rangeTo, report.m_axis, model, "--range");
            if (!to) return 2;
            window.m_to = *to;
        }
        if (window.m_from >= extent.m_to)
            return fail("--range starts after the log ends (at " +
                        timeline::xText(report.m_axis, static_cast<double>(extent.m_to)) + ")");
        if (window.m_from >= window.m_to) return fail("--range: FROM must come before TO");
        report.m_window = window;
    }
    for (const XValue& cursor : options.m_cursors) {
        const auto at = onAxis(cursor, report.m_axis, model, "--cursor");
        if (!at) return 2;
        report.m_cursors.push_back(*at);
    }
    const render::Report drawn(model, sites, report);
    render::exportReport(drawn, options.m_format, output.file(), options.m_export);
    if (!output.commit()) return fail("cannot write " + options.m_export + ": " + output.error());
    return 0;
}

}  // namespace
}  // namespace memlog::cli

int main(int argc, char** argv) {
    // The model's arrays in huge pages, mapped ahead: what the window's frames need
    // (timeline/base/huge_pages.hpp); an export's two threads start on them too.
    memlog::timeline::setArrayPages(memlog::timeline::ArrayPages::HugeAndAhead);
    using namespace memlog;
    std::vector<std::string> arguments(argv + 1, argv + argc);
    diagnostics::setup("memtimeline", diagnostics::takeVerbosity(arguments));
    unwind::setNameCacheDirectory(unwind::defaultNameCacheDirectory());
    timeline::exitWhenALogIsCutWhileRead("memtimeline");
    cli::TimelineOptions options = cli::parseOptions(arguments);
    if (options.m_trace) diagnostics::enableTrace();
    if (options.m_exit >= 0) return options.m_exit;
    try {
        return cli::run(options);
    } catch (const timeline::LogError& error) {
        return cli::fail(error.what());
    } catch (const render::ExportError& error) {
        return cli::fail(error.what());
    } catch (const std::bad_alloc&) {
        return cli::fail("out of memory reading " + options.m_log);
    } catch (const render::WindowError& error) {
        return cli::fail(error.what());
    }
}

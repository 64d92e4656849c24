// memtimeline's options as rows (memlog/option_row.hpp), read by the one option reader
// (timeline/base/option_table.hpp); the values are checked here, resolved against the log in main.
#include "render/cli/options.hpp"

#include <algorithm>
#include <cstdio>
#include <tuple>

#include "memlog/format.hpp"
#include "render/report/array_page_shape.hpp"
#include "timeline/accesses/sampled_arrays.hpp"
#include "timeline/base/number_parsing.hpp"
#include "timeline/base/option_table.hpp"
#include "timeline/trace/cache_views.hpp"

namespace memlog::cli {
namespace {

using options::Kind;
using options::Row;

// ---- The values made of parts: each is read by one function, which the row's check calls too.

// "1.5s", "200ms", "3us", "40ns" (a time, its unit required), or "12345" (an event number).
std::optional<XValue> readXValue(const std::string& text) {
    if (const auto number = timeline::parseCount(text)) return XValue{false, *number};
    const bool unit = !text.empty() && (text.back() < '0' || text.back() > '9') && text.back() != '.';
    if (const auto ns = unit ? timeline::parseDuration(text) : std::nullopt) return XValue{true, *ns};
    return std::nullopt;
}

// Two parts around `separator`, either one possibly empty: "1.5s:3s", ":2s", "0x10:".
std::pair<std::string, std::string> splitAt(const std::string& text, size_t at) {
    return {text.substr(0, at), at == std::string::npos ? std::string() : text.substr(at + 1)};
}

const char* exportMistake(const char* text) {
    render::OutputFormat format;
    return render::outputFormatOf(text, format) ? nullptr : "the format comes from the name: .png, .svg or .pdf";
}

const char* sizeMistake(const char* text) {
    const auto size = timeline::parseCountList(text, 'x');
    if (!size || size->size() != 2) return "give WIDTHxHEIGHT, such as 1920x1080";
    if ((*size)[0] < 200 || (*size)[1] < 150 || (*size)[0] > 16384 || (*size)[1] > 16384)
        return "width must be 200 to 16384 and height 150 to 16384";
    return nullptr;
}

const char* cacheMistake(const char* text) {
    if (const char* mistake = timeline::cacheGeometryMistake(text)) return mistake;
    return timeline::parseCacheGeometry(text)->m_line > timeline::kLargestViewLine ? "lines of at most 4096 bytes"
                                                                                   : nullptr;
}

const char* rangeMistake(const char* text) {
    const std::string value = text;
    const auto [from, to] = splitAt(value, value.find(':'));
    if (value.find(':') == std::string::npos || (!from.empty() && !readXValue(from)) ||
        (!to.empty() && !readXValue(to)))
        return "give FROM:TO, such as 1.5s:3s, 200ms: or 1000:5000";
    return nullptr;
}

// "0x7f0000000000:0x7f0001000000", either end may be left out.
std::optional<std::pair<uint64_t, uint64_t>> readAddressWindow(const std::string& value) {
    const auto [lo, hi] = splitAt(value, value.find(':'));
    const auto low = lo.empty() ? std::optional<uint64_t>(0) : timeline::parseHex(lo);
    const auto high = hi.empty() ? std::optional<uint64_t>(UINT64_MAX) : timeline::parseHex(hi);
    if (value.find(':') == std::string::npos || !low || !high) return std::nullopt;
    return std::pair{*low, *high};
}

const char* addrMistake(const char* text) {
    const auto window = readAddressWindow(text);
    if (!window) return "give LO:HI in hex, such as 0x7f0000000000:0x7f0001000000";
    return window->first < window->second ? nullptr : "LO must be below HI";
}

const char* cursorMistake(const char* text) {
    return readXValue(text) ? nullptr : "a time with a unit (1.5s) or an event number";
}

const char* arrayMistake(const char* text) {
    return timeline::parseArraySpec(text) ? nullptr
                                          : "give an address in hex (0x55d0c8a2b000), seq=N, site=FUNCTION:K or "
                                            "global=NAME";
}

const char* dimsMistake(const char* text) {
    render::GivenShape shape;
    return render::parseArrayDims(text, shape) ? nullptr
                                               : "give ROWSxCOLUMNS or ROWSxCOLUMNSxPLANES, each at least 1, at most "
                                                 "16M cells in all (such as 256x256 or 64x64x8)";
}

constexpr Row kOptions[] = {
    {.m_name = "--export",
     .m_kind = Kind::Path,
     .m_valueName = "REPORT",
     .m_help = "write the report to REPORT: .png, .svg or .pdf (by the name) and open no window",
     .m_check = exportMistake},
    {.m_name = "--compare",
     .m_kind = Kind::Path,
     .m_valueName = "NEW",
     .m_help = "two runs on one page, LOG (the base) above NEW: one time scale, the time since each run started "
               "(to the later end, or --range), each with its own address axis, one site in one colour in both "
               "(sites matched by function, file and line, not by address); in the window a zoom or pan in time "
               "moves both; on the time axis, without --bins, --array or --view"},
    {.m_name = "--size",
     .m_kind = Kind::Text,
     .m_default = "1600x1000",
     .m_valueName = "WxH",
     .m_help = "pixels (PNG) or points (SVG, PDF, the window): width 200 to 16384, height 150 to 16384",
     .m_check = sizeMistake},
    {.m_name = "--color-by",
     .m_kind = Kind::Choice,
     .m_choices = "site|thread|size|lifetime|age|waste",
     .m_default = "site",
     .m_valueName = "WHAT",
     .m_help = "the blocks' colour: site (the allocating function), thread, size, lifetime, age (at the end of the "
               "log), waste (usable size, as glibc rounds it, minus the requested size)"},
    {.m_name = "--alpha",
     .m_kind = Kind::Real,
     .m_realLow = 0,
     .m_realHigh = 1,
     .m_aboveLow = true,
     .m_default = "0.3",
     .m_valueName = "A",
     .m_help = "bias of the antialiasing; lower makes thin and short blocks stand out more"},
    {.m_name = "--cushion",
     .m_kind = Kind::Choice,
     .m_choices = "plateau|parabolic|none",
     .m_default = "plateau",
     .m_valueName = "STYLE",
     .m_help = "the blocks' shading"},
    {.m_name = "--accesses",
     .m_kind = Kind::Text,
     .m_valueName = "WHICH",
     .m_help = "the log's sampled accesses over the blocks, reads blue and writes red, denser samples more opaque, "
               "the blocks washed out under them: on (default) or off (the key a in the window); with --array: "
               "reads, writes or both (default both)"},
    {.m_name = "--cache",
     .m_kind = Kind::Text,
     .m_valueName = "SIZE:WAYS:LINE",
     .m_help = "a cache simulated over every access of a full trace (memlog run --full-trace, memlog import): SIZE "
               "in bytes (K, M, G allowed), WAYS (1: direct-mapped), LINE bytes, a power of two; such as 32K:8:64, "
               "as memlog cache --cache takes it. On the time x address view the accesses are then coloured green "
               "(hit) or red (miss) instead of by read or write. A log of access samples is refused",
     .m_check = cacheMistake},
    {.m_name = "--view",
     .m_kind = Kind::Choice,
     .m_choices = "time|memory|working-set",
     .m_default = "time",
     .m_valueName = "KIND",
     .m_help = "time (the time x address view); memory (the cache's main memory display: the touched 64 KiB "
               "pieces of memory in rows of one way of the cache, SIZE / WAYS bytes, so that a column is a cache "
               "set, each line green for hits and red for misses, summed over the run, with bar graphs and strip "
               "charts per set and per row; --cache, default 32K:8:64); or working-set (the cache lines in the "
               "working set over time, each fading while idle and going from purple to green with the bytes of it "
               "used; lines of --cache's LINE, default 64). Both need a full trace; without --export the window "
               "opens on that page (Esc: the time x address view; space plays it back)"},
    {.m_name = "--idle",
     .m_kind = Kind::Duration,
     .m_low = 1,
     .m_valueName = "T",
     .m_help = "--view working-set: a line leaves the working set after T without an access (default: a "
               "hundredth of the run)"},
    {.m_name = "--x",
     .m_kind = Kind::Choice,
     .m_choices = "time|events|instructions",
     .m_valueName = "AXIS",
     .m_help = "x axis: time since the recording started; events (the recorder's global sequence); or "
               "instructions, a full trace's only (memlog run --full-trace; not an imported one): the "
               "guest instructions the program's threads had run, summed over them, the program's own time "
               "where Valgrind's wall clock runs 30-100x slow and goes on while the program sleeps. Default: "
               "instructions for such a trace, else time"},
    {.m_name = "--range",
     .m_kind = Kind::Text,
     .m_valueName = "FROM:TO",
     .m_help = "the stretch of x to show: times with a unit (ns, us, ms, s: 1.5s:3s, 200ms:, :2s), or plain event "
               "numbers with --x events (which takes times too), or plain counts of instructions with --x "
               "instructions; either end may be left out",
     .m_check = rangeMistake},
    {.m_name = "--addr",
     .m_kind = Kind::Text,
     .m_valueName = "LO:HI",
     .m_help = "the address window, in hex (0x55d0c8a2b000:0x55d0c8b00000); either end may be left out",
     .m_check = addrMistake},
    {.m_name = "--bins",
     .m_kind = Kind::Choice,
     .m_choices = "size|thread|region|site",
     .m_valueName = "KIND",
     .m_help = "correlated views, one per bin"},
    {.m_name = "--layout",
     .m_kind = Kind::Choice,
     .m_choices = "time|address",
     .m_default = "time",
     .m_valueName = "ALIGN",
     .m_help = "align the views of --bins in time (stacked) or in address (side by side)"},
    {.m_name = "--cursor",
     .m_kind = Kind::Text,
     .m_valueName = "T",
     .m_help = "a cushion cursor at T (a time; an event number with --x events; a count of instructions with "
               "--x instructions), over every view",
     .m_check = cursorMistake,
     .m_repeatable = true},
    {.m_name = "--array",
     .m_kind = Kind::Text,
     .m_valueName = "SPEC",
     .m_help = "draw one array's cells instead of the heap (with --export): SPEC is an address in hex (the block "
               "that held it longest, or the global there), seq=N (the N-th allocation), site=FUNCTION:K (the "
               "K-th block FUNCTION allocated) or global=NAME; `memlog arrays LOG` lists them. The page says how "
               "many samples it rests on and over what time; a cell no sample fell in is drawn as \"no sample\", "
               "never as \"not accessed\"",
     .m_check = arrayMistake},
    {.m_name = "--elem",
     .m_kind = Kind::Count,
     .m_low = 1,
     .m_high = 4096,
     .m_valueName = "N",
     .m_help = "the element size in bytes",
     .m_needs = "--array"},
    {.m_name = "--dims",
     .m_kind = Kind::Text,
     .m_valueName = "RxC[xD]",
     .m_help = "rows x columns, or rows x columns x planes (drawn side by side and stacked isometrically); at "
               "most 16M cells. Without --elem or --dims the shape comes from memlog_array() in the program, else "
               "it is inferred from the samples, and the page says so and how sure the inference is",
     .m_check = dimsMistake,
     .m_needs = "--array"},
    {.m_name = "--order",
     .m_kind = Kind::Choice,
     .m_choices = "row|col",
     .m_default = "row",
     .m_valueName = "ORDER",
     .m_help = "row-major (C) or column-major (Fortran) element order",
     .m_needs = "--array"},
    {.m_name = "--colour",
     .m_kind = Kind::Choice,
     .m_choices = "first|last|count",
     .m_default = "first",
     .m_valueName = "BY",
     .m_help = "a cell's colour from its first sampled access or its last, dark early and bright late, or from "
               "how many samples fell in it",
     .m_needs = "--array"},
    {.m_name = "--frames",
     .m_kind = Kind::Count,
     .m_low = 1,
     .m_high = 64,
     .m_valueName = "N",
     .m_help = "a playback strip of N frames instead: the samples' time cut in N equal slices, each frame the "
               "cells of its slice, reads blue and writes red, fading over the next two frames",
     .m_needs = "--array"},
    {.m_name = "--tile",
     .m_kind = Kind::Count,
     .m_low = 1,
     .m_high = 65536,
     .m_valueName = "N",
     .m_help = "the picture's tiles of N x N cells, 1 for single cells; by default, where samples are few for the "
               "cells, tiles sized so that most hold a few samples (the page says the size)",
     .m_needs = "--array"},
    {.m_name = "--paths",
     .m_kind = Kind::Choice,
     .m_choices = "names|full",
     .m_default = "names",
     .m_valueName = "HOW",
     .m_help = "the header names the program and the log, or gives their full paths (which name the folders of "
               "the machine that drew the report)"},
    {.m_name = "--verbose",
     .m_short = "-v",
     .m_help = "more on stderr (MEMLOG_LOG_LEVEL=trace|debug|info|warn|error|off too); frames once named are kept "
               "in ~/.cache/memlog/names (MEMLOG_CACHE_DIR=DIR for DIR/names, empty for none)"},
    {.m_name = "--quiet", .m_short = "-q", .m_help = "errors only on stderr (no warnings)"},
    {.m_name = "--follow",
     .m_help = "the window: read the log on as it grows (a program still being recorded; each read from where "
               "the last stopped, a second behind the program), keeping the view at its end; a page open then "
               "stays as it was (its key: the latest)"},
    {.m_name = "--no-index",
     .m_help =
         "read the log without its index on disk: a log of 16 MiB or more is otherwise "
         "read through an index built on its first opening (beside it as LOG.index, or in ~/.cache/memlog when its "
         "folder is not writable; `memlog index LOG` builds one ahead of time) and reused while the log "
         "stays the same. The picture is the same either way"},
    {.m_name = "--trace",
     .m_help = "the window: one line on stderr per frame drawn (the view, the choices, how long it took)"},
    {.m_name = "--scale",
     .m_kind = Kind::Real,
     .m_realLow = 0.5,
     .m_realHigh = 4,
     .m_valueName = "F",
     .m_help = "the window: text and controls F times larger, for a HiDPI screen whose desktop does not scale "
               "windows (default: GDK_SCALE when set, else 1)"},
    {.m_name = "--draft-above",
     .m_kind = Kind::Count,
     .m_default = "1500000",
     .m_valueName = "N",
     .m_help = "the window: a view with more than N blocks in it is drawn first as a draft, small groups of "
               "neighbouring blocks each drawn as one, then exactly once input pauses (0.2 s); 0: always exact. "
               "While exact frames paint slower than about 35 ms a million blocks, views of fewer blocks (250000 "
               "at least) are drafts too, and a frame still drawing after 34 ms (a core taken away) ends as a "
               "draft"},
    {.m_name = "--version", .m_help = "the version"},
};

constexpr timeline::CommandSyntax kSyntax{
    .m_usage =
        "memtimeline LOG [OPTIONS]                  explore LOG in a window\n"
        "       memtimeline LOG --export REPORT [OPTIONS]  write a report to a file\n"
        "       memtimeline BASE --compare NEW [--export REPORT] [OPTIONS]\n"
        "                                                  two runs on one page",
    .m_about = R"(Draws a .memlog log as MemoView draws a heap: x is time, y is address, every
block a rectangle from its allocation to its free (or the end of the log),
with an occupancy bar, a context view, a legend and a header. The address
axis shows only the ranges that held blocks (a full trace's x is the program's
instructions unless --x says otherwise). A pixel covered by many small
blocks shows them all (equation 1 of Moreta & Telea, with the bias --alpha).
The program's phases (memlog_phase() in memlog.h) are labelled dashed lines.

Without --export, memtimeline opens a window (it needs a display) that draws
the same picture: zoom and pan with the wheel, drags and keys, hover a block
for its size, times and sites, click it for its call stacks, switch colours,
cushions, axis and views from the strip at the top; press h there for every
key. The options below set where the window starts.

In the window, v on a block (or the "array view" button of a clicked block)
shows its array page as --array draws it: the shape from memlog_array() or
inferred, and said which; d types it yourself (ROWSxCOLUMNS[xPLANES] [BYTES],
Enter applies). space plays the access samples back in time order, on that
page or over the time x address view (reads blue, writes red, fading); . and ,
step, > and < change the speed. On a full trace, m and w (or --view) show the
memory display, played back with hits green and misses red, and the working
set. Esc returns to the time x address view.
)",
    .m_options = kOptions,
    .m_notes = R"(Exit status: 0 success, 2 bad usage, a log that cannot be read, a report
that cannot be written, or no display for the window (one line on stderr).
)"};

}  // namespace

int fail(const std::string& message) {
    std::fprintf(stderr, "memtimeline: %s\n", message.c_str());
    return 2;
}

TimelineOptions parseOptions(const std::vector<std::string>& arguments) {
    TimelineOptions options;
    auto error = [&](const std::string& message) {
        options.m_exit = fail(message + " (see memtimeline --help)");
        return options;
    };
    const timeline::ParseResult parsed = timeline::parseOptions(kSyntax, arguments);
    const timeline::ParsedOptions& given = parsed.m_options;
    if (parsed.m_help) {
        std::fputs(timeline::helpText(kSyntax).c_str(), stdout);
        options.m_exit = 0;
        return options;
    }
    if (std::find(arguments.begin(), arguments.end(), "--version") != arguments.end()) {
        std::printf("memtimeline 0.1.0 (log format %u; reads %u to %u)\n", format::kFormatVersion,
                    format::kOldestReadableVersion, format::kFormatVersion);
        options.m_exit = 0;
        return options;
    }
    if (!parsed.m_error.empty()) return error(parsed.m_error);
    options.m_log = given.operands()[0];
    options.m_follow = given.given("--follow");
    options.m_noIndex = given.given("--no-index");
    options.m_trace = given.given("--trace");
    render::ReportOptions& report = options.m_report;
    if (given.given("--export")) {
        options.m_export = given.text("--export");
        render::outputFormatOf(options.m_export, options.m_format);
    }
    const std::vector<uint64_t> size = *timeline::parseCountList(given.text("--size"), 'x');
    report.m_width = static_cast<int>(size[0]);
    report.m_height = static_cast<int>(size[1]);
    options.m_sizeGiven = given.given("--size");
    render::parseColourBy(given.text("--color-by"), report.m_colourBy);
    report.m_alpha = given.real("--alpha");
    render::parseCushionStyle(given.text("--cushion"), report.m_cushion);
    if (given.given("--cache")) report.m_cache = timeline::parseCacheGeometry(given.text("--cache"));
    const std::string view = given.text("--view");
    options.m_view = view == "memory"        ? ViewKind::Memory
                     : view == "working-set" ? ViewKind::WorkingSet
                                             : ViewKind::Time;
    if (given.given("--idle")) options.m_idleNs = given.number("--idle");
    if (given.given("--x")) options.m_axis = timeline::xAxisNamed(given.text("--x"));
    if (given.given("--range")) {
        const std::string range = given.text("--range");
        const auto [from, to] = splitAt(range, range.find(':'));
        if (!from.empty()) options.m_rangeFrom = readXValue(from);
        if (!to.empty()) options.m_rangeTo = readXValue(to);
    }
    if (given.given("--addr")) std::tie(report.m_addrLo, report.m_addrHi) = *readAddressWindow(given.text("--addr"));
    if (timeline::BinKind kind; given.given("--bins") && timeline::parseBinKind(given.text("--bins"), kind))
        report.m_bins = kind;
    report.m_layout = given.text("--layout") == "address" ? render::BinLayout::Address : render::BinLayout::Time;
    for (const std::string& cursor : given.texts("--cursor")) options.m_cursors.push_back(*readXValue(cursor));
    report.m_fullPaths = given.text("--paths") == "full";
    if (given.given("--scale")) options.m_scale = given.real("--scale");
    if (given.given("--draft-above")) options.m_draftAbove = given.number("--draft-above");

    const std::string accesses = given.text("--accesses");
    if (given.given("--array")) {
        ArrayViewOptions array;
        array.m_spec = given.text("--array");
        array.m_elementSize = given.number("--elem");
        if (given.given("--dims")) {
            render::GivenShape shape;
            render::parseArrayDims(given.text("--dims"), shape);
            array.m_rows = shape.m_rows;
            array.m_columns = shape.m_columns;
            array.m_depth = shape.m_depth;
        }
        array.m_order =
            given.text("--order") == "col" ? timeline::ArrayOrder::ColumnMajor : timeline::ArrayOrder::RowMajor;
        const std::string colour = given.text("--colour");
        array.m_colouring = colour == "last"    ? render::CellColouring::LastTouch
                            : colour == "count" ? render::CellColouring::Count
                                                : render::CellColouring::FirstTouch;
        array.m_frames = static_cast<uint32_t>(given.number("--frames"));
        array.m_tile = given.number("--tile");
        if (options.m_export.empty())
            return error("--array draws a page for --export; in the window, point at a block and press v");
        const char* heapOnly = report.m_bins                                           ? "--bins"
                               : options.m_rangeFrom || options.m_rangeTo              ? "--range"
                               : report.m_addrLo != 0 || report.m_addrHi != UINT64_MAX ? "--addr"
                               : !options.m_cursors.empty()                            ? "--cursor"
                                                                                       : nullptr;
        if (heapOnly) return error(std::string(heapOnly) + " is for the heap's report, not --array");
        if (accesses == "reads")
            array.m_accesses = timeline::AccessFilter::Reads;
        else if (accesses == "writes")
            array.m_accesses = timeline::AccessFilter::Writes;
        else if (!accesses.empty() && accesses != "both")
            return error("--accesses " + accesses + ": with --array, reads, writes or both");
        options.m_array = array;
    } else if (given.given("--accesses")) {
        if (accesses != "on" && accesses != "off") return error("--accesses " + accesses + ": on or off");
        report.m_accessMarks = accesses == "on";
    }
    if (options.m_array && (options.m_view != ViewKind::Time || options.m_report.m_cache))
        return error(std::string(options.m_view != ViewKind::Time ? "--view" : "--cache") + " is not for --array");
    if (options.m_idleNs && options.m_view != ViewKind::WorkingSet) return error("--idle is for --view working-set");
    if (options.m_view != ViewKind::Time) {
        const char* view = options.m_view == ViewKind::Memory ? "--view memory" : "--view working-set";
        if (options.m_report.m_bins) return error(std::string(view) + " has no --bins");
        if (options.m_rangeFrom || options.m_rangeTo || !options.m_cursors.empty() || options.m_report.m_addrLo != 0 ||
            options.m_report.m_addrHi != UINT64_MAX)
            return error(std::string(view) + " sums the whole run: it takes no --range, --addr or --cursor");
    }
    if (given.given("--compare")) {
        options.m_compare = given.text("--compare");
        const char* single = options.m_array                                   ? "--array"
                             : options.m_view != ViewKind::Time                ? "--view"
                             : report.m_bins                                   ? "--bins"
                             : options.m_axis == timeline::XAxis::Events       ? "--x events"
                             : options.m_axis == timeline::XAxis::Instructions ? "--x instructions"
                                                                               : nullptr;
        if (single) return error(std::string("--compare draws two runs on the time axis; not with ") + single);
        if (report.m_height < 300) return error("--compare halves the page: --size of at least 300 high");
    }
    if (options.m_report.m_cache && !options.m_report.m_accessMarks && options.m_view == ViewKind::Time)
        return error("--cache colours the accesses: it cannot go with --accesses off");
    if (!options.m_export.empty() && (options.m_follow || options.m_trace || options.m_scale || options.m_draftAbove))
        return error(std::string(options.m_follow  ? "--follow"
                                 : options.m_trace ? "--trace"
                                 : options.m_scale ? "--scale"
                                                   : "--draft-above") +
                     " is for the window, not --export");
    return options;
}

std::string resolveAxis(TimelineOptions& options, bool countsInstructions) {
    timeline::XAxis& axis = options.m_report.m_axis;
    axis = options.m_axis.value_or(countsInstructions && options.m_compare.empty() ? timeline::XAxis::Instructions
                                                                                   : timeline::XAxis::Time);
    if (axis == timeline::XAxis::Instructions && !countsInstructions)
        return timeline::noInstructionCounts(options.m_log) + ": draw it with --x time or --x events";
    return "";
}

}  // namespace memlog::cli

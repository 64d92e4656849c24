// Option parsing for memtimeline: values are checked here, resolved against the log in main.
#include "render/cli/options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "memlog/format.hpp"
#include "render/report/array_page_shape.hpp"
#include "timeline/base/number_parsing.hpp"
#include "timeline/trace/cache_views.hpp"

namespace memlog::cli {

const char* const kHelp = R"(usage: memtimeline LOG [OPTIONS]                  explore LOG in a window
       memtimeline LOG --export REPORT [OPTIONS]  write a report to a file

Draws a .memlog log as MemoView draws a heap: x is time, y is address, every
block a rectangle from its allocation to its free (or the end of the log),
with an occupancy bar, a context view, a legend and a header. The address
axis shows only the ranges that held blocks. A pixel covered by many small
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

  --export REPORT       write the report to REPORT: .png, .svg or .pdf (by the
                        name) and open no window
  --size WxH            pixels (PNG) or points (SVG, PDF, the window): width
                        200 to 16384, height 150 to 16384; default 1600x1000
  --color-by WHAT       site (the allocating function, default), thread, size,
                        lifetime, age (at the end of the log), waste (usable
                        size, as glibc rounds it, minus the requested size)
  --alpha A             bias of the antialiasing, 0 < A <= 1 (default 0.3);
                        lower makes thin and short blocks stand out more
  --cushion STYLE       plateau (default), parabolic or none
  --accesses on|off     the log's sampled accesses over the blocks, reads blue
                        and writes red, denser samples more opaque, the blocks
                        washed out under them (default on; the key a in the
                        window); with --array: reads, writes or both, below
  --cache SIZE:WAYS:LINE
                        a cache simulated over every access of a full trace
                        (memlog run --full-trace, memlog import): SIZE in
                        bytes (K, M, G allowed), WAYS (1: direct-mapped),
                        LINE bytes, a power of two; such as 32K:8:64. On the
                        time x address view the accesses are then coloured
                        green (hit) or red (miss) instead of by read or
                        write. A log of access samples is refused
  --view KIND           time (the time x address view, default); memory (the
                        cache's main memory display: the touched 64 KiB
                        pieces of memory in rows of one way of the cache,
                        SIZE / WAYS bytes, so that a column is a cache set,
                        each line green for hits and red for misses, summed
                        over the run, with bar graphs and strip charts per
                        set and per row; --cache, default 32K:8:64); or
                        working-set (the cache lines in the working set over
                        time, each fading while idle and going from purple to
                        green with the bytes of it used; lines of --cache's
                        LINE, default 64). Both need a full trace; without
                        --export the window opens on that page (Esc: the
                        time x address view; space plays it back)
  --idle T              --view working-set: a line leaves the working set
                        after T without an access, a time with a unit (ns,
                        us, ms, s) or plain nanoseconds (default: a
                        hundredth of the run)
  --x time|events       x axis: time since the recording started (default), or
                        the event number (the recorder's global sequence)
  --range FROM:TO       the stretch of x to show: times with a unit (ns, us,
                        ms, s: 1.5s:3s, 200ms:, :2s), or plain event numbers
                        with --x events (which takes times too); either end
                        may be left out
  --addr LO:HI          the address window, in hex (0x55d0c8a2b000:0x55d0c8b00000);
                        either end may be left out
  --bins KIND           correlated views, one per bin: size, thread, region, site
  --layout time|address align the views of --bins in time (stacked, default)
                        or in address (side by side)
  --cursor T            a cushion cursor at T (a time, or an event number with
                        --x events), over every view; repeatable
  --array SPEC          draw one array's cells instead of the heap (with
                        --export): SPEC is an address in hex (the block that
                        held it longest, or the global there), seq=N (the N-th
                        allocation), site=FUNCTION:K (the K-th block FUNCTION
                        allocated) or global=NAME; `memlog arrays LOG` lists
                        them. The page says how many samples it rests on and
                        over what time; a cell no sample fell in is drawn as
                        "no sample", never as "not accessed"
  --elem N              with --array: the element size in bytes, 1 to 4096
  --dims RxC[xD]        with --array: rows x columns, or rows x columns x
                        planes (drawn side by side and stacked isometrically);
                        at most 16M cells. Without --elem or --dims the shape
                        comes from memlog_array() in the program, else it is
                        inferred from the samples, and the page says so and
                        how sure the inference is
  --order row|col       with --array: row-major (C, default) or column-major
                        (Fortran) element order
  --colour first|last|count
                        with --array: a cell's colour from its first sampled
                        access (default) or its last, dark early and bright
                        late, or from how many samples fell in it
  --accesses reads|writes|both
                        with --array: which sampled accesses count (default
                        both)
  --frames N            with --array: a playback strip of N frames (1 to 64)
                        instead: the samples' time cut in N equal slices, each
                        frame the cells of its slice, reads blue and writes
                        red, fading over the next two frames
  --paths names|full    the header names the program and the log (default), or
                        gives their full paths (which name the folders of the
                        machine that drew the report)
  -v, --verbose         more on stderr; -q, --quiet: errors only (no warnings);
                        MEMLOG_LOG_LEVEL=trace|debug|info|warn|error|off too;
                        frames once named are kept in ~/.cache/memlog/names
                        (MEMLOG_CACHE_DIR=DIR for DIR/names, empty for none)
  --follow              the window: re-read the log when it grows (a program
                        still being recorded), keeping the view at its end; a
                        page open then stays as it was (its key: the latest)
  --trace               the window: one line on stderr per frame drawn (the
                        view, the choices, how long it took)
  --scale F             the window: text and controls F times larger, 0.5 to 4,
                        for a HiDPI screen whose desktop does not scale windows
                        (default: GDK_SCALE when set, else 1)
  --draft-above N       the window: a view with more than N blocks in it is
                        drawn first as a draft, small groups of neighbouring
                        blocks each drawn as one, then exactly once input
                        pauses (0.2 s); 0: always exact (default 1500000).
                        While exact frames paint slower than about 35 ms a
                        million blocks, views of fewer blocks (250000 at
                        least) are drafts too, and a frame still drawing
                        after 34 ms (a core taken away) ends as a draft
  -h, --help            this text
  --version             the version

Exit status: 0 success, 2 bad usage, a log that cannot be read, a report
that cannot be written, or no display for the window (one line on stderr).
)";

int fail(const std::string& message) {
    std::fprintf(stderr, "memtimeline: %s\n", message.c_str());
    return 2;
}

namespace {

bool parseUnsigned(const std::string& text, uint64_t& value, int base = 10) {
    if (text.empty() || text[0] == '-' || text[0] == '+') return false;
    errno = 0;
    char* end = nullptr;
    value = std::strtoull(text.c_str(), &end, base);
    return errno == 0 && end && *end == '\0';
}

// "1.5s", "200ms", "3us", "40ns" (a time), or "12345" (an event number).
bool parseXValue(const std::string& text, XValue& value) {
    if (uint64_t number; parseUnsigned(text, number)) {
        value = {false, number};
        return true;
    }
    char* end = nullptr;
    const double amount = std::strtod(text.c_str(), &end);
    if (!end || end == text.c_str() || !(amount >= 0) || !std::isfinite(amount)) return false;
    const std::string unit = end;
    double scale = 0;
    if (unit == "ns")
        scale = 1;
    else if (unit == "us" || unit == "\u00b5s")
        scale = 1e3;
    else if (unit == "ms")
        scale = 1e6;
    else if (unit == "s")
        scale = 1e9;
    if (scale == 0 || amount * scale > 1.8e19) return false;
    value = {true, static_cast<uint64_t>(std::llround(amount * scale))};
    return true;
}

// The forms findArray takes; what they name is checked against the log.
bool validArraySpec(const std::string& spec) {
    uint64_t number = 0;
    if (spec.starts_with("0x")) return spec.size() > 2 && parseUnsigned(spec.substr(2), number, 16);
    if (spec.starts_with("seq=")) return parseUnsigned(spec.substr(4), number);
    if (spec.starts_with("global=")) return spec.size() > 7;
    if (spec.starts_with("site=")) {
        const size_t colon = spec.rfind(':');
        return colon != std::string::npos && colon > 5 && parseUnsigned(spec.substr(colon + 1), number) && number > 0;
    }
    return false;
}

// "256x256" or "64x64x8".
bool parseDims(const std::string& text, ArrayViewOptions& array) {
    render::GivenShape shape;
    if (!render::parseArrayDims(text, shape)) return false;
    array.m_rows = shape.m_rows;
    array.m_columns = shape.m_columns;
    array.m_depth = shape.m_depth;
    return true;
}

}  // namespace

TimelineOptions parseOptions(const std::vector<std::string>& arguments) {
    TimelineOptions options;
    ArrayViewOptions array;
    bool arrayGiven = false;
    std::vector<std::string> arrayOnly;  // options that mean something only with --array
    std::string accesses;
    auto error = [&](const std::string& message) {
        options.m_exit = fail(message + " (see memtimeline --help)");
        return options;
    };
    for (size_t i = 0; i < arguments.size(); ++i) {
        const std::string& argument = arguments[i];
        if (argument == "--help" || argument == "-h") {
            std::fputs(kHelp, stdout);
            options.m_exit = 0;
            return options;
        }
        if (argument == "--version") {
            std::printf("memtimeline 0.1.0 (log format %u; reads %u to %u)\n", format::kFormatVersion,
                        format::kOldestReadableVersion, format::kFormatVersion);
            options.m_exit = 0;
            return options;
        }
        const bool takesValue =
            argument == "--export" || argument == "--size" || argument == "--color-by" || argument == "--alpha" ||
            argument == "--cushion" || argument == "--x" || argument == "--range" || argument == "--addr" ||
            argument == "--bins" || argument == "--layout" || argument == "--cursor" || argument == "--scale" ||
            argument == "--paths" || argument == "--draft-above" || argument == "--accesses" || argument == "--cache" ||
            argument == "--view" || argument == "--idle" || argument == "--array" || argument == "--elem" ||
            argument == "--dims" || argument == "--order" || argument == "--colour" || argument == "--frames";
        if (argument == "--follow" || argument == "--trace") {
            (argument == "--follow" ? options.m_follow : options.m_trace) = true;
            continue;
        }
        if (!takesValue) {
            if (!argument.empty() && argument[0] == '-') return error("unknown option '" + argument + "'");
            if (!options.m_log.empty()) return error("one log at a time ('" + options.m_log + "', '" + argument + "')");
            options.m_log = argument;
            continue;
        }
        if (i + 1 >= arguments.size()) return error(argument + " needs a value");
        const std::string& value = arguments[++i];
        render::ReportOptions& report = options.m_report;
        if (argument == "--export") {
            if (!render::outputFormatOf(value, options.m_format))
                return error("--export " + value + ": the format comes from the name: .png, .svg or .pdf");
            options.m_export = value;
        } else if (argument == "--size") {
            const size_t x = value.find('x');
            uint64_t width = 0, height = 0;
            if (x == std::string::npos || !parseUnsigned(value.substr(0, x), width) ||
                !parseUnsigned(value.substr(x + 1), height))
                return error("--size " + value + ": give WIDTHxHEIGHT, such as 1920x1080");
            if (width < 200 || height < 150 || width > 16384 || height > 16384)
                return error("--size " + value + ": width must be 200 to 16384 and height 150 to 16384");
            report.m_width = static_cast<int>(width);
            report.m_height = static_cast<int>(height);
            options.m_sizeGiven = true;
        } else if (argument == "--color-by") {
            if (!render::parseColourBy(value, report.m_colourBy))
                return error("--color-by " + value + ": one of site, thread, size, lifetime, age, waste");
        } else if (argument == "--alpha") {
            char* end = nullptr;
            const double alpha = std::strtod(value.c_str(), &end);
            if (!end || *end || !(alpha > 0 && alpha <= 1))
                return error("--alpha " + value + ": a number above 0, at most 1");
            report.m_alpha = alpha;
        } else if (argument == "--accesses") {
            accesses = value;  // on|off for the heap, reads|writes|both with --array: checked below
        } else if (argument == "--cache") {
            const size_t first = value.find(':'),
                         second = value.find(':', first == std::string::npos ? first : first + 1);
            uint64_t ways = 0, line = 0;
            const auto size =
                first == std::string::npos ? std::nullopt : timeline::parseByteSize(value.substr(0, first));
            if (!size || second == std::string::npos ||
                !parseUnsigned(value.substr(first + 1, second - first - 1), ways) ||
                !parseUnsigned(value.substr(second + 1), line) || ways > UINT32_MAX || line > UINT32_MAX)
                return error("--cache " + value + ": give SIZE:WAYS:LINE, such as 32K:8:64");
            const timeline::CacheGeometry geometry{*size, static_cast<uint32_t>(ways), static_cast<uint32_t>(line)};
            if (const std::string_view problem = timeline::geometryProblem(geometry); !problem.empty())
                return error("--cache " + value + ": " + std::string(problem));
            if (geometry.m_line > timeline::kLargestViewLine)
                return error("--cache " + value + ": lines of at most 4096 bytes");
            report.m_cache = geometry;
        } else if (argument == "--view") {
            if (value == "time")
                options.m_view = ViewKind::Time;
            else if (value == "memory")
                options.m_view = ViewKind::Memory;
            else if (value == "working-set")
                options.m_view = ViewKind::WorkingSet;
            else
                return error("--view " + value + ": time, memory or working-set");
        } else if (argument == "--idle") {
            XValue idle;
            if (!parseXValue(value, idle) || idle.m_value == 0)
                return error("--idle " + value + ": a time above 0, with a unit (such as 50us) or in nanoseconds");
            options.m_idleNs = idle.m_value;
        } else if (argument == "--cushion") {
            if (!render::parseCushionStyle(value, report.m_cushion))
                return error("--cushion " + value + ": one of plateau, parabolic, none");
        } else if (argument == "--x") {
            if (value == "time")
                report.m_axis = timeline::XAxis::Time;
            else if (value == "events")
                report.m_axis = timeline::XAxis::Events;
            else
                return error("--x " + value + ": time or events");
        } else if (argument == "--range") {
            const size_t colon = value.find(':');
            XValue from, to;
            if (colon == std::string::npos || (colon > 0 && !parseXValue(value.substr(0, colon), from)) ||
                (colon + 1 < value.size() && !parseXValue(value.substr(colon + 1), to)))
                return error("--range " + value + ": give FROM:TO, such as 1.5s:3s, 200ms: or 1000:5000");
            if (colon > 0) options.m_rangeFrom = from;
            if (colon + 1 < value.size()) options.m_rangeTo = to;
        } else if (argument == "--addr") {
            const size_t colon = value.find(':');
            uint64_t lo = 0, hi = UINT64_MAX;
            if (colon == std::string::npos || (colon > 0 && !parseUnsigned(value.substr(0, colon), lo, 16)) ||
                (colon + 1 < value.size() && !parseUnsigned(value.substr(colon + 1), hi, 16)))
                return error("--addr " + value + ": give LO:HI in hex, such as 0x7f0000000000:0x7f0001000000");
            if (lo >= hi) return error("--addr " + value + ": LO must be below HI");
            report.m_addrLo = lo;
            report.m_addrHi = hi;
        } else if (argument == "--bins") {
            timeline::BinKind kind;
            if (!timeline::parseBinKind(value, kind))
                return error("--bins " + value + ": one of size, thread, region, site");
            report.m_bins = kind;
        } else if (argument == "--layout") {
            if (value == "time")
                report.m_layout = render::BinLayout::Time;
            else if (value == "address")
                report.m_layout = render::BinLayout::Address;
            else
                return error("--layout " + value + ": time or address");
        } else if (argument == "--paths") {
            if (value == "full")
                options.m_report.m_fullPaths = true;
            else if (value == "names")
                options.m_report.m_fullPaths = false;
            else
                return error("--paths " + value + ": names or full");
        } else if (argument == "--scale") {
            char* end = nullptr;
            const double scale = std::strtod(value.c_str(), &end);
            if (!end || *end || !(scale >= 0.5 && scale <= 4))
                return error("--scale " + value + ": a number from 0.5 to 4");
            options.m_scale = scale;
        } else if (argument == "--draft-above") {
            uint64_t blocks = 0;
            if (!parseUnsigned(value, blocks))
                return error("--draft-above " + value + ": a number of blocks, 0 or more");
            options.m_draftAbove = blocks;
        } else if (argument == "--array") {
            if (!validArraySpec(value))
                return error("--array " + value +
                             ": give an address in hex (0x55d0c8a2b000), seq=N, site=FUNCTION:K "
                             "or global=NAME");
            array.m_spec = value;
            arrayGiven = true;
        } else if (argument == "--elem") {
            if (!parseUnsigned(value, array.m_elementSize) || array.m_elementSize == 0 || array.m_elementSize > 4096)
                return error("--elem " + value + ": an element size in bytes, 1 to 4096");
            arrayOnly.push_back(argument);
        } else if (argument == "--dims") {
            if (!parseDims(value, array))
                return error("--dims " + value +
                             ": give ROWSxCOLUMNS or ROWSxCOLUMNSxPLANES, each at least 1, at most "
                             "16M cells in all (such as 256x256 or 64x64x8)");
            arrayOnly.push_back(argument);
        } else if (argument == "--order") {
            if (value != "row" && value != "col") return error("--order " + value + ": row or col");
            array.m_order = value == "row" ? timeline::ArrayOrder::RowMajor : timeline::ArrayOrder::ColumnMajor;
            arrayOnly.push_back(argument);
        } else if (argument == "--colour") {
            if (value == "first")
                array.m_colouring = render::CellColouring::FirstTouch;
            else if (value == "last")
                array.m_colouring = render::CellColouring::LastTouch;
            else if (value == "count")
                array.m_colouring = render::CellColouring::Count;
            else
                return error("--colour " + value + ": first, last or count");
            arrayOnly.push_back(argument);
        } else if (argument == "--frames") {
            uint64_t frames = 0;
            if (!parseUnsigned(value, frames) || frames == 0 || frames > 64)
                return error("--frames " + value + ": a number of frames, 1 to 64");
            array.m_frames = static_cast<uint32_t>(frames);
            arrayOnly.push_back(argument);
        } else if (argument == "--cursor") {
            XValue at;
            if (!parseXValue(value, at))
                return error("--cursor " + value + ": a time with a unit (1.5s) or an event number");
            options.m_cursors.push_back(at);
        }
    }
    if (options.m_log.empty()) return error("which log?");
    if (!arrayGiven && !arrayOnly.empty()) return error(arrayOnly.front() + " goes with --array");
    if (arrayGiven) {
        if (options.m_export.empty())
            return error("--array draws a page for --export; in the window, point at a block and press v");
        const render::ReportOptions& report = options.m_report;
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
    } else if (!accesses.empty()) {
        if (accesses != "on" && accesses != "off") return error("--accesses " + accesses + ": on or off");
        options.m_report.m_accessMarks = accesses == "on";
    }
    if (arrayGiven && (options.m_view != ViewKind::Time || options.m_report.m_cache))
        return error(std::string(options.m_view != ViewKind::Time ? "--view" : "--cache") + " is not for --array");
    if (options.m_idleNs && options.m_view != ViewKind::WorkingSet) return error("--idle is for --view working-set");
    if (options.m_view != ViewKind::Time) {
        const char* view = options.m_view == ViewKind::Memory ? "--view memory" : "--view working-set";
        if (options.m_report.m_bins) return error(std::string(view) + " has no --bins");
        if (options.m_rangeFrom || options.m_rangeTo || !options.m_cursors.empty() || options.m_report.m_addrLo != 0 ||
            options.m_report.m_addrHi != UINT64_MAX)
            return error(std::string(view) + " sums the whole run: it takes no --range, --addr or --cursor");
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

}  // namespace memlog::cli

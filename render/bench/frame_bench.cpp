// memtimeline-frame-bench: how long one frame of the window takes. Builds the model of a log,
// then draws whole report pages (a Report built and painted on a Cairo image, as the window
// does every frame) of four views, each three ways: the exact path that walks every block
// (what --export does), the frame context without folding (exact pixels, index culling), and
// the frame context with level of detail. Prints one JSON object a line; scripts/bench-frame
// runs it and makes the table.
//
// usage: memtimeline-frame-bench LOG [OPTIONS] (--help lists them)
// --pause: idle that long before each frame, as a window does between inputs (after an idle
// spell the scheduler places threads differently: see timeline/base/other_core.hpp).
// --drafts: the frames with level of detail may be drafts, as the window's answers to input
// are (a view of more than DraftPolicy::kDraftAbove blocks, or --draft-above, folds more;
// see draftFold).
#include <cairo.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "render/frame/frame_context.hpp"
#include "render/report/export.hpp"
#include "render/report/report.hpp"
#include "timeline/base/huge_pages.hpp"
#include "timeline/base/number_parsing.hpp"
#include "timeline/base/option_table.hpp"
#include "timeline/open/opened_log.hpp"

namespace {

using namespace memlog;
using Clock = std::chrono::steady_clock;

// Memory of this process from /proc/self/status, MiB: "VmRSS" (resident now) or "VmHWM" (peak).
double statusMiB(const char* field) {
    std::FILE* status = std::fopen("/proc/self/status", "r");
    if (!status) return 0;
    char line[256];
    double kib = 0;
    const size_t length = std::strlen(field);
    while (std::fgets(line, sizeof line, status))
        if (std::strncmp(line, field, length) == 0 && line[length] == ':') {
            kib = std::atof(line + length + 1);
            break;
        }
    std::fclose(status);
    return kib / 1024;
}

double millisecondsSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct Settings {
    std::string m_log, m_pngDirectory;
    int m_frames = 20, m_walkFrames = 3, m_width = 1600, m_height = 1000, m_pauseMs = 0;
    render::ColourBy m_colourBy = render::ColourBy::Thread;
    std::string m_views = "whole,time,address,million";  // which views
    bool m_walk = true;  // time the walk over every block too
    bool m_index = false;  // through the log's index on disk (built when missing), its tree kept
    bool m_drafts = false;  // level of detail may draw drafts
    size_t m_draftAbove = render::DraftPolicy::kDraftAbove;
    std::optional<timeline::BinKind> m_bins;  // correlated views of that kind
};

struct View {
    std::string m_name;
    timeline::XWindow m_window;
    uint64_t m_addrLo = 0, m_addrHi = UINT64_MAX;
};

// The options the window would give a Report for this view.
render::ReportOptions optionsFor(const Settings& settings, const View& view, render::FrameContext* frame,
                                 bool levelOfDetail) {
    render::ReportOptions options;
    options.m_width = settings.m_width;
    options.m_height = settings.m_height;
    options.m_colourBy = settings.m_colourBy;
    options.m_window = view.m_window;
    options.m_addrLo = view.m_addrLo;
    options.m_addrHi = view.m_addrHi;
    options.m_logPath = settings.m_log;
    options.m_frame = frame;
    options.m_levelOfDetail = levelOfDetail;
    options.m_bins = settings.m_bins;
    options.m_mayDraft = levelOfDetail && settings.m_drafts;
    return options;
}

struct Timing {
    double m_median = 0, m_max = 0, m_first = 0;
    double m_reportMedian = 0;  // of the Report's constructor alone (scales, occupancy, bins' pass)
    render::FrameStats m_stats;
    bool m_accessDraft = false;  // the access samples were drafted (Report::drewAccessDraft)
    std::vector<uint32_t> m_view;  // the main view's pixels of the last frame
};

// Draws `frames` pages of `view` and times each; with a frame context, one more first, which
// fills its caches, timed apart.
Timing timeFrames(const timeline::BlockModel& model, const Settings& settings, const View& view,
                  render::FrameContext* frame, bool levelOfDetail, int frames, cairo_surface_t* surface) {
    Timing timing;
    std::vector<double> times, reportTimes;
    for (int i = frame ? 0 : 1; i <= frames; ++i) {
        if (frame) frame->forgetViews();  // a redraw of the same view would be a copy: draw it
        if (settings.m_pauseMs > 0) std::this_thread::sleep_for(std::chrono::milliseconds(settings.m_pauseMs));
        const auto start = Clock::now();
        const render::Report report(model, nullptr, optionsFor(settings, view, frame, levelOfDetail));
        if (i > 0) reportTimes.push_back(millisecondsSince(start));
        cairo_t* cr = cairo_create(surface);
        report.paint(cr);
        cairo_destroy(cr);
        cairo_surface_flush(surface);
        timing.m_accessDraft = report.drewAccessDraft();
        const double ms = millisecondsSince(start);
        if (i == 0)
            timing.m_first = ms;
        else
            times.push_back(ms);
        if (i == frames) {
            const render::Rect& r = report.layout().m_cells.front().m_view;
            const int stride = cairo_image_surface_get_stride(surface) / 4;
            const auto* data = reinterpret_cast<const uint32_t*>(cairo_image_surface_get_data(surface));
            for (int y = static_cast<int>(r.m_y); y < static_cast<int>(r.bottom()); ++y)
                timing.m_view.insert(timing.m_view.end(),
                                     data + static_cast<long>(y) * stride + static_cast<long>(r.m_x),
                                     data + static_cast<long>(y) * stride + static_cast<long>(r.right()));
        }
    }
    if (frame) timing.m_stats = frame->lastStats();
    std::sort(times.begin(), times.end());
    std::sort(reportTimes.begin(), reportTimes.end());
    if (!reportTimes.empty()) timing.m_reportMedian = reportTimes[reportTimes.size() / 2];
    if (!times.empty()) {
        timing.m_median = times[times.size() / 2];
        timing.m_max = times.back();
    } else {
        timing.m_median = timing.m_max = timing.m_first;  // one frame only: it is the figure
    }
    return timing;
}

// Channel differences between two pictures of one view, in levels of 255: mean and largest.
std::pair<double, int> difference(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
    double total = 0;
    int worst = 0;
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
        for (int shift : {0, 8, 16}) {
            const int d = std::abs(static_cast<int>(a[i] >> shift & 0xff) - static_cast<int>(b[i] >> shift & 0xff));
            total += d;
            worst = std::max(worst, d);
        }
    return {a.empty() ? 0 : total / (3.0 * static_cast<double>(a.size())), worst};
}

// The address `fraction` of the way up the whole log's compacted address axis.
uint64_t addressAt(const timeline::AddressRanges& ranges, double fraction) {
    double left = fraction * static_cast<double>(ranges.bytes());
    for (const auto& range : ranges.ranges()) {
        if (left < static_cast<double>(range.bytes())) return range.m_lo + static_cast<uint64_t>(left);
        left -= static_cast<double>(range.bytes());
    }
    return ranges.empty() ? 0 : ranges.ranges().back().m_hi;
}

void savePng(const Settings& settings, const std::string& name, const timeline::BlockModel& model, const View& view,
             render::FrameContext* frame, bool levelOfDetail) {
    const render::Report report(model, nullptr, optionsFor(settings, view, frame, levelOfDetail));
    cairo_surface_t* surface = render::renderImage(report);
    cairo_surface_write_to_png(surface, (settings.m_pngDirectory + "/" + name + ".png").c_str());
    cairo_surface_destroy(surface);
}

int run(const Settings& settings) {
    auto start = Clock::now();
    timeline::BlockModel model;
    model = timeline::OpenedLog(settings.m_log,
                                {.m_walk = timeline::OpenedLog::Walk::Model,
                                 .m_index = settings.m_index ? timeline::IndexUse::Always : timeline::IndexUse::Off})
                .takeModel();
    const double modelMs = millisecondsSince(start);
    const double modelMiB = statusMiB("VmRSS");
    render::FrameContext frame(model, nullptr);
    frame.policy().setCeiling(settings.m_draftAbove);
    start = Clock::now();
    frame.prepare(timeline::XAxis::Time, settings.m_colourBy);
    const double prepareMs = millisecondsSince(start);
    std::printf(
        "{\"log\": \"%s\", \"blocks\": %zu, \"model_ms\": %.1f, \"prepare_ms\": %.1f, \"model_mib\": %.1f, "
        "\"prepared_mib\": %.1f, \"peak_mib\": %.1f, \"anonymous_mib\": %.1f}\n",
        settings.m_log.c_str(), model.size(), modelMs, prepareMs, modelMiB, statusMiB("VmRSS"), statusMiB("VmHWM"),
        statusMiB("RssAnon"));

    const timeline::XWindow extent = model.extent(timeline::XAxis::Time);
    const auto& ranges = frame.wholeScale(1000).ranges();
    auto middle = [&](double share) {
        const double width = static_cast<double>(extent.width()) * share;
        const double from = static_cast<double>(extent.m_from) + (static_cast<double>(extent.width()) - width) / 2;
        return timeline::XWindow{static_cast<uint64_t>(from), static_cast<uint64_t>(from + std::max(width, 1.0))};
    };
    std::vector<View> views;
    auto wanted = [&](const char* key) { return settings.m_views.find(key) != std::string::npos; };
    if (wanted("whole")) views.push_back({"whole log", extent});
    if (wanted("time")) views.push_back({"10x in time", middle(0.1)});
    if (wanted("zoom")) views.push_back({"1.25x in time", middle(0.8)});  // the window's one zoom step
    if (wanted("address"))
        views.push_back({"100x in address", extent, addressAt(ranges, 0.495), addressAt(ranges, 0.505)});
    if (wanted("million"))
        views.push_back(
            {"1M blocks", middle(std::min(1.0, 1e6 / static_cast<double>(std::max<size_t>(model.size(), 1))))});

    cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, settings.m_width, settings.m_height);
    for (const View& view : views) {
        const size_t inView =
            frame.index().countIn({view.m_window.m_from, view.m_window.m_to, view.m_addrLo, view.m_addrHi});
        const Timing walk = settings.m_walk
                                ? timeFrames(model, settings, view, nullptr, false, settings.m_walkFrames, surface)
                                : Timing{};
        const Timing exact = timeFrames(model, settings, view, &frame, false, settings.m_frames, surface);
        const Timing lod = timeFrames(model, settings, view, &frame, true, settings.m_frames, surface);
        // The exact frame through the index against the walk (when timed), and the frame with
        // level of detail against the exact one.
        const auto [exactMean, exactWorst] = difference(walk.m_view, exact.m_view);
        const auto [lodMean, lodWorst] = difference(exact.m_view, lod.m_view);
        std::printf(
            "{\"view\": \"%s\", \"in_view\": %zu, \"walk_ms\": %.2f, \"walk_max_ms\": %.2f, "
            "\"exact_ms\": %.2f, \"exact_max_ms\": %.2f, \"exact_first_ms\": %.2f, \"exact_items\": %zu, "
            "\"lod_ms\": %.2f, \"lod_report_ms\": %.2f, \"lod_max_ms\": %.2f, \"lod_first_ms\": %.2f, \"lod_items\": "
            "%zu, "
            "\"lod_folded_nodes\": %zu, \"lod_folded_items\": %zu, \"lod_draft\": %d, \"lod_access_draft\": %d, "
            "\"walk_exact_diff_mean\": %.3f, "
            "\"walk_exact_diff_max\": %d, \"lod_diff_mean\": %.3f, \"lod_diff_max\": %d}\n",
            view.m_name.c_str(), inView, walk.m_median, walk.m_max, exact.m_median, exact.m_max, exact.m_first,
            exact.m_stats.m_items, lod.m_median, lod.m_reportMedian, lod.m_max, lod.m_first, lod.m_stats.m_items,
            lod.m_stats.m_foldedNodes, lod.m_stats.m_foldedItems, lod.m_stats.m_draft ? 1 : 0,
            lod.m_accessDraft ? 1 : 0, settings.m_walk ? exactMean : -1.0, settings.m_walk ? exactWorst : -1, lodMean,
            lodWorst);
        std::fflush(stdout);
        if (!settings.m_pngDirectory.empty()) {
            std::string name = view.m_name;
            std::replace(name.begin(), name.end(), ' ', '-');
            savePng(settings, name + "-exact", model, view, nullptr, false);
            savePng(settings, name + "-lod", model, view, &frame, true);
        }
    }
    cairo_surface_destroy(surface);
    return 0;
}

const char* sizeMistake(const char* text) {
    const auto size = timeline::parseCountList(text, 'x');
    return size && size->size() == 2 && (*size)[0] && (*size)[1] ? nullptr : "give WIDTHxHEIGHT, such as 1600x1000";
}

constexpr options::Row kOptions[] = {
    {.m_name = "--frames",
     .m_kind = options::Kind::Count,
     .m_default = "20",
     .m_valueName = "N",
     .m_help = "frames timed per view and way"},
    {.m_name = "--walk-frames",
     .m_kind = options::Kind::Count,
     .m_default = "3",
     .m_valueName = "N",
     .m_help = "frames of the walk over every block"},
    {.m_name = "--size",
     .m_kind = options::Kind::Text,
     .m_default = "1600x1000",
     .m_valueName = "WxH",
     .m_help = "the page's pixels",
     .m_check = sizeMistake},
    {.m_name = "--color-by",
     .m_kind = options::Kind::Choice,
     .m_choices = "site|thread|size|lifetime|age|waste",
     .m_default = "thread",
     .m_valueName = "KIND",
     .m_help = "the blocks' colour"},
    {.m_name = "--png",
     .m_kind = options::Kind::Path,
     .m_valueName = "DIR",
     .m_help = "each view's last frames as PNG files in DIR"},
    {.m_name = "--views",
     .m_kind = options::Kind::Text,
     .m_default = "whole,time,address,million",
     .m_valueName = "LIST",
     .m_help = "the views drawn: whole, zoom, time, address, million"},
    {.m_name = "--no-walk", .m_help = "no timing of the walk over every block"},
    {.m_name = "--index", .m_help = "through the log's index on disk, its tree mapped (built first when missing)"},
    {.m_name = "--pause",
     .m_kind = options::Kind::Count,
     .m_default = "0",
     .m_valueName = "MS",
     .m_help = "idle that long before each frame, as a window does between inputs"},
    {.m_name = "--bins",
     .m_kind = options::Kind::Choice,
     .m_choices = "size|thread|region|site",
     .m_valueName = "KIND",
     .m_help = "correlated views of that kind"},
    {.m_name = "--drafts", .m_help = "the frames with level of detail may be drafts"},
    {.m_name = "--draft-above",
     .m_kind = options::Kind::Count,
     .m_valueName = "N",
     .m_help = "a view of more than N blocks is drafted (default: the window's)",
     .m_needs = "--drafts"},
};

constexpr timeline::CommandSyntax kSyntax{
    .m_usage = "memtimeline-frame-bench LOG [OPTIONS]",
    .m_about = "How long one frame of the window takes, each view three ways; one JSON object a line.\n",
    .m_options = kOptions};

}  // namespace

int main(int argc, char** argv) {
    memlog::timeline::setArrayPages(memlog::timeline::ArrayPages::HugeAndAhead);  // as memtimeline draws
    const timeline::ParsedOptions given = timeline::programOptions("memtimeline-frame-bench", kSyntax, argc, argv);
    Settings settings;
    settings.m_log = given.operands()[0];
    settings.m_frames = static_cast<int>(given.number("--frames"));
    settings.m_walkFrames = static_cast<int>(given.number("--walk-frames"));
    const std::vector<uint64_t> size = *timeline::parseCountList(given.text("--size"), 'x');
    settings.m_width = static_cast<int>(size[0]);
    settings.m_height = static_cast<int>(size[1]);
    render::parseColourBy(given.text("--color-by"), settings.m_colourBy);
    settings.m_pngDirectory = given.text("--png");
    settings.m_views = given.text("--views");
    settings.m_walk = !given.given("--no-walk");
    settings.m_index = given.given("--index");
    settings.m_pauseMs = static_cast<int>(given.number("--pause"));
    if (timeline::BinKind kind; given.given("--bins") && timeline::parseBinKind(given.text("--bins"), kind))
        settings.m_bins = kind;
    settings.m_drafts = given.given("--drafts");
    if (given.given("--draft-above")) settings.m_draftAbove = given.number("--draft-above");
    try {
        return run(settings);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "memtimeline-frame-bench: %s\n", error.what());
        return 1;
    }
}

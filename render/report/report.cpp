// The report: what each view shows is settled in the constructor (windows, address scales,
// occupancy, legend); paint() rasterises the views and draws the rest around them.
#include "render/report/report.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "render/frame/draft_policy.hpp"
#include "render/frame/export_frame.hpp"
#include "render/raster/access_layer.hpp"
#include "render/raster/occupancy_bar.hpp"
#include "render/raster/x_scale.hpp"
#include "render/report/axes.hpp"
#include "timeline/trace/cache_views.hpp"
#include "timeline/base/text_format.hpp"

namespace memlog::render {

using timeline::Block;

Report::Report(const timeline::BlockModel& model, const timeline::SiteIndex* sites, ReportOptions options)
    : m_model(model),
      m_options(std::move(options)),
      m_exportViews(m_options.m_frame
                        ? nullptr
                        : std::make_unique<ExportViews>(
                              model, sites, m_options.m_siteOrder.empty() ? nullptr : &m_options.m_siteOrder)),
      m_source(m_options.m_frame ? *m_options.m_frame : *m_exportViews) {
    const timeline::XWindow extent = model.extent(m_options.m_axis);
    m_window = m_options.m_window.value_or(extent);
    if (m_options.m_cache) m_missOfMark = timeline::missesOfAccesses(model.accessMarks(), *m_options.m_cache);
    if (m_window.m_to <= m_window.m_from) m_window.m_to = m_window.m_from + 1;
    m_colouring = m_source.colouring(m_options.m_axis, m_options.m_colourBy, m_window);
    if (m_options.m_bins) {
        m_bins = m_source.bins(*m_options.m_bins);
        m_binOfMark = timeline::binsOfMarks(model, *m_bins);
        // Side by side, bins of one heap (sizes, threads, sites) share its address axis, so an
        // address is at the same height in every view; regions are apart by definition.
        m_sharedAddresses = m_options.m_layout == BinLayout::Address && *m_options.m_bins != timeline::BinKind::Region;
        m_layout = binsLayout(m_options.m_width, m_options.m_height, m_bins->count(), m_options.m_layout,
                              m_sharedAddresses, m_options.m_uiScale);
        for (size_t bin = 0; bin < m_bins->count(); ++bin) {
            View view;
            view.m_cell = m_layout.m_cells[bin];
            view.m_bin = static_cast<int>(bin);
            m_views.push_back(std::move(view));
        }
    } else {
        m_layout = mainLayout(m_options.m_width, m_options.m_height, m_options.m_uiScale);
        View view;
        view.m_cell = m_layout.m_cells.front();
        m_views.push_back(std::move(view));
        m_contextScale = m_source.wholeScale(m_layout.m_context.m_height);  // the context view: every range
    }
    fillViews();
    buildLegend();
}

Report::~Report() = default;

// Each view's rows (its address ranges, or the window's zoom) and occupancy, as the source
// finds them, and the occupancy at the bars' red end.
void Report::fillViews() {
    using Ranges = timeline::ViewsQuery::Ranges;
    const bool zoomed = m_options.m_addressScale && !m_bins;
    timeline::ViewsQuery query;
    query.m_axis = m_options.m_axis;
    query.m_window = m_window;
    query.m_addrLo = m_options.m_addrLo;
    query.m_addrHi = m_options.m_addrHi;
    query.m_bins = m_bins ? &*m_bins : nullptr;
    query.m_ranges = zoomed ? Ranges::None : m_sharedAddresses ? Ranges::Shared : Ranges::PerView;
    for (const View& view : m_views) {
        query.m_columns.push_back(static_cast<size_t>(view.m_cell.m_bar.m_width));
        query.m_maxRanges.push_back(AddressScale::maxRanges(view.m_cell.m_view.m_height));
    }
    std::vector<timeline::ViewContents> contents = m_source.contents(query);
    for (size_t i = 0; i < m_views.size(); ++i) {
        View& view = m_views[i];
        if (zoomed)
            view.m_scale = *m_options.m_addressScale;
        else if (m_sharedAddresses && i > 0)
            view.m_scale = m_views.front().m_scale;
        else
            view.m_scale = AddressScale(std::move(contents[i].m_ranges), view.m_cell.m_view.m_height);
        view.m_occupancy = std::move(contents[i].m_occupancy);
        for (const auto& column : view.m_occupancy) m_fullBytes = std::max(m_fullBytes, column.m_liveBytes);
    }
    estimateOccupancy();
}

// A sampled log holds a few of the blocks: the bar shows the live bytes they stand for, each
// weighted by 1/p, and (paintEstimateBand) the estimate's 95 % interval over it.
void Report::estimateOccupancy() {
    const uint64_t mean = m_model.summary().m_sampling.m_meanBytes;
    if (!mean || m_bins) return;
    m_fullBytes = 0;
    for (View& view : m_views) {
        timeline::OccupancyQuery query;
        query.m_axis = m_options.m_axis;
        query.m_window = m_window;
        query.m_columns = view.m_occupancy.size();
        query.m_addrLo = m_options.m_addrLo;
        query.m_addrHi = m_options.m_addrHi;
        view.m_estimated = timeline::sampledOccupancy(m_model, query, mean);
        for (size_t column = 0; column < view.m_occupancy.size(); ++column) {
            view.m_occupancy[column].m_liveBytes = view.m_estimated[column].m_liveBytes;
            m_fullBytes = std::max(m_fullBytes, view.m_estimated[column].m_liveBytes);
        }
    }
}

// The band: from the low end of the interval to the high end, scaled so that the highest end
// reaches the bar's top; the estimate itself a line through it.
void Report::paintEstimateBand(cairo_t* cr, const View& view) const {
    if (view.m_estimated.empty()) return;
    double top = 0;
    for (const auto& column : view.m_estimated) top = std::max(top, column.m_high);
    if (top <= 0) return;
    const Rect& bar = view.m_cell.m_bar;
    const double step = bar.m_width / static_cast<double>(view.m_estimated.size());
    auto y = [&](double bytes) { return bar.bottom() - bar.m_height * bytes / top; };
    cairo_save(cr);
    cairo_new_path(cr);
    for (size_t i = 0; i < view.m_estimated.size(); ++i)
        cairo_line_to(cr, bar.m_x + (i + 0.5) * step, y(view.m_estimated[i].m_high));
    for (size_t i = view.m_estimated.size(); i-- > 0;)
        cairo_line_to(cr, bar.m_x + (i + 0.5) * step, y(view.m_estimated[i].m_low));
    cairo_close_path(cr);
    setColour(cr, kTextColour, 0.22);
    cairo_fill(cr);
    cairo_new_path(cr);
    for (size_t i = 0; i < view.m_estimated.size(); ++i)
        cairo_line_to(cr, bar.m_x + (i + 0.5) * step, y(view.m_estimated[i].m_liveBytes));
    setColour(cr, kTextColour, 0.8);
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
    cairo_restore(cr);
}

ViewSpec Report::specOf(const View& view) const {
    ViewSpec spec;
    spec.m_axis = m_options.m_axis;
    spec.m_window = m_window;
    spec.m_scale = &view.m_scale;
    spec.m_bins = m_bins ? &*m_bins : nullptr;
    spec.m_bin = view.m_bin;
    spec.m_alpha = m_options.m_alpha;
    spec.m_cushion = m_options.m_cushion;
    return spec;
}

void Report::buildLegend() {
    using Kind = LegendItem::Kind;
    auto add = [&](Kind kind, std::string label, Rgb colour = {}, std::string low = {}, std::string high = {}) {
        m_legend.push_back({kind, std::move(label), colour, std::move(low), std::move(high)});
    };
    add(Kind::Heading, m_colouring.title());
    if (m_colouring.categorical()) {
        for (const LegendEntry& entry : m_colouring.categories()) add(Kind::Swatch, entry.m_label, entry.m_colour);
        if (m_colouring.categories().empty()) add(Kind::Note, "no blocks in this window");
    } else {
        add(Kind::Gradient, "", {}, m_colouring.lowLabel(), m_colouring.highLabel());
        if (m_options.m_colourBy == ColourBy::Waste) add(Kind::Note, "usable size as glibc malloc rounds it");
    }
    const bool estimated = !m_views.empty() && !m_views.front().m_estimated.empty();
    add(Kind::Heading, estimated ? "occupancy bar: estimated live bytes" : "occupancy bar: live bytes");
    add(Kind::Gradient, "", {}, "0", timeline::bytesText(std::round(m_fullBytes)));
    if (estimated) add(Kind::Note, "sampled log: the line the estimate, the band its 95 % interval");
    add(Kind::Note, m_bins ? "one scale for all bars; flat: busy" : "flat: blocks begin and end (busy)");
    add(Kind::Note, "cushioned: nothing begins or ends (quiet)");
    const auto& marks = m_model.accessMarks();
    if (m_options.m_cache) {
        const timeline::CacheGeometry& cache = *m_options.m_cache;
        const auto misses = static_cast<uint64_t>(std::count(m_missOfMark.begin(), m_missOfMark.end(), 1));
        add(Kind::Heading, "every access, by cache hit or miss");
        add(Kind::Swatch, "hit (" + timeline::countText(marks.size() - misses) + ")", kHitColour);
        add(Kind::Swatch, "miss (" + timeline::countText(misses) + ")", kMissColour);
        add(Kind::Note, "cache " + timeline::bytesText(static_cast<double>(cache.m_size)) + ", " +
                            std::to_string(cache.m_ways) + (cache.m_ways == 1 ? " way, " : " ways, ") +
                            std::to_string(cache.m_line) + " B lines, LRU");
        add(Kind::Note, "counts: all accesses, heap or not");
    } else if (!marks.empty()) {
        const timeline::AccessTally& tally = m_model.accessTally();
        const uint64_t writes = tally.m_writes, traps = tally.m_traps, usesAfterFree = tally.m_usesAfterFree.size();
        add(Kind::Heading, "access samples");
        add(Kind::Swatch, "read (" + timeline::countText(marks.size() - writes) + ")", kReadColour);
        add(Kind::Swatch, "write (" + timeline::countText(writes) + ")", kWriteColour);
        if (traps)
            add(Kind::Swatch, "line: a sample to the word's next access (" + timeline::countText(traps) + ")",
                kWatchLinkColour);
        if (usesAfterFree)
            add(Kind::Swatch, "cross: use after free (" + timeline::countText(usesAfterFree) + ")",
                kUseAfterFreeColour);
    }
    auto xText = [this](uint64_t value) { return timeline::xText(m_options.m_axis, static_cast<double>(value)); };
    if (!m_options.m_phases.empty()) {
        add(Kind::Heading, "phases (memlog_phase)");
        for (const PhaseMark& phase : m_options.m_phases)
            add(Kind::Note,
                phase.m_name + " at " + timeline::xText(m_model.clock(), static_cast<double>(phase.m_timeNs)));
    }
    if (!m_options.m_cursors.empty()) {
        add(Kind::Heading, "cursors");
        for (uint64_t cursor : m_options.m_cursors) add(Kind::Note, "at " + xText(cursor));
    }
    add(Kind::Heading, "reading the picture");
    const timeline::XAxis axis = m_options.m_axis;
    add(Kind::Note, std::string("x: ") +
                        (axis == timeline::XAxis::Events         ? "event number"
                         : axis == timeline::XAxis::Instructions ? "instructions the program ran"
                                                                 : "time") +
                        ", y: address (low at the bottom)");
    add(Kind::Note, "a block: from its allocation to its free");
    add(Kind::Note, "only address ranges that held blocks;");
    add(Kind::Note, "dashed line: a gap of 64 KiB or more removed");
    add(Kind::Note, "\u03b1 = " + timeline::shortCountText(m_options.m_alpha) + ": thin blocks stay visible");
    add(Kind::Note, std::string("cushions: ") + cushionName(m_options.m_cushion));
    if (!m_bins) add(Kind::Note, "right of the view: the whole log, red frame = shown");
    if (m_bins)
        add(Kind::Note,
            std::string("views aligned in ") + (m_options.m_layout == BinLayout::Time ? "time" : "address"));
}

void Report::paint(cairo_t* cr) const {
    m_source.newFrame();
    m_plans.clear();
    m_contextPlan.reset();
    fillRect(cr, {0, 0, static_cast<double>(m_options.m_width), static_cast<double>(m_options.m_height)}, kPageColour);
    paintHeader(cr);
    paintViewRasters(cr);
    for (const View& view : m_views) paintView(cr, view);
    if (!m_bins) paintContext(cr);
    const Rect& area = m_layout.m_legend;
    drawLegend(cr, m_legend, {area.m_x, area.m_y, area.m_width, area.m_height}, m_layout.m_fontSize);
}

std::vector<std::string> Report::headerLines() const {
    const timeline::Summary& s = m_model.summary();
    const std::string exe = s.m_exe.empty() ? "(unknown program)" : s.m_exe;
    const std::string name = exe.substr(exe.rfind('/') == std::string::npos ? 0 : exe.rfind('/') + 1);
    std::vector<std::string> lines;
    const std::string run = m_options.m_runName.empty() ? "" : m_options.m_runName + ": ";
    lines.push_back(run + "memlog \u00b7 " + name + "  (pid " + std::to_string(s.m_pid) + ")");
    const auto counted = timeline::countedText;
    const uint64_t suppressedBytes = std::min(m_options.m_suppressedBytes, s.m_leakedBytes);
    const uint64_t suppressedBlocks = std::min(m_options.m_suppressedBlocks, s.m_leakedBlocks);
    std::string leakedText = "leaked " + timeline::bytesText(static_cast<double>(s.m_leakedBytes - suppressedBytes)) +
                             " in " + counted(s.m_leakedBlocks - suppressedBlocks, "block");
    if (suppressedBlocks)
        leakedText += " (+ " + timeline::bytesText(static_cast<double>(suppressedBytes)) + " in " +
                      counted(suppressedBlocks, "block") + " suppressed)";
    // Mappings alive at exit beside the leaks, never in them: the process's end returns them.
    if (s.m_mappedAtExitRegions)
        leakedText += " \u00b7 mapped at exit " + timeline::bytesText(static_cast<double>(s.m_mappedAtExitBytes)) +
                      " in " + counted(s.m_mappedAtExitRegions, "region");
    std::string peak = timeline::peakText(s.m_peakBytes, s.m_blocksAtPeak, s.m_peakBlocks);
    if (s.m_peakMappedBytes)  // the split follows the peak it splits, before "at most N blocks live"
        peak.insert(peak.find(" \u00b7 "),
                    " (heap " + timeline::bytesText(static_cast<double>(s.m_peakHeapBytes)) + ", mapped " +
                        timeline::bytesText(static_cast<double>(s.m_peakMappedBytes)) + ", each at its own peak)");
    lines.push_back(timeline::durationText(static_cast<double>(s.m_durationNs)) + " \u00b7 " +
                    counted(s.m_events, "event") + " \u00b7 " + counted(m_model.size(), "block") + " \u00b7 " + peak +
                    " \u00b7 " + leakedText + " \u00b7 " + counted(s.m_threads, "thread"));
    // Names only, by default: a report shared or kept in a repository should not carry the
    // folders of the machine that drew it.
    const std::string& logPath = m_options.m_logPath;
    const std::string logName = logPath.substr(logPath.rfind('/') == std::string::npos ? 0 : logPath.rfind('/') + 1);
    std::string details = m_options.m_fullPaths ? exe + "  \u00b7  log " + logPath : "log " + logName;
    if (!s.m_complete) details += "  \u00b7  no clean end: read up to where it stops";
    if (s.m_sampling.m_meanBytes)
        details += "  \u00b7  sampled: one allocation per " +
                   timeline::bytesText(static_cast<double>(s.m_sampling.m_meanBytes)) +
                   " allocated on average, blocks drawn are the samples";
    const timeline::XWindow extent = m_model.extent(m_options.m_axis);
    const bool events = m_options.m_axis == timeline::XAxis::Events;
    auto xText = [this, events](uint64_t v) {
        return events ? timeline::countText(v) : timeline::xText(m_options.m_axis, static_cast<double>(v));
    };
    if (m_window.m_from != extent.m_from || m_window.m_to != extent.m_to)
        details += std::string("  \u00b7  showing ") + (events ? "events " : "") + xText(m_window.m_from) + " to " +
                   xText(m_window.m_to) + " (the log: " + xText(extent.m_from) + " to " + xText(extent.m_to) + ")";
    if (m_options.m_addrLo != 0 || m_options.m_addrHi != UINT64_MAX)
        details += "  \u00b7  addresses " + timeline::hexText(m_options.m_addrLo) + " to " +
                   (m_options.m_addrHi == UINT64_MAX ? std::string("the top") : timeline::hexText(m_options.m_addrHi));
    lines.push_back(details);
    return lines;
}

void Report::paintHeader(cairo_t* cr) const {
    const std::vector<std::string> lines = headerLines();
    const Rect& area = m_layout.m_header;
    const double font = m_layout.m_fontSize;
    setColour(cr, kTextColour);
    setFont(cr, font * 1.7, true);
    drawText(cr, lines[0], area.m_x, area.m_y + font * 1.6, Align::Left, area.m_width);
    setFont(cr, font * 1.1);
    drawText(cr, lines[1], area.m_x, area.m_y + font * 3.3, Align::Left, area.m_width);
    setColour(cr, kMutedTextColour);
    setFont(cr, font);
    drawText(cr, lines[2], area.m_x, area.m_y + font * 5, Align::Left, area.m_width);
}

namespace {

// The cushion cursors over a view (its bar too): where the user marked points in time.
class CursorLayer : public ViewLayer {
public:
    explicit CursorLayer(const std::vector<uint64_t>& cursors) : m_cursors(cursors) {}
    void draw(const ViewSpec& spec, PixelBuffer target) const override {
        const XScale scale(spec.m_window, target.m_width);
        for (uint64_t cursor : m_cursors) drawCushionCursor(target, scale.x(static_cast<double>(cursor)));
    }

private:
    const std::vector<uint64_t>& m_cursors;
};

}  // namespace

std::vector<FramePlan> Report::drawViews(std::vector<ViewRequest> requests) const {
    for (ViewRequest& request : requests) {
        request.m_levelOfDetail = m_options.m_levelOfDetail;
        request.m_mayDraft = m_options.m_mayDraft;
    }
    return m_source.drawViews(std::move(requests));
}

// Every view's blocks and what lies over them, drawn together (correlated views: one pass of
// tiles for all of them).
void Report::paintViewRasters(cairo_t* cr) const {
    std::vector<Rect> rects;
    for (const View& view : m_views) rects.push_back(view.m_cell.m_view);
    AccessLayer accesses(m_model.accessMarks(), m_model.accessTally(), m_bins ? &m_binOfMark : nullptr,
                         m_options.m_cache ? &m_missOfMark : nullptr, m_model.accessMarksInOrder());
    if (m_options.m_mayDraft) accesses.mayDraft(m_model.accessSummary(), DraftPolicy::kAccessDraftAbove);
    const CursorLayer cursors(m_options.m_cursors);
    paintRasters(cr, rects, [&](std::span<const PixelBuffer> targets) {
        std::vector<ViewRequest> requests;
        for (size_t i = 0; i < m_views.size(); ++i) {
            if (!targets[i].m_pixels) continue;
            ViewRequest& request = requests.emplace_back();
            request.m_spec = specOf(m_views[i]);
            request.m_target = targets[i];
            if (m_options.m_accessMarks) request.m_layers.push_back(&accesses);
            request.m_layers.push_back(&cursors);
        }
        m_plans = drawViews(std::move(requests));
    });
    m_accessDraft = accesses.drafted();
}

// The rest of a view around its raster: frame, occupancy bar, axes, labels.
void Report::paintView(cairo_t* cr, const View& view) const {
    const ViewCell& cell = view.m_cell;
    strokeRect(cr, cell.m_view, kFrameColour);
    drawPhaseMarks(cr, m_options.m_phases, m_model, m_options.m_axis, m_window, cell.m_view, m_layout.m_fontSize);
    paintRaster(cr, cell.m_bar, [&](PixelBuffer target) {
        drawOccupancyBar(view.m_occupancy, m_fullBytes, m_options.m_cushion, target);
        CursorLayer(m_options.m_cursors).draw(specOf(view), target);
    });
    paintEstimateBand(cr, view);
    strokeRect(cr, cell.m_bar, kFrameColour);
    const double font = m_layout.m_fontSize;
    const double labelFont = std::min(font * 0.95, cell.m_labels.m_width / 8.2);
    drawAddressAxis(cr, view.m_scale, cell.m_view, cell.m_labels.right(), labelFont, cell.m_labels.m_width > 0);
    if (view.m_scale.bands().empty()) {
        setColour(cr, kMutedTextColour);
        setFont(cr, font);
        drawText(cr, "no blocks here", cell.m_view.m_x + cell.m_view.m_width / 2,
                 cell.m_view.m_y + cell.m_view.m_height / 2, Align::Centre);
    }
    if (cell.m_axis.m_height > 0)
        drawXAxis(cr, m_options.m_axis, m_window, cell.m_axis.m_x, cell.m_axis.m_width, cell.m_axis.m_y, font * 0.95,
                  m_layout.m_axisTitle && &view == &m_views.back());
    if (m_bins) {
        setColour(cr, kTextColour);
        setFont(cr, font, true);
        drawText(cr, m_bins->label(static_cast<size_t>(view.m_bin)), cell.m_title.m_x,
                 cell.m_title.bottom() - font * 0.45, Align::Left, cell.m_title.m_width);
    } else {
        setColour(cr, kMutedTextColour);
        setFont(cr, font * 0.9);
        drawText(cr, "occupancy", cell.m_labels.right(), cell.m_bar.m_y + cell.m_bar.m_height / 2 + font * 0.35,
                 Align::Right);
    }
}

void Report::paintContext(cairo_t* cr) const {
    const Rect& area = m_layout.m_context;
    ViewSpec spec = specOf(m_views.front());
    spec.m_window = m_model.extent(m_options.m_axis);
    spec.m_scale = &m_contextScale;
    paintRaster(cr, area, [&](PixelBuffer target) {
        ViewRequest request{spec, target, m_options.m_levelOfDetail, m_options.m_mayDraft, m_options.m_contextMayLag,
                            {}};
        m_contextPlan = m_source.drawWhole(request);
    });
    strokeRect(cr, area, kFrameColour);
    // The shown window, framed in red as MemoView's slider.
    const XScale scale(spec.m_window, area.m_width);
    // Clamped: a window past the log's end (the shorter of two runs compared) ends at the frame.
    const double left = std::clamp(area.m_x + scale.x(static_cast<double>(m_window.m_from)), area.m_x, area.right());
    const double right = std::clamp(area.m_x + scale.x(static_cast<double>(m_window.m_to)), area.m_x, area.right());
    double top = area.m_y, bottom = area.bottom();
    if (const auto shown = m_views.front().m_scale.shownAddresses()) {
        top = area.m_y + m_contextScale.nearestY(shown->second);
        bottom = area.m_y + m_contextScale.nearestY(shown->first);
    }
    setColour(cr, {0.85, 0.1, 0.1});
    cairo_set_line_width(cr, 2);
    cairo_rectangle(cr, left, top - 1, std::max(right - left, 2.0), std::max(bottom - top, 1.0) + 2);
    cairo_stroke(cr);
    setColour(cr, kMutedTextColour);
    setFont(cr, m_layout.m_fontSize * 0.9);
    drawText(cr, "whole log", area.m_x + area.m_width / 2, area.bottom() + m_layout.m_fontSize * 1.4, Align::Centre);
}

std::vector<FramePlan> Report::plans() const {
    std::vector<FramePlan> plans = m_plans;
    if (m_contextPlan) plans.push_back(*m_contextPlan);
    return plans;
}

std::optional<std::pair<uint64_t, uint64_t>> Report::pointAt(double x, double y) const {
    for (const View& view : m_views) {
        const Rect& r = view.m_cell.m_view;
        if (x < r.m_x || x >= r.right() || y < r.m_y || y >= r.bottom()) continue;
        const auto addr = view.m_scale.addressAt(y - r.m_y);
        if (!addr) return std::nullopt;
        const XScale scale(m_window, r.m_width);
        return std::pair{static_cast<uint64_t>(scale.value(x - r.m_x)), *addr};
    }
    return std::nullopt;
}

std::optional<std::pair<uint64_t, size_t>> Report::barPointAt(double x, double y) const {
    for (size_t i = 0; i < m_views.size(); ++i) {
        const Rect& r = m_views[i].m_cell.m_bar;
        if (x < r.m_x || x >= r.right() || y < r.m_y || y >= r.bottom()) continue;
        const XScale scale(m_window, r.m_width);
        return std::pair{static_cast<uint64_t>(scale.value(x - r.m_x)), i};
    }
    return std::nullopt;
}

std::optional<Report::MarkPoint> Report::markPoint(size_t index) const {
    const timeline::AccessMark& mark = m_model.accessMarks()[index];
    for (const View& view : m_views) {
        if (m_bins && (index >= m_binOfMark.size() || m_binOfMark[index] != view.m_bin)) continue;
        const Rect& area = view.m_cell.m_view;
        const ViewSpec spec = specOf(view);
        if (const auto place = placeOf(mark, spec, XScale(spec.m_window, area.m_width)))
            return MarkPoint{area.m_x + place->first, area.m_y + place->second, area};
    }
    return std::nullopt;
}

std::vector<Rect> Report::blockRects(const Block& block) const {
    std::vector<Rect> rects;
    auto place = [&](const ViewSpec& spec, const Rect& area) {
        PixelRect rect;
        if (!blockRect(block, spec, XScale(spec.m_window, area.m_width), rect)) return;
        const double left = std::max(rect.m_x0, 0.0), right = std::min(rect.m_x1, area.m_width);
        const double top = std::max(rect.m_y0, 0.0), bottom = std::min(rect.m_y1, area.m_height);
        if (right <= left || bottom <= top) return;
        rects.push_back({area.m_x + left, area.m_y + top, right - left, bottom - top});
    };
    for (const View& view : m_views)
        if (!m_bins || m_bins->binOf(block) == view.m_bin) place(specOf(view), view.m_cell.m_view);
    if (!m_bins) {
        ViewSpec spec = specOf(m_views.front());
        spec.m_window = m_model.extent(m_options.m_axis);
        spec.m_scale = &m_contextScale;
        place(spec, m_layout.m_context);
    }
    return rects;
}

}  // namespace memlog::render

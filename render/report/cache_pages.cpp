// The cache views' pages: the layout settled in the constructor (the main display's cells in
// whole pixels when they fit, the four charts aligned with its columns and rows), the counts
// asked of timeline/, the pixels of raster/cache_display, the text drawn here.
#include "render/report/cache_pages.hpp"

#include <algorithm>
#include <cmath>
#include <span>

#include "render/raster/cache_display.hpp"
#include "render/report/axes.hpp"
#include "timeline/base/text_format.hpp"

namespace memlog::render {

timeline::XWindow accessWindow(std::span<const timeline::AccessMark> marks) {
    if (marks.empty()) return {0, 1};
    uint64_t first = UINT64_MAX, last = 0;
    for (const timeline::AccessMark& mark : marks) {
        first = std::min(first, mark.m_timeNs);
        last = std::max(last, mark.m_timeNs);
    }
    return {first, last + 1};
}

namespace {

// The sizes every part of a page scales with, as the report's layout has them.
struct Measures {
    double m_scale, m_font, m_margin, m_gap, m_title, m_labels, m_legendWidth;
    explicit Measures(int width, int height) {
        m_scale = std::clamp(std::min(width / 1600.0, height / 1000.0), 0.55, 2.5);
        m_font = std::round(11 * m_scale * 2) / 2;
        m_margin = std::round(14 * m_scale);
        m_gap = std::round(12 * m_scale);
        m_title = std::round(m_font * 1.7);
        m_labels = std::round(m_font * 9.4);
        m_legendWidth = std::round(270 * m_scale);
    }
};

std::string cacheText(const timeline::CacheGeometry& cache) {
    return timeline::bytesText(static_cast<double>(cache.m_size)) + ", " + std::to_string(cache.m_ways) +
           (cache.m_ways == 1 ? " way, " : " ways, ") + std::to_string(cache.m_line) + " B lines, " +
           timeline::countText(cache.sets()) + (cache.sets() == 1 ? " set" : " sets");
}

std::string percentText(uint64_t part, uint64_t whole) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %%",
                  whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
    return text;
}

// The three header lines: the program, what the page shows, the log.
void paintHeader(cairo_t* cr, const timeline::BlockModel& model, const CachePageOptions& options, const Rect& area,
                 double font, const std::string& view, const std::string& numbers) {
    const timeline::Summary& s = model.summary();
    const std::string exe = s.m_exe.empty() ? "(unknown program)" : s.m_exe;
    const std::string name = exe.substr(exe.rfind('/') == std::string::npos ? 0 : exe.rfind('/') + 1);
    const std::string& log = options.m_logPath;
    const std::string logName = log.substr(log.rfind('/') == std::string::npos ? 0 : log.rfind('/') + 1);
    setColour(cr, kTextColour);
    setFont(cr, font * 1.7, true);
    drawText(cr, "memlog \u00b7 " + name + "  (pid " + std::to_string(s.m_pid) + ") \u00b7 " + view, area.m_x,
             area.m_y + font * 1.6, Align::Left, area.m_width);
    setFont(cr, font * 1.1);
    drawText(cr, numbers, area.m_x, area.m_y + font * 3.3, Align::Left, area.m_width);
    setColour(cr, kMutedTextColour);
    setFont(cr, font);
    drawText(cr, options.m_fullPaths ? exe + "  \u00b7  log " + log : "log " + logName, area.m_x, area.m_y + font * 5,
             Align::Left, area.m_width);
}

void paintTitle(cairo_t* cr, const std::string& text, const Rect& over, double font) {
    setColour(cr, kTextColour);
    setFont(cr, font, true);
    drawText(cr, text, over.m_x, over.m_y - font * 0.55, Align::Left, std::max(over.m_width, font * 12));
}

void paintMuted(cairo_t* cr, const std::string& text, double x, double y, Align align, double font) {
    setColour(cr, kMutedTextColour);
    setFont(cr, font * 0.9);
    drawText(cr, text, x, y, align);
}

// A dashed line where untouched memory was removed, as the time x address view draws gaps.
void paintGap(cairo_t* cr, double x0, double x1, double y) {
    setColour(cr, kFrameColour);
    cairo_set_line_width(cr, 1);
    const double dashes[] = {4, 3};
    cairo_set_dash(cr, dashes, 2, 0);
    cairo_move_to(cr, x0, std::round(y) + 0.5);
    cairo_line_to(cr, x1, std::round(y) + 0.5);
    cairo_stroke(cr);
    cairo_set_dash(cr, nullptr, 0, 0);
}

}  // namespace

MemoryDisplayPage::MemoryDisplayPage(const timeline::BlockModel& model, const timeline::CacheGeometry& geometry,
                                     CachePageOptions options)
    : m_model(model), m_options(std::move(options)), m_window(accessWindow(model.accessMarks())) {
    const Measures m(m_options.m_width, m_options.m_height);
    Layout& l = m_layout;
    l.m_fontSize = m.m_font;
    const double width = m_options.m_width, height = m_options.m_height;
    l.m_header = {m.m_margin, m.m_margin, width - 2 * m.m_margin, std::round(m.m_font * 5.8)};
    const double top = l.m_header.bottom() + m.m_gap;
    l.m_legend = {width - m.m_margin - m.m_legendWidth, top, m.m_legendWidth, height - top - m.m_margin};
    const double left = m.m_margin + m.m_labels, right = l.m_legend.m_x - 2 * m.m_gap;
    const double chartsTop = top + m.m_title, bottom = height - m.m_margin - m.m_font * 2.2;
    const double across = right - left, down = bottom - chartsTop;
    // The display takes most of the page; the charts beside and below it share the rest.
    const double memoryWidth = std::floor(across * 0.62), memoryHeight = std::floor(down * 0.6);
    // Rows first (a pass over the accesses), to make the cells whole pixels.
    const timeline::MemoryDisplay shape =
        timeline::memoryDisplay(model.accessMarks(), geometry, m_window.m_from, m_window.m_to, 1, 1);
    const double columns = static_cast<double>(std::max<size_t>(shape.m_lines.m_columns, 1));
    const double rows = static_cast<double>(std::max<size_t>(shape.m_lines.m_rows, 1));
    const double cellWidth = std::floor(memoryWidth / columns);
    const double shownWidth = cellWidth >= 1 ? cellWidth * columns : memoryWidth;
    // Cells no taller than wide (a line of memory lies along its row), at least a pixel.
    const double cellHeight = std::min(std::floor(memoryHeight / rows), std::max(cellWidth, 1.0));
    const double shownHeight = cellHeight >= 1 ? cellHeight * rows : memoryHeight;
    l.m_memory = {left, chartsTop, shownWidth, shownHeight};
    const double belowTop = l.m_memory.bottom() + m.m_gap + m.m_title;
    const double barHeight = std::floor(std::max(down * 0.12, m.m_font * 4));
    l.m_setBars = {left, belowTop, shownWidth, barHeight};
    const double stripTop = l.m_setBars.bottom() + m.m_gap + m.m_title;
    l.m_setStrip = {left, stripTop, shownWidth, std::max(std::floor(bottom - stripTop), m.m_font * 3)};
    const double besideLeft = l.m_memory.right() + 2 * m.m_gap;
    const double barWidth = std::floor(std::max((right - besideLeft) * 0.28, m.m_font * 5));
    l.m_rowBars = {besideLeft, chartsTop, barWidth, shownHeight};
    const double stripLeft = l.m_rowBars.right() + 2 * m.m_gap;
    l.m_rowStrip = {stripLeft, chartsTop, std::max(std::floor(right - stripLeft), m.m_font * 3), shownHeight};
    m_display =
        timeline::memoryDisplay(model.accessMarks(), geometry, m_window.m_from, m_window.m_to,
                                static_cast<size_t>(l.m_setStrip.m_height), static_cast<size_t>(l.m_rowStrip.m_width));

    using Kind = LegendItem::Kind;
    auto add = [&](Kind kind, std::string label, Rgb colour = {}) {
        m_legend.push_back({kind, std::move(label), colour, {}, {}});
    };
    const timeline::HitsMisses& total = m_display.m_total;
    add(Kind::Heading, "each line of memory, over the run");
    add(Kind::Swatch, "hits (" + timeline::countText(total.m_hits) + ")", kCellHitColour);
    add(Kind::Swatch,
        "misses (" + timeline::countText(total.m_misses) + ", " + percentText(total.m_misses, total.total()) + ")",
        kCellMissColour);
    add(Kind::Swatch, "never accessed", kNoAccessColour);
    add(Kind::Note, "hue: the share of misses, green to red");
    add(Kind::Note, "strength: the accesses, log scale");
    m_summedLegendItems = m_legend.size();  // the items above: a played-back page shows others instead
    add(Kind::Heading, "cache");
    add(Kind::Note, cacheText(geometry));
    add(Kind::Note, "least recently used, write-allocate");
    add(Kind::Heading, "reading the picture");
    add(Kind::Note, "a row: one way of the cache, " + timeline::bytesText(static_cast<double>(m_display.m_rowBytes)));
    add(Kind::Note, "a column: one cache set (set 0 left)");
    add(Kind::Note, "memory: the " + timeline::countedText(m_display.m_pieces.size(), "piece") + " of 64 KiB");
    add(Kind::Note, "  that were accessed, low addresses on top");
    add(Kind::Note, "dashed line: untouched memory removed");
    add(Kind::Note, "bars: accesses, misses red at the base");
    add(Kind::Note, "strips: the same over time, per pixel");
    add(Kind::Note, "an access over two lines: one for each");
}

std::pair<double, double> MemoryDisplayPage::cellCentre(size_t row, size_t set) const {
    const Rect& r = m_layout.m_memory;
    const double cellWidth = r.m_width / static_cast<double>(m_display.m_lines.m_columns);
    const double cellHeight = r.m_height / static_cast<double>(m_display.m_lines.m_rows);
    return {r.m_x + (static_cast<double>(set) + 0.5) * cellWidth,
            r.m_y + (static_cast<double>(row) + 0.5) * cellHeight};
}

void MemoryDisplayPage::paintAddresses(cairo_t* cr) const {
    const Rect& r = m_layout.m_memory;
    const double font = m_layout.m_fontSize, rows = static_cast<double>(std::max<size_t>(m_display.m_lines.m_rows, 1));
    double lastLabel = -1e9;
    for (size_t piece = 0; piece < m_display.m_pieces.size(); ++piece) {
        const double row = std::floor(static_cast<double>(piece * timeline::MemoryDisplay::kPieceBytes) /
                                      static_cast<double>(m_display.m_rowBytes));
        const double y = r.m_y + row * r.m_height / rows;
        const bool gapBefore = piece > 0 && m_display.m_pieces[piece] !=
                                                m_display.m_pieces[piece - 1] + timeline::MemoryDisplay::kPieceBytes;
        if (gapBefore) paintGap(cr, r.m_x, m_layout.m_rowStrip.right(), y);
        if (y - lastLabel < font * 1.15) continue;
        setColour(cr, kMutedTextColour);
        setFont(cr, std::min(font * 0.95, m_layout.m_memory.m_x / 8.2));
        drawText(cr, timeline::hexText(m_display.m_pieces[piece]), r.m_x - font * 0.4, y + font * 0.8, Align::Right);
        lastLabel = y;
    }
}

void MemoryDisplayPage::setLive(std::vector<LitGridCell> lit, uint64_t nowNs, std::string status) {
    m_live = Live{std::move(lit), nowNs, std::move(status)};
}

// Time goes down the sets' strip and right along the rows': the playback's moment on both.
void MemoryDisplayPage::paintNow(cairo_t* cr) const {
    const Layout& l = m_layout;
    const double at =
        static_cast<double>(std::clamp(m_live->m_nowNs, m_window.m_from, m_window.m_to) - m_window.m_from) /
        static_cast<double>(std::max<uint64_t>(m_window.width(), 1));
    setColour(cr, kTextColour);
    cairo_set_line_width(cr, 1);
    const double y = std::round(l.m_setStrip.m_y + at * l.m_setStrip.m_height) + 0.5;
    cairo_move_to(cr, l.m_setStrip.m_x, y);
    cairo_line_to(cr, l.m_setStrip.right(), y);
    const double x = std::round(l.m_rowStrip.m_x + at * l.m_rowStrip.m_width) + 0.5;
    cairo_move_to(cr, x, l.m_rowStrip.m_y);
    cairo_line_to(cr, x, l.m_rowStrip.bottom());
    cairo_stroke(cr);
}

void MemoryDisplayPage::paint(cairo_t* cr) const {
    const Layout& l = m_layout;
    const double font = l.m_fontSize;
    fillRect(cr, {0, 0, static_cast<double>(m_options.m_width), static_cast<double>(m_options.m_height)}, kPageColour);
    const timeline::HitsMisses& total = m_display.m_total;
    std::string numbers = "cache " + cacheText(m_display.m_geometry) + "  \u00b7  " +
                          timeline::countText(total.total()) + " line accesses: " + timeline::countText(total.m_hits) +
                          " hits, " + timeline::countText(total.m_misses) + " misses (" +
                          percentText(total.m_misses, total.total()) + ")";
    if (m_live)
        numbers += "  \u00b7  playing back: at " + timeline::durationText(static_cast<double>(m_live->m_nowNs)) +
                   (m_live->m_status.empty() ? std::string() : " (" + m_live->m_status + ")");
    paintHeader(cr, m_model, m_options, l.m_header, font, "main memory display", numbers);
    paintRaster(cr, l.m_memory, [&](PixelBuffer target) {
        if (m_live)
            drawLitGrid(m_display.m_lines, m_live->m_lit, target);
        else
            drawCountGrid(m_display.m_lines, kNoAccessColour, target);
    });
    paintRaster(cr, l.m_setBars, [&](PixelBuffer target) { drawCountBars(m_display.m_sets, true, target); });
    paintRaster(cr, l.m_setStrip,
                [&](PixelBuffer target) { drawCountGrid(m_display.m_setsOverTime, kChartBackground, target); });
    paintRaster(cr, l.m_rowBars, [&](PixelBuffer target) { drawCountBars(m_display.m_rows, false, target); });
    paintRaster(cr, l.m_rowStrip,
                [&](PixelBuffer target) { drawCountGrid(m_display.m_rowsOverTime, kChartBackground, target); });
    for (const Rect* r : {&l.m_memory, &l.m_setBars, &l.m_setStrip, &l.m_rowBars, &l.m_rowStrip})
        strokeRect(cr, *r, kFrameColour);
    paintTitle(cr, "memory (rows) by cache set (columns)", l.m_memory, font);
    paintTitle(cr, "per set", l.m_setBars, font);
    paintTitle(cr, "per set over time \u2193", l.m_setStrip, font);
    paintTitle(cr, "per row", l.m_rowBars, font);
    paintTitle(cr, "per row over time \u2192", l.m_rowStrip, font);
    paintAddresses(cr);
    const size_t sets = m_display.m_lines.m_columns;
    paintMuted(cr, "set 0", l.m_setStrip.m_x, l.m_setStrip.bottom() + font * 1.3, Align::Left, font);
    paintMuted(cr, "set " + timeline::countText(sets ? sets - 1 : 0), l.m_setStrip.right(),
               l.m_setStrip.bottom() + font * 1.3, Align::Right, font);
    const std::string from = timeline::durationText(static_cast<double>(m_window.m_from));
    const std::string to = timeline::durationText(static_cast<double>(m_window.m_to));
    paintMuted(cr, from, l.m_setStrip.m_x - font * 0.4, l.m_setStrip.m_y + font * 0.8, Align::Right, font);
    paintMuted(cr, to, l.m_setStrip.m_x - font * 0.4, l.m_setStrip.bottom(), Align::Right, font);
    paintMuted(cr, from, l.m_rowStrip.m_x, l.m_rowStrip.bottom() + font * 1.3, Align::Left, font);
    paintMuted(cr, to, l.m_rowStrip.right(), l.m_rowStrip.bottom() + font * 1.3, Align::Right, font);
    const uint64_t mostPerSet =
        std::max_element(m_display.m_sets.begin(), m_display.m_sets.end(), [](const auto& a, const auto& b) {
            return a.total() < b.total();
        })->total();
    paintMuted(cr, "most: " + timeline::countText(mostPerSet), l.m_setBars.m_x - font * 0.4,
               l.m_setBars.m_y + font * 0.8, Align::Right, font);
    if (!m_live) {
        drawLegend(cr, m_legend, l.m_legend, font);
        return;
    }
    paintNow(cr);
    // Played back, the key tells the lit lines first; the cache and how to read the page follow.
    using Kind = LegendItem::Kind;
    std::vector<LegendItem> legend = {{Kind::Heading, "played back: each access lights its line", {}, {}, {}},
                                      {Kind::Swatch, "a hit", kCellHitColour, {}, {}},
                                      {Kind::Swatch, "a miss", kCellMissColour, {}, {}},
                                      {Kind::Note, "fading as time goes on; the run's", {}, {}, {}},
                                      {Kind::Note, "  sums faint beneath", {}, {}, {}}};
    legend.insert(legend.end(), m_legend.begin() + static_cast<long>(m_summedLegendItems), m_legend.end());
    drawLegend(cr, legend, l.m_legend, font);
}

WorkingSetPage::WorkingSetPage(const timeline::BlockModel& model, uint32_t lineBytes, uint64_t idleNs,
                               CachePageOptions options)
    : m_model(model), m_options(std::move(options)), m_window(accessWindow(model.accessMarks())) {
    const Measures m(m_options.m_width, m_options.m_height);
    m_fontSize = m.m_font;
    const double width = m_options.m_width, height = m_options.m_height;
    m_header = {m.m_margin, m.m_margin, width - 2 * m.m_margin, std::round(m.m_font * 5.8)};
    const double top = m_header.bottom() + m.m_gap + m.m_title;
    m_legendArea = {width - m.m_margin - m.m_legendWidth, top, m.m_legendWidth, height - top - m.m_margin};
    const double left = m.m_margin + m.m_labels;
    m_view = {left, top, std::floor(m_legendArea.m_x - 2 * m.m_gap - left),
              std::floor(height - m.m_margin - std::round(m.m_font * 3.9) - top)};
    if (idleNs == 0) idleNs = std::max<uint64_t>(m_window.width() / 100, 1);
    m_set = timeline::workingSet(model.accessMarks(), lineBytes, idleNs, m_window.m_from, m_window.m_to,
                                 static_cast<size_t>(std::max(m_view.m_width, 1.0)));
    using Kind = LegendItem::Kind;
    auto add = [&](Kind kind, std::string label, Rgb colour = {}) {
        m_legend.push_back({kind, std::move(label), colour, {}, {}});
    };
    const std::string line = std::to_string(m_set.m_lineBytes) + " B";
    add(Kind::Heading, "a cache line in the working set");
    add(Kind::Swatch, "1 byte of it used", workingLineColour({0, 0, 1}, m_set.m_lineBytes));
    add(Kind::Swatch, "half of it used", workingLineColour({0, 0, m_set.m_lineBytes / 2}, m_set.m_lineBytes));
    add(Kind::Swatch, "all " + line + " used", workingLineColour({0, 0, m_set.m_lineBytes}, m_set.m_lineBytes));
    add(Kind::Swatch, "about to leave (idle)", workingLineColour({0, 1, m_set.m_lineBytes}, m_set.m_lineBytes));
    add(Kind::Note, "bytes counted since it joined");
    add(Kind::Heading, "the working set");
    add(Kind::Note, "a line leaves after " + timeline::durationText(static_cast<double>(m_set.m_idleNs)) + " idle");
    add(Kind::Note, "  (--idle), fading meanwhile");
    add(Kind::Note, "largest: " + timeline::countedText(m_set.m_largest, "line") + " (" +
                        timeline::bytesText(static_cast<double>(m_set.m_largest * m_set.m_lineBytes)) + ")");
    add(Kind::Note, "lines ever in it: " + timeline::countText(m_set.m_distinct));
    add(Kind::Heading, "reading the picture");
    add(Kind::Note, "x: time, from the first access");
    add(Kind::Note, "y: the lines in the set at that time,");
    add(Kind::Note, "  by address, low at the top; a line");
    add(Kind::Note, "  moves down as lower ones join");
    add(Kind::Note, "height: the working set's size");
}

void WorkingSetPage::paint(cairo_t* cr) const {
    const double font = m_fontSize;
    fillRect(cr, {0, 0, static_cast<double>(m_options.m_width), static_cast<double>(m_options.m_height)}, kPageColour);
    paintHeader(cr, m_model, m_options, m_header, font, "working set of cache lines",
                std::to_string(m_set.m_lineBytes) + " B lines  \u00b7  a line leaves after " +
                    timeline::durationText(static_cast<double>(m_set.m_idleNs)) +
                    " without an access  \u00b7  at most " + timeline::countedText(m_set.m_largest, "line") +
                    " at once, " + timeline::countText(m_set.m_distinct) + " in all");
    paintRaster(cr, m_view, [&](PixelBuffer target) { drawWorkingSet(m_set, target); });
    strokeRect(cr, m_view, kFrameColour);
    paintTitle(cr, "cache lines in the working set", m_view, font);
    const double lineHeight = workingLineHeight(m_set, static_cast<int>(m_view.m_height));
    const double filled = std::min(m_view.m_height, static_cast<double>(m_set.m_largest) * lineHeight);
    if (m_set.m_largest) {
        setColour(cr, kFrameColour);
        cairo_set_line_width(cr, 1);
        cairo_move_to(cr, m_view.m_x - font * 0.6, std::round(m_view.m_y + filled) + 0.5);
        cairo_line_to(cr, m_view.m_x, std::round(m_view.m_y + filled) + 0.5);
        cairo_stroke(cr);
        paintMuted(cr, timeline::countedText(m_set.m_largest, "line"), m_view.m_x - font * 0.8,
                   m_view.m_y + filled + font * 0.35, Align::Right, font);
    }
    drawXAxis(cr, timeline::XAxis::Time, m_window, m_view.m_x, m_view.m_width, m_view.bottom(), font * 0.95, true);
    drawLegend(cr, m_legend, m_legendArea, font);
}

}  // namespace memlog::render

// The window's pages: each keeps the export's page for the window's size (made again when the
// window is resized) and, once playback has begun, hands it what is lit at the clock's time.
#include "render/window/window_pages.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "render/report/cairo_draw.hpp"
#include "timeline/trace/cache_views.hpp"
#include "timeline/base/text_format.hpp"

namespace memlog::render {

namespace {

std::string oneWord(std::string text) {  // a --trace value has no spaces
    for (char& c : text)
        if (c == ' ' || c == '=') c = '_';
    return text.empty() ? "-" : text;
}

std::string speedText(double speed) {
    char text[16];
    std::snprintf(text, sizeof text, "%gx", speed);
    return text;
}

std::string cacheName(const timeline::CacheGeometry& cache) {
    return std::to_string(cache.m_size / 1024) + "K:" + std::to_string(cache.m_ways) + ":" +
           std::to_string(cache.m_line);
}

}  // namespace

std::string WindowPage::statusText() const {
    return std::string(m_clock.playing() ? "playing"
                       : m_clock.atEnd() ? "at the end"
                                         : "paused") +
           ", speed " + speedText(m_clock.speed());
}

std::string WindowPage::playbackFields(size_t lit) const {
    char text[200];
    std::snprintf(
        text, sizeof text, " playback=%d playing=%d t=%" PRIu64 " from=%" PRIu64 " to=%" PRIu64 " speed=%g lit=%zu",
        m_begun ? 1 : 0, m_clock.playing() ? 1 : 0, m_clock.now(), m_clock.from(), m_clock.to(), m_clock.speed(), lit);
    return text;
}

// --- an array ------------------------------------------------------------------------------------

ArrayWindowPage::ArrayWindowPage(timeline::SampledArray array, std::string logName, std::vector<PhaseMark> phases,
                                 std::string* error)
    : m_array(std::move(array)) {
    m_options.m_logName = std::move(logName);
    m_options.m_phases = std::move(phases);
    if (m_array.m_samples.empty()) {
        *error = "no access samples fell in this block: there is no array to draw (record with MEMLOG_ACCESS=1)";
        return;
    }
    *error = settleArrayShape(m_given, m_array, m_options, &m_settled, 0, &m_candidates);
    if (error->empty()) settled();
}

std::string ArrayWindowPage::nextRowLength() {
    if (m_settled.m_source != ShapeSource::Inferred)
        return "the row lengths to go through are the inference's: this shape is " +
               std::string(shapeSourceName(m_settled.m_source));
    if (m_candidates < 2) return "the samples support one row length alone";
    ArrayPageOptions options = m_options;
    SettledShape how;
    const size_t next = (m_candidate + 1) % m_candidates;
    if (std::string problem = settleArrayShape(m_given, m_array, options, &how, next); !problem.empty()) return problem;
    m_options = std::move(options);
    m_settled = how;
    m_candidate = next;
    settled();
    return "";
}

void ArrayWindowPage::settled() {
    const timeline::ArrayShape& shape = m_options.m_shape;
    std::vector<uint64_t> times;
    m_cellOfSample.clear();
    for (const timeline::ArraySample& sample : m_array.m_samples) {
        times.push_back(sample.m_timeNs);
        const std::optional<uint64_t> cell = timeline::cellOfOffset(sample.m_offset, shape, m_options.m_order);
        m_cellOfSample.push_back(cell ? static_cast<int64_t>(*cell) : -1);
    }
    m_times = SampleTimes(std::move(times));
    m_tile = 0;  // a new shape: tiles as its samples ask
    const uint64_t first = m_array.m_samples.front().m_timeNs, last = m_array.m_samples.back().m_timeNs;
    if (m_clock.from() != first || m_clock.to() != std::max(last, first + 1)) m_clock = PlaybackClock(first, last);
    m_page.reset();
}

std::string ArrayWindowPage::setShape(const GivenShape& given) {
    ArrayPageOptions options = m_options;
    SettledShape how;
    // What the user did not give comes from the program or the inference, as on the command line.
    size_t candidates = 0;
    if (std::string problem = settleArrayShape(given, m_array, options, &how, 0, &candidates); !problem.empty())
        return problem;
    m_options = std::move(options);
    m_given = given;
    m_settled = how;
    m_candidate = 0;
    m_candidates = candidates;
    settled();
    return "";
}

bool ArrayWindowPage::zoomTiles(bool in) {
    const uint64_t now = m_tile ? m_tile : m_tileForSamples;
    const uint64_t next = in ? std::max<uint64_t>(now / 2, 1) : std::min(now * 2, m_tileForSamples);
    if (next == now) return false;
    m_tile = next;
    m_page.reset();
    return true;
}

void ArrayWindowPage::paint(cairo_t* cr, int width, int height) {
    if (!m_page || m_page->options().m_width != width || m_page->options().m_height != height) {
        m_options.m_width = width;
        m_options.m_height = height;
        m_options.m_tile = m_tile;
        m_page = std::make_unique<ArrayPage>(m_array, m_options);
        m_tileForSamples = m_page->tileForSamples();
        m_tile = m_page->tile();
    }
    m_lit = 0;
    if (m_begun) {
        std::vector<FadingTouch> touches;
        for (const LitSample& sample : m_times.litAt(m_clock.now(), m_clock.fadeNs())) {
            const int64_t cell = m_cellOfSample[sample.m_index];
            if (cell < 0) continue;
            const format::AccessKind kind = m_array.m_samples[sample.m_index].m_kind;
            touches.push_back({static_cast<uint64_t>(cell), format::writes(kind), sample.m_strength});
        }
        m_lit = touches.size();
        m_page->setLive(std::move(touches), m_clock.now(), statusText());
    } else {
        m_page->clearLive();
    }
    m_page->paint(cr);
}

std::string ArrayWindowPage::describe() const {
    const timeline::ArrayShape& shape = m_options.m_shape;
    std::string dims = std::to_string(shape.m_rows) + "x" + std::to_string(shape.m_columns);
    if (shape.m_depth > 1) dims += "x" + std::to_string(shape.m_depth);
    char confidence[32];
    std::snprintf(confidence, sizeof confidence, "%.2f", m_settled.m_confidence);
    return "page=array array=" + oneWord(m_array.m_name) + " seq=" + std::to_string(m_array.m_blockSeq) +
           " shape=" + dims + " elem=" + std::to_string(shape.m_elementSize) +
           " shape_from=" + shapeSourceName(m_settled.m_source) + " confidence=" + confidence +
           " samples=" + std::to_string(m_array.m_samples.size()) + " tile=" + std::to_string(m_tile) +
           " row_length=" + std::to_string(m_candidate + 1) + "/" + std::to_string(m_candidates) +
           playbackFields(m_lit);
}

// --- the memory display ----------------------------------------------------------------------------

MemoryWindowPage::MemoryWindowPage(const timeline::BlockModel& model, const timeline::CacheGeometry& geometry,
                                   std::string logPath)
    : m_model(model), m_geometry(geometry), m_logPath(std::move(logPath)) {
    const std::span<const timeline::AccessMark> marks = model.accessMarks();
    m_missOfMark = timeline::missesOfAccesses(marks, geometry);
    std::vector<uint64_t> times;
    times.reserve(marks.size());
    for (const timeline::AccessMark& mark : marks) times.push_back(mark.m_timeNs);
    m_times = SampleTimes(std::move(times));
    const timeline::XWindow window = accessWindow(marks);
    m_clock = PlaybackClock(window.m_from, window.m_to);
}

void MemoryWindowPage::paint(cairo_t* cr, int width, int height) {
    if (!m_page || m_page->width() != width || m_page->height() != height)
        m_page =
            std::make_unique<MemoryDisplayPage>(m_model, m_geometry, CachePageOptions{width, height, m_logPath, false});
    m_lit = m_litMisses = 0;
    if (m_begun) {
        std::vector<LitGridCell> lit;
        const std::span<const timeline::AccessMark> marks = m_model.accessMarks();
        for (const LitSample& sample : m_times.litAt(m_clock.now(), m_clock.fadeNs())) {
            const auto cell = m_page->display().cellOf(marks[sample.m_index].m_addr);
            if (!cell) continue;
            const bool miss = m_missOfMark[sample.m_index] != 0;
            lit.push_back({cell->first, cell->second, miss, sample.m_strength});
            m_litMisses += miss;
        }
        m_lit = lit.size();
        m_page->setLive(std::move(lit), m_clock.now(), statusText());
    } else {
        m_page->clearLive();
    }
    m_page->paint(cr);
}

std::string MemoryWindowPage::describe() const {
    std::string text =
        "page=memory cache=" + cacheName(m_geometry) + " accesses=" + std::to_string(m_model.accessMarks().size());
    if (m_page)
        text += " rows=" + std::to_string(m_page->display().m_lines.m_rows) +
                " sets=" + std::to_string(m_page->display().m_lines.m_columns);
    return text + playbackFields(m_lit) + " lit_misses=" + std::to_string(m_litMisses);
}

// --- the working set -----------------------------------------------------------------------------

WorkingSetWindowPage::WorkingSetWindowPage(const timeline::BlockModel& model, uint32_t lineBytes, uint64_t idleNs,
                                           std::string logPath)
    : m_model(model), m_lineBytes(lineBytes), m_idleNs(idleNs), m_logPath(std::move(logPath)) {
    const timeline::XWindow window = accessWindow(model.accessMarks());
    m_clock = PlaybackClock(window.m_from, window.m_to);
}

void WorkingSetWindowPage::paint(cairo_t* cr, int width, int height) {
    if (!m_page || m_page->width() != width || m_page->height() != height)
        m_page = std::make_unique<WorkingSetPage>(m_model, m_lineBytes, m_idleNs,
                                                  CachePageOptions{width, height, m_logPath, false});
    m_page->paint(cr);
    if (!m_begun) return;
    // Time runs left to right across the view: the playback's moment as a line over it.
    const Rect& view = m_page->view();
    const double at = m_clock.fraction();
    const double x = std::round(view.m_x + at * view.m_width) + 0.5;
    setColour(cr, kTextColour);
    cairo_set_line_width(cr, 1.5);
    cairo_move_to(cr, x, view.m_y);
    cairo_line_to(cr, x, view.bottom());
    cairo_stroke(cr);
}

std::string WorkingSetWindowPage::describe() const {
    std::string text = "page=working-set line=" + std::to_string(m_lineBytes);
    if (m_page)
        text += " largest=" + std::to_string(m_page->workingSet().m_largest) +
                " distinct=" + std::to_string(m_page->workingSet().m_distinct);
    return text + playbackFields(0);
}

}  // namespace memlog::render

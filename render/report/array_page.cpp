// The array page's drawing: text and frames with Cairo, the cells through array plans
// (frame/array_plan), the isometric stack as the planes' pictures under an affine map.
#include "render/report/array_page.hpp"

#include <algorithm>
#include <cmath>

#include "render/frame/array_plan.hpp"
#include "timeline/base/text_format.hpp"

namespace memlog::render {

namespace {

const char* colouringText(CellColouring colouring) {
    switch (colouring) {
        case CellColouring::FirstTouch:
            return "first access";
        case CellColouring::LastTouch:
            return "last access";
        case CellColouring::Count:
            return "how often accessed";
    }
    return "";
}

const char* accessesText(timeline::AccessFilter filter) {
    switch (filter) {
        case timeline::AccessFilter::Reads:
            return "reads";
        case timeline::AccessFilter::Writes:
            return "writes";
        case timeline::AccessFilter::Both:
            break;
    }
    return "reads and writes";
}

std::string shapeText(const timeline::ArrayShape& shape) {
    std::string text = std::to_string(shape.m_rows) + " x " + std::to_string(shape.m_columns);
    if (shape.m_depth > 1) text += " x " + std::to_string(shape.m_depth);
    return text;
}

std::string timeText(uint64_t ns) { return timeline::durationText(static_cast<double>(ns)); }

// A plane of `shape` drawn at one pixel a cell, for the isometric stack to map.
cairo_surface_t* planeImage(const ArrayPlan& plan, const timeline::ArrayShape& shape) {
    cairo_surface_t* image = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, static_cast<int>(shape.m_columns),
                                                        static_cast<int>(shape.m_rows));
    if (cairo_surface_status(image) != CAIRO_STATUS_SUCCESS) return image;
    cairo_surface_flush(image);
    ArrayPlan onImage = plan;
    onImage.m_target = {reinterpret_cast<uint32_t*>(cairo_image_surface_get_data(image)),
                        static_cast<int>(shape.m_columns), static_cast<int>(shape.m_rows),
                        cairo_image_surface_get_stride(image) / 4};
    drawArrayPlan(onImage);
    cairo_surface_mark_dirty(image);
    return image;
}

}  // namespace

ArrayPage::ArrayPage(const timeline::SampledArray& array, ArrayPageOptions options)
    : m_array(array), m_options(std::move(options)), m_layout(arrayPageLayout(m_options)) {
    m_cells = timeline::arrayCells(array, m_options.m_shape, m_options.m_order, UINT64_MAX, m_options.m_accesses);
    if (m_options.m_frames == 0) {
        m_tileForSamples = timeline::tileForSamples(m_cells);
        m_tile = m_options.m_tile ? m_options.m_tile : m_tileForSamples;
        if (m_tile > 1) m_tiles = timeline::tiledCells(m_cells, m_tile);
    }
    if (m_options.m_frames > 0)
        m_playback =
            timeline::playback(array, m_options.m_shape, m_options.m_order, m_options.m_frames, m_options.m_accesses);
}

void ArrayPage::setLive(std::vector<FadingTouch> touches, uint64_t nowNs, std::string status) {
    m_live = Live{std::move(touches), nowNs, std::move(status)};
}

void ArrayPage::paint(cairo_t* cr) const {
    setColour(cr, kPageColour);
    cairo_paint(cr);
    paintHeader(cr);
    if (m_options.m_frames > 0) {
        paintPlayback(cr);
    } else {
        paintPicture(cr);
        if (m_options.m_shape.m_depth > 1) paintIsometric(cr);
    }
    paintNotes(cr);
}

void ArrayPage::paintHeader(cairo_t* cr) const {
    const Rect& area = m_layout.m_header;
    const double font = m_layout.m_fontSize;
    const timeline::ArrayShape& shape = m_options.m_shape;
    std::string title = "array " + m_array.m_name + "  \u00b7  " + shapeText(shape) + " of " +
                        std::to_string(shape.m_elementSize) + " B";
    if (!m_options.m_logName.empty()) title += "  \u00b7  " + m_options.m_logName;
    std::string rests = "rests on " + timeline::countedText(m_cells.m_samples, "sample") + " (" +
                        accessesText(m_options.m_accesses) + ")";
    if (m_cells.m_samples)
        rests += " from " + timeText(m_cells.m_firstNs) + " to " + timeText(m_cells.m_lastNs) + " (" +
                 timeText(m_cells.m_lastNs - m_cells.m_firstNs) + ")";
    if (m_live)
        rests += "  \u00b7  playing back: at " + timeText(m_live->m_nowNs) +
                 (m_live->m_status.empty() ? std::string() : " (" + m_live->m_status + ")");
    else
        rests += m_options.m_frames ? "  \u00b7  played back in " + std::to_string(m_options.m_frames) + " frames"
                                    : std::string("  \u00b7  coloured by ") + colouringText(m_options.m_colouring);
    if (m_tile > 1 && !m_live)
        rests += "  \u00b7  tiles of " + std::to_string(m_tile) + " x " + std::to_string(m_tile) +
                 " cells (few samples for the cells; --tile 1 or zooming in: single cells)";
    std::string where =
        (m_array.m_global ? "global at " : "heap block seq " + std::to_string(m_array.m_blockSeq) + " at ") +
        timeline::hexText(m_array.m_addr) + ", " + timeline::bytesText(static_cast<double>(m_array.m_size));
    if (!m_array.m_global && !m_array.m_site.empty())
        where += ", allocated by " + m_array.m_site + " (its block " + std::to_string(m_array.m_ordinal) + ")";
    where += "  \u00b7  named from " + m_array.m_nameFrom;
    setColour(cr, kTextColour);
    setFont(cr, font * 1.7, true);
    drawText(cr, title, area.m_x, area.m_y + font * 1.6, Align::Left, area.m_width);
    setFont(cr, font * 1.1);
    drawText(cr, rests, area.m_x, area.m_y + font * 3.3, Align::Left, area.m_width);
    setColour(cr, kMutedTextColour);
    setFont(cr, font);
    drawText(cr, where, area.m_x, area.m_y + font * 5, Align::Left, area.m_width);
}

void ArrayPage::paintPicture(cairo_t* cr) const {
    const double font = m_layout.m_fontSize;
    const bool planes = m_options.m_shape.m_depth > 1;
    paintRasters(cr, m_layout.m_planes, [&](std::span<const PixelBuffer> buffers) {
        for (size_t plane = 0; plane < buffers.size(); ++plane) {
            ArrayPlan plan;
            plan.m_cells = &shown();
            plan.m_plane = plane;
            plan.m_colouring = m_options.m_colouring;
            plan.m_touches = m_live ? &m_live->m_touches : nullptr;
            plan.m_target = buffers[plane];
            drawArrayPlan(plan);
        }
    });
    setFont(cr, font * 0.95);
    for (size_t plane = 0; plane < m_layout.m_planes.size(); ++plane) {
        const Rect& rect = m_layout.m_planes[plane];
        strokeRect(cr, {rect.m_x - 0.5, rect.m_y - 0.5, rect.m_width + 1, rect.m_height + 1}, kFrameColour);
        setColour(cr, kMutedTextColour);
        const std::string label =
            planes ? "plane k = " + std::to_string(plane) : std::string("rows i down, columns j across");
        drawText(cr, label, rect.m_x, rect.m_y - font * 0.5, Align::Left, rect.m_width);
    }
}

// Each plane a parallelogram: columns run down to the right, rows down to the left, plane 0 on
// top; planes far enough apart that most of each shows under the one above.
void ArrayPage::paintIsometric(cairo_t* cr) const {
    const timeline::ArrayShape& shape = m_options.m_shape;
    const Rect& area = m_layout.m_isometric;
    const double columns = static_cast<double>(shape.m_columns), rows = static_cast<double>(shape.m_rows);
    const double depth = static_cast<double>(shape.m_depth);
    const double cosine = std::sqrt(3.0) / 2, spread = 0.72;  // a plane's height apart, times spread
    const double scale = std::min(area.m_width / ((columns + rows) * cosine),
                                  area.m_height / ((columns + rows) * 0.5 * (1 + spread * (depth - 1))));
    const double diamond = (columns + rows) * 0.5 * scale;
    const double left = area.m_x + (area.m_width - (columns + rows) * cosine * scale) / 2;
    const double font = m_layout.m_fontSize;
    setFont(cr, font * 0.9);
    setColour(cr, kMutedTextColour);
    drawText(cr, "the planes stacked, k = 0 on top", area.m_x, area.m_y - font * 0.5, Align::Left, area.m_width);
    for (uint64_t k = shape.m_depth; k-- > 0;) {
        ArrayPlan plan;
        plan.m_cells = &shown();
        plan.m_plane = k;
        plan.m_colouring = m_options.m_colouring;
        plan.m_touches = m_live ? &m_live->m_touches : nullptr;
        cairo_surface_t* image = planeImage(plan, shown().m_shape);
        const double x0 = left + rows * cosine * scale, y0 = area.m_y + static_cast<double>(k) * spread * diamond;
        cairo_matrix_t map;  // cell (column u, row v) to the page
        cairo_matrix_init(&map, cosine * scale, 0.5 * scale, -cosine * scale, 0.5 * scale, x0, y0);
        cairo_save(cr);
        cairo_transform(cr, &map);
        const timeline::ArrayShape& drawn = shown().m_shape;  // tiles: each as wide as its cells
        cairo_scale(cr, columns / static_cast<double>(drawn.m_columns), rows / static_cast<double>(drawn.m_rows));
        cairo_set_source_surface(cr, image, 0, 0);
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
        cairo_rectangle(cr, 0, 0, static_cast<double>(drawn.m_columns), static_cast<double>(drawn.m_rows));
        cairo_fill_preserve(cr);
        cairo_restore(cr);
        setColour(cr, kTextColour);
        cairo_set_line_width(cr, 1);
        cairo_stroke(cr);
        cairo_surface_destroy(image);
        setColour(cr, kMutedTextColour);
        drawText(cr, "k = " + std::to_string(k), x0 - rows * cosine * scale - font * 0.4,
                 y0 + rows * 0.5 * scale + font * 0.35, Align::Right);
    }
}

void ArrayPage::paintPlayback(cairo_t* cr) const {
    const timeline::ArrayShape& shape = m_options.m_shape;
    const double font = m_layout.m_fontSize;
    const uint64_t depth = std::max<uint64_t>(shape.m_depth, 1);
    // Each frame's planes side by side, as arrayPageLayout made room for them.
    std::vector<Rect> planes;
    for (const Rect& frame : m_layout.m_planes) {
        const double unit = static_cast<double>(shape.m_columns * depth) +
                            static_cast<double>(depth - 1) * std::max(1.0, static_cast<double>(shape.m_columns) / 16);
        const double cell = frame.m_width / unit;
        for (uint64_t k = 0; k < depth; ++k) {
            const double x = std::round(
                frame.m_x + cell * (static_cast<double>(k * shape.m_columns) +
                                    static_cast<double>(k) * std::max(1.0, static_cast<double>(shape.m_columns) / 16)));
            planes.push_back({x, frame.m_y, std::floor(cell * static_cast<double>(shape.m_columns)), frame.m_height});
        }
    }
    paintRasters(cr, planes, [&](std::span<const PixelBuffer> buffers) {
        for (size_t i = 0; i < buffers.size(); ++i) {
            ArrayPlan plan;
            plan.m_cells = &m_cells;
            plan.m_plane = i % depth;
            plan.m_playback = &m_playback;
            plan.m_frame = static_cast<uint32_t>(i / depth);
            plan.m_fade = m_options.m_fade;
            plan.m_target = buffers[i];
            drawArrayPlan(plan);
        }
    });
    setFont(cr, font * 0.95);
    for (const Rect& rect : planes)
        strokeRect(cr, {rect.m_x - 0.5, rect.m_y - 0.5, rect.m_width + 1, rect.m_height + 1}, kFrameColour);
    for (size_t frame = 0; frame < m_layout.m_planes.size(); ++frame) {
        const Rect& rect = m_layout.m_planes[frame];
        const uint64_t from = frame == 0 ? m_playback.m_firstNs : m_playback.m_sliceEndNs[frame - 1];
        const size_t touches = m_playback.m_touches[frame].size();
        setColour(cr, kMutedTextColour);
        drawText(cr,
                 std::to_string(frame + 1) + ": " + timeText(from) + " to " + timeText(m_playback.m_sliceEndNs[frame]) +
                     ", " + timeline::countedText(touches, "sample"),
                 rect.m_x, rect.m_y - font * 0.5, Align::Left, rect.m_width);
    }
}

void ArrayPage::paintNotes(cairo_t* cr) const {
    const Rect& area = m_layout.m_notes;
    const double font = m_layout.m_fontSize, line = font * 1.45;
    double y = area.m_y + font;
    auto heading = [&](const std::string& text) {
        y += line * 0.4;
        setColour(cr, kTextColour);
        setFont(cr, font * 1.05, true);
        drawText(cr, text, area.m_x, y, Align::Left, area.m_width);
        y += line;
    };
    auto note = [&](const std::string& text) {  // wrapped at spaces to the notes' width
        setColour(cr, kTextColour);
        setFont(cr, font);
        std::string current;
        size_t at = 0;
        while (at <= text.size()) {
            const size_t space = std::min(text.find(' ', at), text.size());
            const std::string word = text.substr(at, space - at);
            const std::string longer = current.empty() ? word : current + " " + word;
            if (!current.empty() && textWidth(cr, longer) > area.m_width) {
                drawText(cr, current, area.m_x, y, Align::Left, area.m_width);
                y += line;
                current = "  " + word;
            } else {
                current = longer;
            }
            at = space + 1;
        }
        drawText(cr, current, area.m_x, y, Align::Left, area.m_width);
        y += line;
    };
    auto swatch = [&](const Rgb& colour, const std::string& text) {
        fillRect(cr, {area.m_x, y - font * 0.85, font * 1.1, font * 1.1}, colour);
        strokeRect(cr, {area.m_x, y - font * 0.85, font * 1.1, font * 1.1}, kFrameColour, 0.5);
        setColour(cr, kTextColour);
        setFont(cr, font);
        drawText(cr, text, area.m_x + font * 1.7, y, Align::Left, area.m_width - font * 1.7);
        y += line;
    };
    const timeline::ArrayShape& shape = m_options.m_shape;
    if (m_live) {
        heading("playing back");
        note("the cells of the latest samples, fading as time goes on");
        swatch(kPlaybackReadColour, "read");
        swatch(kPlaybackWriteColour, "written");
        swatch(kPlaybackIdleColour, "sampled at another time");
    } else if (m_options.m_frames > 0) {
        heading("each frame");
        note("the cells its time slice's samples fell in,");
        note("fading over the next " + std::to_string(m_options.m_fade - 1) + " frames");
        swatch(kPlaybackReadColour, "read");
        swatch(kPlaybackWriteColour, "written");
        swatch(kPlaybackIdleColour, "sampled in another slice");
    } else {
        heading(std::string("colour: ") + colouringText(m_options.m_colouring));
        const Rect ramp{area.m_x, y - font * 0.85, std::min(area.m_width, font * 18), font * 1.1};
        paintRaster(cr, ramp, [](PixelBuffer buffer) {
            for (int x = 0; x < buffer.m_width; ++x) {
                const uint32_t colour =
                    toArgb(touchRampColour(static_cast<double>(x) / std::max(1, buffer.m_width - 1)));
                for (int row = 0; row < buffer.m_height; ++row) buffer.at(x, row) = colour;
            }
        });
        strokeRect(cr, ramp, kFrameColour, 0.5);
        y += line;
        setFont(cr, font * 0.9);
        setColour(cr, kMutedTextColour);
        const bool count = m_options.m_colouring == CellColouring::Count;
        drawText(cr, count ? "1 sample" : "early: " + timeText(m_cells.m_firstNs), ramp.m_x, y - font * 0.3);
        drawText(cr, count ? std::to_string(shown().m_mostTouched) + " samples" : "late: " + timeText(m_cells.m_lastNs),
                 ramp.right(), y - font * 0.3, Align::Right);
        y += line * 0.6;
    }
    if (m_tile > 1 && !m_live) {
        note("each square a tile of " + std::to_string(m_tile) + " x " + std::to_string(m_tile) + " cells: its");
        note(m_options.m_colouring == CellColouring::Count ? "cells' samples together" : "cells' earliest or latest sample");
    }
    swatch(kNoSampleColour, "no sample fell here");
    note("(it may still have been accessed:");
    note("samples are a tick's worth, not all)");
    heading("shape");
    note(shapeText(shape) + (shape.m_depth > 1 ? " (rows x columns x planes)" : " (rows x columns)"));
    note("element " + std::to_string(shape.m_elementSize) + " B, " +
         (m_options.m_order == timeline::ArrayOrder::RowMajor ? "row-major" : "column-major"));
    note(m_options.m_shapeGiven ? "given on the command line" : "not given:");
    for (const std::string& from : m_options.m_shapeFrom) note(from);
    if (!m_layout.m_planes.empty() && m_layout.m_planes.front().m_height < static_cast<double>(shape.m_rows))
        note("more cells than pixels: a pixel shows all of its cells (the earliest, latest or most touched)");
    if (m_cells.m_outside) note(timeline::countedText(m_cells.m_outside, "sample") + " past the last element");
    uint64_t reads = 0, writes = 0, sampled = 0;
    for (const timeline::ArrayCell& cell : m_cells.m_cells) {
        reads += cell.m_reads;
        writes += cell.m_writes;
        sampled += cell.sampled();
    }
    heading("samples");
    note(timeline::countText(reads) + " reads, " + timeline::countText(writes) + " writes");
    note(timeline::countText(sampled) + " of " + timeline::countText(shape.cells()) + " cells sampled");
    heading("phases (memlog_phase)");
    if (m_options.m_phases.empty()) note("none in the log");
    for (const PhaseMark& phase : m_options.m_phases) note(phase.m_name + " at " + timeText(phase.m_timeNs));
}

}  // namespace memlog::render

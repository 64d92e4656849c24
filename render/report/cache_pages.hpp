// The cache views of a full trace, each a page of its own: CS348C's main memory display with its
// four summary charts, and ExpertMemer's working set of cache lines. The counts come from
// timeline/trace/cache_views.hpp, the pixels from raster/cache_display.hpp; here the layout and text.
#pragma once

#include <cairo.h>

#include <optional>
#include <string>
#include <vector>
#include <span>

#include "render/raster/cache_display.hpp"
#include "render/report/export.hpp"
#include "render/report/legend.hpp"
#include "timeline/model/block_model.hpp"
#include "timeline/trace/cache_views.hpp"

namespace memlog::render {

struct CachePageOptions {
    int m_width = 1600, m_height = 1000;
    std::string m_logPath;  // for the header: its name, or all of it with m_fullPaths
    bool m_fullPaths = false;
};

// The time the views cover: from the first access to just after the last.
timeline::XWindow accessWindow(std::span<const timeline::AccessMark> marks);

class MemoryDisplayPage final : public Page {
public:
    struct Layout {
        double m_fontSize = 11;
        Rect m_header, m_legend;
        Rect m_memory;  // the main display: rows of memory x sets, whole pixels per cell when they fit
        Rect m_setBars;  // below it, a bar per set
        Rect m_setStrip;  // below that, sets over time (time goes down)
        Rect m_rowBars;  // right of the display, a bar per row
        Rect m_rowStrip;  // right of that, rows over time (time goes right)
    };

    // The model must outlive the page.
    MemoryDisplayPage(const timeline::BlockModel& model, const timeline::CacheGeometry& geometry,
                      CachePageOptions options);
    int width() const override { return m_options.m_width; }
    int height() const override { return m_options.m_height; }
    void paint(cairo_t* cr) const override;

    const timeline::MemoryDisplay& display() const { return m_display; }
    const Layout& layout() const { return m_layout; }
    const std::vector<LegendItem>& legend() const { return m_legend; }
    // The page pixel at the centre of the cell of (row, set) when cells are whole pixels.
    std::pair<double, double> cellCentre(size_t row, size_t set) const;
    // The window's playback at `nowNs`: these lines lit over the display washed out, a line
    // across both strip charts at that time, `status` (speed, paused) in the header.
    void setLive(std::vector<LitGridCell> lit, uint64_t nowNs, std::string status);
    void clearLive() { m_live.reset(); }
    const timeline::XWindow& window() const { return m_window; }

private:
    struct Live {
        std::vector<LitGridCell> m_lit;
        uint64_t m_nowNs = 0;
        std::string m_status;
    };
    void paintAddresses(cairo_t* cr) const;
    void paintNow(cairo_t* cr) const;
    const timeline::BlockModel& m_model;
    CachePageOptions m_options;
    timeline::XWindow m_window;
    timeline::MemoryDisplay m_display;
    Layout m_layout;
    std::vector<LegendItem> m_legend;
    size_t m_summedLegendItems = 0;  // the key's first items, of the run's sums
    std::optional<Live> m_live;
};

class WorkingSetPage final : public Page {
public:
    // `idleNs` 0: a hundredth of the run.
    WorkingSetPage(const timeline::BlockModel& model, uint32_t lineBytes, uint64_t idleNs, CachePageOptions options);
    int width() const override { return m_options.m_width; }
    int height() const override { return m_options.m_height; }
    void paint(cairo_t* cr) const override;

    const timeline::WorkingSet& workingSet() const { return m_set; }
    const Rect& view() const { return m_view; }
    const std::vector<LegendItem>& legend() const { return m_legend; }

private:
    const timeline::BlockModel& m_model;
    CachePageOptions m_options;
    timeline::XWindow m_window;
    timeline::WorkingSet m_set;
    double m_fontSize = 11;
    Rect m_header, m_view, m_legendArea;
    std::vector<LegendItem> m_legend;
};

}  // namespace memlog::render

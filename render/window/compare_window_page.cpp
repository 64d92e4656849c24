// The compare page in the window: one Viewport's time window over both runs (from their starts
// to the later end); the page is made again, walks and all, only when that window or the
// window's size changes, so hovering and help reuse it.
#include "render/window/compare_window_page.hpp"

#include <cinttypes>
#include <cstdio>

namespace memlog::render {

CompareWindowPage::CompareWindowPage(const timeline::BlockModel& base, const timeline::SiteIndex* baseSites,
                                     ReportOptions baseOptions, std::shared_ptr<const ComparedLog> next,
                                     std::optional<timeline::XWindow> shown)
    : m_base(base),
      m_baseSites(baseSites),
      m_baseOptions(std::move(baseOptions)),
      m_next(std::move(next)),
      m_view(ComparePage::sharedWindow(base, m_next->m_model), {}, 1) {
    if (shown) m_view.showX(static_cast<double>(shown->m_from), static_cast<double>(shown->m_to));
}

void CompareWindowPage::paint(cairo_t* cr, int width, int height) {
    const timeline::XWindow window = m_view.xWindow();
    if (!m_page || m_page->width() != width || m_page->height() != height || m_page->base().window() != window) {
        ReportOptions base = m_baseOptions;
        base.m_width = width;
        base.m_height = height;
        base.m_window = window;
        // The look is the window's, the same for both runs; the header's facts are each run's.
        ReportOptions next = base;
        const ReportOptions& own = m_next->m_options;
        next.m_logPath = own.m_logPath;
        next.m_phases = own.m_phases;
        next.m_suppressedBytes = own.m_suppressedBytes;
        next.m_suppressedBlocks = own.m_suppressedBlocks;
        const timeline::SiteIndex* nextSites = m_next->m_sites ? &*m_next->m_sites : nullptr;
        m_page = std::make_unique<ComparePage>(ComparedRun{&m_base, m_baseSites, std::move(base)},
                                               ComparedRun{&m_next->m_model, nextSites, std::move(next)});
    }
    m_page->paint(cr);
}

// The fraction of the time views' width at window pixel x (both reports lay their views out
// alike across the width): the middle when x is beside them.
bool CompareWindowPage::zoomTime(double factor, double x) {
    double fraction = 0.5;
    if (m_page) {
        const Rect& view = m_page->base().layout().m_cells.front().m_view;
        if (x >= view.m_x && x < view.right()) fraction = (x - view.m_x) / view.m_width;
    }
    m_view.zoomX(factor, fraction);
    return true;
}

bool CompareWindowPage::panTime(double fraction) {
    m_view.panX(fraction);
    return true;
}

bool CompareWindowPage::resetTime() {
    m_view.reset();
    return true;
}

std::string CompareWindowPage::describe() const {
    const timeline::XWindow window = m_view.xWindow();
    char text[160];
    std::snprintf(text, sizeof text,
                  "page=compare window=%" PRIu64 ":%" PRIu64 " next_top=%d base_blocks=%zu new_blocks=%zu",
                  window.m_from, window.m_to, m_page ? m_page->nextTop() : -1, m_base.size(), m_next->m_model.size());
    return text;
}

}  // namespace memlog::render

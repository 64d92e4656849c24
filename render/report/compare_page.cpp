// The compare page: two Reports made with one window and one site order, painted one above the
// other, a rule between them.
#include "render/report/compare_page.hpp"

#include <algorithm>

#include "render/raster/block_colouring.hpp"

namespace memlog::render {

timeline::XWindow ComparePage::sharedWindow(const timeline::BlockModel& base, const timeline::BlockModel& next) {
    const uint64_t end = std::max(base.extent(timeline::XAxis::Time).m_to, next.extent(timeline::XAxis::Time).m_to);
    return {0, std::max<uint64_t>(end, 1)};
}

ComparePage::ComparePage(ComparedRun base, ComparedRun next)
    : m_width(base.m_options.m_width), m_height(base.m_options.m_height), m_nextTop(m_height / 2) {
    const timeline::XWindow window = base.m_options.m_window.value_or(sharedWindow(*base.m_model, *next.m_model));
    const ColouredRun runs[] = {{base.m_model, base.m_sites}, {next.m_model, next.m_sites}};
    const std::vector<std::string> siteOrder = sharedSiteOrder(runs, timeline::XAxis::Time, window);
    for (ComparedRun* run : {&base, &next}) {
        ReportOptions& options = run->m_options;
        options.m_axis = timeline::XAxis::Time;
        options.m_window = window;
        options.m_width = m_width;
        options.m_siteOrder = siteOrder;
    }
    base.m_options.m_height = m_nextTop;
    next.m_options.m_height = m_height - m_nextTop;
    if (base.m_options.m_runName.empty()) base.m_options.m_runName = "base";
    if (next.m_options.m_runName.empty()) next.m_options.m_runName = "new";
    m_base = std::make_unique<Report>(*base.m_model, base.m_sites, std::move(base.m_options));
    m_next = std::make_unique<Report>(*next.m_model, next.m_sites, std::move(next.m_options));
}

ComparePage::~ComparePage() = default;

void ComparePage::paint(cairo_t* cr) const {
    m_base->paint(cr);
    cairo_save(cr);
    cairo_translate(cr, 0, m_nextTop);
    m_next->paint(cr);
    cairo_restore(cr);
    // A rule where the new run begins: the two headers are alike at a glance.
    cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
    cairo_rectangle(cr, 0, m_nextTop - 1, m_width, 2);
    cairo_fill(cr);
}

}  // namespace memlog::render

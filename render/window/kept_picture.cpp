// The kept picture's rules: when a frame may reuse it, where a frame draws, what a draft becomes.
#include "render/window/kept_picture.hpp"

#include <algorithm>

namespace memlog::render {

KeptPicture::~KeptPicture() {
    if (m_surface) cairo_surface_destroy(m_surface);
}

KeptPicture::Work KeptPicture::workFor(const ReportOptions& options, uint64_t reads) const {
    if (!m_surface || !m_report || !m_shows || m_reads != reads) return Work::Draw;
    ReportOptions asked = options;
    asked.m_mayDraft = false;
    if (!(asked == *m_shows)) return Work::Draw;
    return m_state == State::DraftDue ? Work::Refine : Work::Reuse;
}

cairo_surface_t* KeptPicture::target(Work work, int width, int height) {
    if (m_surface &&
        (cairo_image_surface_get_width(m_surface) != width || cairo_image_surface_get_height(m_surface) != height)) {
        cairo_surface_destroy(m_surface);
        m_surface = nullptr;
        m_shows.reset();  // whatever is drawn next cannot be this picture
    }
    if (m_surface && work == Work::Draw) return m_surface;
    return cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
}

void KeptPicture::keep(cairo_surface_t* target, std::unique_ptr<Report> report, uint64_t reads, Work work, bool draft,
                       uint32_t now) {
    if (m_surface && m_surface != target) cairo_surface_destroy(m_surface);
    m_surface = target;
    m_plans.clear();
    const std::vector<FramePlan> plans = report->plans();
    const bool contextView = !report->options().m_bins;  // the last plan is the context view's
    for (size_t view = 0; view < plans.size(); ++view)
        m_plans += " " + plans[view].describe(contextView && view + 1 == plans.size() ? std::string("context")
                                                                                      : "view" + std::to_string(view));
    m_report = std::move(report);
    m_shows = m_report->options();
    m_shows->m_mayDraft = false;
    m_reads = reads;
    ++m_pictures;
    m_lastFrame = work == Work::Refine ? LastFrame::Refined : LastFrame::Drawn;
    m_state = draft ? State::Draft : State::Exact;
    if (draft) m_refineAt = refineTime(now);
}

void KeptPicture::gaveWay(cairo_surface_t* target, uint32_t now) {
    if (target == m_surface) {
        m_shows.reset();  // drawn over in part: to be drawn again
    } else {
        cairo_surface_destroy(target);
    }
    m_lastFrame = LastFrame::GaveWay;
    m_state = State::Draft;
    m_refineAt = refineTime(now);
}

bool KeptPicture::tick(uint32_t now, bool inputJustHandled) {
    if (m_state != State::Draft || inputJustHandled || now < m_refineAt) return false;
    m_state = State::DraftDue;
    return true;
}

std::optional<uint32_t> KeptPicture::untilDue(uint32_t now) const {
    if (m_state != State::Draft) return std::nullopt;
    return m_refineAt > now ? m_refineAt - now : 0;
}

}  // namespace memlog::render

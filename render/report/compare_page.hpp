// Two runs on one page (memtimeline BASE --compare NEW): each run's report, the base above the
// new, on one time scale (time since each run started, as long as the longer run), each with its
// own address axis, and one site in one colour in both (sharedSiteOrder, sites matched by name).
#pragma once

#include <cairo.h>

#include <memory>

#include "render/report/export.hpp"
#include "render/report/report.hpp"

namespace memlog::render {

// One run of the two: its model, its sites (for colours by site) and its report's options (the
// log's path, phases and suppressed leaks; the size and the window are the page's).
struct ComparedRun {
    const timeline::BlockModel* m_model;
    const timeline::SiteIndex* m_sites;
    ReportOptions m_options;
};

class ComparePage final : public Page {
public:
    // The page is base's m_width x m_height (at least 300 high), each report half of it. The
    // time window is base's m_window when set (--range), else from the start to the later end.
    // The models and sites must outlive the page.
    ComparePage(ComparedRun base, ComparedRun next);
    ~ComparePage() override;

    int width() const override { return m_width; }
    int height() const override { return m_height; }
    void paint(cairo_t* cr) const override;

    const Report& base() const { return *m_base; }
    const Report& next() const { return *m_next; }
    int nextTop() const { return m_nextTop; }  // the new run's report's first row on the page

    // Both runs on the time axis from their start to the later one's end.
    static timeline::XWindow sharedWindow(const timeline::BlockModel& base, const timeline::BlockModel& next);

private:
    int m_width, m_height, m_nextTop;
    std::unique_ptr<Report> m_base, m_next;
};

}  // namespace memlog::render

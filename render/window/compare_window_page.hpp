// Two runs in the window (memtimeline BASE --compare NEW): the compare page of render/report/
// at the window's size, the base (the window's log) above the new run, drawn again whenever the
// shared time window moves, so that a zoom or pan in time moves both runs alike.
#pragma once

#include <memory>
#include <optional>

#include "render/report/compare_page.hpp"
#include "render/window/viewport.hpp"
#include "render/window/window_pages.hpp"
#include "timeline/names/site_index.hpp"

namespace memlog::render {

// The run the window's log is compared with, read by the program before the window opens.
struct ComparedLog {
    timeline::BlockModel m_model;
    std::optional<timeline::SiteIndex> m_sites;
    ReportOptions m_options;  // its path, phases and suppressed leaks, for its header
};

class CompareWindowPage final : public WindowPage {
public:
    // `base` is the window's log drawn with `baseOptions` (its path, phases, leaks; the window's
    // colours, cushions, alpha, cursors); its model and sites must outlive the page. The time
    // window starts at `shown` (--range) or both runs whole.
    CompareWindowPage(const timeline::BlockModel& base, const timeline::SiteIndex* baseSites, ReportOptions baseOptions,
                      std::shared_ptr<const ComparedLog> next, std::optional<timeline::XWindow> shown);
    void paint(cairo_t* cr, int width, int height) override;
    std::string describe() const override;
    bool readsModel() const override { return true; }
    bool zoomTime(double factor, double x) override;
    bool panTime(double fraction) override;
    bool resetTime() override;

private:
    const timeline::BlockModel& m_base;
    const timeline::SiteIndex* m_baseSites;
    ReportOptions m_baseOptions;
    std::shared_ptr<const ComparedLog> m_next;
    Viewport m_view;  // its time window only: each run keeps its whole address axis
    std::unique_ptr<ComparePage> m_page;  // as last painted, made again when size or window change
};

}  // namespace memlog::render

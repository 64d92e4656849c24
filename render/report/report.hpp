// The report: the whole picture of one log on one page. A header with the log's numbers; the
// main view (time x compacted address) with its occupancy bar, x axis and context view, or a
// grid of correlated views, one per bin; cushion cursors; the legend. paint() draws it with
// Cairo on any surface: a PNG, SVG or PDF file (export.hpp), or later the window's image.
#pragma once

#include <cairo.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "render/frame/view_source.hpp"
#include "render/raster/address_scale.hpp"
#include "render/raster/block_colouring.hpp"
#include "render/raster/block_view.hpp"
#include "render/report/legend.hpp"
#include "render/report/phase_marks.hpp"
#include "render/report/report_layout.hpp"
#include "timeline/model/bins.hpp"
#include "timeline/trace/cache_model.hpp"
#include "timeline/model/occupancy.hpp"
#include "timeline/model/sampled_occupancy.hpp"

namespace memlog::render {

struct ReportOptions {
    int m_width = 1600, m_height = 1000;
    ColourBy m_colourBy = ColourBy::Site;
    double m_alpha = 0.3;  // equation 1's bias: a block on a thousandth of a pixel still tints it by a tenth
    CushionStyle m_cushion = CushionStyle::Plateau;
    timeline::XAxis m_axis = timeline::XAxis::Time;
    std::optional<timeline::XWindow> m_window;  // --range, in units of m_axis
    uint64_t m_addrLo = 0, m_addrHi = UINT64_MAX;  // --addr
    std::optional<timeline::BinKind> m_bins;  // correlated views
    BinLayout m_layout = BinLayout::Time;
    std::vector<uint64_t> m_cursors;  // in units of m_axis
    std::vector<PhaseMark> m_phases;  // memlog_phase() marks, drawn over the views and listed
    // The window's zoom: the main view's address axis, given (a scrolled AddressScale of the
    // whole log, as tall as mainLayout's view) instead of fitted to the blocks in view.
    std::optional<AddressScale> m_addressScale;
    bool m_accessMarks = true;  // draw the log's access samples, if any
    // --cache: the accesses (every one: a full trace) coloured by hit or miss in this cache
    // instead of by read or write.
    std::optional<timeline::CacheGeometry> m_cache;
    double m_uiScale = 1;  // text and margins grown further (mainLayout)
    std::string m_logPath;  // for the header
    // Of the blocks live at the end, those a leak suppression matches (the runtime's one-time
    // allocations): the header counts them apart from the leaks.
    uint64_t m_suppressedBytes = 0, m_suppressedBlocks = 0;
    bool m_fullPaths = false;  // --paths full: the header shows the program's and
                               // the log's paths, not only their names
    // Two runs on one page (compare_page.hpp): the header's first words ("base", "new"), and the
    // sites in palette order by label, shared by both reports (one site, one colour).
    std::string m_runName;
    std::vector<std::string> m_siteOrder;
    // Where the views come from: the window's frame context, kept between frames (its index,
    // colours, bins and kept views, over the whole log); null: an export's, made for this
    // report (ExportViews: walks over the log). What the caller allows of each view's plan
    // (DraftPolicy decides): folding what a pixel cannot tell apart, drafts, and a context view
    // of another alpha (the window while the alpha slider is dragged).
    ViewSource* m_frame = nullptr;
    bool m_levelOfDetail = false;
    bool m_mayDraft = false;
    bool m_contextMayLag = false;
    bool operator==(const ReportOptions&) const = default;
};

class Report {
public:
    // `sites` is needed to colour or bin by site in an export (and may be null otherwise). The
    // model, the sites and options.m_frame must outlive the report.
    Report(const timeline::BlockModel& model, const timeline::SiteIndex* sites, ReportOptions options);
    ~Report();
    Report(const Report&) = delete;
    Report& operator=(const Report&) = delete;

    void paint(cairo_t* cr) const;

    const ReportOptions& options() const { return m_options; }
    const ReportLayout& layout() const { return m_layout; }
    const std::vector<LegendItem>& legend() const { return m_legend; }
    const BlockColouring& colouring() const { return m_colouring; }
    timeline::XWindow window() const { return m_window; }
    size_t viewCount() const { return m_views.size(); }
    const AddressScale& scale(size_t view) const { return m_views[view].m_scale; }
    const std::vector<timeline::OccupancyColumn>& occupancy(size_t view) const { return m_views[view].m_occupancy; }
    double fullBytes() const { return m_fullBytes; }  // live bytes at the red end of the bars
    // The header's three lines as painted: the program, the log's numbers, and the details
    // (the log's name, or with m_fullPaths the program's and the log's paths; what is shown).
    std::vector<std::string> headerLines() const;

    // What is under a page pixel: (x in axis units, address) inside a view, for brushing.
    std::optional<std::pair<uint64_t, uint64_t>> pointAt(double x, double y) const;
    // The same for an occupancy bar: the x under a page pixel in a view's bar, and that view.
    std::optional<std::pair<uint64_t, size_t>> barPointAt(double x, double y) const;
    // Where `block` is drawn, in page pixels, in every view that shows it (the context view
    // too): for outlining the block under the pointer everywhere at once.
    std::vector<Rect> blockRects(const timeline::Block& block) const;
    // Where access mark `index` of the model is drawn, in page pixels, with the view that shows
    // it (the one view, or its block's bin's): for lighting it while the samples play back.
    struct MarkPoint {
        double m_x, m_y;
        Rect m_view;
    };
    std::optional<MarkPoint> markPoint(size_t index) const;
    // The context view's x window and address scale (the whole log), for its slider.
    const AddressScale& contextScale() const { return m_contextScale; }
    // The plans of the last paint(): its views', then the context view's (for --trace).
    std::vector<FramePlan> plans() const;
    // Whether the last paint() drew a view's access samples as a draft (m_mayDraft, a view of
    // more than DraftPolicy::kAccessDraftAbove of them): to be drawn exactly when input pauses.
    bool drewAccessDraft() const { return m_accessDraft; }

private:
    struct View {
        ViewCell m_cell;
        int m_bin = -1;  // -1: all blocks
        AddressScale m_scale;
        std::vector<timeline::OccupancyColumn> m_occupancy;
        // A sampled log's (not binned): the estimate the bar shows, and its interval as a band.
        std::vector<timeline::EstimatedColumn> m_estimated;
    };

    void fillViews();
    ViewSpec specOf(const View& view) const;
    void buildLegend();
    void paintHeader(cairo_t* cr) const;
    void paintViewRasters(cairo_t* cr) const;
    void paintView(cairo_t* cr, const View& view) const;
    void estimateOccupancy();
    void paintEstimateBand(cairo_t* cr, const View& view) const;
    void paintContext(cairo_t* cr) const;
    std::vector<FramePlan> drawViews(std::vector<ViewRequest> requests) const;

    const timeline::BlockModel& m_model;
    ReportOptions m_options;
    std::unique_ptr<ViewSource> m_exportViews;  // an export's, when options.m_frame is null
    ViewSource& m_source;
    ReportLayout m_layout;
    timeline::XWindow m_window;
    BlockColouring m_colouring;
    std::optional<timeline::Bins> m_bins;
    std::vector<int> m_binOfMark;
    std::vector<uint8_t> m_missOfMark;  // with m_cache: per access mark, 1 if it missed
    std::vector<View> m_views;
    AddressScale m_contextScale;
    double m_fullBytes = 0;
    bool m_sharedAddresses = false;  // correlated views side by side on one address axis
    std::vector<LegendItem> m_legend;
    // What the last paint() planned, views then the context view.
    mutable std::vector<FramePlan> m_plans;
    mutable bool m_accessDraft = false;
    mutable std::optional<FramePlan> m_contextPlan;
};

}  // namespace memlog::render

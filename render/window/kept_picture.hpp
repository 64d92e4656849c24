// The picture the window keeps: the report as last drawn (its surface, and the Report for hit
// tests), shown under the overlays until what it shows changes, so that hovering, tooltips and a
// dragged box cost no report. A view with more blocks than a frame draws exactly is drawn as a
// draft first, then exactly once input has paused (exact, draft, draft due); the exact drawing
// gives way to input and the draft stays until it is done. No SDL: times are the caller's
// milliseconds (tests/render/test_kept_picture.cpp).
#pragma once

#include <cairo.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "render/report/report.hpp"

namespace memlog::render {

class KeptPicture {
public:
    static constexpr uint32_t kRefineAfterMs = 200;  // input paused this long: a draft is drawn exactly
    enum class State {
        Exact,  // nothing to do
        Draft,  // a draft, to be drawn exactly at refineAt()
        DraftDue,  // a draft whose time has come: the next frame draws it exactly
    };
    // What a frame does with the picture.
    enum class Work {
        Reuse,  // it shows what the frame would draw: painted as it is
        Draw,  // something else: drawn anew, a draft allowed
        Refine,  // its draft is due: drawn exactly into a surface of its own
    };
    // What the last frame did, for --trace.
    enum class LastFrame { Reused, Drawn, Refined, GaveWay };

    KeptPicture() = default;
    ~KeptPicture();
    KeptPicture(const KeptPicture&) = delete;
    KeptPicture& operator=(const KeptPicture&) = delete;

    // The work of a frame that would draw `options` of the log as read `reads` times. A draft
    // and its exact picture show the same view (m_mayDraft does not count).
    Work workFor(const ReportOptions& options, uint64_t reads) const;
    // The surface to draw `work` into at `width` x `height`: the picture's own (drawn over, made
    // again at a new size) for Draw, a new one for Refine (the draft stays until it is done).
    cairo_surface_t* target(Work work, int width, int height);
    // `target` now holds `report` complete, drawn for `work`: kept, with what it shows (of the
    // log as read `reads` times). A draft is due kRefineAfterMs after `now`.
    void keep(cairo_surface_t* target, std::unique_ptr<Report> report, uint64_t reads, Work work, bool draft,
              uint32_t now);
    // The exact drawing into `target` gave way to input: it goes, the draft stays, due again.
    void gaveWay(cairo_surface_t* target, uint32_t now);
    void reused() { m_lastFrame = LastFrame::Reused; }
    // The log was read again: the report's model is gone (its hit tests with it); the surface
    // stays to be shown dimmed while a new axis is prepared, and no longer shows the view.
    void logChanged() { m_report.reset(); }

    // Time passes: a draft whose time has come with no input just handled becomes due (a new
    // view gets its draft first, the same view its exact picture on the next turn). True when it
    // did: a frame is to be drawn.
    bool tick(uint32_t now, bool inputJustHandled);
    // Milliseconds until a draft is due (0: due now); none without a draft waiting.
    std::optional<uint32_t> untilDue(uint32_t now) const;

    cairo_surface_t* surface() const { return m_surface; }
    const Report* report() const { return m_report.get(); }
    State state() const { return m_state; }
    LastFrame lastFrame() const { return m_lastFrame; }
    uint64_t pictures() const { return m_pictures; }  // reports drawn and kept
    // The plans of the picture's views as --trace prints them (" view0.fold=1 ... context.fold=...").
    const std::string& plans() const { return m_plans; }

private:
    static uint32_t refineTime(uint32_t now) { return std::max<uint32_t>(now + kRefineAfterMs, 1); }  // never 0

    cairo_surface_t* m_surface = nullptr;
    std::unique_ptr<Report> m_report;
    std::optional<ReportOptions> m_shows;  // the report's options but m_mayDraft
    uint64_t m_reads = 0;
    State m_state = State::Exact;
    uint32_t m_refineAt = 0;  // with State::Draft
    LastFrame m_lastFrame = LastFrame::Reused;
    uint64_t m_pictures = 0;
    std::string m_plans;
};

}  // namespace memlog::render

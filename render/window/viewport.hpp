// What part of the log the window shows, and the zoom and pan a user asks for. x is a window
// of time (or events); the address axis is the whole log's compacted scale laid out taller than
// the view (zoom) and scrolled (AddressScale::windowed), so small ranges keep their few pixels
// and a zoom keeps the address under the pointer where it was. No display: tests drive it.
#pragma once

#include <cstdint>

#include "render/raster/address_scale.hpp"
#include "timeline/model/address_ranges.hpp"
#include "timeline/model/block_model.hpp"

namespace memlog::render {

struct Span {
    double m_from = 0;
    double m_to = 0;
    double width() const { return m_to - m_from; }
};

class Viewport {
public:
    // The deepest zoom: one x unit (a ns, or one event) across the view, and kMinAddressBytes
    // down it, so that single bytes of a block are rows of their own.
    static constexpr double kMinXSpan = 1;
    static constexpr uint64_t kMinAddressBytes = 16;

    // The whole log: x over `whole`, addresses over `ranges` (its compaction), in a view
    // `viewHeight` rows tall.
    Viewport(timeline::XWindow whole, timeline::AddressRanges ranges, double viewHeight);

    void reset();

    // x: zoom by `factor` (> 1: closer) about a fraction (0..1) of the view's width, which stays
    // under the pointer; pan by fractions of the width.
    const Span& x() const { return m_x; }
    timeline::XWindow xWindow() const;  // whole units, at least one wide
    void zoomX(double factor, double atFraction);
    void panX(double fraction);
    // Shows [from, to) of x, clamped to the log and at least kMinXSpan wide.
    void showX(double from, double to);

    // Addresses: rows count from the view's top (high addresses) down.
    void setViewHeight(double rows);
    double viewHeight() const { return m_viewHeight; }
    const AddressScale& addressScale() const { return m_shown; }  // as tall as the view
    double addressZoom() const { return m_zoom; }
    void zoomAddress(double factor, double atRow);
    void panAddress(double rows);
    // The box between two points, x as fractions of the width and addresses as rows.
    void zoomToBox(double x0, double row0, double x1, double row1);
    // Centres the view on an address (the context view's slider), keeping the zoom.
    void centreAddress(uint64_t address);

private:
    void layOut();  // m_full and m_shown from m_zoom and m_top
    double rowOf(uint64_t address) const;  // in m_full

    Span m_wholeX, m_x;
    timeline::AddressRanges m_ranges;
    double m_viewHeight;
    double m_zoom = 1;  // m_full is m_zoom view heights tall
    double m_top = 0;  // the first row of m_full in view
    AddressScale m_full, m_shown;
};

}  // namespace memlog::render

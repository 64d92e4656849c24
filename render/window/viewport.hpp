// What part of the log the window shows: an x window (ns or event numbers) and an address
// window on the compacted address axis (bytes from the start of the first range), with the
// zoom and pan a user asks for. Pure arithmetic: the window turns mouse and keys into these
// calls with positions as fractions of the main view, so this needs no display to test.
#pragma once

namespace memlog::render {

struct Span {
    double m_from = 0;
    double m_to = 0;
    double width() const { return m_to - m_from; }
};

class Viewport {
public:
    // The whole log: x over [xFrom, xTo), addresses over [0, addressBytes).
    Viewport(double xFrom, double xTo, double addressBytes);

    const Span& x() const { return m_x; }
    const Span& address() const { return m_address; }

    // Deepest zoom: one x unit (a ns, or one event) across the view, and kMinAddressSpan bytes
    // down it, so that single bytes of a block are rows of their own.
    static constexpr double kMinXSpan = 1;
    static constexpr double kMinAddressSpan = 16;

    void reset();
    // Zooms by `factor` (> 1: closer) about a point at fractions (0..1) of the view, which stays
    // under the pointer; each axis alone or both.
    void zoomX(double factor, double atFraction);
    void zoomAddress(double factor, double atFraction);
    // Moves by fractions of the view (0.1: a tenth of its width or height).
    void panX(double fraction);
    void panAddress(double fraction);
    // Shows the box between two points given as fractions of the view (a dragged rectangle).
    void zoomToBox(double x0, double address0, double x1, double address1);
    // Shows exactly these windows (clamped to the log).
    void show(Span x, Span address);

private:
    static void clamp(Span& span, const Span& whole, double minimum);

    Span m_wholeX, m_wholeAddress;
    Span m_x, m_address;
};

}  // namespace memlog::render

// The preparing thread: the context (index and colours) first, then the bins, each its share of
// the bar when both are made.
#include "render/window/frame_preparer.hpp"

namespace memlog::render {

FramePreparer::~FramePreparer() {
    if (m_thread.joinable()) m_thread.join();
}

FramePreparer::Making FramePreparer::needed(const FrameContext& frame, const FrameChoices& choices) {
    if (frame.axis() != choices.m_axis) return Making::Index;
    if (frame.colouring().by() != choices.m_colourBy) return Making::Colours;
    if (choices.m_bins && !frame.binsReady(*choices.m_bins)) return Making::Bins;
    return Making::Nothing;
}

bool FramePreparer::start(FrameContext& frame, const FrameChoices& choices) {
    if (busy()) return false;
    const Making what = needed(frame, choices);
    if (what == Making::Nothing) return false;
    if (m_thread.joinable()) m_thread.join();
    m_making.store(what);
    m_done.store(false);
    m_progress.store(0);
    m_thread = std::thread([this, &frame, choices, contextReady = what == Making::Bins] {
        const double contextShare = contextReady ? 0 : choices.m_bins ? 0.7 : 1;
        frame.prepare(choices.m_axis, choices.m_colourBy, [&](double fraction) {
            m_progress.store(fraction * contextShare);
            if (m_wake) m_wake();
        });
        if (choices.m_bins) {
            m_making.store(Making::Bins);
            frame.prepareBins(*choices.m_bins, [&](double fraction) {
                m_progress.store(contextShare + fraction * (1 - contextShare));
                if (m_wake) m_wake();
            });
        }
        m_done.store(true);
        if (m_wake) m_wake();
    });
    return true;
}

void FramePreparer::finish() {
    if (m_thread.joinable()) m_thread.join();
    m_making.store(Making::Nothing);
}

const char* FramePreparer::text(Making making) {
    switch (making) {
        case Making::Index:
            return "indexing for the new x axis";
        case Making::Colours:
            return "colouring every block";
        case Making::Bins:
            return "sorting the blocks into bins";
        case Making::Nothing:
            break;
    }
    return "";
}

}  // namespace memlog::render

// How many blocks a view may hold and still be drawn exactly in answer to input, from how fast
// the last exact frames were painted: the window's frames stay near their budget when the
// machine runs slow (another program on a core, a slow spell of a virtual machine's host),
// as drafts that are drawn exactly once input pauses, where a fixed limit let them grow.
//
// On this project's machine an exact frame paints a million blocks in 26 to 31 ms; in slow
// spells of the host the same frames took 38 to 45 ms, and frames over 50 ms. With a paint
// budget of 35 ms, a million blocks stay exact at 30 ms a million and become drafts from 35.
#pragma once

#include <algorithm>
#include <cstddef>

namespace memlog::render {

class DraftBudget {
public:
    // Of the 50 ms a frame may take: the report, showing the frame and input take the rest.
    static constexpr double kPaintBudgetMs = 35;
    // Frames of fewer blocks say little of the speed per block: a frame's colours and
    // integration cost several ms whatever it holds (533 thousand blocks painted in 28.6 ms
    // read as 54 ms a million), and a machine at its usual speed would draft a million.
    static constexpr size_t kMeasuredFrom = 750'000;
    // Views of fewer blocks are never drafts, however slow: their drafts would gain little.
    static constexpr size_t kDraftsFrom = 250'000;
    // A frame whose tiles have taken this long, or would take this long by those done so far,
    // draws the rest as drafts (FrameContext::m_lateAfterMs). The rest of a frame (the report,
    // painting around the views, showing it) takes 8 to 10 ms, so its tiles should be done by
    // 40; a draft's tile takes about 0.6 of an exact one's, so a frame that notices at 34 ms
    // with 10 ms of exact tiles to go is done with them at 40, and one on a single core from
    // the start (55 ms exact) at 37. At 38 ms, frames of 47 to 51 ms went through (their
    // tiles 37 to 41 ms). Frames at the usual speed (tiles in 25 to 30 ms) should seldom be
    // late: projected from the first eighth of the tiles at 42 ms, 3 of 60 were (the leftmost
    // tiles, of the log's start, cost more); from a quarter at 45, 1 of 100; from a quarter
    // at 42 (now), not yet counted on a quiet host.
    static constexpr double kLateAfterMs = 34;
    static constexpr double kLateProjectedMs = 42;

    // `ceiling`: the most blocks a view may hold and be exact (--draft-above); 0: no drafts.
    explicit DraftBudget(size_t ceiling) : m_ceiling(ceiling) {}

    // An exact frame that painted `blocks` blocks in `paintMs`. Each counts half of the
    // estimate: two slow frames in a row make drafts, two fast ones undo them.
    void exactFrame(size_t blocks, double paintMs) {
        if (blocks < kMeasuredFrom || !(paintMs > 0)) return;
        const double msPerBlock = paintMs / static_cast<double>(blocks);
        m_msPerBlock = m_msPerBlock > 0 ? (m_msPerBlock + msPerBlock) / 2 : msPerBlock;
    }

    // Views with more blocks than this are drafts while input comes.
    size_t draftAbove() const {
        if (m_ceiling == 0 || m_msPerBlock <= 0) return m_ceiling;
        // What 35 ms would paint, capped in double first: a very fast estimate overflows size_t.
        const double affordable = std::min(kPaintBudgetMs / m_msPerBlock, static_cast<double>(m_ceiling));
        return std::min(m_ceiling, std::max(kDraftsFrom, static_cast<size_t>(affordable)));
    }

private:
    size_t m_ceiling;
    double m_msPerBlock = 0;  // 0: no exact frame measured yet
};

}  // namespace memlog::render

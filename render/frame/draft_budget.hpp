// How many blocks a view may hold and still be drawn exactly in answer to input, from how fast
// the last exact frames were painted: the window's frames stay near their budget when the
// machine runs slow (another program on a core, a slow spell of a virtual machine's host), as
// drafts drawn exactly once input pauses, where a fixed limit let them grow. The figures behind
// the constants are in docs/BENCHMARKS.md ("drafts that follow the machine's speed", "frames
// that run late").
#pragma once

#include <algorithm>
#include <cstddef>

namespace memlog::render {

class DraftBudget {
public:
    // Of the 50 ms a frame may take: the report, showing the frame and input take the rest.
    static constexpr double kPaintBudgetMs = 35;
    // Frames of fewer blocks say little of the speed per block: a frame's colours and
    // integration cost several ms whatever it holds.
    static constexpr size_t kMeasuredFrom = 750'000;
    // Views of fewer blocks are never drafts, however slow: their drafts would gain little.
    static constexpr size_t kDraftsFrom = 250'000;
    // A frame whose tiles have taken this long, or would by those done so far, draws the rest
    // as drafts: the rest of a frame takes 8 to 10 ms, so its tiles should be done by 40.
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
        // What the budget would paint, capped in double first: a very fast estimate overflows size_t.
        const double affordable = std::min(kPaintBudgetMs / m_msPerBlock, static_cast<double>(m_ceiling));
        return std::min(m_ceiling, std::max(kDraftsFrom, static_cast<size_t>(affordable)));
    }

private:
    size_t m_ceiling;
    double m_msPerBlock = 0;  // 0: no exact frame measured yet
};

}  // namespace memlog::render

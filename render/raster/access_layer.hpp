// Sampled memory accesses drawn over the blocks: reads blue and writes red, as MAPA drew them.
// A sample is a point in (time, address); many land on one pixel when a view holds a million of
// them, so the layer is a density: each sample covers a 2x2-pixel square at its exact place
// (split over the pixels it overlaps, like a block's edge), a pixel's opacity grows with the
// logarithm of the samples over it, and the least covered pixel with a whole sample on it is
// still plainly visible. Where reads and writes share a pixel its colour is their mix.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <utility>
#include <vector>
#include <span>

#include "render/raster/block_view.hpp"
#include "render/raster/colour_map.hpp"
#include "render/raster/pixel_buffer.hpp"
#include "render/raster/view_layer.hpp"
#include "timeline/model/access_marks.hpp"
#include "timeline/model/access_summary.hpp"
#include "timeline/model/access_tally.hpp"

namespace memlog::render {

inline constexpr Rgb kReadColour{0.0, 0.27, 1.0};
inline constexpr Rgb kWriteColour{0.92, 0.0, 0.0};
// With a cache simulated over a full trace (--cache), the same density tells hits from misses.
inline constexpr Rgb kHitColour{0.05, 0.6, 0.15};
inline constexpr Rgb kMissColour{0.92, 0.0, 0.0};
// A block's pixels under a sample are washed towards white by this much, so that blue and red
// samples stand out on blocks coloured blue to red; pixels away from samples keep their colour,
// so that the allocation picture stays readable beside them.
inline constexpr double kWashUnderSamples = 0.65;
// The opacity of a pixel covered by exactly one sample; more samples go up to 1 logarithmically.
inline constexpr double kOneSampleOpacity = 0.75;

// Per-pixel sample density of one view: reads and writes apart (or hits and misses), in samples
// (a sample adds 1 to each pixel its square covers whole, less to those it covers in part).
struct AccessDensity {
    int m_width = 0, m_height = 0;
    std::vector<float> m_reads, m_writes;
    size_t m_samples = 0;  // samples inside the view
    bool m_gaveWay = false;  // stopped part way (accessDensity's giveWay): not to be drawn

    float total(int x, int y) const {
        const size_t i = static_cast<size_t>(y) * static_cast<size_t>(m_width) + static_cast<size_t>(x);
        return m_reads[i] + m_writes[i];
    }
};

// Where `mark` falls in a view drawn with `scale` (pixels from the view's left and top), if it
// falls inside `spec`'s window and on an address the view shows.
std::optional<std::pair<double, double>> placeOf(const timeline::AccessMark& mark, const ViewSpec& spec,
                                                 const XScale& scale);
// The same for marks placed one after another: `band` as AddressScale::y takes it.
std::optional<std::pair<double, double>> placeOf(const timeline::AccessMark& mark, const ViewSpec& spec,
                                                 const XScale& scale, size_t& band);

// The density of the samples of `marks` inside `spec`'s window on a width x height raster.
// `binOfMark`, for a view of one bin: the bin of each mark's block (-1: none); others are left out.
// `missOfMark`, for a cache's hits and misses: 1 for a mark that missed, which then counts in
// m_writes (misses), and the others in m_reads (hits), whatever they read or wrote.
// `inOrder`: the axes on which the marks are in x order (BlockModel::accessMarksInOrder): on the
// view's, only the marks inside its window are read (a full trace zoomed into a stretch of it).
// `giveWay`, when given, is asked now and then (every kGiveWayEvery samples): once it says so, the
// density stops there, m_gaveWay set.
AccessDensity accessDensity(std::span<const timeline::AccessMark> marks, const ViewSpec& spec, int width, int height,
                            const std::vector<int>* binOfMark = nullptr,
                            const std::vector<uint8_t>* missOfMark = nullptr, uint8_t inOrder = 0,
                            const std::function<bool()>* giveWay = nullptr);
inline constexpr size_t kGiveWayEvery = size_t{1} << 16;  // about 1.5 ms of samples
// Views of more samples are counted on two cores, each half into planes of its own.
inline constexpr size_t kDensityOnTwoCoresFrom = size_t{1} << 20;

// A draft of the same density from `summary`'s levels (reads and writes apart; no bins, no
// cache): a group of samples that spans at most a pixel in x is drawn from its points, each
// run's weight spread over the rows of its addresses; a wider group by its children, and a
// leaf group by its samples. The marks must be in x order on the view's axis. Its work follows
// the pixels, not the samples: a full trace's 62 M drafted in 7-24 ms (docs/BENCHMARKS.md).
AccessDensity accessDensityDraft(std::span<const timeline::AccessMark> marks, const timeline::AccessSummary& summary,
                                 const ViewSpec& spec, int width, int height);
// The samples of `marks` inside `spec`'s window, when they are in x order on its axis.
std::optional<std::pair<size_t, size_t>> marksInWindow(std::span<const timeline::AccessMark> marks,
                                                       const ViewSpec& spec, uint8_t inOrder);

// Draws `density` over `target` (the view's blocks), its two planes in the two colours, each
// pixel with samples washed first. Pixels without a sample are left as they are.
void drawAccessDensity(const AccessDensity& density, PixelBuffer target, const Rgb& readColour = kReadColour,
                       const Rgb& writeColour = kWriteColour);

// What the watchpoints add on top of the density: a thin line from each sample that armed a
// watchpoint to the trap it caught (the word's next access, by whichever thread: its length is
// the reuse time), and a cross on each access to a freed block (a use after free).
inline constexpr Rgb kWatchLinkColour{0.15, 0.15, 0.15};
inline constexpr double kWatchLinkOpacity = 0.8;
inline constexpr Rgb kUseAfterFreeColour{0.0, 0.0, 0.0};
inline constexpr int kUseAfterFreeReach = 4;  // the cross's arms, in pixels from its centre
// Both draw from the marks that matter to them, found once for the model (a full trace has none,
// and a pass over its every access for each view and each of the two was a sixth of its export).
void drawWatchLinks(std::span<const timeline::AccessMark> marks, const timeline::AccessTally& notable,
                    const ViewSpec& spec, PixelBuffer target, const std::vector<int>* binOfMark = nullptr);
void drawUsesAfterFree(std::span<const timeline::AccessMark> marks, const timeline::AccessTally& notable,
                       const ViewSpec& spec, PixelBuffer target, const std::vector<int>* binOfMark = nullptr);

// The three above as one layer of a view: the density, the watchpoints' lines, the crosses.
class AccessLayer : public ViewLayer {
public:
    // `binOfMark`, for a view of one bin, and `missOfMark`, to colour hits and misses instead
    // of reads and writes, and `inOrder`: as accessDensity has them. All must outlive the layer.
    // `notable`: tallyAccesses(marks).
    AccessLayer(std::span<const timeline::AccessMark> marks, const timeline::AccessTally& notable,
                const std::vector<int>* binOfMark, const std::vector<uint8_t>* missOfMark = nullptr,
                uint8_t inOrder = 0)
        : m_marks(marks), m_binOfMark(binOfMark), m_missOfMark(missOfMark), m_inOrder(inOrder), m_notable(notable) {}
    // Views of more than `above` samples drawn from `summary` (accessDensityDraft) when it is
    // not empty and the view is neither a bin's nor a cache's: the caller's drafts (DraftPolicy).
    void mayDraft(timeline::AccessSummary summary, size_t above) {
        m_summary = summary;
        m_draftAbove = above;
    }
    // Whether a view was drafted since the layer was made.
    bool drafted() const { return m_drafted; }
    void draw(const ViewSpec& spec, PixelBuffer target) const override { drawGivingWay(spec, target, {}); }
    bool drawGivingWay(const ViewSpec& spec, PixelBuffer target, const std::function<bool()>& giveWay) const override;

private:
    bool drawsDraft(const ViewSpec& spec) const;

    std::span<const timeline::AccessMark> m_marks;
    const std::vector<int>* m_binOfMark;
    const std::vector<uint8_t>* m_missOfMark;
    uint8_t m_inOrder;
    const timeline::AccessTally& m_notable;
    timeline::AccessSummary m_summary;  // empty: never a draft
    size_t m_draftAbove = 0;
    mutable std::atomic<bool> m_drafted = false;  // views may be drawn on several threads
};

}  // namespace memlog::render

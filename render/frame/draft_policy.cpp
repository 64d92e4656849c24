#include "render/frame/draft_policy.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "render/frame/tile_renderer.hpp"
#include "render/raster/tile_raster.hpp"
#include "render/raster/x_scale.hpp"

namespace memlog::render {

namespace {

// How many times a draft's fold may double so that it draws few enough blocks one by one: 2^10
// times 8 pixels is past any screen.
constexpr int kMostDoublings = 10;

// The blocks a draft of `spec` folding `fold` pixels would draw one by one (those of the leaves
// it opens, once for each tile a leaf meets: each tile opens it), by the doubling of the fold at
// which their leaf would fold instead: [k] for `fold` times 2^k, [kMostDoublings + 1] for
// leaves that never fold (across a gap between address ranges, or wider than any doubling).
std::array<size_t, kMostDoublings + 2> openedLeaves(const timeline::ModelIndex& index, const ViewSpec& spec,
                                                    const PixelBuffer& target, bool categorical, double fold) {
    std::array<size_t, kMostDoublings + 2> blocks{};
    const auto& bands = spec.m_scale->bands();
    if (bands.empty() || target.m_width <= 0 || target.m_height <= 0) return blocks;
    const std::vector<Tile> tiles = TileRenderer::tiles(target, categorical);
    const auto down = static_cast<double>(
        std::count_if(tiles.begin(), tiles.end(), [](const Tile& tile) { return tile.m_left == 0; }));
    const double across = static_cast<double>(tiles.size()) / down;
    // How many of the tiles' columns (or rows) [from, to) of `pixels` meets.
    auto spans = [](double from, double to, double pixels, double tilesAcross) {
        const double first = std::clamp(std::floor(from / pixels * tilesAcross), 0.0, tilesAcross - 1);
        const double last = std::clamp(std::ceil(to / pixels * tilesAcross) - 1, 0.0, tilesAcross - 1);
        return static_cast<size_t>(std::max(last - first + 1, 1.0));
    };
    const XScale scale(spec.m_window, target.m_width);
    const timeline::IndexBox window{spec.m_window.m_from, spec.m_window.m_to, bands.front().m_range.m_lo,
                                    bands.back().m_range.m_hi};
    index.index().query(
        window,
        [&](const timeline::BlockIndex::Node& node) {
            const NodeExtent extent = nodeExtent(node, spec, scale);
            if (!extent.meets(0, target.m_width, 0, target.m_height) || extent.folds(fold)) return true;
            if (!node.m_leaf) return false;
            const double need = std::max(extent.m_x1 - extent.m_x0, extent.m_rowBottom - extent.m_rowTop);
            int doublings = kMostDoublings + 1;
            if (extent.m_oneBand)
                doublings = std::min(doublings, static_cast<int>(std::ceil(std::log2(std::max(need / fold, 1.0)))));
            blocks[static_cast<size_t>(doublings)] += node.m_items *
                                                      spans(extent.m_x0, extent.m_x1, target.m_width, across) *
                                                      spans(extent.m_rowTop, extent.m_rowBottom, target.m_height, down);
            return true;
        },
        [](uint32_t) {});
    return blocks;
}

}  // namespace

FramePlan DraftPolicy::plan(ViewRequest request, const IndexFacts& facts,
                            const std::function<bool(const PlanKey&)>& kept) const {
    const ViewSpec& spec = request.m_spec;
    const int width = request.m_target.m_width, height = request.m_target.m_height;
    FramePlan plan;
    double fold = levelOfDetailFold(request);
    PlanKey key = planKey(spec, width, height, fold, facts.m_generation);
    const bool mayDraft = request.m_mayDraft && request.m_levelOfDetail;
    // What a draft of this view folds: drawn so when it holds too many blocks, or when the
    // frame runs late.
    const double asDraft = mayDraft ? foldAsDraft(request, facts, fold) : fold;
    if (mayDraft && !kept(key) && asDraft != fold && overLimit(request, facts)) {
        fold = asDraft;
        key = planKey(spec, width, height, fold, facts.m_generation);
        plan.m_draft = true;
    }
    plan.m_foldPixels = fold;
    plan.m_lateFoldPixels = asDraft;
    plan.m_key = std::move(key);
    plan.m_request = std::move(request);
    return plan;
}

FramePlan DraftPolicy::exact(ViewRequest request) {
    FramePlan plan;
    plan.m_key = planKey(request.m_spec, request.m_target.m_width, request.m_target.m_height, 0, 0);
    plan.m_request = std::move(request);
    return plan;
}

double DraftPolicy::foldAsDraft(const ViewRequest& request, const IndexFacts& facts, double fold) const {
    if (!draftAbove() || !mayHaveDrafts(facts.m_index->index().size())) return fold;
    if (request.m_spec.m_bins && !facts.m_binDraftsReady) return fold;
    const double typical = draftFoldPixels(*facts.m_index, request.m_spec, request.m_target.m_width);
    const double draft = std::max(fold, typical);
    // Folding at three times the typical leaf opens few leaves, unless the cap held the fold
    // below that (tall leaves: the addresses zoomed). A bin's view folds no leaf: its blocks of
    // a leaf are few, and drawn one by one.
    if (typical < kDraftFoldAtMost || request.m_spec.m_bins) return draft;
    return withinLimit(*facts.m_index, request, facts.m_categorical, draft);
}

// A draft draws no more blocks one by one than an exact frame may: where the leaves are tall
// (the addresses zoomed), folding at the typical leaf's size still opened millions of them,
// each in several tiles (2.7 M drawn at 10^8 blocks, 100 ms a frame), so the fold doubles until
// the leaves it opens give at most draftAbove(). Their parents fold sooner still.
double DraftPolicy::withinLimit(const timeline::ModelIndex& index, const ViewRequest& request, bool categorical,
                                double fold) const {
    const auto blocks = openedLeaves(index, request.m_spec, request.m_target, categorical, fold);
    size_t drawn = 0;
    for (const size_t count : blocks) drawn += count;
    for (int doublings = 0; doublings <= kMostDoublings; ++doublings) {
        drawn -= blocks[static_cast<size_t>(doublings)];
        if (drawn <= draftAbove()) return std::ldexp(fold, doublings);
    }
    return std::ldexp(fold, kMostDoublings);
}

bool DraftPolicy::overLimit(const ViewRequest& request, const IndexFacts& facts) const {
    // The count costs the blocks on the window's edges and stops once past the limit; it is of
    // the addresses on the view's rows (a zoomed scale's bands reach past them).
    const ViewSpec& spec = request.m_spec;
    const auto shown = spec.m_scale->shownAddresses();
    if (!shown) return false;
    const timeline::IndexBox window{spec.m_window.m_from, spec.m_window.m_to, shown->first, shown->second + 1};
    return facts.m_index->countIn(window, draftAbove()) > draftAbove();
}

double DraftPolicy::draftFoldPixels(const timeline::ModelIndex& index, const ViewSpec& spec, int width) const {
    const timeline::ModelIndex::LeafSize node = spec.m_bins ? index.typicalParent() : index.typicalLeaf();
    const double times = spec.m_bins ? 1.5 : 3.0;
    const double columns =
        static_cast<double>(node.m_width) * width / std::max<double>(1, static_cast<double>(spec.m_window.width()));
    double rowsPerByte = 0;
    for (const AddressScale::Band& band : spec.m_scale->bands())
        rowsPerByte = std::max(rowsPerByte, band.m_rowsPerByte);
    const double rows = static_cast<double>(node.m_height) * rowsPerByte;
    return std::clamp(times * std::max(columns, rows), kDraftFoldAtLeast, kDraftFoldAtMost);
}

bool DraftPolicy::runningLate(std::chrono::steady_clock::time_point started, size_t done, size_t tiles) const {
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    return ms > m_lateAfterMs ||
           (done * 4 >= tiles && ms * static_cast<double>(tiles) > m_lateProjectedMs * static_cast<double>(done));
}

}  // namespace memlog::render

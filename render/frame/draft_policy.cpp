#include "render/frame/draft_policy.hpp"

#include <algorithm>

namespace memlog::render {

FramePlan DraftPolicy::plan(ViewRequest request, const IndexFacts& facts,
                            const std::function<bool(const PlanKey&)>& kept) const {
    const ViewSpec& spec = request.m_spec;
    const int width = request.m_target.m_width, height = request.m_target.m_height;
    FramePlan plan;
    double fold = levelOfDetailFold(request);
    PlanKey key = planKey(spec, width, height, fold, facts.m_generation);
    const bool mayDraft = request.m_mayDraft && request.m_levelOfDetail;
    if (mayDraft && !kept(key)) {
        if (const double draft = draftFold(request, facts, fold); draft != fold) {
            fold = draft;
            key = planKey(spec, width, height, fold, facts.m_generation);
            plan.m_draft = true;
        }
    }
    plan.m_foldPixels = fold;
    plan.m_lateFoldPixels = mayDraft ? foldAsDraft(request, facts, fold) : fold;
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
    return std::max(fold, draftFoldPixels(*facts.m_index, request.m_spec, request.m_target.m_width));
}

double DraftPolicy::draftFold(const ViewRequest& request, const IndexFacts& facts, double fold) const {
    const double draft = foldAsDraft(request, facts, fold);
    if (draft == fold) return fold;
    // The count costs the blocks on the window's edges and stops once past the limit; it is of
    // the addresses on the view's rows (a zoomed scale's bands reach past them).
    const ViewSpec& spec = request.m_spec;
    const auto shown = spec.m_scale->shownAddresses();
    if (!shown) return fold;
    const timeline::IndexBox window{spec.m_window.m_from, spec.m_window.m_to, shown->first, shown->second + 1};
    return facts.m_index->countIn(window, draftAbove()) <= draftAbove() ? fold : draft;
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

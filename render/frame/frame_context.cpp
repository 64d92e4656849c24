// The frame context: built lazily by prepare(), then every frame reads it. Colours are summed up
// the index like the model index's sums: children before parents, one pass.
#include "render/frame/frame_context.hpp"

#include "timeline/base/huge_pages.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <iterator>
#include <thread>
#include <utility>

#include "timeline/base/other_core.hpp"

namespace memlog::render {

using timeline::Block;

FrameContext::FrameContext(const timeline::BlockModel& model, const timeline::SiteIndex* sites)
    : m_model(model), m_sites(sites) {}

FrameContext::~FrameContext() = default;

void FrameContext::prepare(timeline::XAxis axis, ColourBy by, const std::function<void(double)>& progress) {
    const bool newIndex = !m_index || axis != m_axis;
    if (!newIndex && by == m_colourBy) return;
    m_axis = axis;
    m_colourBy = by;
    if (newIndex) {
        m_index.reset();  // the old one's memory first
        m_index = timeline::ModelIndex::forModel(m_model, axis, [&](double done) {
            if (progress) progress(done * 0.85);
        });
    }
    if (progress) progress(0.85);
    buildColours();
    ++m_generation;
    if (m_policy.mayHaveDrafts(m_index->index().size())) {
        if (progress) progress(0.9);
        summariseLeavesForDrafts();
    }
    if (progress) progress(1.0);
}

void FrameContext::summariseLeavesForDrafts() {
    const timeline::BlockIndex& index = m_index->index();
    const auto& nodes = index.nodes();
    const size_t leaves = index.leafCount();  // they come first
    auto summarise = [&](size_t from, size_t to) {
        for (size_t n = from; n < to; ++n) m_draftSummaries.mean(index, nodes[n], m_colours);
    };
    std::jthread second = timeline::startOnOtherCore(summarise, leaves / 2, leaves);
    summarise(0, leaves / 2);
}

void FrameContext::buildColours() {
    m_colouring = BlockColouring::make(m_colourBy, m_model, m_axis, m_model.extent(m_axis), m_sites);
    if (m_colouring.categorical()) {  // from the blocks' stacks or threads, kept in the index's order
        const auto& stacks = m_index->itemStacks();
        const auto& threads = m_index->itemThreads();
        const bool byThread = m_colourBy == ColourBy::Thread;  // the other array is not read at all
        FrameColours::make(m_colours, true, stacks.size(), [&](size_t k) {
            return static_cast<uint16_t>(byThread ? m_colouring.slot(0, threads[k]) : m_colouring.slot(stacks[k], 0));
        });
    } else {  // quantities, from the blocks in the tree's order, which lie all over the model
        const auto& order = m_index->index().order();
        constexpr size_t kAhead = 16;  // each asked for a few ahead
        FrameColours::make(m_colours, false, order.size(), [&](size_t k) {
            if (k + kAhead < order.size()) __builtin_prefetch(&m_model[order[k + kAhead]]);
            return m_colours.keyOf(m_colouring, m_model[order[k]]);
        });
    }
    m_summaries.reset(m_index->index().nodes().size());  // made as frames fold nodes
    m_draftSummaries.reset(m_index->index().nodes().size(), true);  // a draft's: from the leaves' up
    m_draftSummaries.setAlpha(kDraftSummaryAlpha);
}

bool FrameContext::binsReady(timeline::BinKind kind) const {
    return m_binCache.m_generation == m_generation && m_binCache.m_kind == kind;
}

void FrameContext::prepareBins(timeline::BinKind kind, const std::function<void(double)>& progress) {
    if (binsReady(kind)) return;
    // Read through an index, in a scratch file beside it (BlockModel::scratchFolder): the bins'
    // arrays are some 37 bytes a block (374 MiB for 10^7 blocks).
    const timeline::ScratchArrays scratch(m_model.scratchFolder());
    BinCache& cache = m_binCache;
    cache.m_generation = 0;  // until all of it is made
    cache.m_binned = timeline::BinnedIndex(*m_index, kind, m_sites, progress);
    const timeline::BinnedIndex& binned = cache.m_binned;
    cache.m_draftSummaries = m_policy.mayHaveDrafts(m_model.size())
                                 ? BinSummaries(m_index->index(), binned.binOfPosition(), binned.bins().count(),
                                                m_colours, kDraftSummaryAlpha)
                                 : BinSummaries{};
    cache.m_kind = kind;
    cache.m_generation = m_generation;
    if (progress) progress(1.0);
}

FrameContext::BinCache& FrameContext::binCache(timeline::BinKind kind) {
    prepareBins(kind);
    return m_binCache;
}

const timeline::Bins& FrameContext::bins(timeline::BinKind kind) { return binCache(kind).m_binned.bins(); }

const timeline::HugeVector<uint8_t>& FrameContext::itemBins(timeline::BinKind kind) {
    return binCache(kind).m_binned.binOfPosition();
}

const timeline::ModelIndex::Groups& FrameContext::binGroups(timeline::BinKind kind) {
    return binCache(kind).m_binned.groups();
}

const BlockColouring& FrameContext::colouring(timeline::XAxis axis, ColourBy by, timeline::XWindow) {
    prepare(axis, by);
    return m_colouring;
}

std::vector<timeline::ViewContents> FrameContext::contents(const timeline::ViewsQuery& query) {
    if (query.m_bins) return timeline::viewContents(binCache(query.m_bins->kind()).m_binned, query);
    return timeline::viewContents(*m_index, query);
}

void FrameContext::newFrame() {
    m_cache.newFrame();
    m_interrupted = m_drewDraft = false;
    m_frameStats = FrameStats{};
    m_lastPlans.clear();
}

DraftPolicy::IndexFacts FrameContext::factsFor(const ViewSpec& spec) const {
    DraftPolicy::IndexFacts facts;
    facts.m_index = m_index.get();
    facts.m_generation = m_generation;
    facts.m_categorical = m_colours.m_categorical;
    facts.m_binDraftsReady = spec.m_bins && binsReady(spec.m_bins->kind()) && !m_binCache.m_draftSummaries.empty();
    return facts;
}

FrameInputs FrameContext::inputsFor(const ViewSpec& spec, double foldPixels) {
    FrameInputs inputs;
    inputs.m_index = m_index.get();
    inputs.m_colours = &m_colours;
    inputs.m_summaries = foldPixels > DraftPolicy::kLevelOfDetailFold ? &m_draftSummaries : &m_summaries;
    inputs.m_spec = spec;
    inputs.m_spec.m_bins = nullptr;
    inputs.m_foldPixels = foldPixels;
    if (spec.m_bins) {
        const BinCache& cache = binCache(spec.m_bins->kind());
        const auto bin = static_cast<size_t>(spec.m_bin);
        inputs.m_oneBin = true;
        inputs.m_bin = static_cast<uint8_t>(bin);
        inputs.m_binPositions = cache.m_binned.membership().positionsOf(bin);
        inputs.m_nodeBins = cache.m_binned.membership().m_nodeGroups.data();
        inputs.m_binSummaries = &cache.m_draftSummaries;
        inputs.m_groups = &cache.m_binned.groups();
    }
    return inputs;
}

TileJob FrameContext::jobFor(const FramePlan& plan) {
    TileJob job;
    const ViewSpec& spec = plan.m_request.m_spec;
    job.m_inputs = inputsFor(spec, plan.m_foldPixels);
    job.m_mayBeLate = plan.m_lateFoldPixels != plan.m_foldPixels;
    job.m_lateInputs = job.m_mayBeLate ? inputsFor(spec, plan.m_lateFoldPixels) : job.m_inputs;
    job.m_draft = plan.m_draft;
    job.m_target = plan.m_request.m_target;
    job.m_tiles = TileRenderer::tiles(job.m_target, m_colours.m_categorical);
    return job;
}

FrameStats FrameContext::draw(std::vector<ViewRequest> requests) {
    m_lastStats = FrameStats{};
    if (m_interrupted) return m_lastStats;
    std::vector<FramePlan> plans;
    std::vector<TileJob> jobs;
    std::vector<size_t> drawn;  // the plans drawn, by their jobs
    for (ViewRequest& request : requests) {
        const DraftPolicy::IndexFacts facts = factsFor(request.m_spec);
        FramePlan& plan = plans.emplace_back(
            m_policy.plan(std::move(request), facts, [&](const PlanKey& key) { return m_cache.hasRecent(key); }));
        if (ViewCache::Picture* kept = m_cache.recent(plan.m_key)) {
            copyPixels(kept->pixels(), plan.m_request.m_target);
            m_lastStats.m_draft = m_lastStats.m_draft || kept->m_draft;
            continue;
        }
        drawn.push_back(plans.size() - 1);
        jobs.push_back(jobFor(plan));
    }
    if (!jobs.empty()) m_summaries.setAlpha(plans[drawn.front()].m_request.m_spec.m_alpha);  // the frame's one alpha
    const TileRenderer::Result result = m_renderer.draw(jobs, m_interrupt, &m_policy);
    m_interrupted = result.m_interrupted;
    for (size_t job = 0; job < jobs.size() && !m_interrupted; ++job) {
        const FrameStats& stats = result.m_stats[job];
        FramePlan& plan = plans[drawn[job]];
        m_lastStats += stats;
        m_frameStats += stats;
        // Late, a view drawn exactly became its draft: kept as one, not as the exact picture.
        if (stats.m_draft && plan.m_foldPixels != plan.m_lateFoldPixels) {
            plan.m_key.m_foldPixels = plan.m_lateFoldPixels;
            plan.m_draft = true;
        }
        m_cache.keepRecent(plan.m_key, stats.m_cushionable > 0, stats.m_draft, plan.m_request.m_target);
    }
    if (m_interrupted) return m_lastStats;
    m_drewDraft = m_drewDraft || m_lastStats.m_draft;
    for (FramePlan& plan : plans) {
        if (!drawLayers(plan, m_interrupt)) {  // a full trace's every access, given way to input
            m_interrupted = true;
            return m_lastStats;
        }
        m_lastPlans.push_back(std::move(plan).drawn());
    }
    return m_lastStats;
}

std::vector<FramePlan> FrameContext::drawViews(std::vector<ViewRequest> requests) {
    draw(std::move(requests));
    return m_lastPlans;
}

FrameStats FrameContext::drawBlocks(const ViewSpec& spec, PixelBuffer target, bool levelOfDetail, bool mayDraft) {
    const BlocksJob job{spec, target};
    return drawBlocks(std::span(&job, 1), levelOfDetail, mayDraft);
}

FrameStats FrameContext::drawBlocks(std::span<const BlocksJob> jobs, bool levelOfDetail, bool mayDraft) {
    std::vector<ViewRequest> requests;
    for (const BlocksJob& job : jobs)
        requests.push_back({job.m_spec, job.m_target, levelOfDetail, mayDraft, false, {}});
    return draw(std::move(requests));
}

const AddressScale& FrameContext::wholeScale(double height) {
    WholeScale& cached = m_wholeScale;
    if (cached.m_height != height || cached.m_generation != m_generation) {
        timeline::AddressRanges::Builder builder;
        m_index->addRanges({0, UINT64_MAX}, 0, UINT64_MAX, builder);
        cached.m_scale = AddressScale(
            builder.finish(timeline::AddressRanges::kKeepGapsBelow, AddressScale::maxRanges(height)), height);
        cached.m_height = height;
        cached.m_generation = m_generation;
    }
    return cached.m_scale;
}

std::optional<FramePlan> FrameContext::drawWhole(const ViewRequest& request) {
    if (m_interrupted) return std::nullopt;
    ViewCache::Picture& cached = m_cache.whole(request.m_levelOfDetail);
    const bool mayLag = request.m_mayLag;
    FramePlan plan = m_policy.plan(request, factsFor(request.m_spec),
                                   [&](const PlanKey& key) { return cached.serves(key, mayLag); });
    // Kept for long, the whole log's picture is never late: a late draft of it would be drawn
    // again at once.
    plan.m_lateFoldPixels = plan.m_foldPixels;
    const PixelBuffer target = plan.m_request.m_target;
    if (!cached.serves(plan.m_key, mayLag)) {
        std::vector<uint32_t> pixels(static_cast<size_t>(target.m_width) * static_cast<size_t>(target.m_height));
        FramePlan onPixels = plan;
        onPixels.m_request.m_target = {pixels.data(), target.m_width, target.m_height, target.m_width};
        const TileJob job = jobFor(onPixels);
        m_summaries.setAlpha(request.m_spec.m_alpha);
        const TileRenderer::Result result = m_renderer.draw(std::span(&job, 1), m_interrupt, nullptr);
        m_interrupted = result.m_interrupted;
        if (m_interrupted) return std::nullopt;
        cached = {plan.m_key, result.m_stats.front().m_cushionable > 0, result.m_stats.front().m_draft, 0,
                  std::move(pixels)};
    }
    m_drewDraft = m_drewDraft || cached.m_draft;
    copyPixels(cached.pixels(), target);
    drawLayers(plan);
    m_lastPlans.push_back(std::move(plan).drawn());
    return m_lastPlans.back();
}

}  // namespace memlog::render

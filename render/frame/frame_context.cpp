// The frame context: built lazily by prepare(), then every frame reads it. Colours are summed up
// the index like the model index's sums: children before parents, one pass.
#include "render/frame/frame_context.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <iterator>
#include <thread>
#include <utility>

#include "render/frame/draft_budget.hpp"

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
        m_index = std::make_unique<timeline::ModelIndex>(m_model, axis, [&](double done) {
            if (progress) progress(done * 0.85);
        });
    }
    if (progress) progress(0.85);
    buildColours();
    ++m_generation;
    if (mayHaveDrafts(m_index->index().size())) {
        if (progress) progress(0.9);
        summariseLeavesForDrafts();
    }
    if (progress) progress(1.0);
}

void FrameContext::summariseLeavesForDrafts() {
    const timeline::BlockIndex& index = m_index->index();
    const auto& nodes = index.nodes();
    size_t leaves = 0;
    while (leaves < nodes.size() && nodes[leaves].m_leaf) ++leaves;  // leaves come first
    auto summarise = [&](size_t from, size_t to) {
        for (size_t n = from; n < to; ++n) m_draftSummaries.mean(index, nodes[n], m_colours);
    };
    std::jthread second = startOnOtherCore(summarise, leaves / 2, leaves);
    summarise(0, leaves / 2);
}

void FrameContext::buildColours() {
    m_colouring = BlockColouring::make(m_colourBy, m_model, m_axis, m_model.extent(m_axis), m_sites);
    FrameColours& colours = m_colours;
    colours.m_categorical = m_colouring.categorical();
    for (size_t slot = 0; slot <= kPaletteSize; ++slot) {
        const Rgb colour = categoryColour(slot);
        const double channels[3] = {colour.m_r, colour.m_g, colour.m_b};
        for (int c = 0; c < 3; ++c) colours.m_slotChannels[slot][c] = CoverageAccumulator::quantiseAttribute(channels[c]);
    }
    const auto& order = m_index->index().order();
    colours.m_itemKey.resize(order.size());
    for (size_t k = 0; k < order.size(); ++k) {
        const Block& block = m_model[order[k]];
        colours.m_itemKey[k] = static_cast<uint16_t>(
            colours.m_categorical ? m_colouring.slot(block) : CoverageAccumulator::quantiseAttribute(m_colouring.scalar(block)));
    }
    m_summaries.reset(m_index->index().nodes().size());  // made as frames fold nodes
    m_draftSummaries.reset(m_index->index().nodes().size());
    m_draftSummaries.setAlpha(kDraftSummaryAlpha);
}

bool FrameContext::binsReady(timeline::BinKind kind) const {
    return m_binCache.m_generation == m_generation && m_binCache.m_kind == kind;
}

void FrameContext::prepareBins(timeline::BinKind kind, const std::function<void(double)>& progress) {
    if (binsReady(kind)) return;
    auto tell = [&](double done) {
        if (progress) progress(done);
    };
    BinCache& cache = m_binCache;
    cache.m_generation = 0;  // until all of it is made
    cache.m_bins = timeline::Bins::make(kind, m_model, m_axis, m_sites);
    tell(0.2);
    const auto& order = m_index->index().order();
    cache.m_itemBin.resize(order.size());
    for (size_t k = 0; k < order.size(); ++k) {
        const int bin = cache.m_bins.binOf(m_model[order[k]]);
        cache.m_itemBin[k] = bin < 0 ? kNoBin : static_cast<uint8_t>(bin);
    }
    const size_t count = cache.m_bins.count();
    cache.m_binStarts.assign(count + 1, 0);
    for (const uint8_t bin : cache.m_itemBin)
        if (bin < count) ++cache.m_binStarts[bin + 1];
    for (size_t bin = 0; bin < count; ++bin) cache.m_binStarts[bin + 1] += cache.m_binStarts[bin];
    cache.m_binPositions.resize(cache.m_binStarts[count]);
    std::vector<size_t> next(cache.m_binStarts.begin(), cache.m_binStarts.end() - 1);
    for (size_t k = 0; k < order.size(); ++k)
        if (cache.m_itemBin[k] < count) cache.m_binPositions[next[cache.m_itemBin[k]]++] = static_cast<uint32_t>(k);
    tell(0.4);
    // Children come before their parents: one pass sums the masks up from the leaves.
    const auto& nodes = m_index->index().nodes();
    cache.m_nodeBins.assign(nodes.size(), 0);
    for (size_t n = 0; n < nodes.size(); ++n) {
        const timeline::BlockIndex::Node& node = nodes[n];
        uint8_t& mask = cache.m_nodeBins[n];
        for (uint32_t i = node.m_first; i < node.m_first + node.m_count; ++i)
            mask |= node.m_leaf ? (cache.m_itemBin[i] == kNoBin ? 0 : static_cast<uint8_t>(1u << cache.m_itemBin[i]))
                                : cache.m_nodeBins[i];
    }
    std::vector<uint8_t> binOfBlock(order.size());
    for (size_t k = 0; k < order.size(); ++k) binOfBlock[order[k]] = cache.m_itemBin[k];
    tell(0.5);
    cache.m_groups = m_index->groups(std::move(binOfBlock), cache.m_bins.count());
    tell(0.8);
    cache.m_draftSummaries = mayHaveDrafts(m_model.size())
                                 ? BinSummaries(m_index->index(), cache.m_itemBin, count, m_colours, kDraftSummaryAlpha)
                                 : BinSummaries{};
    cache.m_kind = kind;
    cache.m_generation = m_generation;
    tell(1.0);
}

FrameContext::BinCache& FrameContext::binCache(timeline::BinKind kind) {
    prepareBins(kind);
    return m_binCache;
}

const timeline::Bins& FrameContext::bins(timeline::BinKind kind) { return binCache(kind).m_bins; }

const timeline::HugeVector<uint8_t>& FrameContext::itemBins(timeline::BinKind kind) { return binCache(kind).m_itemBin; }

const timeline::ModelIndex::Groups& FrameContext::binGroups(timeline::BinKind kind) { return binCache(kind).m_groups; }

FrameContext::ViewKey FrameContext::keyOf(const ViewSpec& spec, PixelBuffer target, double foldPixels) const {
    ViewKey key{};
    key.m_axis = spec.m_axis;
    key.m_window = spec.m_window;
    key.m_bands = spec.m_scale->bands();
    key.m_binKind = spec.m_bins ? static_cast<int>(spec.m_bins->kind()) : -1;
    key.m_bin = spec.m_bins ? spec.m_bin : -1;
    key.m_alpha = spec.m_alpha;
    key.m_foldPixels = foldPixels;
    key.m_cushion = spec.m_cushion;
    key.m_generation = m_generation;
    key.m_width = target.m_width;
    key.m_height = target.m_height;
    return key;
}

std::vector<FrameContext::KeptView>::iterator FrameContext::keptFor(const ViewKey& key) {
    return std::find_if(m_keptViews.begin(), m_keptViews.end(),
                        [&](const KeptView& view) { return key.servedBy(view.m_key, view.m_cushionShows); });
}

void FrameContext::newFrame() {
    ++m_frameNumber;
    m_interrupted = m_drewDraft = false;
    m_frameStats = FrameStats{};
    std::erase_if(m_keptViews, [&](const KeptView& kept) { return kept.m_frame + 1 < m_frameNumber; });
}

bool FrameContext::mayHaveDrafts(size_t blocks) const {
    return m_draftAbove && blocks > std::min(m_draftAbove, DraftBudget::kDraftsFrom);
}

double FrameContext::foldAsDraft(const ViewSpec& spec, int width, double fold) const {
    if (!draftAbove() || !mayHaveDrafts(m_index->index().size())) return fold;
    if (spec.m_bins && (!binsReady(spec.m_bins->kind()) || m_binCache.m_draftSummaries.empty())) return fold;
    return std::max(fold, draftFoldPixels(spec, width));
}

double FrameContext::draftFold(const ViewSpec& spec, int width, double fold) const {
    const double draft = foldAsDraft(spec, width, fold);
    if (draft == fold) return fold;
    // The count costs the blocks on the window's edges (the whole log's: the root alone), stops
    // once past the limit (a bin's view of the whole log met thousands of leaves on its
    // addresses' edges), and is of the addresses on its rows: a zoomed scale's bands reach past
    // them.
    const auto shown = spec.m_scale->shownAddresses();
    if (!shown) return fold;
    const timeline::IndexBox window{spec.m_window.m_from, spec.m_window.m_to, shown->first, shown->second + 1};
    return m_index->countIn(window, draftAbove()) <= draftAbove() ? fold : draft;
}

double FrameContext::draftFoldPixels(const ViewSpec& spec, int width) const {
    // A bin's view folds no leaf: the nodes above them, half again their typical size.
    const timeline::ModelIndex::LeafSize node = spec.m_bins ? m_index->typicalParent() : m_index->typicalLeaf();
    const double times = spec.m_bins ? 1.5 : 3.0;
    const double columns = static_cast<double>(node.m_width) * width / std::max<double>(1, static_cast<double>(spec.m_window.width()));
    double rowsPerByte = 0;
    for (const AddressScale::Band& band : spec.m_scale->bands()) rowsPerByte = std::max(rowsPerByte, band.m_rowsPerByte);
    const double rows = static_cast<double>(node.m_height) * rowsPerByte;
    return std::clamp(times * std::max(columns, rows), kDraftFoldAtLeast, 32.0);
}

FrameStats FrameContext::drawBlocks(const ViewSpec& spec, PixelBuffer target, bool levelOfDetail, bool mayDraft) {
    const BlocksJob job{spec, target};
    return drawBlocks(std::span(&job, 1), levelOfDetail, mayDraft);
}

FrameStats FrameContext::drawBlocks(std::span<const BlocksJob> jobs, bool levelOfDetail, bool mayDraft) {
    m_lastStats = FrameStats{};
    if (m_interrupted) return m_lastStats;
    std::vector<BlocksJob> toDraw;
    std::vector<ViewKey> keys;
    std::vector<double> folds, lateFolds;
    for (const BlocksJob& job : jobs) {
        const ViewSpec& spec = job.m_spec;
        double fold = foldPixels(spec, levelOfDetail);
        ViewKey key = keyOf(spec, job.m_target, fold);
        auto kept = keptFor(key);
        if (kept == m_keptViews.end() && mayDraft && levelOfDetail) {  // a draft only when the exact picture is not at hand
            if (const double draft = draftFold(spec, job.m_target.m_width, fold); draft != fold) {
                fold = draft;
                key = keyOf(spec, job.m_target, fold);
                kept = keptFor(key);
            }
        }
        if (kept == m_keptViews.end()) {
            toDraw.push_back(job);
            keys.push_back(key);
            folds.push_back(fold);
            lateFolds.push_back(mayDraft && levelOfDetail ? foldAsDraft(spec, job.m_target.m_width, fold) : fold);
            continue;
        }
        copyPixels(kept->pixels(), job.m_target);
        m_lastStats.m_draft = m_lastStats.m_draft || kept->m_draft;
        kept->m_frame = m_frameNumber;
        std::rotate(kept, kept + 1, m_keptViews.end());  // now the most recent
    }
    const std::vector<FrameStats> stats = draw(toDraw, folds, lateFolds);
    for (size_t job = 0; job < toDraw.size() && !m_interrupted; ++job) {
        m_lastStats += stats[job];
        // Late, a view drawn exactly became its draft: kept as one, not for the exact picture.
        if (stats[job].m_draft && folds[job] != lateFolds[job]) keys[job] = keyOf(toDraw[job].m_spec, toDraw[job].m_target, lateFolds[job]);
        if (m_keptViews.size() == kKeptViews) m_keptViews.erase(m_keptViews.begin());
        const PixelBuffer target = toDraw[job].m_target;
        KeptView& kept = m_keptViews.emplace_back(KeptView{keys[job], m_frameNumber, stats[job].m_cushionable > 0, stats[job].m_draft, {}});
        kept.m_pixels.resize(static_cast<size_t>(target.m_width) * static_cast<size_t>(target.m_height));
        copyPixels(target, kept.pixels());
    }
    m_drewDraft = m_drewDraft || m_lastStats.m_draft;
    return m_lastStats;
}

std::vector<Tile> FrameContext::tilesOf(int width, int height, bool categorical) {
    // About kTileBytes of the accumulator's two arrays (80 or 48 bytes a pixel), so that they
    // stay in a core's cache beside the colour tables. Square: taller or wider tiles cut more
    // leaves of the index in two (scripts/bench-frame was no faster with half or twice this).
    const int pixelBytes = static_cast<int>(2 * (categorical ? 5 : 3) * sizeof(uint64_t));
    const double side = std::max(16.0, std::sqrt(static_cast<double>(kTileBytes) / pixelBytes));
    // Tiles of equal size (to a pixel), none a sliver left over.
    const int across = std::max(1, static_cast<int>(std::lround(width / side)));
    const int down = std::max(1, static_cast<int>(std::lround(height / side)));
    std::vector<Tile> tiles;
    for (int i = 0; i < across; ++i)
        for (int j = 0; j < down; ++j) {
            const int left = width * i / across, top = height * j / down;
            tiles.push_back({left, width * (i + 1) / across - left, top, height * (j + 1) / down - top});
        }
    return tiles;
}

FrameInputs FrameContext::inputsFor(const ViewSpec& spec, double foldPixels) {
    FrameInputs inputs;
    inputs.m_index = m_index.get();
    inputs.m_colours = &m_colours;
    inputs.m_summaries = foldPixels > m_foldPixels ? &m_draftSummaries : &m_summaries;
    inputs.m_spec = spec;
    inputs.m_spec.m_bins = nullptr;
    inputs.m_foldPixels = foldPixels;
    if (spec.m_bins) {
        const BinCache& cache = binCache(spec.m_bins->kind());
        const auto bin = static_cast<size_t>(spec.m_bin);
        inputs.m_oneBin = true;
        inputs.m_bin = static_cast<uint8_t>(bin);
        inputs.m_binPositions = std::span(cache.m_binPositions).subspan(cache.m_binStarts[bin], cache.m_binStarts[bin + 1] - cache.m_binStarts[bin]);
        inputs.m_nodeBins = cache.m_nodeBins.data();
        // A node's colour mixes bins: a bin's view folds only as a draft, from its own summaries
        // (draftFold gives a bin's view a draft's fold only when they are made).
        inputs.m_foldPixels = foldPixels > m_foldPixels ? foldPixels : 0;
        inputs.m_binSummaries = &cache.m_draftSummaries;
        inputs.m_groups = &cache.m_groups;
    }
    return inputs;
}

bool FrameContext::runningLate(std::chrono::steady_clock::time_point started, size_t done, size_t tiles) const {
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    return ms > m_lateAfterMs || (done * 4 >= tiles && ms * static_cast<double>(tiles) > m_lateProjectedMs * static_cast<double>(done));
}

std::vector<FrameStats> FrameContext::draw(std::span<const BlocksJob> jobs, std::span<const double> folds,
                                           std::span<const double> lateFolds) {
    if (jobs.empty()) return {};
    const auto started = std::chrono::steady_clock::now();
    m_summaries.setAlpha(jobs.front().m_spec.m_alpha);  // the jobs' one alpha
    std::vector<FrameInputs> inputs, lateInputs;
    std::vector<bool> mayBeLate;  // whether a job's late tiles differ from its others
    for (size_t job = 0; job < jobs.size(); ++job) {
        inputs.push_back(inputsFor(jobs[job].m_spec, folds[job]));
        mayBeLate.push_back(!lateFolds.empty() && lateFolds[job] != folds[job]);
        lateInputs.push_back(mayBeLate.back() ? inputsFor(jobs[job].m_spec, lateFolds[job]) : inputs.back());
    }
    // Each tile with its own arrays (a block across a line between tiles adds its part to
    // each: a clip at whole pixels keeps every pixel's coverage as it was). Two threads take
    // the next tile until none is left, so neither waits long for the other however the
    // blocks lie. Views of one width (correlated views) take turns, column of tiles by column:
    // the index's boxes and colours of a stretch of time are then read from memory once for
    // all of them, not once for each (each view reads every box near its window, and keeps
    // those of its bin).
    struct JobTile {
        size_t m_job;
        Tile m_tile;
    };
    std::vector<JobTile> tiles;
    for (size_t job = 0; job < jobs.size(); ++job)
        for (const Tile& tile : tilesOf(jobs[job].m_target.m_width, jobs[job].m_target.m_height, m_colours.m_categorical))
            tiles.push_back({job, tile});
    std::stable_sort(tiles.begin(), tiles.end(), [](const JobTile& a, const JobTile& b) { return a.m_tile.m_left < b.m_tile.m_left; });
    std::vector<FrameStats> stats[std::size(m_rasters)];
    for (auto& thread : stats) thread.resize(jobs.size());
    std::atomic<size_t> next{0}, done{0};
    std::atomic<bool> stop{false}, late{false};
    const bool anyMayBeLate = std::find(mayBeLate.begin(), mayBeLate.end(), true) != mayBeLate.end();
    auto work = [&](size_t thread) {
        auto asked = std::chrono::steady_clock::time_point{};
        for (size_t at; !stop.load(std::memory_order_relaxed) && (at = next.fetch_add(1)) < tiles.size();) {
            if (thread == 0 && m_interrupt && std::chrono::steady_clock::now() - asked > std::chrono::milliseconds(10)) {
                if (m_interrupt()) {
                    stop.store(true, std::memory_order_relaxed);
                    break;
                }
                asked = std::chrono::steady_clock::now();
            }
            // Once late, late for every tile that follows, on both threads.
            if (anyMayBeLate && !late.load(std::memory_order_relaxed) && runningLate(started, done.load(), tiles.size()))
                late.store(true, std::memory_order_relaxed);
            const size_t job = tiles[at].m_job;
            const bool drafted = mayBeLate[job] && late.load(std::memory_order_relaxed);
            FrameStats drawn = m_rasters[thread].draw(drafted ? lateInputs[job] : inputs[job], jobs[job].m_target, tiles[at].m_tile);
            drawn.m_draft = drafted && drawn.m_foldedNodes > 0;  // a late tile that folded: the view is a draft
            stats[thread][job] += drawn;
            done.fetch_add(1);
        }
    };
    {
        std::jthread helper;
        if (tiles.size() > 1) helper = startOnOtherCore(work, 1);
        work(0);
    }
    m_interrupted = stop.load();
    for (size_t job = 0; job < jobs.size(); ++job) {
        stats[0][job] += stats[1][job];
        // A draft that folded no node drew every block exactly, as the exact picture would:
        // not a draft, nothing to draw again (zoomed in, a bin's view has nodes wider than
        // any draft folds, and drew its picture twice).
        stats[0][job].m_draft = stats[0][job].m_draft || (inputs[job].m_foldPixels > m_foldPixels && stats[0][job].m_foldedNodes > 0);
        if (!m_interrupted) m_frameStats += stats[0][job];
    }
    return stats[0];
}

const AddressScale& FrameContext::wholeScale(double height) {
    WholeScale& cached = m_wholeScale;
    if (cached.m_height != height || cached.m_generation != m_generation) {
        timeline::AddressRanges::Builder builder;
        m_index->addRanges({0, UINT64_MAX}, 0, UINT64_MAX, builder);
        cached.m_scale = AddressScale(builder.finish(timeline::AddressRanges::kKeepGapsBelow, AddressScale::maxRanges(height)), height);
        cached.m_height = height;
        cached.m_generation = m_generation;
    }
    return cached.m_scale;
}

void FrameContext::drawWhole(const ViewSpec& spec, PixelBuffer target, bool levelOfDetail, bool mayLag, bool mayDraft) {
    if (m_interrupted) return;
    WholePicture& cached = m_wholePictures[levelOfDetail];
    double fold = foldPixels(spec, levelOfDetail);
    ViewKey key = keyOf(spec, target, fold);
    auto served = [&] { return !cached.m_pixels.empty() && key.servedBy(cached.m_key, cached.m_cushionShows, mayLag); };
    if (!served() && mayDraft && levelOfDetail) {
        fold = draftFold(spec, target.m_width, fold);
        key = keyOf(spec, target, fold);
    }
    if (!served()) {
        std::vector<uint32_t> pixels(static_cast<size_t>(target.m_width) * static_cast<size_t>(target.m_height));
        const FrameStats stats =
            draw(std::vector{BlocksJob{spec, {pixels.data(), target.m_width, target.m_height, target.m_width}}}, std::span(&fold, 1)).front();
        if (m_interrupted) return;
        cached = {key, stats.m_cushionable > 0, stats.m_draft, std::move(pixels)};
    }
    m_drewDraft = m_drewDraft || cached.m_draft;
    copyPixels({cached.m_pixels.data(), target.m_width, target.m_height, target.m_width}, target);
}

}  // namespace memlog::render

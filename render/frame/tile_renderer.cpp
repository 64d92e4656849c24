#include "render/frame/tile_renderer.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "timeline/base/other_core.hpp"

namespace memlog::render {

TileRenderer::Result TileRenderer::draw(std::span<const TileJob> jobs, const std::function<bool()>& interrupt,
                                        const DraftPolicy* policy) {
    Result result;
    result.m_stats.resize(jobs.size());
    if (jobs.empty()) return result;
    const auto started = std::chrono::steady_clock::now();
    // Each tile with its own arrays (a block across a line between tiles adds its part to
    // each: a clip at whole pixels keeps every pixel's coverage as it was). Views of one width
    // (correlated views) take turns, column of tiles by column: the index's boxes and colours
    // of a stretch of time are then read from memory once for all of them.
    struct JobTile {
        size_t m_job;
        Tile m_tile;
    };
    std::vector<JobTile> tiles;
    for (size_t job = 0; job < jobs.size(); ++job)
        for (const Tile& tile : jobs[job].m_tiles) tiles.push_back({job, tile});
    std::stable_sort(tiles.begin(), tiles.end(),
                     [](const JobTile& a, const JobTile& b) { return a.m_tile.m_left < b.m_tile.m_left; });
    std::vector<FrameStats> stats[std::size(m_rasters)];
    for (auto& thread : stats) thread.resize(jobs.size());
    std::atomic<size_t> next{0}, done{0};
    std::atomic<bool> stop{false}, late{false};
    const bool anyMayBeLate =
        policy && std::any_of(jobs.begin(), jobs.end(), [](const TileJob& job) { return job.m_mayBeLate; });
    // Asked once before any tile, here rather than in the loop: the helper may take every tile
    // before this thread takes its first, and a frame given up must draw none.
    if (interrupt && interrupt()) {
        result.m_interrupted = true;
        return result;
    }
    auto work = [&](size_t thread) {
        auto asked = std::chrono::steady_clock::now();
        for (size_t at; !stop.load(std::memory_order_relaxed) && (at = next.fetch_add(1)) < tiles.size();) {
            if (thread == 0 && interrupt && std::chrono::steady_clock::now() - asked > std::chrono::milliseconds(10)) {
                if (interrupt()) {
                    stop.store(true, std::memory_order_relaxed);
                    break;
                }
                asked = std::chrono::steady_clock::now();
            }
            // Once late, late for every tile that follows, on both threads.
            if (anyMayBeLate && !late.load(std::memory_order_relaxed) &&
                policy->runningLate(started, done.load(), tiles.size()))
                late.store(true, std::memory_order_relaxed);
            const TileJob& job = jobs[tiles[at].m_job];
            const bool drafted = job.m_mayBeLate && late.load(std::memory_order_relaxed);
            FrameStats drawn =
                m_rasters[thread].draw(drafted ? job.m_lateInputs : job.m_inputs, job.m_target, tiles[at].m_tile);
            drawn.m_draft = drafted && drawn.m_foldedNodes > 0;  // a late tile that folded: the view is a draft
            stats[thread][tiles[at].m_job] += drawn;
            done.fetch_add(1);
        }
    };
    {
        std::jthread helper;
        if (tiles.size() > 1) helper = timeline::startOnOtherCore(work, 1);
        work(0);
    }
    result.m_interrupted = stop.load();
    for (size_t job = 0; job < jobs.size(); ++job) {
        FrameStats& total = result.m_stats[job];
        total = stats[0][job];
        total += stats[1][job];
        // A draft that folded no node drew every block exactly, as the exact picture would:
        // not a draft, nothing to draw again.
        total.m_draft = total.m_draft || (jobs[job].m_draft && total.m_foldedNodes > 0);
    }
    return result;
}

}  // namespace memlog::render

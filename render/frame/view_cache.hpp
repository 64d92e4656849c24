// The blocks' pixels of views drawn lately, before their layers, keyed by their plans: a view
// drawn in this frame or the one before with the same key is copied, not drawn (an overlay
// toggled, a tooltip, the alpha of the other views). And the whole log's picture (the report's
// context view), kept until its key changes, once for exact frames and once with level of detail.
#pragma once

#include <cstdint>
#include <vector>

#include "render/frame/frame_plan.hpp"
#include "render/raster/pixel_buffer.hpp"
#include "timeline/model/bins.hpp"

namespace memlog::render {

class ViewCache {
public:
    struct Picture {
        PlanKey m_key;
        bool m_cushionShows = true;  // a block of it was big enough for a cushion
        bool m_draft = false;
        uint64_t m_frame = 0;  // the last frame that drew or copied it
        std::vector<uint32_t> m_pixels;
        PixelBuffer pixels() { return {m_pixels.data(), m_key.m_width, m_key.m_height, m_key.m_width}; }
        bool serves(const PlanKey& key, bool mayLag = false) const {
            return !m_pixels.empty() && key.servedBy(m_key, m_cushionShows, mayLag);
        }
    };

    // A new frame: views neither drawn nor copied in the last frame go.
    void newFrame();
    void forgetRecent() { m_recent.clear(); }

    // A recent picture serving `key`, now the most recent; null: none.
    Picture* recent(const PlanKey& key);
    bool hasRecent(const PlanKey& key) const;
    // Keeps `pixels` as the picture of `key` (the oldest goes when the cache is full).
    void keepRecent(const PlanKey& key, bool cushionShows, bool draft, PixelBuffer pixels);

    // The whole log's picture, exact (0) or with level of detail (1).
    Picture& whole(bool levelOfDetail) { return m_whole[levelOfDetail ? 1 : 0]; }

private:
    static constexpr size_t kRecent = timeline::Bins::kMaxBins + 1;  // every correlated view, or the main one
    std::vector<Picture> m_recent;  // the most recent last
    Picture m_whole[2];
    uint64_t m_frame = 0;
};

}  // namespace memlog::render

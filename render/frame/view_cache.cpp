#include "render/frame/view_cache.hpp"

#include <algorithm>

namespace memlog::render {

void ViewCache::newFrame() {
    ++m_frame;
    std::erase_if(m_recent, [&](const Picture& kept) { return kept.m_frame + 1 < m_frame; });
}

bool ViewCache::hasRecent(const PlanKey& key) const {
    return std::any_of(m_recent.begin(), m_recent.end(), [&](const Picture& kept) { return kept.serves(key); });
}

ViewCache::Picture* ViewCache::recent(const PlanKey& key) {
    auto kept =
        std::find_if(m_recent.begin(), m_recent.end(), [&](const Picture& picture) { return picture.serves(key); });
    if (kept == m_recent.end()) return nullptr;
    kept->m_frame = m_frame;
    std::rotate(kept, kept + 1, m_recent.end());
    return &m_recent.back();
}

void ViewCache::keepRecent(const PlanKey& key, bool cushionShows, bool draft, PixelBuffer pixels) {
    if (m_recent.size() == kRecent) m_recent.erase(m_recent.begin());
    Picture& kept = m_recent.emplace_back(Picture{key, cushionShows, draft, m_frame, {}});
    kept.m_pixels.resize(static_cast<size_t>(pixels.m_width) * static_cast<size_t>(pixels.m_height));
    copyPixels(pixels, kept.pixels());
}

}  // namespace memlog::render

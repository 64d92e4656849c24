#include "render/frame/frame_plan.hpp"

#include <cstdio>

namespace memlog::render {

bool PlanKey::servedBy(const PlanKey& drawn, bool cushionShows, bool lookMayLag) const {
    PlanKey same = *this;
    if (!cushionShows || lookMayLag) same.m_cushion = drawn.m_cushion;
    if (lookMayLag) {
        same.m_alpha = drawn.m_alpha;
        same.m_foldPixels = drawn.m_foldPixels;
    }
    return same == drawn;
}

PlanKey planKey(const ViewSpec& spec, int width, int height, double foldPixels, uint64_t generation) {
    PlanKey key;
    key.m_axis = spec.m_axis;
    key.m_window = spec.m_window;
    key.m_bands = spec.m_scale->bands();
    key.m_binKind = spec.m_bins ? static_cast<int>(spec.m_bins->kind()) : -1;
    key.m_bin = spec.m_bins ? spec.m_bin : -1;
    key.m_alpha = spec.m_alpha;
    key.m_foldPixels = foldPixels;
    key.m_cushion = spec.m_cushion;
    key.m_generation = generation;
    key.m_width = width;
    key.m_height = height;
    return key;
}

std::string FramePlan::describe(const std::string& name) const {
    char text[256];
    std::snprintf(text, sizeof text, "%s.size=%dx%d %s.fold=%.3g %s.late_fold=%.3g %s.draft=%d %s.layers=%zu",
                  name.c_str(), m_key.m_width, m_key.m_height, name.c_str(), m_foldPixels, name.c_str(),
                  m_lateFoldPixels, name.c_str(), m_draft ? 1 : 0, name.c_str(), m_layerCount);
    return text;
}

}  // namespace memlog::render

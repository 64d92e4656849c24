// What a block's colour says (--color-by): a category (thread, allocating site) from the
// palette, or a quantity (size, lifetime, age at the end of the log, waste) on the ordinal
// map, scaled to the blocks on show. Also says what each colour means, for the legend.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "render/raster/colour_map.hpp"
#include "timeline/model/block_model.hpp"
#include "timeline/names/site_index.hpp"

namespace memlog::render {

enum class ColourBy { Thread, Site, Size, Lifetime, Age, Waste };
bool parseColourBy(const std::string& name, ColourBy& by);  // "thread", "site", "size", ...
const char* colourByName(ColourBy by);

struct LegendEntry {
    Rgb m_colour;
    std::string m_label;
};

class BlockColouring {
public:
    // Categories are ranked by the area their blocks cover in `window`; the first
    // kPaletteSize get colours, the rest grey. `sites` is needed for ColourBy::Site only.
    // With `siteOrder` (sites by label, sharedSiteOrder's), a site's colour is its place in that
    // order instead, so that two runs' pictures give one site one colour.
    static BlockColouring make(ColourBy by, const timeline::BlockModel& model, timeline::XAxis axis,
                               timeline::XWindow window, const timeline::SiteIndex* sites,
                               const std::vector<std::string>* siteOrder = nullptr);

    ColourBy by() const { return m_by; }
    bool categorical() const { return m_by == ColourBy::Thread || m_by == ColourBy::Site; }
    double scalar(const timeline::Block& block) const;  // [0, 1]: quantities
    Rgb colour(const timeline::Block& block) const;
    // Categories: the palette slot of a block, categoryColour(slot) its colour (kPaletteSize: "other").
    size_t slot(const timeline::Block& block) const;
    // The same from a block's stack and thread alone (ModelIndex::itemStacks, itemThreads).
    size_t slot(uint32_t stack, uint32_t thread) const {
        const uint32_t key = keyOf(stack, thread);
        return key < m_slotOfKey.size() ? m_slotOfKey[key] : kPaletteSize;
    }

    // The legend: a title, then named colours (categories) or the two ends of the map.
    std::string title() const;
    const std::vector<LegendEntry>& categories() const { return m_categories; }
    std::string lowLabel() const { return m_lowLabel; }
    std::string highLabel() const { return m_highLabel; }

private:
    void rankSites(const timeline::BlockModel& model, timeline::XWindow window,
                   const std::vector<std::string>& siteOrder);
    uint32_t keyOf(const timeline::Block& block) const { return keyOf(block.stack(), block.thread()); }
    uint32_t keyOf(uint32_t stack, uint32_t thread) const {
        if (m_by == ColourBy::Thread) return thread;
        if (!m_sites || stack >= m_sites->m_siteOfStack.size()) return 0;
        return m_sites->m_siteOfStack[stack];
    }
    double scaleValue(const timeline::Block& block) const;  // before fitting to [m_low, m_high]
    ColourBy m_by = ColourBy::Size;
    timeline::XAxis m_axis = timeline::XAxis::Time;
    const timeline::SiteIndex* m_sites = nullptr;
    std::vector<uint8_t> m_slotOfKey;  // categories: palette slot, kPaletteSize for "other"
    std::vector<LegendEntry> m_categories;
    double m_low = 0, m_high = 1;  // quantities: the scale's ends (log2 for size and waste, log10 for lifetime)
    uint64_t m_extentEnd = 0, m_extentWidth = 1;
    std::string m_lowLabel, m_highLabel;
};

// Runs drawn side by side (memtimeline --compare): each with its model and sites.
struct ColouredRun {
    const timeline::BlockModel* m_model;
    const timeline::SiteIndex* m_sites;
};
// The labels of the runs' sites in decreasing order of the area their blocks cover in `window`,
// summed over the runs by label (siteLabel: function, file and line): a site is matched by its
// name, never by its stack or address, which two runs or two builds do not share.
std::vector<std::string> sharedSiteOrder(std::span<const ColouredRun> runs, timeline::XAxis axis,
                                         timeline::XWindow window);

}  // namespace memlog::render

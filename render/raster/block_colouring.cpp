// Colouring: categories through a key -> palette slot table; quantities through a scale fitted
// to the blocks of the window (log scales for sizes, lifetimes and waste, which span decades).
#include "render/raster/block_colouring.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "timeline/model/bins.hpp"
#include "timeline/base/text_format.hpp"
#include "timeline/model/usable_size.hpp"

namespace memlog::render {

using timeline::Block;

bool parseColourBy(const std::string& name, ColourBy& by) {
    if (name == "thread")
        by = ColourBy::Thread;
    else if (name == "site")
        by = ColourBy::Site;
    else if (name == "size")
        by = ColourBy::Size;
    else if (name == "lifetime")
        by = ColourBy::Lifetime;
    else if (name == "age")
        by = ColourBy::Age;
    else if (name == "waste")
        by = ColourBy::Waste;
    else
        return false;
    return true;
}

const char* colourByName(ColourBy by) {
    switch (by) {
        case ColourBy::Thread:
            return "thread";
        case ColourBy::Site:
            return "site";
        case ColourBy::Size:
            return "size";
        case ColourBy::Lifetime:
            return "lifetime";
        case ColourBy::Age:
            return "age";
        case ColourBy::Waste:
            return "waste";
    }
    return "?";
}

namespace {

bool overlaps(const Block& b, timeline::XAxis axis, timeline::XWindow window) {
    return b.from(axis) < window.m_to && b.to(axis) >= window.m_from;
}

uint64_t waste(const Block& b) { return timeline::estimatedUsableSize(b) - b.size(); }

}  // namespace

BlockColouring BlockColouring::make(ColourBy by, const timeline::BlockModel& model, timeline::XAxis axis,
                                    timeline::XWindow window, const timeline::SiteIndex* sites,
                                    const std::vector<std::string>* siteOrder) {
    BlockColouring colouring;
    colouring.m_by = by;
    colouring.m_axis = axis;
    colouring.m_sites = sites;
    const timeline::XWindow extent = model.extent(axis);
    colouring.m_extentEnd = extent.m_to;
    colouring.m_extentWidth = std::max<uint64_t>(extent.width(), 1);
    if (by == ColourBy::Site && sites && siteOrder) {
        colouring.rankSites(model, window, *siteOrder);
        return colouring;
    }
    if (colouring.categorical()) {
        const size_t keyCount = by == ColourBy::Thread ? model.threads().size() : sites ? sites->m_sites.size() : 1;
        const auto ranked = timeline::keysByArea(
            model, axis, keyCount,
            [&](const Block& b) { return overlaps(b, axis, window) ? colouring.keyOf(b) : UINT32_MAX; }, window);
        colouring.m_slotOfKey.assign(keyCount, static_cast<uint8_t>(kPaletteSize));
        const size_t named = std::min(ranked.size(), kPaletteSize);
        for (size_t i = 0; i < named; ++i) {
            const uint32_t key = ranked[i];
            colouring.m_slotOfKey[key] = static_cast<uint8_t>(i);
            std::string label;
            if (by == ColourBy::Thread) {
                const uint32_t tid = model.threads()[key];
                label = "thread " + std::to_string(tid) + (tid == model.summary().m_pid ? " (main)" : "");
            } else {
                label = sites ? timeline::siteLabel(sites->m_sites[key]) : "(no symbols)";
            }
            colouring.m_categories.push_back({categoryColour(i), label});
        }
        if (ranked.size() > named) {
            const size_t others = ranked.size() - named;
            const char* what = by == ColourBy::Thread ? (others == 1 ? " other thread" : " other threads")
                                                      : (others == 1 ? " other site" : " other sites");
            colouring.m_categories.push_back({kOtherColour, std::to_string(others) + what});
        }
        return colouring;
    }
    // Quantities: the scale runs over the values of the blocks on show.
    double low = INFINITY, high = -INFINITY;
    model.forEachMeeting(axis, window, [&](const Block& b) {
        if (by == ColourBy::Age || !overlaps(b, axis, window)) return;
        const double value = colouring.scaleValue(b);
        low = std::min(low, value);
        high = std::max(high, value);
    });
    if (by == ColourBy::Age) {
        colouring.m_low = 0;
        colouring.m_high = 1;
        colouring.m_lowLabel = "young: begun at the end";
        colouring.m_highLabel = "old: " + timeline::xSpanText(axis, static_cast<double>(extent.width()));
        return colouring;
    }
    if (!(low <= high)) low = high = 0;
    colouring.m_low = low;
    colouring.m_high = high;
    auto sizeLabel = [](double log2Bytes) { return timeline::bytesText(std::round(std::exp2(log2Bytes))); };
    switch (by) {
        case ColourBy::Size:
            colouring.m_lowLabel = sizeLabel(low);
            colouring.m_highLabel = sizeLabel(high);
            break;
        case ColourBy::Lifetime: {
            auto label = [axis](double log10Value) {
                return timeline::xSpanText(axis, std::round(std::pow(10.0, log10Value)));
            };
            colouring.m_lowLabel = label(low);
            colouring.m_highLabel = label(high);
            break;
        }
        case ColourBy::Waste:
            colouring.m_lowLabel = timeline::bytesText(std::round(std::exp2(low) - 1));
            colouring.m_highLabel = timeline::bytesText(std::round(std::exp2(high) - 1));
            break;
        default:
            break;
    }
    return colouring;
}

// The sites on show get the slots of their labels in `siteOrder`; the legend lists them in slot
// order, and counts the sites on show past the palette as others.
void BlockColouring::rankSites(const timeline::BlockModel& model, timeline::XWindow window,
                               const std::vector<std::string>& siteOrder) {
    std::unordered_map<std::string, size_t> slotOfLabel;
    for (size_t slot = 0; slot < std::min(siteOrder.size(), kPaletteSize); ++slot)
        slotOfLabel.emplace(siteOrder[slot], slot);
    const size_t keyCount = m_sites->m_sites.size();
    m_slotOfKey.assign(keyCount, static_cast<uint8_t>(kPaletteSize));
    std::map<size_t, std::string> named;  // slot -> label, the legend's order
    size_t others = 0;
    for (const uint32_t key : timeline::keysByArea(
             model, m_axis, keyCount,
             [&](const Block& b) { return overlaps(b, m_axis, window) ? keyOf(b) : UINT32_MAX; }, window)) {
        const std::string label = timeline::siteLabel(m_sites->m_sites[key]);
        const auto found = slotOfLabel.find(label);
        if (found == slotOfLabel.end()) {
            ++others;
            continue;
        }
        m_slotOfKey[key] = static_cast<uint8_t>(found->second);
        named.emplace(found->second, label);
    }
    for (const auto& [slot, label] : named) m_categories.push_back({categoryColour(slot), label});
    if (others)
        m_categories.push_back({kOtherColour, std::to_string(others) + (others == 1 ? " other site" : " other sites")});
}

std::vector<std::string> sharedSiteOrder(std::span<const ColouredRun> runs, timeline::XAxis axis,
                                         timeline::XWindow window) {
    std::unordered_map<std::string, double> areaOfLabel;
    for (const ColouredRun& run : runs) {
        if (!run.m_sites) continue;
        const timeline::SiteIndex& sites = *run.m_sites;
        const std::vector<double> area = timeline::areaByKey(
            *run.m_model, axis, sites.m_sites.size(),
            [&](const Block& b) {
                const bool known = b.stack() < sites.m_siteOfStack.size() && overlaps(b, axis, window);
                return known ? sites.m_siteOfStack[b.stack()] : UINT32_MAX;
            },
            window);
        for (size_t key = 0; key < area.size(); ++key)
            if (area[key] > 0) areaOfLabel[timeline::siteLabel(sites.m_sites[key])] += area[key];
    }
    std::vector<std::pair<std::string, double>> ranked(areaOfLabel.begin(), areaOfLabel.end());
    // Ties by label: the order, and so the colours, do not depend on the table's.
    std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    std::vector<std::string> labels;
    for (auto& [label, area] : ranked) labels.push_back(std::move(label));
    return labels;
}

double BlockColouring::scaleValue(const Block& b) const {
    switch (m_by) {
        case ColourBy::Size:
            return std::log2(static_cast<double>(std::max<uint64_t>(b.size(), 1)));
        case ColourBy::Lifetime:
            return std::log10(static_cast<double>(std::max<uint64_t>(b.to(m_axis) - b.from(m_axis), 1)));
        case ColourBy::Waste:
            return std::log2(1 + static_cast<double>(waste(b)));
        case ColourBy::Age:
            return static_cast<double>(m_extentEnd - std::min(b.from(m_axis), m_extentEnd)) /
                   static_cast<double>(m_extentWidth);
        default:
            return 0;
    }
}

double BlockColouring::scalar(const Block& b) const {
    if (m_high <= m_low) return 0.5;
    return std::clamp((scaleValue(b) - m_low) / (m_high - m_low), 0.0, 1.0);
}

Rgb BlockColouring::colour(const Block& block) const {
    if (!categorical()) return ordinalColour(scalar(block));
    return categoryColour(slot(block));
}

size_t BlockColouring::slot(const Block& block) const { return slot(block.stack(), block.thread()); }

std::string BlockColouring::title() const {
    switch (m_by) {
        case ColourBy::Thread:
            return "colour: allocating thread";
        case ColourBy::Site:
            return "colour: allocating function";
        case ColourBy::Size:
            return "colour: requested size";
        case ColourBy::Lifetime:
            return "colour: lifetime";
        case ColourBy::Age:
            return "colour: age at the end of the log";
        case ColourBy::Waste:
            return "colour: waste (estimated usable - requested)";
    }
    return "";
}

}  // namespace memlog::render

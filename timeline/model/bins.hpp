// Bins for correlated views: the blocks split by size class, thread, address region or
// allocation site, one view per bin (Moreta & Telea's bins, section 4.1.4). Threads, regions
// and sites are many: the largest by area (bytes x time) get bins of their own, the rest share
// one "other" bin.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "timeline/base/other_core.hpp"
#include "timeline/model/address_ranges.hpp"
#include "timeline/model/block_model.hpp"

namespace memlog::timeline {

struct SiteIndex;

enum class BinKind { Size, Thread, Region, Site };
bool parseBinKind(const std::string& name, BinKind& kind);  // "size", "thread", "region", "site"

class Bins {
public:
    static constexpr size_t kMaxBins = 8;

    // Empty bins are left out; `sites` is needed for BinKind::Site only.
    static Bins make(BinKind kind, const BlockModel& model, XAxis axis, const SiteIndex* sites = nullptr);

    BinKind kind() const { return m_kind; }
    size_t count() const { return m_labels.size(); }
    const std::string& label(size_t bin) const { return m_labels[bin]; }
    // The bin of a block, or -1 when it is in none (never for a block of the model made from).
    int binOf(const Block& block) const;

private:
    BinKind m_kind = BinKind::Size;
    std::vector<std::string> m_labels;
    std::vector<int> m_binOfKey;  // key: size class, thread index, region or site
    const SiteIndex* m_sites = nullptr;
    AddressRanges m_regions;
};

// The bin of each of the model's access marks: its block's (found by the sequence number at
// which the block began), -1 for a mark in no heap block.
std::vector<int> binsOfMarks(const BlockModel& model, const Bins& bins);

// The size classes of BinKind::Size: upper bounds, the last open-ended.
inline constexpr uint64_t kSizeClassBounds[] = {32, 128, 512, 2048, 8192, 32768, 131072, UINT64_MAX};
size_t sizeClassOf(uint64_t size);

// The area (bytes x axis units) the blocks of each key (0 .. keyCount-1) cover on `axis`.
// `keyOf` maps a block to its key; a key of keyCount or more is counted nowhere. `within`: a
// keyOf that counts only the blocks meeting a window passes it, and the chunks of blocks that
// cannot meet it are passed by (BlockModel::forEachMeeting).
// The chunks of blocks split between two threads, each summing its own areas: the window's
// opening ranks its colours over every block.
template <typename KeyOf>
std::vector<double> areaByKey(const BlockModel& model, XAxis axis, size_t keyCount, KeyOf&& keyOf,
                              XWindow within = {0, UINT64_MAX}) {
    auto areaOf = [&](size_t fromChunk, size_t toChunk) {
        std::vector<double> area(keyCount, 0.0);
        model.forEachMeeting(
            axis, within,
            [&](const Block& block) {
                const uint32_t key = keyOf(block);
                if (key < keyCount)
                    area[key] += static_cast<double>(std::max<uint64_t>(block.size(), 1)) *
                                 static_cast<double>(std::max<uint64_t>(block.to(axis) - block.from(axis), 1));
            },
            fromChunk, toChunk);
        return area;
    };
    const size_t chunks = model.chunkCount();
    if (chunks < 2) return areaOf(0, chunks);
    std::vector<double> area, later;
    {
        std::jthread second = startOnOtherCore([&] { later = areaOf(chunks / 2, chunks); });
        area = areaOf(0, chunks / 2);
    }
    for (size_t key = 0; key < keyCount; ++key) area[key] += later[key];
    return area;
}

// Keys (0 .. keyCount-1) in decreasing order of the area their blocks cover on `axis`, those
// that cover nothing left out. `keyOf` maps a block to its key.
template <typename KeyOf>
std::vector<uint32_t> keysByArea(const BlockModel& model, XAxis axis, size_t keyCount, KeyOf&& keyOf,
                                 XWindow within = {0, UINT64_MAX}) {
    const std::vector<double> area = areaByKey(model, axis, keyCount, keyOf, within);
    std::vector<uint32_t> keys;
    for (uint32_t key = 0; key < keyCount; ++key)
        if (area[key] > 0) keys.push_back(key);
    std::stable_sort(keys.begin(), keys.end(), [&](uint32_t a, uint32_t b) { return area[a] > area[b]; });
    return keys;
}

}  // namespace memlog::timeline

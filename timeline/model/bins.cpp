// Bins: a key per block (size class, thread, region, site) and a table from key to bin.
#include "timeline/model/bins.hpp"

#include <algorithm>

#include "timeline/names/site_index.hpp"
#include "timeline/base/seeded_hash.hpp"
#include "timeline/base/text_format.hpp"

namespace memlog::timeline {

bool parseBinKind(const std::string& name, BinKind& kind) {
    if (name == "size")
        kind = BinKind::Size;
    else if (name == "thread")
        kind = BinKind::Thread;
    else if (name == "region")
        kind = BinKind::Region;
    else if (name == "site")
        kind = BinKind::Site;
    else
        return false;
    return true;
}

size_t sizeClassOf(uint64_t size) {
    size_t c = 0;
    while (size > kSizeClassBounds[c]) ++c;
    return c;
}

Bins Bins::make(BinKind kind, const BlockModel& model, XAxis axis, const SiteIndex* sites) {
    Bins bins;
    bins.m_kind = kind;
    bins.m_sites = sites;
    std::vector<uint32_t> ranked;  // keys, largest first
    size_t keyCount = 0;
    switch (kind) {
        case BinKind::Size: {
            keyCount = std::size(kSizeClassBounds);
            ranked = keysByArea(model, axis, keyCount,
                                [](const Block& b) { return static_cast<uint32_t>(sizeClassOf(b.size())); });
            std::sort(ranked.begin(), ranked.end());  // size order, not area order
            bins.m_binOfKey.assign(keyCount, -1);
            for (uint32_t key : ranked) {
                const uint64_t low = key == 0 ? 0 : kSizeClassBounds[key - 1] + 1;
                const std::string label = key == 0 ? "up to " + bytesText(static_cast<double>(kSizeClassBounds[0]))
                                          : key + 1 == keyCount
                                              ? "over " + bytesText(static_cast<double>(low - 1))
                                              : bytesText(static_cast<double>(low)) + " to " +
                                                    bytesText(static_cast<double>(kSizeClassBounds[key]));
                bins.m_binOfKey[key] = static_cast<int>(bins.m_labels.size());
                bins.m_labels.push_back(label);
            }
            return bins;
        }
        case BinKind::Thread:
            keyCount = model.threads().size();
            ranked = keysByArea(model, axis, keyCount, [](const Block& b) { return b.thread(); });
            break;
        case BinKind::Region: {
            AddressRanges::Builder builder;
            model.forEach([&](const Block& b) { builder.add(b.addr(), b.endAddr()); });
            bins.m_regions = builder.finish();
            keyCount = bins.m_regions.ranges().size();
            const AddressRanges& regions = bins.m_regions;
            ranked = keysByArea(model, axis, keyCount, [&](const Block& b) {
                return static_cast<uint32_t>(regions.rangeOf(b.addr()).value_or(UINT32_MAX));
            });
            break;
        }
        case BinKind::Site:
            keyCount = sites ? sites->m_sites.size() : 0;
            ranked = keysByArea(model, axis, keyCount, [&](const Block& b) {
                return b.stack() < sites->m_siteOfStack.size() ? sites->m_siteOfStack[b.stack()] : 0;
            });
            break;
    }
    // The largest keys get a bin each; with more keys than bins, the last bin holds the rest.
    const size_t own = ranked.size() <= kMaxBins ? ranked.size() : kMaxBins - 1;
    bins.m_binOfKey.assign(keyCount, ranked.size() > own ? static_cast<int>(own) : -1);
    std::vector<uint32_t> shown(ranked.begin(), ranked.begin() + static_cast<long>(own));
    if (kind == BinKind::Region) std::sort(shown.begin(), shown.end());  // address order
    for (uint32_t key : shown) {
        bins.m_binOfKey[key] = static_cast<int>(bins.m_labels.size());
        if (kind == BinKind::Thread) {
            const uint32_t tid = model.threads()[key];
            bins.m_labels.push_back("thread " + std::to_string(tid) + (tid == model.summary().m_pid ? " (main)" : ""));
        } else if (kind == BinKind::Region) {
            const AddressRange& range = bins.m_regions.ranges()[key];
            bins.m_labels.push_back("region " + hexText(range.m_lo) + " (" +
                                    bytesText(static_cast<double>(range.bytes())) + ")");
        } else {
            bins.m_labels.push_back(siteLabel(sites->m_sites[key]));
        }
    }
    if (ranked.size() > own) {
        const char* what = kind == BinKind::Thread ? "threads" : kind == BinKind::Region ? "regions" : "sites";
        bins.m_labels.push_back(std::to_string(ranked.size() - own) + " other " + what);
    }
    return bins;
}

int Bins::binOf(const Block& block) const {
    switch (m_kind) {
        case BinKind::Size:
            return m_binOfKey[sizeClassOf(block.size())];
        case BinKind::Thread:
            return block.thread() < m_binOfKey.size() ? m_binOfKey[block.thread()] : -1;
        case BinKind::Region: {
            const auto range = m_regions.rangeOf(block.addr());
            return range ? m_binOfKey[*range] : -1;
        }
        case BinKind::Site: {
            const uint32_t site =
                block.stack() < m_sites->m_siteOfStack.size() ? m_sites->m_siteOfStack[block.stack()] : 0;
            return site < m_binOfKey.size() ? m_binOfKey[site] : -1;
        }
    }
    return -1;
}

std::vector<int> binsOfMarks(const BlockModel& model, const Bins& bins) {
    const auto& marks = model.accessMarks();
    NumberMap<uint64_t, int> binOfSeq;
    for (const auto& mark : marks) binOfSeq.emplace(mark.m_blockSeq, -1);
    if (!binOfSeq.empty())
        model.forEach([&](const Block& block) {
            if (auto it = binOfSeq.find(block.beginSeq()); it != binOfSeq.end()) it->second = bins.binOf(block);
        });
    std::vector<int> result;
    result.reserve(marks.size());
    for (const auto& mark : marks) result.push_back(binOfSeq[mark.m_blockSeq]);
    return result;
}

}  // namespace memlog::timeline

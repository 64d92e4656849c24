// The bins over the index, made in the order each part needs the one before: the bins, each
// position's bin, the nodes' masks, then each bin's ends and hulls.
#include "timeline/model/binned_index.hpp"

#include <vector>

namespace memlog::timeline {

BinnedIndex::BinnedIndex(const ModelIndex& index, BinKind kind, const SiteIndex* sites,
                         const std::function<void(double)>& progress)
    : m_index(&index) {
    auto tell = [&](double done) {
        if (progress) progress(done);
    };
    const BlockModel& model = index.model();
    m_bins = Bins::make(kind, model, index.axis(), sites);
    tell(0.2);
    const auto& order = index.index().order();
    m_binOfPosition.resize(order.size());
    for (size_t k = 0; k < order.size(); ++k) {
        const int bin = m_bins.binOf(model[order[k]]);
        m_binOfPosition[k] = bin < 0 ? kNoBin : static_cast<uint8_t>(bin);
    }
    const size_t count = m_bins.count();
    m_membership = index.membership(m_binOfPosition, count);
    tell(0.4);
    HugeVector<uint8_t> binOfBlock(order.size());
    for (size_t k = 0; k < order.size(); ++k) binOfBlock[order[k]] = m_binOfPosition[k];
    tell(0.5);
    m_groups = index.groups(std::move(binOfBlock), count);
    tell(0.8);
}

}  // namespace memlog::timeline

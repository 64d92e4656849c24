// One walk with the summary's attribution: each sample placed in a freed block is a use after
// free of that block (the allocator's own accesses have a region of their own).
#include "timeline/accesses/use_after_free.hpp"


#include "timeline/replay/access_attribution.hpp"
#include "timeline/base/seeded_hash.hpp"
#include "timeline/replay/block_observer.hpp"

namespace memlog::timeline {
namespace {

class Collect final : public BlockObserver {
public:
    void begin(const BlockChange&) override {}
    void end(const BlockChange&) override {}
    void access(const AccessSample& sample, const Attribution& where) override {
        if (where.m_region != Region::Freed) return;  // the allocator's own accesses are apart
        auto [it, added] = m_index.try_emplace(where.m_blockSeq, m_found.size());
        if (added) {
            UseAfterFree use;
            use.m_blockSeq = where.m_blockSeq;
            use.m_addr = where.m_blockAddr;
            use.m_size = where.m_blockSize;
            use.m_allocationStack = where.m_blockStack;
            use.m_freeStack = where.m_freeStack;
            use.m_freeNs = where.m_freeNs;
            use.m_first = sample;
            m_found.push_back(use);
        }
        UseAfterFree& use = m_found[it->second];
        ++use.m_accesses;
        if (sample.m_source == format::AccessSource::Watchpoint) ++use.m_byWatchpoint;
    }
    NumberMap<uint64_t, size_t> m_index;
    std::vector<UseAfterFree> m_found;
};

}  // namespace

std::vector<UseAfterFree> findUsesAfterFree(LogReader& reader) {
    Collect collect;
    summarize(reader, {}, &collect);
    return std::move(collect.m_found);
}

}  // namespace memlog::timeline

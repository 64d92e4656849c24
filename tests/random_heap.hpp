// Random heaps built straight into a block model (no log to write and read): `slots` slots of
// `slotBytes` bytes in `regions` regions 1 MiB apart (so that address compaction cuts gaps
// between them), each slot holding at most one block at a time, so live blocks never overlap
// as in a real heap. Every event is one sequence number and a random few nanoseconds; some
// blocks are empty, some never end. Shared by the timeline and render tests.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "timeline/model/block_model.hpp"

namespace memlog::test {

struct RandomHeap {
    uint32_t m_seed = 1;
    size_t m_events = 10'000;
    size_t m_slots = 64;
    uint64_t m_slotBytes = 4096;
    uint64_t m_maxSize = 0;  // largest block; 0: the slot's bytes but 16
    uint32_t m_regions = 3;
    uint64_t m_base = 0x5555'0000'0000ull;
    double m_freeShare = 0.5;  // of events on a live slot: a free (else the slot stays)
    double m_pauseShare = 0;  // of events: after a pause of m_pauseNs
    uint64_t m_pauseNs = 0;
};

inline timeline::BlockModel randomHeap(const RandomHeap& spec) {
    std::mt19937_64 random(spec.m_seed);
    timeline::BlockModel model;
    std::vector<int64_t> open(spec.m_slots, -1);  // block index live in each slot
    uint64_t ns = 1'000, seq = 1;
    auto slotAddress = [&](size_t slot) {
        const size_t perRegion = (spec.m_slots + spec.m_regions - 1) / spec.m_regions;
        return spec.m_base + (slot / perRegion) * (uint64_t{1} << 20) + (slot % perRegion) * spec.m_slotBytes;
    };
    for (size_t event = 0; event < spec.m_events; ++event, ++seq) {
        ns += random() % 50;  // sometimes 0: blocks that end where they began
        if (spec.m_pauseShare > 0 && std::uniform_real_distribution<>(0, 1)(random) < spec.m_pauseShare)
            ns += spec.m_pauseNs;
        const size_t slot = random() % spec.m_slots;
        if (open[slot] >= 0) {
            if (std::uniform_real_distribution<>(0, 1)(random) >= spec.m_freeShare) continue;
            model.close(static_cast<size_t>(open[slot]), ns, seq, false);
            open[slot] = -1;
            continue;
        }
        timeline::Block::Fields fields{};
        fields.m_addr = slotAddress(slot) + random() % 16;
        const uint64_t largest = spec.m_maxSize ? spec.m_maxSize : spec.m_slotBytes - 16;
        fields.m_size = random() % 50 == 0 ? 0 : 1 + random() % largest;
        fields.m_beginNs = fields.m_endNs = ns;
        fields.m_beginSeq = fields.m_endSeq = seq;
        fields.m_thread = static_cast<uint32_t>(random() % 3);
        fields.m_stack = static_cast<uint32_t>(random() % 5);
        open[slot] = static_cast<int64_t>(model.append(timeline::Block(fields)));
    }
    ns += 10;
    for (int64_t index : open)
        if (index >= 0) model.close(static_cast<size_t>(index), ns, seq, true);
    model.finish(timeline::Summary{}, {100, 101, 102}, ns, seq, 5);
    return model;
}

}  // namespace memlog::test

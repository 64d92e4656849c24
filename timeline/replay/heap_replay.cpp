// summarize(): the replay of heap_replay.hpp over a whole log, for observers of any kind (one
// virtual call per change), with the access samples placed among the blocks when the log has any.
#include "timeline/replay/heap_replay.hpp"

#include <memory>

#include "timeline/read/log_reader.hpp"
#include "timeline/replay/access_attribution.hpp"
#include "timeline/replay/block_observer.hpp"

namespace memlog::timeline {

const char* anomalyName(AnomalyKind kind) {
    switch (kind) {
        case AnomalyKind::UnknownFree:
            return "unknown free";
        case AnomalyKind::DoubleFree:
            return "double free";
        case AnomalyKind::UnknownRealloc:
            return "unknown realloc";
        case AnomalyKind::MismatchedFree:
            return "mismatched free";
        case AnomalyKind::AccessOutsideBlock:
            return "access outside a block";
        case AnomalyKind::UseAfterFree:
            return "use after free";
    }
    return "anomaly";
}

namespace {

// Tells two observers of every change: the attribution of access samples, then the caller's.
class BothObservers final : public BlockObserver {
public:
    BothObservers(BlockObserver& first, BlockObserver* second) : m_first(first), m_second(second) {}
    void begin(const BlockChange& change) override {
        m_first.begin(change);
        if (m_second) m_second->begin(change);
    }
    void end(const BlockChange& change) override {
        m_first.end(change);
        if (m_second) m_second->end(change);
    }

private:
    BlockObserver& m_first;
    BlockObserver* m_second;
};

// The replay's parts over one log: the summary, the samples' attribution when the log has any,
// and the tally that tells both of every change. summarize() and ReplayInSteps each make one.
struct Replay {
    Replay(const LogReader& reader, BlockObserver* observer)
        : m_summary(tally::startSummary(reader)),
          m_attribution(tally::sampled(reader) ? std::make_unique<AccessAttribution>(reader) : nullptr),
          m_both(m_attribution ? std::make_unique<BothObservers>(*m_attribution, observer) : nullptr),
          m_tally(m_summary, m_both ? m_both.get() : observer, m_attribution.get(), observer) {
        m_tally.m_keepTicks = reader.header().m_watchSampler == format::WatchSampler::ProcessWide;
    }
    Replay(const Replay&) = delete;  // the tally points at the summary
    Replay& operator=(const Replay&) = delete;

    Summary m_summary;
    std::unique_ptr<AccessAttribution> m_attribution;
    std::unique_ptr<BothObservers> m_both;
    tally::Tally<BlockObserver> m_tally;
};

}  // namespace

namespace tally {

// Only a log whose sampler ran has samples to place: the others skip the ordered block map.
bool sampled(const LogReader& reader) {
    const format::FileHeader& header = reader.header();
    return header.m_accessSampler != format::AccessSampler::Off &&
           header.m_accessSampler != format::AccessSampler::Unavailable;
}

}  // namespace tally

Summary summarize(LogReader& reader, const std::function<void(double)>& progress, BlockObserver* observer) {
    Replay replay(reader, observer);
    reader.forEachRecord(
        [&](const Event& event) {
            ++replay.m_summary.m_events;
            replay.m_tally.event(event);
        },
        [&](const AccessSample& sample) { replay.m_tally.access(sample); }, progress);
    replay.m_tally.finish();
    tally::finishSummary(replay.m_summary, reader);
    return replay.m_summary;
}

struct ReplayInSteps::State final : RecordSink {
    State(LogReader& reader, BlockObserver* observer) : m_reader(reader), m_replay(reader, observer) {}
    void events(const Event* events, size_t count) override {
        m_replay.m_summary.m_events += count;
        for (size_t i = 0; i < count; ++i) m_replay.m_tally.event(events[i]);
    }
    void access(const AccessSample& sample) override { m_replay.m_tally.access(sample); }
    bool wantsAccesses() const override { return true; }

    LogReader& m_reader;
    Replay m_replay;
    bool m_started = false;
    bool m_unfit = false;
};

ReplayInSteps::ReplayInSteps(LogReader& reader, BlockObserver* observer)
    : m_state(std::make_unique<State>(reader, observer)) {}
ReplayInSteps::~ReplayInSteps() = default;

bool ReplayInSteps::step(const std::function<void(double)>& progress) {
    State& state = *m_state;
    if (state.m_unfit) return false;
    state.m_unfit = true;  // until the step ends as it should
    if (!state.m_started) {
        state.m_reader.forEachBatch(state, progress);
        state.m_started = true;
    } else if (!state.m_reader.readOn(state, progress)) {
        return false;
    }
    state.m_unfit = false;
    return true;
}

Summary ReplayInSteps::summaryNow() const {
    Summary summary = m_state->m_replay.m_summary;
    m_state->m_replay.m_tally.finishInto(summary);
    tally::finishSummary(summary, m_state->m_reader);
    return summary;
}

}  // namespace memlog::timeline

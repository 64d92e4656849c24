// The replay behind a heap profile: per stack, what it allocated and what it had live at the
// moment asked for, kept lazily as stack_metrics.cpp keeps the peak (a stack's value at the
// moment is its live value at its first change after it), so that a moment costs no pass over
// the stacks and the replay stays O(events). A sampled log's blocks are weighted as its
// estimates are (sample_estimates.hpp): the values are estimates, the peak the estimated one.
#include "timeline/export/heap_profile.hpp"

#include <algorithm>
#include <cmath>

#include "timeline/read/log_reader.hpp"
#include "timeline/replay/block_observer.hpp"
#include "timeline/replay/sample_estimator.hpp"

namespace memlog::timeline {

namespace {

// A tally of whole blocks (a full log: exact integers, as before sampling existed) or of weighted
// samples (a sampled log: each block counts 1/p, summed exactly as SampleEstimator sums them, so
// that a stack's values equal `memlog sites`' estimates to the byte).
void add(uint64_t& into, uint64_t value, double) { into += value; }
void remove(uint64_t& into, uint64_t value, double) { into -= value; }
bool above(uint64_t a, uint64_t b) { return a > b; }
uint64_t counted(uint64_t tally) { return tally; }
void add(WeightedSum& into, uint64_t value, double p) { into.add(static_cast<double>(value), p); }
void remove(WeightedSum& into, uint64_t value, double p) { into.remove(static_cast<double>(value), p); }
bool above(const WeightedSum& a, const WeightedSum& b) { return a.m_value > b.m_value; }
uint64_t counted(const WeightedSum& tally) { return static_cast<uint64_t>(std::llround(std::max(tally.m_value, 0.0))); }

template <typename Tally>
class StackProfile final : public BlockObserver {
public:
    StackProfile(ProfileMoment moment, uint64_t sampleMeanBytes) : m_moment(moment), m_sampleMeanBytes(sampleMeanBytes) {}

    void begin(const BlockChange& change) override {
        passTime(change.m_timeNs);
        const double p = sampledProbability(m_sampleMeanBytes, change);
        if (p <= 0) return;  // 0 bytes: never a sample
        Entry& entry = touch(change.m_stack);
        if (!change.m_piece) {  // a piece left by munmap is the same allocation
            add(entry.m_allocObjects, 1, p);
            add(entry.m_allocSpace, change.m_size, p);
            ++m_samples;
        }
        add(entry.m_liveBytes, change.m_size, p);
        add(entry.m_liveBlocks, 1, p);
        add(m_liveBytes, change.m_size, p);
        if (m_moment.m_kind == ProfileMoment::Kind::Peak && above(m_liveBytes, m_peakBytes)) {
            m_peakBytes = m_liveBytes;
            m_momentNs = change.m_timeNs;
            ++m_version;  // this stack's new value is its value at the new peak: caught later
        }
    }

    void end(const BlockChange& change) override {
        passTime(change.m_timeNs);
        const double p = sampledProbability(m_sampleMeanBytes, change);
        if (p <= 0) return;
        Entry& entry = touch(change.m_stack);
        remove(entry.m_liveBytes, change.m_size, p);
        remove(entry.m_liveBlocks, 1, p);
        remove(m_liveBytes, change.m_size, p);
    }

    // The values, once the replay is over; `lastNs`: when the log ends.
    std::vector<ProfileValues> take(uint64_t lastNs, uint64_t& momentNs) {
        const bool atTheEnd = m_moment.m_kind == ProfileMoment::Kind::End ||
                              (m_moment.m_kind == ProfileMoment::Kind::Time && !m_passed);
        if (atTheEnd) ++m_version;  // every stack's live value now is its value at the moment
        momentNs = m_moment.m_kind == ProfileMoment::Kind::Time ? m_moment.m_timeNs
                   : atTheEnd                                   ? lastNs
                                                                : m_momentNs;
        std::vector<ProfileValues> values;
        values.reserve(m_entries.size());
        for (Entry& entry : m_entries) {
            if (entry.m_changedAt < m_version) keepMoment(entry);
            values.push_back({counted(entry.m_allocObjects), counted(entry.m_allocSpace), counted(entry.m_inuseObjects),
                              counted(entry.m_inuseSpace)});
        }
        return values;
    }

    uint64_t samples() const { return m_samples; }

private:
    struct Entry {
        Tally m_allocObjects{}, m_allocSpace{}, m_inuseObjects{}, m_inuseSpace{};
        Tally m_liveBytes{}, m_liveBlocks{};
        uint64_t m_changedAt = 0;  // the moment's version at this stack's last change
    };

    static void keepMoment(Entry& entry) {
        entry.m_inuseSpace = entry.m_liveBytes;
        entry.m_inuseObjects = entry.m_liveBlocks;
    }

    // The first change after the time asked for: every stack's value now is its value then.
    void passTime(uint64_t timeNs) {
        if (m_moment.m_kind != ProfileMoment::Kind::Time || m_passed || timeNs <= m_moment.m_timeNs) return;
        m_passed = true;
        ++m_version;
    }

    Entry& touch(uint32_t stack) {
        if (stack >= m_entries.size()) m_entries.resize(stack + 1);
        Entry& entry = m_entries[stack];
        if (entry.m_changedAt < m_version) {
            keepMoment(entry);  // unchanged since the moment
            entry.m_changedAt = m_version;
        }
        return entry;
    }

    ProfileMoment m_moment;
    uint64_t m_sampleMeanBytes;  // 0: a full log, every p is 1
    std::vector<Entry> m_entries;
    Tally m_liveBytes{};
    Tally m_peakBytes{};
    uint64_t m_momentNs = 0;  // the peak's time
    uint64_t m_version = 0;
    uint64_t m_samples = 0;  // blocks begun, as the log holds them
    bool m_passed = false;  // a Time moment: a change after it was seen
};

template <typename Tally>
void replayProfile(LogReader& reader, const std::function<void(double)>& progress, MeasuredProfile& measured) {
    StackProfile<Tally> observer(measured.m_moment, reader.header().m_sampleMeanBytes);
    measured.m_summary = summarize(reader, progress, &observer);
    // The log's last record, on the events' clock (since the recording started).
    const format::FileHeader& header = reader.header();
    const uint64_t lastNs = format::tscToNs(header, reader.lastTsc());
    measured.m_stacks = observer.take(lastNs > header.m_startNs ? lastNs - header.m_startNs : 0, measured.m_momentNs);
    measured.m_samples = header.m_sampleMeanBytes ? observer.samples() : 0;
}

}  // namespace

MeasuredProfile measureProfile(LogReader& reader, ProfileMoment moment, const std::function<void(double)>& progress) {
    MeasuredProfile measured;
    measured.m_moment = moment;
    if (reader.header().m_sampleMeanBytes)
        replayProfile<WeightedSum>(reader, progress, measured);
    else
        replayProfile<uint64_t>(reader, progress, measured);
    if (measured.m_stacks.size() < reader.stacks().size()) measured.m_stacks.resize(reader.stacks().size());
    return measured;
}

}  // namespace memlog::timeline

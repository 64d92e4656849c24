// The replay behind a heap profile: per stack, what it allocated and what it had live at the
// moment asked for, kept lazily as stack_metrics.cpp keeps the peak (a stack's value at the
// moment is its live value at its first change after it), so that a moment costs no pass over
// the stacks and the replay stays O(events).
#include "timeline/export/heap_profile.hpp"

#include "timeline/read/log_reader.hpp"
#include "timeline/replay/block_observer.hpp"

namespace memlog::timeline {

namespace {

class StackProfile final : public BlockObserver {
public:
    explicit StackProfile(ProfileMoment moment) : m_moment(moment) {}

    void begin(const BlockChange& change) override {
        passTime(change.m_timeNs);
        Entry& entry = touch(change.m_stack);
        if (!change.m_piece) {  // a piece left by munmap is the same allocation
            ++entry.m_values.m_allocObjects;
            entry.m_values.m_allocSpace += change.m_size;
        }
        entry.m_liveBytes += change.m_size;
        ++entry.m_liveBlocks;
        m_liveBytes += change.m_size;
        if (m_moment.m_kind == ProfileMoment::Kind::Peak && m_liveBytes > m_peakBytes) {
            m_peakBytes = m_liveBytes;
            m_momentNs = change.m_timeNs;
            ++m_version;  // this stack's new value is its value at the new peak: caught later
        }
    }

    void end(const BlockChange& change) override {
        passTime(change.m_timeNs);
        Entry& entry = touch(change.m_stack);
        entry.m_liveBytes -= change.m_size;
        --entry.m_liveBlocks;
        m_liveBytes -= change.m_size;
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
            values.push_back(entry.m_values);
        }
        return values;
    }

private:
    struct Entry {
        ProfileValues m_values;
        uint64_t m_liveBytes = 0;
        uint64_t m_liveBlocks = 0;
        uint64_t m_changedAt = 0;  // the moment's version at this stack's last change
    };

    static void keepMoment(Entry& entry) {
        entry.m_values.m_inuseSpace = entry.m_liveBytes;
        entry.m_values.m_inuseObjects = entry.m_liveBlocks;
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
    std::vector<Entry> m_entries;
    uint64_t m_liveBytes = 0;
    uint64_t m_peakBytes = 0;
    uint64_t m_momentNs = 0;  // the peak's time
    uint64_t m_version = 0;
    bool m_passed = false;  // a Time moment: a change after it was seen
};

}  // namespace

MeasuredProfile measureProfile(LogReader& reader, ProfileMoment moment, const std::function<void(double)>& progress) {
    MeasuredProfile measured;
    measured.m_moment = moment;
    StackProfile observer(moment);
    measured.m_summary = summarize(reader, progress, &observer);
    // The log's last record, on the events' clock (since the recording started).
    const format::FileHeader& header = reader.header();
    const uint64_t lastNs = format::tscToNs(header, reader.lastTsc());
    measured.m_stacks = observer.take(lastNs > header.m_startNs ? lastNs - header.m_startNs : 0, measured.m_momentNs);
    if (measured.m_stacks.size() < reader.stacks().size()) measured.m_stacks.resize(reader.stacks().size());
    return measured;
}

}  // namespace memlog::timeline

// A log as a pprof heap profile: per call stack, the blocks and bytes it allocated over the whole
// log and those it had in use at one moment (the end, the byte peak or a time), gathered in one
// replay; then profile.proto's messages (profile_proto.cpp) with the stacks named. Memory grows
// with the stacks, modules and distinct frames, never with the events.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "timeline/replay/summary.hpp"

namespace memlog::timeline {

class LogReader;
class StackNames;

// The moment a profile's in-use values describe.
struct ProfileMoment {
    enum class Kind : uint8_t {
        End,  // what was live when the log ends (leaks, suppressed or not)
        Peak,  // when live bytes first reached their highest (`memlog stat`'s peak)
        Time,  // after every change up to m_timeNs since the log's start
    };
    Kind m_kind = Kind::End;
    uint64_t m_timeNs = 0;
};

// The values of one sample, in profile.proto's order of sample types. One struct a stack, so that
// an estimate's interval joins them in one place (sampled capture, issue 41).
struct ProfileValues {
    uint64_t m_allocObjects = 0;  // blocks begun (`memlog sites`' calls)
    uint64_t m_allocSpace = 0;  // their bytes (`sites`' bytes)
    uint64_t m_inuseObjects = 0;  // blocks live at the moment
    uint64_t m_inuseSpace = 0;  // their bytes (at the peak: `sites`' peak)
    bool empty() const { return !m_allocObjects && !m_allocSpace && !m_inuseObjects && !m_inuseSpace; }
};

struct MeasuredProfile {
    Summary m_summary;
    ProfileMoment m_moment;
    uint64_t m_momentNs = 0;  // the moment as a time since the log's start
    std::vector<ProfileValues> m_stacks;  // index: stack id (0: blocks without a stack)
    // A sampled log (m_summary.m_sampling.m_meanBytes): m_stacks holds the estimates, rounded
    // (each sample weighted by 1/p, as `memlog sites`), from this many samples.
    uint64_t m_samples = 0;
};

// One replay of the whole log (LogReader::forEachRecord through summarize()); throws LogError.
MeasuredProfile measureProfile(LogReader& reader, ProfileMoment moment,
                               const std::function<void(double)>& progress = {});

// profile.proto's Profile message, not compressed: the four sample types (alloc_objects/count,
// alloc_space/bytes, inuse_objects/count, inuse_space/bytes; inuse_space the default), a sample
// a stack with anything to count, a Location per return address with a Line per inlined frame
// (innermost first), a Function per name and file, a Mapping per module with its build id, the
// log's start (time_nanos) and duration, and `comment`. A sampled log's profile has Go's heap
// profiles' period: period_type space/bytes, period the mean gap in bytes (the values are
// already the estimates: pprof scales nothing); a full log's has none. A stack's frames start at its allocation
// site (names/allocator_plumbing.hpp): malloc and operator new are left out, as `sites` does.
std::string encodeProfile(const MeasuredProfile& profile, const LogReader& reader, StackNames& names,
                          const std::string& comment);

}  // namespace memlog::timeline

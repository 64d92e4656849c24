// Access marks from a log: the one place that will read the access sampler's records.
#include "timeline/access_marks.hpp"

#include "timeline/log_reader.hpp"

namespace memlog::timeline {

std::vector<AccessMark> accessMarksFromLog(const LogReader&) {
    // Log format 1 has no access records (issue 4 adds them): nothing to convert yet.
    return {};
}

}  // namespace memlog::timeline

// The rule that decides whether memlog stat decodes and names on a second thread.
#include <catch2/catch.hpp>

#include "timeline/base/idle_core.hpp"

using memlog::timeline::aCoreIsIdle;

TEST_CASE("a second thread runs when the threads ready now, the caller among them, leave a core free") {
    // A minute of work before (a load average of 3) does not count: only what runs now.
    CHECK(aCoreIsIdle("3.10 2.50 1.90 1/467 12345", 2));
    CHECK_FALSE(aCoreIsIdle("0.10 0.20 0.30 2/467 12345", 2));  // another program holds the other core
    CHECK(aCoreIsIdle("0.10 0.20 0.30 3/467 12345", 4));
    CHECK_FALSE(aCoreIsIdle("0.10 0.20 0.30 4/467 12345", 4));
    CHECK_FALSE(aCoreIsIdle("0.00 0.00 0.00 1/467 12345", 1));  // one core: nothing to spare
}

TEST_CASE("a /proc/loadavg line that cannot be read keeps memlog stat on one thread") {
    CHECK_FALSE(aCoreIsIdle("", 2));
    CHECK_FALSE(aCoreIsIdle("0.10 0.20 0.30", 2));
    CHECK_FALSE(aCoreIsIdle("not a load average at all", 8));
}

// The access samples a walk makes, in memory or written to a scratch file and mapped back: the
// same samples either way, and a file that takes no more leaves them all in memory.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>

#include "timeline/model/access_spool.hpp"

using namespace memlog::timeline;

namespace {

std::vector<AccessMark> someMarks(size_t count) {
    std::vector<AccessMark> marks(count);
    for (size_t i = 0; i < count; ++i) {
        marks[i].m_seq = i + 1;
        marks[i].m_addr = 0x5000'0000 + i * 8;
        marks[i].m_write = i % 3 == 0;
        marks[i].m_instructions = i * 11;
    }
    return marks;
}

bool same(const StoredArray<AccessMark>& spooled, const std::vector<AccessMark>& pushed) {
    if (spooled.size() != pushed.size()) return false;
    for (size_t i = 0; i < pushed.size(); ++i)
        if (spooled[i].m_seq != pushed[i].m_seq || spooled[i].m_addr != pushed[i].m_addr ||
            spooled[i].m_write != pushed[i].m_write || spooled[i].m_instructions != pushed[i].m_instructions)
            return false;
    return true;
}

StoredArray<AccessMark> spool(int fd, const std::vector<AccessMark>& marks) {
    AccessSpool spool(fd);
    for (const AccessMark& mark : marks) spool.push(mark);
    CHECK(spool.size() == marks.size());
    return spool.finish();
}

}  // namespace

TEST_CASE("access spool: without a file the samples are the process's own") {
    const std::vector<AccessMark> marks = someMarks(1000);
    const StoredArray<AccessMark> spooled = spool(-1, marks);
    CHECK_FALSE(spooled.mapped());
    CHECK(same(spooled, marks));
}

TEST_CASE("access spool: with a file, written in batches and mapped back, a last batch in part too") {
    const std::vector<AccessMark> marks = someMarks(150'000);  // 36 batches of 4,096 and a part
    const int fd = memfd_create("spool", MFD_CLOEXEC);
    REQUIRE(fd >= 0);
    const StoredArray<AccessMark> spooled = spool(fd, marks);
    CHECK(spooled.mapped());
    CHECK(same(spooled, marks));
    CHECK(fcntl(fd, F_GETFD) == -1);  // the spool closed its file; the mapping keeps its pages
}

TEST_CASE("access spool: a file that takes no more, at once or part way, leaves every sample in memory") {
    const std::vector<AccessMark> marks = someMarks(150'000);
    SECTION("a file that cannot be written") {
        int ends[2];
        REQUIRE(pipe(ends) == 0);  // no pwrite on a pipe
        close(ends[1]);
        const StoredArray<AccessMark> spooled = spool(ends[0], marks);
        CHECK_FALSE(spooled.mapped());
        CHECK(same(spooled, marks));
    }
    SECTION("a file that fills after its first batch") {
        char name[] = "/tmp/memlog-spool-XXXXXX";
        const int fd = mkstemp(name);
        REQUIRE(fd >= 0);
        unlink(name);
        // Files of this process may grow to 6 MB: 20 batches (288 KiB each) fit, the 21st in part.
        rlimit before{};
        getrlimit(RLIMIT_FSIZE, &before);
        const rlimit small{6'000'000, before.rlim_max};
        const auto previous = std::signal(SIGXFSZ, SIG_IGN);
        REQUIRE(setrlimit(RLIMIT_FSIZE, &small) == 0);
        const StoredArray<AccessMark> spooled = spool(fd, marks);
        setrlimit(RLIMIT_FSIZE, &before);
        std::signal(SIGXFSZ, previous);
        CHECK_FALSE(spooled.mapped());
        CHECK(same(spooled, marks));  // the first batch read back from the file, the rest kept
    }
}

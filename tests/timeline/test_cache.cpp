// The cache simulator against cases computed by hand, and `memlog import` + `memlog cache` as a
// user runs them on a Dinero trace.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "log_builder.hpp"
#include "run_memlog.hpp"
#include "timeline/trace/cache_model.hpp"

using namespace memlog::timeline;
namespace fs = std::filesystem;
using memlog::test::Result;
using memlog::test::runMemlog;

namespace {

struct Tally {
    uint64_t m_hits = 0, m_compulsory = 0, m_capacity = 0, m_conflict = 0;
    void add(CacheOutcome outcome) {
        switch (outcome) {
        case CacheOutcome::Hit: ++m_hits; break;
        case CacheOutcome::Compulsory: ++m_compulsory; break;
        case CacheOutcome::Capacity: ++m_capacity; break;
        case CacheOutcome::Conflict: ++m_conflict; break;
        }
    }
};

}  // namespace

TEST_CASE("cache: a sequential sweep misses once per line, compulsorily") {
    CacheModel cache({32 * 1024, 8, 64});
    Tally tally;
    for (uint64_t addr = 0x100000; addr < 0x100000 + 16 * 1024; addr += 8) tally.add(cache.access(addr));
    CHECK(tally.m_compulsory == 16 * 1024 / 64);
    CHECK(tally.m_hits == 16 * 1024 / 8 - 16 * 1024 / 64);  // the other 7 words of each line
    CHECK(tally.m_capacity == 0);
    CHECK(tally.m_conflict == 0);
}

TEST_CASE("cache: two arrays on the same sets conflict in a direct-mapped cache, and not with two ways") {
    // 4 KiB direct-mapped: addresses 4 KiB apart share a set. a[i] and b[i] taken in turn.
    const uint64_t a = 0x200000, b = a + 4096;
    auto run = [&](uint32_t ways) {
        CacheModel cache({4096, ways, 64});
        Tally tally;
        for (uint64_t i = 0; i < 4096; i += 8) {
            tally.add(cache.access(a + i));
            tally.add(cache.access(b + i));
        }
        return tally;
    };
    const Tally direct = run(1), twoWays = run(2);
    // Direct-mapped: every access misses; the first touch of each line is compulsory, the rest
    // conflict (a fully associative 4 KiB cache holds both lines).
    CHECK(direct.m_hits == 0);
    CHECK(direct.m_compulsory == 2 * 64);
    CHECK(direct.m_conflict == 2 * 512 - 2 * 64);
    CHECK(direct.m_capacity == 0);
    // Two ways (half the sets): each set holds a line of each array; but the two arrays
    // together are twice the cache, so each line is used once through and never again.
    CHECK(twoWays.m_conflict == 0);
    CHECK(twoWays.m_compulsory == 2 * 64);
    CHECK(twoWays.m_hits == 2 * 512 - 2 * 64);
}

TEST_CASE("cache: a sweep over twice the cache, repeated, misses for capacity") {
    CacheModel cache({8 * 1024, 4, 64});
    Tally tally;
    for (int round = 0; round < 3; ++round)
        for (uint64_t addr = 0; addr < 16 * 1024; addr += 64) tally.add(cache.access(0x300000 + addr));
    CHECK(tally.m_compulsory == 256);
    CHECK(tally.m_capacity == 2 * 256);  // LRU over a loop twice its size keeps nothing
    CHECK(tally.m_conflict == 0);
    CHECK(tally.m_hits == 0);
}

TEST_CASE("cache: geometries that cannot be") {
    CHECK(geometryProblem({32 * 1024, 8, 64}).empty());
    CHECK(!geometryProblem({32 * 1024, 8, 48}).empty());  // line not a power of two
    CHECK(!geometryProblem({32 * 1024, 0, 64}).empty());
    CHECK(!geometryProblem({48 * 1024, 8, 64}).empty());  // 96 sets
    CHECK(!geometryProblem({1000, 8, 64}).empty());
}

namespace {


struct Folder {
    std::string m_path;
    Folder() {
        char pattern[] = "/tmp/memlog-cache-test-XXXXXX";
        REQUIRE(mkdtemp(pattern));
        m_path = pattern;
    }
    ~Folder() { fs::remove_all(m_path); }
};

}  // namespace

TEST_CASE("memlog import reads a Dinero trace, and memlog cache counts its misses exactly") {
    const Folder dir;
    {
        std::ofstream din(dir.m_path + "/t.din");
        din << "# an 8 KiB array read twice, 4 bytes at a time, then 256 bytes written 8 at a time\n";
        for (int round = 0; round < 2; ++round)
            for (uint64_t a = 0x10000; a < 0x10000 + 8192; a += 4) din << "0 " << std::hex << a << std::dec << "\n";
        din << "2 400000\n";  // an instruction fetch: left out
        for (uint64_t a = 0x20000; a < 0x20000 + 256; a += 8) din << "1 0x" << std::hex << a << std::dec << " 8\n";
    }
    const Result imported = runMemlog("import " + dir.m_path + "/t.din -o " + dir.m_path + "/t.memlog");
    CHECK(imported.m_status == 0);
    CHECK(imported.m_stderr.find("4,096 reads and 32 writes (1 other references left out)") != std::string::npos);
    const Result stat = runMemlog("stat " + dir.m_path + "/t.memlog");
    CHECK(stat.m_status == 0);
    CHECK(stat.m_stdout.find("accesses     4,128 exact, every one (4,096 reads, 32 writes)") != std::string::npos);
    // 4 KiB, 2 ways, 64-byte lines: 128 lines read twice (the second sweep finds none, LRU), then
    // 4 lines written.
    const Result cache = runMemlog("cache " + dir.m_path + "/t.memlog --cache 4K:2:64 --json");
    CHECK(cache.m_status == 0);
    INFO(cache.m_stdout);
    CHECK(cache.m_stdout.find("{\"cache\":{\"size\":4096,\"ways\":2,\"line\":64,\"sets\":32},\"accesses\":4128,\"hits\":3868,"
                              "\"misses\":260,\"compulsory\":132,\"capacity\":128,\"conflict\":0,") == 0);
    CHECK(cache.m_stdout.find("\"sets\":[{\"set\":0,") != std::string::npos);
    // A bigger cache holds the whole array: the second sweep hits.
    const Result big = runMemlog("cache " + dir.m_path + "/t.memlog --cache 16K:4:64 --json");
    CHECK(big.m_stdout.find("\"misses\":132,\"compulsory\":132,\"capacity\":0,\"conflict\":0,") != std::string::npos);
}

TEST_CASE("memlog cache refuses samples and bad geometry, memlog import a line that is no reference") {
    const Folder dir;
    memlog::test::LogBuilder log;
    log.thread(1).malloc(1, 0x1000, 64).read(2, 0x1008).free(3, 0x1000);
    log.header().m_accessSampler = memlog::format::AccessSampler::TickPerfClock;
    log.write(dir.m_path + "/sampled.memlog");
    const Result sampled = runMemlog("cache " + dir.m_path + "/sampled.memlog");
    CHECK(sampled.m_status == 2);
    CHECK(sampled.m_stderr == "memlog: cache: " + dir.m_path +
                                  "/sampled.memlog: its accesses are samples; a cache needs every access (memlog run "
                                  "--full-trace, or memlog import)\n");
    CHECK(sampled.m_stdout.empty());
    const Result geometry = runMemlog("cache " + dir.m_path + "/sampled.memlog --cache 32K:8:48");
    CHECK(geometry.m_status == 2);
    CHECK(geometry.m_stderr.rfind("memlog: cache: --cache 32K:8:48: the line must be a power of two bytes\n", 0) == 0);
    const Result parts = runMemlog("cache " + dir.m_path + "/sampled.memlog --cache 32K:8");
    CHECK(parts.m_status == 2);
    CHECK(parts.m_stderr.rfind("memlog: cache: --cache 32K:8: give SIZE:WAYS:LINE, such as 32K:8:64\n", 0) == 0);
    std::ofstream(dir.m_path + "/bad.din") << "0 1000\n1 2000 8\nload 3000\n";
    const Result bad = runMemlog("import " + dir.m_path + "/bad.din -o " + dir.m_path + "/bad.memlog");
    CHECK(bad.m_status == 2);
    CHECK(bad.m_stderr.find(dir.m_path + "/bad.din:3: not a Dinero reference") != std::string::npos);
    CHECK_FALSE(fs::exists(dir.m_path + "/bad.memlog"));
}

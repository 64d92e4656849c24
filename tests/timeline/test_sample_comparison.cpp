// memlog compare: samples against a full trace, grouped alike, blocks matched by site and place.
#include <catch2/catch.hpp>

#include <filesystem>

#include "log_builder.hpp"
#include "run_memlog.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/trace/sample_comparison.hpp"

using memlog::test::LogBuilder;
namespace fs = std::filesystem;

namespace {

// Two blocks from one site (stack 1), one from another (stack 2); `reads` and `writes` accesses
// in each block, at different addresses in each run.
void writeRun(const std::string& path, uint64_t base, const std::vector<std::pair<int, int>>& perBlock, bool full) {
    LogBuilder log;
    auto& thread = log.thread(1).stack(1, {0x401000}).stack(2, {0x402000});
    const uint32_t stacks[] = {1, 1, 2};
    uint64_t seq = 1;
    for (int block = 0; block < 3; ++block) thread.malloc(seq++, base + block * 0x1000, 0x800, stacks[block]);
    for (int block = 0; block < 3; ++block) {
        for (int i = 0; i < perBlock[block].first + perBlock[block].second; ++i) {
            memlog::format::AccessRecord record;
            record.m_seq = seq++;
            record.m_addr = base + block * 0x1000 + (i % 256) * 8;
            record.m_size = 8;
            record.m_kind = i < perBlock[block].first ? memlog::format::AccessKind::Read : memlog::format::AccessKind::Write;
            record.m_source = full ? memlog::format::AccessSource::Trace : memlog::format::AccessSource::Tick;
            thread.access(record);
        }
    }
    log.header().m_accessSampler = full ? memlog::format::AccessSampler::FullTrace : memlog::format::AccessSampler::TickPerfClock;
    log.write(path);
}

}  // namespace

TEST_CASE("compare: each site's and block's share of accesses and of writes, samples against the truth") {
    char pattern[] = "/tmp/memlog-compare-XXXXXX";
    REQUIRE(mkdtemp(pattern));
    const std::string dir = pattern;
    // Truth: 600 + 200 + 200 accesses; samples: 5 + 3 + 2 (the first block under-sampled).
    writeRun(dir + "/full.memlog", 0x10000, {{500, 100}, {100, 100}, {200, 0}}, true);
    writeRun(dir + "/sampled.memlog", 0x90000, {{5, 0}, {2, 1}, {2, 0}}, false);
    memlog::timeline::LogReader sampled(dir + "/sampled.memlog"), full(dir + "/full.memlog");
    const auto sites = memlog::timeline::checkSamples(sampled, full, memlog::timeline::AccessGrouping::Site);
    CHECK(sites.m_sampledTotal == 10);
    CHECK(sites.m_exactTotal == 1000);
    REQUIRE(sites.m_rows.size() == 2);
    CHECK(sites.m_rows[0].m_exact == 800);  // the site of the first two blocks
    CHECK(sites.m_rows[0].m_sampled == 8);
    CHECK(sites.m_rows[0].exactShare(1000) == Approx(80));
    CHECK(sites.m_rows[0].sampledShare(10) == Approx(80));
    CHECK(sites.m_rows[0].exactWriteShare() == Approx(25));
    CHECK(sites.m_rows[0].sampledWriteShare() == Approx(12.5));
    const auto blocks = memlog::timeline::checkSamples(sampled, full, memlog::timeline::AccessGrouping::Block);
    REQUIRE(blocks.m_rows.size() == 3);  // matched across runs although their addresses differ
    CHECK(blocks.m_rows[0].m_name.find(" #1") != std::string::npos);
    CHECK(blocks.m_rows[0].m_exact == 600);
    CHECK(blocks.m_rows[0].m_sampled == 5);
    CHECK(blocks.m_rows[1].m_sampled + blocks.m_rows[2].m_sampled == 5);
    // As the user sees it: the difference in percentage points.
    const auto printed = memlog::test::runMemlog("compare " + dir + "/sampled.memlog " + dir + "/full.memlog --by block --csv");
    CHECK(printed.m_status == 0);
    CHECK(printed.m_stdout.find(",5,50.00,600,60.00,-10.00,0.00,16.67,-16.67\n") != std::string::npos);
    const auto bad = memlog::test::runMemlog("compare " + dir + "/sampled.memlog");
    CHECK(bad.m_status == 2);
    CHECK(bad.m_stderr.rfind("memlog: compare: two logs: a sampled one, then a full trace\n", 0) == 0);
    fs::remove_all(dir);
}

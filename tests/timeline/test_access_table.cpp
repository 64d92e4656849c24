// accessTable(): the rows of `memlog accesses` from hand-made logs with known answers. The
// stacks point nowhere, so sites are named by their frame's address.
#include <catch2/catch.hpp>

#include <unistd.h>

#include "log_builder.hpp"
#include "timeline/accesses/access_table.hpp"
#include "timeline/read/log_reader.hpp"

using memlog::test::LogBuilder;
using memlog::timeline::AccessGrouping;
using memlog::timeline::AccessTable;

namespace {

// Two sites: 0x401111 allocates a 64-byte and an 8 KiB block, both sampled; 0x402222 a 16 KiB
// block that no sample touches. Thread 2 samples its stack once and unknown memory once.
LogBuilder twoSites() {
    LogBuilder log;
    log.header().m_accessSampler = memlog::format::AccessSampler::TickPerfClock;
    log.thread(1).stack(1, {0x401111}).stack(2, {0x402222});
    log.thread(1).malloc(1, 0x10000, 64, 1).malloc(2, 0x20000, 8192, 1).malloc(3, 0x30000, 16384, 2);
    auto& t = log.thread(2);
    t.threadStack(0x700'0000, 0x701'0000);
    t.read(4, 0x10000).read(5, 0x10004).write(6, 0x20010);  // 12 distinct bytes, then 8
    t.read(7, 0x700'8000).write(8, 0x99'9998);
    return log;
}

AccessTable tableOf(const LogBuilder& log, AccessGrouping by, size_t top = 0) {
    const std::string path = "/tmp/memlog-access-table-" + std::to_string(getpid()) + ".memlog";
    log.write(path);
    memlog::timeline::LogReader reader(path);
    AccessTable table = memlog::timeline::accessTable(reader, by, top);
    unlink(path.c_str());
    return table;
}

}  // namespace

TEST_CASE("by site: samples, reads, writes, distinct bytes per site, and the blocks no sample touched") {
    const AccessTable table = tableOf(twoSites(), AccessGrouping::Site);
    CHECK(table.m_samples == 5);
    REQUIRE(table.m_rows.size() == 4);
    const auto& sampled = table.m_rows[0];
    CHECK(sampled.m_name == "0x401111");
    CHECK(sampled.m_samples == 3);
    CHECK(sampled.m_reads == 2);
    CHECK(sampled.m_writes == 1);
    CHECK(sampled.m_bytesTouched == 12 + 8);
    CHECK(sampled.m_firstNs == 4 * LogBuilder::kTicksPerSeq);
    CHECK(sampled.m_lastNs == 6 * LogBuilder::kTicksPerSeq);
    CHECK(sampled.m_blocks == 2);
    CHECK(sampled.m_blocksSampled == 2);
    CHECK(sampled.m_unsampledBlocks == 0);
    // The stack and unknown memory: a sample each.
    CHECK(table.m_rows[1].m_samples == 1);
    CHECK(table.m_rows[2].m_samples == 1);
    CHECK(((table.m_rows[1].m_name == "(other)" && table.m_rows[2].m_name == "(stack)") ||
           (table.m_rows[1].m_name == "(stack)" && table.m_rows[2].m_name == "(other)")));
    const auto& never = table.m_rows[3];
    CHECK(never.m_name == "0x402222");
    CHECK(never.m_samples == 0);
    CHECK(never.m_blocks == 1);
    CHECK(never.m_unsampledBlocks == 1);
    CHECK(never.m_unsampledBytes == 16384);
    REQUIRE(table.m_largestUnsampled.size() == 1);
    CHECK(table.m_largestUnsampled[0].m_seq == 3);
    CHECK(table.m_largestUnsampled[0].m_size == 16384);
    CHECK(table.m_largestUnsampled[0].m_site.starts_with("0x402222"));
}

TEST_CASE("by block: each sampled heap block with its address, size and site") {
    const AccessTable table = tableOf(twoSites(), AccessGrouping::Block);
    REQUIRE(table.m_rows.size() == 2);
    CHECK(table.m_rows[0].m_blockSeq == 1);
    CHECK(table.m_rows[0].m_blockAddr == 0x10000);
    CHECK(table.m_rows[0].m_blockSize == 64);
    CHECK(table.m_rows[0].m_samples == 2);
    CHECK(table.m_rows[0].m_bytesTouched == 12);
    CHECK(table.m_rows[0].m_location.starts_with("0x401111"));
    CHECK(table.m_rows[1].m_blockSeq == 2);
    CHECK(table.m_rows[1].m_writes == 1);
}

TEST_CASE("a top of N keeps the most sampled rows") {
    const AccessTable table = tableOf(twoSites(), AccessGrouping::Site, 1);
    REQUIRE(table.m_rows.size() == 1);
    CHECK(table.m_rows[0].m_name == "0x401111");
    CHECK(table.m_samples == 5);
}

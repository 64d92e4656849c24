// suppressAndNameSites(): the suppressions and the site rows, one after the other or side by
// side with a symboliser each, must leave the same numbers and name the same rows.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <string>
#include <vector>

#include "log_builder.hpp"
#include "runtime_modules.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/names/sites_beside_suppressions.hpp"

using memlog::test::LogBuilder;
using namespace memlog::timeline;

namespace {

// A program, its C++ runtime and the loader; 3,000 stacks, some leaking from the runtime's own
// initialiser (a built-in suppression), some from the program, some freed.
std::string writeLog() {
    LogBuilder log;
    auto& thread = log.thread(1, 1u << 20);
    memlog::test::addRuntimeModules(thread);
    uint64_t seq = 1;
    for (uint32_t id = 1; id <= 3000; ++id) {
        const uint64_t site = 0x30010 + 16 * (id % 700), runtime = 0x50010 + 16 * (id % 50);
        switch (id % 3) {
            case 0:
                thread.stack(id, {runtime, 0x70010, 0x70020});
                break;
            case 1:
                thread.stack(id, {runtime, site, 0x30ff0});
                break;
            default:
                thread.stack(id, {site, 0x30ff0});
                break;
        }
        const uint64_t addr = 0x100000 + 64 * id;
        thread.malloc(seq++, addr, 8 + id % 40, id);
        if (id % 4 == 0) thread.free(seq++, addr);
    }
    const std::string path = "/tmp/memlog-sites-beside-suppressions-" + std::to_string(getpid()) + ".memlog";
    log.write(path);
    return path;
}

std::string rowsText(const std::vector<SiteRow>& rows) {
    std::string text;
    for (const SiteRow& row : rows)
        text += siteFunctionText(row) + " " + siteLocation(row.m_site) + " " + std::to_string(row.m_metrics.m_calls) +
                " " + std::to_string(row.m_metrics.m_bytes) + " " + std::to_string(row.m_metrics.m_leakedBytes) + " " +
                std::to_string(row.m_metrics.m_suppressedBytes) + " " +
                std::to_string(row.m_metrics.m_suppressedBlocks) + "\n";
    return text;
}

}  // namespace

TEST_CASE("suppressions and sites named side by side leave what they leave one after the other") {
    const std::string path = writeLog();
    LogReader reader(path);
    for (const SiteGrouping grouping : {SiteGrouping::Site, SiteGrouping::Caller}) {
        MeasuredLog alone = measureStacks(reader);
        StackNames aloneNames(reader, {});
        applySuppressions(alone, aloneNames, Suppressions());
        const std::string expected = rowsText(siteRows(aloneNames, alone.m_stacks, grouping));
        REQUIRE(alone.m_summary.m_suppressedBlocks == 750);  // every third stack (the runtime's initialiser), less the freed
        for (const Naming naming : {Naming::CallingThread, Naming::SecondThread}) {
            MeasuredLog measured = measureStacks(reader);
            StackNames names(reader, {});
            const std::string rows =
                rowsText(suppressAndNameSites(reader, measured, names, Suppressions(), grouping, naming));
            CHECK(rows == expected);
            CHECK(measured.m_summary.m_leakedBytes == alone.m_summary.m_leakedBytes);
            CHECK(measured.m_summary.m_leakedBlocks == alone.m_summary.m_leakedBlocks);
            CHECK(measured.m_summary.m_suppressedBytes == alone.m_summary.m_suppressedBytes);
            CHECK(measured.m_summary.m_suppressedBlocks == alone.m_summary.m_suppressedBlocks);
        }
    }
    unlink(path.c_str());
}

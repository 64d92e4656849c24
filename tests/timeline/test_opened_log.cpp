// OpenedLog: the parts a program asks for, built in one order (the reader, the walk, its
// warnings, the names, the sites, the suppressed leaks), each the same as built by hand, and
// nothing built that was not asked for.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "log_builder.hpp"
#include "runtime_modules.hpp"
#include "reader_files.hpp"
#include "timeline/model/block_model.hpp"
#include "timeline/model/suppressed_leaks.hpp"
#include "timeline/names/sites_beside_suppressions.hpp"
#include "timeline/names/stack_names.hpp"
#include "timeline/names/suppressions.hpp"
#include "timeline/open/opened_log.hpp"
#include "timeline/read/log_reader.hpp"

using memlog::test::LogBuilder;
using namespace memlog::timeline;
using Step = OpenedLog::Step;

namespace {

constexpr uint32_t kChunk = 1u << 20;

// A program, its C++ runtime and the loader (runtime_modules.hpp); 300 stacks, a third leaking
// from the runtime's initialiser (a built-in suppression), a third from the program, the rest
// freed (all freed without `leaks`). With `torn`, a second thread's chunk ends the file, cut three
// bytes into its one record: a torn tail.
std::string writeLog(const std::string& name, bool leaks, bool torn) {
    LogBuilder log;
    auto& thread = log.thread(1, kChunk);
    memlog::test::addRuntimeModules(thread);
    uint64_t seq = 1;
    for (uint32_t id = 1; id <= 300; ++id) {
        const uint64_t site = 0x30010 + 16 * (id % 70), runtime = 0x50010 + 16 * (id % 5);
        if (id % 3 == 0)
            thread.stack(id, {runtime, 0x70010, 0x70020});
        else
            thread.stack(id, {site, 0x30ff0});
        const uint64_t addr = 0x100000 + 64 * id;
        thread.malloc(seq++, addr, 8 + id % 40, id);
        if (!leaks || id % 3 == 1) thread.free(seq++, addr);
    }
    if (torn) log.thread(2, 4096).malloc(seq++, 0x900000, 24, 2);
    std::vector<uint8_t> bytes = log.bytes();
    if (torn) bytes.resize(memlog::format::kHeaderBytes + kChunk + sizeof(memlog::format::ChunkHeader) + 3);
    const std::string path = memlog::test::tempPath("opened-" + name);
    memlog::test::writeBytes(path, bytes);
    return path;
}

// What a program is told, in order: "start STEP", "end STEP" and each warning.
struct Told {
    std::vector<std::string> m_lines;
    OpenedLog::Reporting reporting() {
        OpenedLog::Reporting reporting;
        reporting.m_progress = [this](Step step, double fraction) {
            static const char* const kNames[] = {"walk", "names", "sites", "suppressions"};
            if (fraction == 0) m_lines.push_back(std::string("start ") + kNames[static_cast<int>(step)]);
            if (fraction == 1) m_lines.push_back(std::string("end ") + kNames[static_cast<int>(step)]);
        };
        reporting.m_warn = [this](const std::string& problem) { m_lines.push_back("warn " + problem); };
        return reporting;
    }
    size_t count(const std::string& prefix) const {
        size_t found = 0;
        for (const std::string& line : m_lines) found += line.rfind(prefix, 0) == 0;
        return found;
    }
    size_t indexOf(const std::string& prefix) const {
        for (size_t i = 0; i < m_lines.size(); ++i)
            if (m_lines[i].rfind(prefix, 0) == 0) return i;
        FAIL("never told " << prefix);
        return 0;
    }
};

}  // namespace

TEST_CASE("opened log: the walk, its warning once, the names, then the sites with the suppressions") {
    const std::string path = writeLog("order", true, true);
    std::string tornTail;
    {
        LogReader reader(path);
        reader.forEachEvent([](const Event&) {});
        REQUIRE(reader.whereReadingStopped());
        tornTail = "warn " + *reader.whereReadingStopped();
    }
    const Suppressions builtIn;
    Told told;
    OpenedLog::Parts parts;
    parts.m_walk = OpenedLog::Walk::Measure;
    parts.m_names = OpenedLog::Names::Every;
    parts.m_siteRows = SiteGrouping::Site;
    parts.m_suppressions = &builtIn;
    OpenedLog log(path, parts, told.reporting());

    CHECK(told.count(tornTail) == 1);
    CHECK(told.count("warn /nonexistent/app: cannot read it") == 1);  // the symboliser's, once
    CHECK(told.indexOf("start walk") < told.indexOf("end walk"));
    CHECK(told.indexOf("end walk") < told.indexOf(tornTail));
    CHECK(told.indexOf(tornTail) < told.indexOf("start names"));
    CHECK(told.indexOf("start names") < told.indexOf("warn /nonexistent/app"));
    CHECK(told.indexOf("end names") < told.indexOf("start sites"));
    CHECK(told.count("start suppressions") == 0);  // applied beside the site rows, in their step

    // The same as by hand, one step after the other.
    LogReader reader(path);
    MeasuredLog measured = measureStacks(reader);
    StackNames names(reader, {});
    const std::vector<SiteRow> rows = suppressAndNameSites(reader, measured, names, builtIn, SiteGrouping::Site);
    REQUIRE(log.siteRows().size() == rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
        CHECK(siteFunctionText(log.siteRows()[i]) == siteFunctionText(rows[i]));
        CHECK(log.siteRows()[i].m_metrics.m_leakedBytes == rows[i].m_metrics.m_leakedBytes);
        CHECK(log.siteRows()[i].m_metrics.m_suppressedBytes == rows[i].m_metrics.m_suppressedBytes);
    }
    CHECK(log.summary().m_suppressedBlocks == measured.m_summary.m_suppressedBlocks);
    CHECK(log.summary().m_suppressedBlocks == 100);  // every third stack: the runtime's initialiser
    CHECK(log.summary().m_leakedBlocks == 100);  // the program's own
    CHECK_THROWS_AS(log.model(), std::logic_error);  // a Measure walk builds no model
    unlink(path.c_str());
}

TEST_CASE("opened log: a Model walk's model, sites and suppressed leaks, as built by hand") {
    const std::string path = writeLog("model", true, false);
    const Suppressions builtIn;
    OpenedLog::Parts parts;
    parts.m_walk = OpenedLog::Walk::Model;
    parts.m_freeStacks = true;
    parts.m_siteIndex = true;
    parts.m_suppressions = &builtIn;
    OpenedLog log(path, parts);

    LogReader reader(path);
    const BlockModel model = buildBlockModel(reader, {}, true);
    StackNames names(reader, {});
    const SiteIndex sites = indexSites(names, model.stackCount());
    const SuppressedLeaks suppressed = suppressedLeaks(model, names, builtIn);
    REQUIRE(log.model().size() == model.size());
    CHECK(log.model().summary().m_leakedBlocks == model.summary().m_leakedBlocks);
    CHECK(log.model().freeStack(0) == model.freeStack(0));
    CHECK(log.siteIndex().m_siteOfStack == sites.m_siteOfStack);
    CHECK(log.suppressedLeaks().m_blocks == suppressed.m_blocks);
    CHECK(log.suppressedLeaks().m_blocks == 100);
    CHECK(log.suppressedLeaks().m_bytes == suppressed.m_bytes);
    CHECK_THROWS_AS(log.measured(), std::logic_error);

    // Taken out, the model outlives the log; the log no longer has it.
    const BlockModel taken = log.takeModel();
    CHECK(taken.size() == model.size());
    CHECK_THROWS_AS(log.model(), std::logic_error);
    unlink(path.c_str());
}

TEST_CASE("opened log: names are made only for a part that needs them, or when asked") {
    const std::string path = writeLog("names", false, false);
    const Suppressions builtIn;
    Told told;
    OpenedLog::Parts parts;
    parts.m_walk = OpenedLog::Walk::Model;
    parts.m_suppressions = &builtIn;  // nothing leaked: nothing to match, nothing to name
    OpenedLog log(path, parts, told.reporting());
    CHECK(log.model().summary().m_leakedBlocks == 0);
    CHECK(told.count("start names") == 0);
    CHECK(told.count("warn") == 0);
    CHECK(log.suppressedLeaks().m_blocks == 0);
    // Asked later, they are made then (after the walk, as ever), with their warnings.
    CHECK(log.names().site(1).m_module == "app");
    CHECK(told.count("warn /nonexistent/app: cannot read it") == 1);
    unlink(path.c_str());
}

TEST_CASE("opened log: a refused log is not walked, and a caller's own walk comes before its warning") {
    const std::string path = writeLog("refused", true, true);
    Told told;
    bool walked = false;
    OpenedLog::Parts refused;
    refused.m_refuse = [](LogReader& reader) {
        return std::string(reader.header().m_version > 0 ? "not this one" : "");
    };
    refused.m_ownWalk = [&](LogReader&, const std::function<void(double)>&) { walked = true; };
    OpenedLog log(path, refused, told.reporting());
    CHECK(log.refusal() == "not this one");
    CHECK_FALSE(walked);
    CHECK(told.m_lines.empty());  // no walk, so no word of the torn tail
    CHECK_THROWS_AS(log.summary(), std::logic_error);

    OpenedLog::Parts own;
    size_t events = 0;
    own.m_ownWalk = [&](LogReader& reader, const std::function<void(double)>& progress) {
        told.m_lines.push_back("own walk");
        reader.forEachEvent([&](const Event&) { ++events; }, progress);
    };
    OpenedLog again(path, own, told.reporting());
    CHECK(events == 400);  // 300 allocations and 100 frees; the torn allocation is lost
    CHECK(told.count("warn") == 1);
    CHECK(told.indexOf("own walk") < told.indexOf("warn"));
    unlink(path.c_str());
}

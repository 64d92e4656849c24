// ModelInSteps: a model of a log read on as it grows is, at every step, the model built afresh of
// the file as it is then: every block, the blocks still live closed at the end, the summary and
// the access samples with their tally.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "index_files.hpp"
#include "reader_files.hpp"
#include "timeline/model/block_model.hpp"

using namespace memlog::timeline;
using namespace memlog::test;

namespace {

// One thread (no cut needed when its log is cut anywhere) allocating and freeing at random over
// 200 slots, with access samples between.
std::vector<uint8_t> oneThreadLog() {
    LogBuilder log;
    log.header().m_accessSampler = memlog::format::AccessSampler::TickPerfClock;
    auto& thread = log.thread(42);
    for (uint32_t id = 1; id <= 20; ++id) thread.stack(id, {0x401000 + 16 * id, 0x402000 + id});
    std::mt19937_64 random(7);
    std::vector<bool> live(200, false);
    for (uint64_t seq = 1; seq <= 6000; ++seq) {
        const size_t slot = random() % live.size();
        const uint64_t addr = 0x7f00'0000'0000ull + slot * 4096;
        if (random() % 5 == 0) {
            (random() % 2 ? thread.read(seq, addr + 8, 3) : thread.write(seq, addr + 16, 4));
        } else if (live[slot]) {
            thread.free(seq, addr, 1 + static_cast<uint32_t>(random() % 20));
            live[slot] = false;
        } else {
            thread.malloc(seq, addr, 16 + random() % 4000, 1 + static_cast<uint32_t>(random() % 20));
            live[slot] = true;
        }
    }
    return log.bytes();
}

}  // namespace

TEST_CASE("a model read on as its log grows is, at every step, the model built afresh of the file then") {
    // Its blocks in memory, or in scratch files.
    const std::string scratch = GENERATE(std::string(), std::filesystem::temp_directory_path().string());
    INFO("scratch folder: '" << scratch << "'");
    const std::vector<uint8_t> bytes = oneThreadLog();
    const std::string path = tempPath("model-steps");
    size_t written = memlog::format::kHeaderBytes + 64;
    writeBytes(path, std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(written)));
    LogReader reader(path);
    reader.followGrowth([] { return UINT64_MAX; });
    ModelInSteps steps(reader, XAxis::Time, true, scratch);
    REQUIRE(steps.step());
    size_t checked = 0;
    for (;;) {
        const size_t piece = std::min<size_t>(2011, bytes.size() - written);
        {
            std::ofstream out(path, std::ios::binary | std::ios::app);
            out.write(reinterpret_cast<const char*>(bytes.data() + written), static_cast<std::streamsize>(piece));
        }
        written += piece;
        REQUIRE(steps.step());
        LogReader fresh(path);
        const BlockModel now = steps.modelNow();
        CHECK(now.scratchFolder() == scratch);
        index::checkSameModels(now, buildBlockModel(fresh, {}, true));
        ++checked;
        if (written == bytes.size()) {
            // The whole log: what the comparison covered.
            CHECK(now.size() > 2000);
            CHECK(now.summary().m_leakedBlocks > 10);
            CHECK(now.accessMarks().size() > 1000);
            break;
        }
    }
    CHECK(checked > 10);
    unlink(path.c_str());
}

TEST_CASE("a model in steps whose log cannot be read on says so at each step after") {
    const std::string path = tempPath("model-steps-replaced");
    twoThreads().write(path);
    LogReader reader(path);
    reader.followGrowth();
    ModelInSteps steps(reader, XAxis::Time, false);
    REQUIRE(steps.step());
    CHECK(steps.modelNow().size() == 1200);
    twoThreads().write(path + ".new");
    REQUIRE(rename((path + ".new").c_str(), path.c_str()) == 0);
    CHECK(!steps.step());
    CHECK(!steps.step());
    unlink(path.c_str());
}

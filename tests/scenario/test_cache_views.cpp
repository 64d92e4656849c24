// The cache views of real full traces (memlog run --full-trace, under Valgrind): the memory
// display, the time x address view by hit or miss, the working set; read back from the PNGs
// memtimeline exports. Without Valgrind or memlog's tool these tests say so and are skipped (exit 77).
#include <catch2/catch.hpp>

#include <cairo.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "render/raster/access_layer.hpp"
#include "render/raster/cache_display.hpp"
#include "render/report/cache_pages.hpp"
#include "render/report/report.hpp"
#include "full_trace_runs.hpp"
#include "timeline/model/block_model.hpp"
#include "timeline/read/log_reader.hpp"

using namespace memlog;
using namespace memlog::test;
namespace fs = std::filesystem;

namespace {

// The pixels of a PNG, read back as a user's viewer would.
class Png {
public:
    explicit Png(const std::string& path) : m_surface(cairo_image_surface_create_from_png(path.c_str())) {
        REQUIRE(cairo_surface_status(m_surface) == CAIRO_STATUS_SUCCESS);
        cairo_surface_flush(m_surface);
    }
    ~Png() { cairo_surface_destroy(m_surface); }
    int width() const { return cairo_image_surface_get_width(m_surface); }
    render::Rgb at(double x, double y) const {
        const auto* data = cairo_image_surface_get_data(m_surface);
        const int stride = cairo_image_surface_get_stride(m_surface);
        const uint32_t pixel = *reinterpret_cast<const uint32_t*>(data + static_cast<long>(y) * stride + static_cast<long>(x) * 4);
        return render::fromArgb(pixel);
    }
    // Pixels of `rect` for which `test` holds.
    template <typename Test>
    size_t count(const render::Rect& rect, Test&& test) const {
        size_t found = 0;
        for (int y = static_cast<int>(rect.m_y); y < static_cast<int>(rect.bottom()); ++y)
            for (int x = static_cast<int>(rect.m_x); x < static_cast<int>(rect.right()); ++x) found += test(at(x, y));
        return found;
    }

private:
    cairo_surface_t* m_surface;
};

timeline::BlockModel modelOf(const std::string& log) {
    timeline::LogReader reader(log);
    return timeline::buildBlockModel(reader);
}

const timeline::Block* blockOfSize(const timeline::BlockModel& model, uint64_t size) {
    const timeline::Block* found = nullptr;
    model.forEach([&](const timeline::Block& block) {
        if (block.size() == size) found = &block;
    });
    return found;
}

bool reddish(const render::Rgb& c) { return c.m_r > c.m_g + 0.15 && c.m_r > c.m_b + 0.15; }
bool greenish(const render::Rgb& c) { return c.m_g > c.m_r + 0.15 && c.m_g > c.m_b + 0.15; }

}  // namespace

TEST_CASE("cache views: the memory display of a sequential sweep: each line of the array misses once, then hits") {
    requireTraceTool();
    const Outcome traced = fullTrace({scenarioPath("known_accesses"), "1000"});
    INFO(traced.m_stderr);
    REQUIRE(traced.m_logs.size() == 1);
    const std::string log = traced.m_logs[0], png = traced.m_directory + "/memory.png";
    const Outcome drawn = memtimeline({log, "--export", png, "--view", "memory", "--cache", "32K:8:64"});
    INFO(drawn.m_stderr);
    REQUIRE(drawn.m_exitStatus == 0);
    CHECK(drawn.m_stderr.empty());
    // The same page in this process: where each cell is, and what it counts.
    const timeline::BlockModel model = modelOf(log);
    const timeline::Block* array = blockOfSize(model, 8000);
    REQUIRE(array);
    const render::MemoryDisplayPage page(model, {32 * 1024, 8, 64}, {1600, 1000, log, false});
    const timeline::MemoryDisplay& display = page.display();
    // Cells are whole pixels on this page: a pixel's colour is its cell's.
    REQUIRE(page.layout().m_memory.m_height >= static_cast<double>(display.m_lines.m_rows));
    uint64_t most = 0;
    for (const auto& cell : display.m_lines.m_cells) most = std::max(most, cell.total());
    const Png picture(png);
    REQUIRE(picture.width() == 1600);
    size_t lines = 0;
    for (uint64_t line = (array->addr() + 63) / 64 * 64; line + 64 <= array->endAddr(); line += 64, ++lines) {
        INFO("line at " << std::hex << line);
        const auto cell = display.cellOf(line);
        REQUIRE(cell);
        // 8 writes of 8 bytes (the first misses), then 8 reads, all hits.
        CHECK(display.m_lines.at(cell->first, cell->second) == timeline::HitsMisses{15, 1});
        const auto [x, y] = page.cellCentre(cell->first, cell->second);
        const render::Rgb shown = picture.at(x, y),
                          expected = render::fromArgb(render::toArgb(render::hitMissColour({15, 1}, most)));
        CHECK(std::abs(shown.m_r - expected.m_r) < 0.01);
        CHECK(std::abs(shown.m_g - expected.m_g) < 0.01);
        CHECK(std::abs(shown.m_b - expected.m_b) < 0.01);
        CHECK(greenish(shown));
    }
    CHECK(lines >= 124);
    // In time: red once per line, then green. Of the array's accesses, those that missed are
    // the first write to each of its lines, and no read.
    const std::vector<uint8_t> missed = timeline::missesOfAccesses(model.accessMarks(), {32 * 1024, 8, 64});
    std::set<uint64_t> written;
    uint64_t writeMisses = 0, readMisses = 0, reads = 0;
    const auto& marks = model.accessMarks();
    for (size_t i = 0; i < marks.size(); ++i) {
        if (marks[i].m_blockSeq != array->beginSeq()) continue;
        if (marks[i].m_write) {
            const bool first = written.insert(marks[i].m_addr / 64).second;
            CHECK(missed[i] == (first ? 1 : 0));
            writeMisses += missed[i];
        } else {
            ++reads;
            readMisses += missed[i];
        }
    }
    CHECK(reads == 1000);
    CHECK(readMisses == 0);
    CHECK(writeMisses == written.size());
    CHECK(written.size() >= 125);
    fs::remove_all(traced.m_directory);
}

TEST_CASE("cache views: the column-order multiply shows more red (misses) in the sets' bars than the row order, the tiled order least") {
    requireTraceTool();
    // 64 x 64 doubles in a 32 KiB 8-way cache: the column order's strides crowd a few sets
    // (conflict misses), the row order misses about once a line, the tiles stay in the cache.
    // Counted: the red pixels of the sets' bar graph (misses at the base of each bar, to scale).
    // The memory display itself colours each line by its share of misses, which stays low
    // (about 1 in 10 even in column order), so it is not what tells the orders apart.
    std::map<std::string, size_t> barsRed;
    for (const std::string order : {"row", "col", "blocked"}) {
        const Outcome traced = fullTrace({scenarioPath("matrix_multiply"), order, "64"});
        REQUIRE(traced.m_logs.size() == 1);
        const std::string log = traced.m_logs[0], png = traced.m_directory + "/memory.png";
        const Outcome drawn = memtimeline({log, "--export", png, "--view", "memory", "--cache", "32K:8:64"});
        INFO(drawn.m_stderr);
        REQUIRE(drawn.m_exitStatus == 0);
        const timeline::BlockModel model = modelOf(log);
        const render::MemoryDisplayPage page(model, {32768, 8, 64}, {1600, 1000, log, false});
        const Png picture(png);
        barsRed[order] = picture.count(page.layout().m_setBars, reddish);
        fs::remove_all(traced.m_directory);
    }
    INFO("red pixels of the bars: row " << barsRed["row"] << ", col " << barsRed["col"] << ", blocked "
                                        << barsRed["blocked"]);
    CHECK(barsRed["col"] > 3 * barsRed["row"]);
    CHECK(barsRed["blocked"] < barsRed["row"]);
}

TEST_CASE("cache views: with --cache the time x address view colours every access by hit or miss") {
    requireTraceTool();
    const Outcome traced = fullTrace({scenarioPath("known_accesses"), "1000"});
    REQUIRE(traced.m_logs.size() == 1);
    const std::string log = traced.m_logs[0];
    const std::string cached = traced.m_directory + "/cached.png", plain = traced.m_directory + "/plain.png";
    REQUIRE(memtimeline({log, "--export", cached, "--cache", "32K:8:64"}).m_exitStatus == 0);
    REQUIRE(memtimeline({log, "--export", plain}).m_exitStatus == 0);
    const timeline::BlockModel model = modelOf(log);
    render::ReportOptions options;
    options.m_cache = timeline::CacheGeometry{32 * 1024, 8, 64};
    const render::Report report(model, nullptr, options);
    const render::Rect view = report.layout().m_cells.front().m_view;
    // Reads blue and writes red without a cache; hits green and misses red with one.
    const Png withCache(cached), without(plain);
    CHECK(withCache.count(view, greenish) > 100);
    CHECK(without.count(view, greenish) == 0);
    // The legend says so, counting every access: the array's 125 lines miss at least once each.
    const auto& legend = report.legend();
    const auto hits = std::find_if(legend.begin(), legend.end(), [](const auto& item) { return item.m_label.rfind("hit (", 0) == 0; });
    const auto misses = std::find_if(legend.begin(), legend.end(), [](const auto& item) { return item.m_label.rfind("miss (", 0) == 0; });
    REQUIRE(hits != legend.end());
    REQUIRE(misses != legend.end());
    const auto number = [](const std::string& label) {
        std::string digits;
        for (char c : label) if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
        return std::stoull(digits);
    };
    CHECK(number(hits->m_label) + number(misses->m_label) == model.accessMarks().size());
    CHECK(number(misses->m_label) >= 125);
    fs::remove_all(traced.m_directory);
}

TEST_CASE("cache views: the working set of a sweep holds the array's lines with all their bytes used") {
    requireTraceTool();
    const Outcome traced = fullTrace({scenarioPath("known_accesses"), "1000"});
    REQUIRE(traced.m_logs.size() == 1);
    const std::string log = traced.m_logs[0], png = traced.m_directory + "/working.png";
    const Outcome drawn = memtimeline({log, "--export", png, "--view", "working-set", "--idle", "100s"});
    INFO(drawn.m_stderr);
    REQUIRE(drawn.m_exitStatus == 0);
    const timeline::BlockModel model = modelOf(log);
    const timeline::Block* array = blockOfSize(model, 8000);
    REQUIRE(array);
    const render::WorkingSetPage page(model, 64, 100'000'000'000, {1600, 1000, log, false});
    const timeline::WorkingSet& set = page.workingSet();
    // Nothing leaves in 100 s: the last column holds every line ever used.
    CHECK(set.m_largest == set.m_distinct);
    REQUIRE(set.m_columns.back().size() == set.m_distinct);
    size_t whole = 0;
    for (const timeline::WorkingLine& line : set.m_columns.back())
        if (line.m_line * 64 >= array->addr() && line.m_line * 64 + 64 <= array->endAddr()) {
            CHECK(line.m_bytesUsed == 64);
            ++whole;
        }
    CHECK(whole >= 124);
    const Png picture(png);
    CHECK(picture.count(page.view(), greenish) > 0);
    fs::remove_all(traced.m_directory);
}

TEST_CASE("cache views: a log of samples is refused: a cache needs every access") {
    Run run;
    run.m_env = {{"MEMLOG_ACCESS", "1"}};
    run.m_argv = {scenarioPath("known_accesses"), "100000"};
    const Outcome sampled = runProgram(run);
    REQUIRE(sampled.m_logs.size() == 1);
    const std::string log = sampled.m_logs[0];
    for (const std::vector<std::string>& view :
         std::vector<std::vector<std::string>>{{"--cache", "32K:8:64"}, {"--view", "memory"}, {"--view", "working-set"}}) {
        std::vector<std::string> arguments = {log, "--export", sampled.m_directory + "/r.png"};
        arguments.insert(arguments.end(), view.begin(), view.end());
        const Outcome refused = memtimeline(arguments);
        CHECK(refused.m_exitStatus == 2);
        // Samples, or none where this machine refuses the sampler its perf events.
        const std::string named = "memtimeline: " + (view[0] == "--cache" ? view[0] : view[0] + " " + view[1]) + ": " + log + ": ";
        INFO(refused.m_stderr);
        CHECK(refused.m_stderr.rfind(named, 0) == 0);
        CHECK(refused.m_stderr.find("a cache needs every access (memlog run --full-trace, or memlog import)\n") !=
              std::string::npos);
        CHECK(std::count(refused.m_stderr.begin(), refused.m_stderr.end(), '\n') == 1);
        CHECK_FALSE(fs::exists(sampled.m_directory + "/r.png"));
    }
    fs::remove_all(sampled.m_directory);
}

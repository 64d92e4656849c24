// The array page of memtimeline, read back from the PNG it writes: the three matrix multiplies
// of scenarios/matrix_multiply.c recorded under the real LD_PRELOAD, and the 3-D grid of
// scenarios/annotated_grid.c. The cells' colours must show the loops' order (dark early,
// bright late), cells no sample fell in must have the no-sample colour, and a playback strip
// must have its N frames, each holding exactly its time slice's cells; phases must be lines.
#include <catch2/catch.hpp>

#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <tuple>

#include "render/raster/array_grid.hpp"
#include "render/report/array_page.hpp"
#include "render/report/report.hpp"
#include "run_program.hpp"
#include "timeline/accesses/array_cells.hpp"
#include "timeline/accesses/array_playback.hpp"
#include "timeline/model/block_model.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/accesses/sampled_arrays.hpp"
#include "timeline/names/stack_names.hpp"

using namespace memlog::test;
using namespace memlog::timeline;
using memlog::render::ArrayPageOptions;
namespace fs = std::filesystem;

namespace {

constexpr uint64_t kN = 256;
const ArrayShape kMatrix{8, kN, kN, 1};

// A scenario recorded with access samples; its directory removed at the end.
struct Recording {
    Outcome m_outcome;
    explicit Recording(const std::vector<std::string>& argv) {
        Run run;
        run.m_argv = argv;
        run.m_env["MEMLOG_QUIET"] = "1";
        run.m_env["MEMLOG_ACCESS"] = "1";
        run.m_env["MEMLOG_ACCESS_RATE"] = "100000";  // the most the sampler takes: ~3,000 samples a run
        m_outcome = runProgram(run);
        REQUIRE(m_outcome.m_exitStatus == 0);
        REQUIRE(m_outcome.m_logs.size() == 1);
    }
    ~Recording() { fs::remove_all(m_outcome.m_directory); }
    const std::string& log() const { return m_outcome.m_logs[0]; }
};

Outcome timelineRun(const std::vector<std::string>& arguments) {
    Run run;
    run.m_preload = false;
    run.m_argv = {MEMLOG_TEST_TIMELINE};
    run.m_argv.insert(run.m_argv.end(), arguments.begin(), arguments.end());
    return runProgram(run);
}

SampledArray arrayOf(const std::string& log, const std::string& spec) {
    LogReader reader(log);
    reader.forEachEvent([](const Event&) {});
    StackNames names(reader, {});
    std::string error;
    auto array = findArray(reader, names, spec, &error);
    INFO(error);
    REQUIRE(array);
    return *array;
}

// An exported page's pixels, and where its layout puts each cell.
struct Picture {
    cairo_surface_t* m_image = nullptr;
    memlog::render::ArrayPageLayout m_layout;
    ArrayShape m_shape;
    Picture(const std::string& png, const ArrayPageOptions& options)
        : m_layout(arrayPageLayout(options)), m_shape(options.m_shape) {
        m_image = cairo_image_surface_create_from_png(png.c_str());
        REQUIRE(cairo_surface_status(m_image) == CAIRO_STATUS_SUCCESS);
        REQUIRE(cairo_image_surface_get_width(m_image) == options.m_width);
    }
    ~Picture() { cairo_surface_destroy(m_image); }
    uint32_t pixel(int x, int y) const {
        const auto* row =
            cairo_image_surface_get_data(m_image) + static_cast<long>(y) * cairo_image_surface_get_stride(m_image);
        return reinterpret_cast<const uint32_t*>(row)[x] | 0xff00'0000u;
    }
    // The centre pixel of cell (row, column) in panel `panel` (a plane, or a frame of a 2-D array).
    uint32_t cell(size_t panel, uint64_t row, uint64_t column) const {
        const memlog::render::Rect& rect = m_layout.m_planes.at(panel);
        const int width = static_cast<int>(rect.m_width), height = static_cast<int>(rect.m_height);
        return pixel(static_cast<int>(rect.m_x) + memlog::render::cellCentrePixel(column, width, m_shape.m_columns),
                     static_cast<int>(rect.m_y) + memlog::render::cellCentrePixel(row, height, m_shape.m_rows));
    }
};

double brightness(uint32_t pixel) {
    return 0.2126 * (pixel >> 16 & 0xff) + 0.7152 * (pixel >> 8 & 0xff) + 0.0722 * (pixel & 0xff);
}

struct SampledPixel {
    CellPlace m_place;
    double m_brightness;
};

// Draws `spec` of `log` with `extra` options at 1600 x 1000 and reads back every cell: the
// sampled ones' brightness, and a check that every other cell shows "no sample".
std::vector<SampledPixel> drawnCells(const std::string& log, const std::string& spec, const ArrayShape& shape,
                                     const std::vector<std::string>& extra, AccessFilter filter,
                                     ArrayOrder order = ArrayOrder::RowMajor) {
    const std::string png = log + ".array.png";
    // Single cells: these pictures are read cell by cell (tiles: tests/render/test_array_tiles.cpp).
    std::vector<std::string> arguments = {log, "--export", png, "--array", spec, "--size", "1600x1000", "--tile", "1"};
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    const Outcome drawn = timelineRun(arguments);
    INFO(drawn.m_stderr);
    REQUIRE(drawn.m_exitStatus == 0);
    ArrayPageOptions options;
    options.m_shape = shape;
    options.m_order = order;
    const Picture picture(png, options);
    const ArrayCells cells = arrayCells(arrayOf(log, spec), shape, order, UINT64_MAX, filter);
    const uint32_t noSample = memlog::render::toArgb(memlog::render::kNoSampleColour);
    std::vector<SampledPixel> sampled;
    size_t wrongNoSample = 0, sampledAsNoSample = 0;
    for (uint64_t k = 0; k < shape.m_depth; ++k)
        for (uint64_t i = 0; i < shape.m_rows; ++i)
            for (uint64_t j = 0; j < shape.m_columns; ++j) {
                const uint32_t pixel = picture.cell(k, i, j);
                if (!cells.cellAt(k, i, j).sampled()) {
                    wrongNoSample += pixel != noSample;
                    continue;
                }
                sampledAsNoSample += pixel == noSample;
                sampled.push_back({{k, i, j}, brightness(pixel)});
            }
    CHECK(wrongNoSample == 0);
    CHECK(sampledAsNoSample == 0);
    CHECK(sampled.size() >= 50);
    return sampled;
}

// How many pairs of groups come out of order: a cell of an earlier group (by `group`) brighter
// than a cell of a later one. 0: the groups were touched one after another.
template <typename Group>
size_t groupsOutOfOrder(std::vector<SampledPixel> cells, Group group) {
    std::stable_sort(cells.begin(), cells.end(),
                     [&](const SampledPixel& a, const SampledPixel& b) { return group(a.m_place) < group(b.m_place); });
    size_t outOfOrder = 0;
    double brightestBefore = -1, brightestInGroup = -1;
    for (size_t i = 0; i < cells.size(); ++i) {
        if (i > 0 && group(cells[i].m_place) != group(cells[i - 1].m_place))
            brightestBefore = std::max(brightestBefore, brightestInGroup), brightestInGroup = -1;
        outOfOrder += cells[i].m_brightness < brightestBefore;
        brightestInGroup = std::max(brightestInGroup, cells[i].m_brightness);
    }
    return outOfOrder;
}

auto byRow = [](const CellPlace& p) { return p.m_row; };
auto byColumn = [](const CellPlace& p) { return p.m_column; };
auto byTile = [](const CellPlace& p) { return std::make_tuple(p.m_row / 32, p.m_column / 32); };

// The first and the last group are not equally bright: the picture is not one colour.
template <typename Group>
bool spansTheRamp(const std::vector<SampledPixel>& cells, Group group) {
    const auto [first, last] = std::minmax_element(
        cells.begin(), cells.end(),
        [&](const SampledPixel& a, const SampledPixel& b) { return group(a.m_place) < group(b.m_place); });
    return first->m_brightness < last->m_brightness;
}

}  // namespace

TEST_CASE("array view: row order reads a row after row: each row's first reads are brighter than every earlier row's") {
    const Recording recorded({scenarioPath("matrix_multiply"), "row", "256"});
    const auto a = drawnCells(recorded.log(), "site=new_matrix:1", kMatrix,
                              {"--elem", "8", "--dims", "256x256", "--accesses", "reads"}, AccessFilter::Reads);
    CHECK(groupsOutOfOrder(a, byRow) == 0);
    CHECK(spansTheRamp(a, byRow));
    CHECK(groupsOutOfOrder(a, byColumn) > 0);  // the check tells rows from columns
}

// (c's writes, one instruction in over a thousand, leave too few samples to test on.)
TEST_CASE("array view: column order reads b column after column") {
    const Recording recorded({scenarioPath("matrix_multiply"), "col", "256"});
    const auto b = drawnCells(recorded.log(), "site=new_matrix:2", kMatrix,
                              {"--elem", "8", "--dims", "256x256", "--accesses", "reads"}, AccessFilter::Reads);
    CHECK(groupsOutOfOrder(b, byColumn) == 0);
    CHECK(spansTheRamp(b, byColumn));
    CHECK(groupsOutOfOrder(b, byRow) > 0);
}

TEST_CASE("array view: blocked order reads a tile after tile of 32 x 32, not row after row") {
    const Recording recorded({scenarioPath("matrix_multiply"), "blocked", "256"});
    const auto a = drawnCells(recorded.log(), "site=new_matrix:1", kMatrix,
                              {"--elem", "8", "--dims", "256x256", "--accesses", "reads"}, AccessFilter::Reads);
    CHECK(groupsOutOfOrder(a, byTile) == 0);
    CHECK(spansTheRamp(a, byTile));
    CHECK(groupsOutOfOrder(a, byRow) > 0);
}

TEST_CASE(
    "array view: the 3-D grid's fill maps to (k, i, j): planes side by side brighten plane after plane, row after "
    "row") {
    const Recording recorded({scenarioPath("annotated_grid"), "20"});
    const ArrayShape grid{8, 64, 64, 8};
    // The shape from memlog_array() in the program (no --elem, no --dims), writes only: the fill.
    const auto cells = drawnCells(recorded.log(), "site=main:1", grid, {"--accesses", "writes"}, AccessFilter::Writes);
    CHECK(groupsOutOfOrder(cells, [](const CellPlace& p) { return std::make_tuple(p.m_plane, p.m_row, p.m_column); }) ==
          0);
    CHECK(spansTheRamp(cells, [](const CellPlace& p) { return p.m_plane; }));
}

TEST_CASE(
    "array view: --frames 6 draws 6 frames, each with exactly its time slice's cells in full colour, the slice before "
    "fading") {
    const Recording recorded({scenarioPath("matrix_multiply"), "row", "256"});
    const std::string png = recorded.log() + ".frames.png";
    const Outcome drawn = timelineRun({recorded.log(), "--export", png, "--array", "site=new_matrix:1", "--elem", "8",
                                       "--dims", "256x256", "--frames", "6", "--size", "1600x1000"});
    INFO(drawn.m_stderr);
    REQUIRE(drawn.m_exitStatus == 0);
    ArrayPageOptions options;
    options.m_shape = kMatrix;
    options.m_frames = 6;
    const Picture picture(png, options);
    REQUIRE(picture.m_layout.m_planes.size() == 6);
    const SampledArray a = arrayOf(recorded.log(), "site=new_matrix:1");  // written by fill, read by the multiply
    const Playback played = playback(a, kMatrix, ArrayOrder::RowMajor, 6);
    using namespace memlog::render;
    auto touchColour = [](bool written) { return written ? kPlaybackWriteColour : kPlaybackReadColour; };
    size_t touched = 0, faded = 0, reads = 0;
    for (uint32_t frame = 0; frame < 6; ++frame) {
        INFO("frame " << frame);
        // Each cell's last touch in this slice and in the one before (0: none, 1: read, 2: written).
        std::vector<uint8_t> now(kN * kN), before(kN * kN);
        for (const CellTouch& touch : played.m_touches[frame]) now[touch.m_cell] = touch.m_written ? 2 : 1;
        if (frame > 0)
            for (const CellTouch& touch : played.m_touches[frame - 1]) before[touch.m_cell] = touch.m_written ? 2 : 1;
        size_t wrong = 0;
        for (uint64_t cell = 0; cell < kN * kN; ++cell) {
            const uint32_t pixel = picture.cell(frame, cell / kN, cell % kN);
            if (now[cell]) {
                wrong += pixel != toArgb(touchColour(now[cell] == 2));
                ++touched, reads += now[cell] == 1;
            } else if (before[cell]) {
                wrong += pixel != toArgb(mixed(kPlaybackIdleColour, touchColour(before[cell] == 2), 1.0 - 1.0 / 3));
                ++faded;
            } else {
                wrong += pixel == toArgb(kPlaybackReadColour) || pixel == toArgb(kPlaybackWriteColour);
            }
        }
        CHECK(wrong == 0);
    }
    CHECK(touched >= 100);
    CHECK(faded >= 50);
    CHECK(reads >= 100);  // (the fill's writes are over in a fraction of a millisecond: few or no samples)
}

TEST_CASE(
    "array view: bad --array, --dims, --elem, --order, --colour, --frames and --accesses values stop with status 2, "
    "naming the option") {
    const Recording recorded({scenarioPath("matrix_multiply"), "row", "64"});
    const std::string out = recorded.log() + ".bad.png";
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--array", "matrix"}, "--array matrix:"},
        {{"--array", "site=new_matrix:0"}, "--array site=new_matrix:0:"},
        {{"--array", "seq=99999"}, "--array seq=99999:"},
        {{"--array", "site=new_matrix:1", "--dims", "64"}, "--dims 64:"},
        {{"--array", "site=new_matrix:1", "--dims", "0x64"}, "--dims 0x64:"},
        {{"--array", "site=new_matrix:1", "--dims", "8192x8192"}, "--dims 8192x8192:"},
        {{"--array", "site=new_matrix:1", "--elem", "0"}, "--elem 0:"},
        {{"--array", "site=new_matrix:1", "--elem", "eight"}, "--elem eight:"},
        {{"--array", "site=new_matrix:1", "--order", "diagonal"}, "--order diagonal:"},
        {{"--array", "site=new_matrix:1", "--colour", "blue"}, "--colour blue:"},
        {{"--array", "site=new_matrix:1", "--frames", "0"}, "--frames 0:"},
        {{"--array", "site=new_matrix:1", "--accesses", "on"}, "--accesses on:"},
        {{"--dims", "64x64"}, "--dims goes with --array"},
        {{"--array", "site=new_matrix:1", "--bins", "size"}, "--bins is for the heap's report, not --array"},
    };
    for (const auto& [options, message] : cases) {
        std::vector<std::string> arguments = {recorded.log(), "--export", out};
        arguments.insert(arguments.end(), options.begin(), options.end());
        const Outcome run = timelineRun(arguments);
        INFO(run.m_stderr);
        CHECK(run.m_exitStatus == 2);
        CHECK(run.m_stderr.find("memtimeline: " + message) != std::string::npos);
        CHECK(std::count(run.m_stderr.begin(), run.m_stderr.end(), '\n') == 1);
        CHECK_FALSE(fs::exists(out));
    }
}

TEST_CASE(
    "phase marks: the grid's memlog_phase() calls are dashed lines on the heap's picture at their times, and nowhere "
    "else") {
    const Recording recorded({scenarioPath("annotated_grid"), "20"});
    const std::string png = recorded.log() + ".report.png";
    const Outcome drawn = timelineRun({recorded.log(), "--export", png, "--size", "1600x1000"});
    INFO(drawn.m_stderr);
    REQUIRE(drawn.m_exitStatus == 0);
    LogReader reader(recorded.log());
    const BlockModel model = buildBlockModel(reader);
    std::vector<uint64_t> phases;
    for (const Annotation& annotation : reader.annotations())
        if (annotation.m_what == memlog::format::AnnotationKind::Phase) phases.push_back(annotation.m_timeNs);
    REQUIRE(phases.size() == 2);  // fill, smooth
    memlog::render::ReportOptions options;
    options.m_colourBy = memlog::render::ColourBy::Size;  // the layout and the window do not depend on it
    const memlog::render::Report report(model, nullptr, options);
    const memlog::render::Rect view = report.layout().m_cells.at(0).m_view;
    const XWindow window = report.window();
    ArrayPageOptions size;  // a Picture only to read pixels
    const Picture picture(png, size);
    const uint32_t line = memlog::render::toArgb(memlog::render::kPhaseColour);
    auto linePixels = [&](int x) {
        size_t count = 0;
        for (int y = static_cast<int>(view.m_y) + 1; y < static_cast<int>(view.bottom()) - 1; ++y)
            count += picture.pixel(x, y) == line;
        return count;
    };
    const double height = view.m_height;
    std::vector<int> columns;
    for (uint64_t at : phases) {
        const int x = static_cast<int>(std::round(view.m_x + static_cast<double>(at - window.m_from) /
                                                                 static_cast<double>(window.m_to - window.m_from) *
                                                                 view.m_width));
        columns.push_back(x);
        INFO("phase at " << at << " ns, x " << x);
        CHECK(linePixels(x) >= static_cast<size_t>(height * 0.45));  // dashes of 4 on 3 off
    }
    const int between = (columns[0] + columns[1]) / 2;  // no phase there
    CHECK(linePixels(between) == 0);
}

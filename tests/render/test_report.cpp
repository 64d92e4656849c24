// Whole reports, painted as the PNG export paints them: the legend lists what is drawn, the
// occupancy bar shows live bytes, correlated views hold their bin's blocks only, cursors and
// access marks land where they should, and every combination of options renders.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>

#include "heap_records.hpp"
#include "render/raster/access_layer.hpp"
#include "render/raster/occupancy_bar.hpp"
#include "render/raster/x_scale.hpp"
#include "render_helpers.hpp"
#include "timeline/read/log_reader.hpp"
#include "trace_streams.hpp"

using namespace memlog;
using memlog::test::Image;
using memlog::test::LogBuilder;
using memlog::test::modelOf;
using render::ColourBy;
using render::CushionStyle;
using render::LegendItem;
using render::Report;
using render::ReportOptions;
using timeline::XAxis;

namespace {

const uint32_t kBackground = render::toArgb(render::kBackground);

// `threads` threads, each holding one big block for a while, on separate pages.
timeline::BlockModel threadsModel(uint32_t threads) {
    LogBuilder log;
    uint64_t seq = 1;
    for (uint32_t t = 0; t < threads; ++t) log.thread(100 + t).malloc(seq++, 0x100000 + t * 0x1000, 0x1000);
    for (uint32_t t = 0; t < threads; ++t) log.thread(100 + t).free(seq++ + 10, 0x100000 + t * 0x1000);
    return modelOf(log);
}

ReportOptions flatOptions() {
    ReportOptions options;
    options.m_cushion = CushionStyle::None;
    options.m_alpha = 1;
    options.m_colourBy = ColourBy::Thread;
    options.m_axis = XAxis::Events;
    return options;
}

// The colours that fill areas of a view: those of at least 5 % of the pixels of its most
// common colour. Blends at block edges, a column or a row each, stay below.
std::set<uint32_t> coloursIn(const std::vector<uint32_t>& pixels) {
    std::map<uint32_t, size_t> count;
    for (uint32_t pixel : pixels)
        if (pixel != kBackground) ++count[pixel];
    size_t most = 0;
    for (const auto& [colour, n] : count) most = std::max(most, n);
    std::set<uint32_t> colours;
    for (const auto& [colour, n] : count)
        if (n * 20 >= most) colours.insert(colour);
    return colours;
}

std::set<uint32_t> swatches(const Report& report) {
    std::set<uint32_t> colours;
    for (const LegendItem& item : report.legend())
        if (item.m_kind == LegendItem::Kind::Swatch) colours.insert(render::toArgb(item.m_colour));
    return colours;
}

bool lists(const Report& report, const std::string& text) {
    for (const LegendItem& item : report.legend())
        if (item.m_label.find(text) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE("the legend lists the colours drawn, and only those") {
    for (uint32_t threads : {3u, 12u}) {
        const auto model = threadsModel(threads);
        const Report report(model, nullptr, flatOptions());
        const Image image = test::imageOf(report);
        const auto drawn = coloursIn(image.region(report.layout().m_cells[0].m_view));
        INFO(threads << " threads");
        CHECK(drawn == swatches(report));
        CHECK(drawn.size() == std::min<size_t>(threads, render::kPaletteSize + 1));  // ten colours, then grey
        CHECK(lists(report, "thread 100"));
        CHECK(lists(report, "colour: allocating thread"));
        CHECK(lists(report, "other threads") == (threads > render::kPaletteSize));
        CHECK_FALSE(lists(report, "access samples"));  // none in the log: no marks, no entry
    }
}

TEST_CASE(
    "access samples are drawn over the blocks, washed under them alone, reads blue and writes red, with a legend "
    "entry") {
    auto model = threadsModel(2);
    ReportOptions options = flatOptions();
    options.m_colourBy = ColourBy::Size;
    const Report plain(model, nullptr, options);
    const render::Rect view = plain.layout().m_cells[0].m_view;
    const auto before = test::imageOf(plain).region(view);
    // A read and a write inside thread 100's block (seq 1 to 14, 0x100000..0x101000).
    model.setAccessMarks({{4, 4000, 0x100400, 1, 100, false}, {9, 9000, 0x100c00, 1, 100, true}});
    const Report marked(model, nullptr, options);
    const Image image = test::imageOf(marked);
    CHECK(lists(marked, "read (1)"));
    CHECK(lists(marked, "write (1)"));
    const render::XScale scale(marked.window(), view.m_width);
    for (const auto& mark : model.accessMarks()) {
        const int x = static_cast<int>(view.m_x + scale.x(static_cast<double>(mark.m_seq)));
        const int y = static_cast<int>(view.m_y + *marked.scale(0).y(mark.m_addr));
        const render::Rgb pixel = render::fromArgb(image.at(x, y));
        if (mark.m_write)
            CHECK(pixel.m_r > pixel.m_b + 0.4);
        else
            CHECK(pixel.m_b > pixel.m_r + 0.4);
    }
    // Everywhere else the blocks keep their colours, unwashed: the picture stays readable.
    const auto after = image.region(view);
    size_t kept = 0;
    for (size_t i = 0; i < after.size(); ++i) kept += after[i] == before[i];
    CHECK(kept >= after.size() - 2 * 9);  // each sample's square reaches 3x3 pixels at most
    CHECK(kept < after.size());
    // Turned off, the view is the plain one.
    options.m_accessMarks = false;
    CHECK(test::imageOf(Report(model, nullptr, options)).region(view) == before);
}

TEST_CASE("the occupancy bar shows live bytes on the map, cushioned only where nothing happens") {
    std::vector<timeline::OccupancyColumn> columns(40);
    for (size_t i = 0; i < 40; ++i) columns[i] = {static_cast<double>(i * 25), i < 20 ? 3u : 0u};  // busy, then quiet
    std::vector<uint32_t> pixels(40 * 12);
    render::drawOccupancyBar(columns, 1000, CushionStyle::Plateau, {pixels.data(), 40, 12, 40});
    for (int x = 0; x < 20; ++x)
        for (int y = 0; y < 12; ++y)  // busy: flat, the value's colour
            CHECK(pixels[static_cast<size_t>(y * 40 + x)] == render::toArgb(render::ordinalColour(x * 25 / 1000.0)));
    // Quiet from column 20: a cushion, darker at its edges than inside.
    CHECK(test::luminance(pixels[6 * 40 + 20]) <
          test::luminance(render::toArgb(render::ordinalColour(20 * 25 / 1000.0))) - 0.02);
    CHECK(test::luminance(pixels[0 * 40 + 30]) < test::luminance(pixels[6 * 40 + 30]) - 0.02);
    CHECK(pixels[6 * 40 + 30] == render::toArgb(render::ordinalColour(30 * 25 / 1000.0)));  // inside: the colour
}

TEST_CASE("the report's occupancy bar is the live bytes of the view") {
    LogBuilder log;
    log.thread(1).malloc(1, 0x1000, 300).malloc(2, 0x2000, 700).free(3, 0x1000).free(4, 0x2000);
    const auto model = modelOf(log);
    ReportOptions options = flatOptions();
    const Report report(model, nullptr, options);
    const auto& columns = report.occupancy(0);
    const render::XScale scale(report.window(), static_cast<double>(columns.size()));
    CHECK(report.fullBytes() == Approx(1000));
    for (size_t c = 0; c < columns.size(); ++c) {
        const double x = scale.value(c + 0.5);
        if (std::fabs(x - std::round(x)) < 0.02) continue;  // a column that holds an event: a mean
        const double live = x < 2 ? 300 : x < 3 ? 1000 : x < 4 ? 700 : 0;
        CHECK(columns[c].m_liveBytes == Approx(live));
    }
}

TEST_CASE("correlated views: each view holds its own bin's blocks, all aligned on one time axis") {
    const auto model = threadsModel(5);
    for (auto layout : {render::BinLayout::Time, render::BinLayout::Address}) {
        ReportOptions options = flatOptions();
        options.m_bins = timeline::BinKind::Thread;
        options.m_layout = layout;
        const Report report(model, nullptr, options);
        REQUIRE(report.viewCount() == 5);
        const Image image = test::imageOf(report);
        std::set<uint32_t> all;
        for (size_t v = 0; v < 5; ++v) {
            const auto colours = coloursIn(image.region(report.layout().m_cells[v].m_view));
            CHECK(colours.size() == 1);  // one thread's block, in its colour
            all.insert(colours.begin(), colours.end());
            const auto& cell = report.layout().m_cells[v];
            if (layout == render::BinLayout::Time) CHECK(cell.m_view.m_x == report.layout().m_cells[0].m_view.m_x);
            if (layout == render::BinLayout::Address) CHECK(cell.m_view.m_y == report.layout().m_cells[0].m_view.m_y);
        }
        CHECK(all == swatches(report));
    }
}

TEST_CASE("an export never makes the access samples' summary: the window's reports, which may draft, do") {
    auto model = threadsModel(2);
    std::vector<timeline::AccessMark> marks(timeline::AccessSummary::kWorthFrom);
    for (size_t i = 0; i < marks.size(); ++i) marks[i] = {4, 4000 + i, 0x100400 + i % 64, 1, 100, i % 3 == 0};
    model.setAccessMarks(marks);
    ReportOptions options = flatOptions();
    const Image exported = test::imageOf(Report(model, nullptr, options));
    CHECK_FALSE(model.accessSummaryMade());
    options.m_mayDraft = true;
    test::imageOf(Report(model, nullptr, options));
    CHECK(model.accessSummaryMade());
    // Its samples are drawn all the same.
    options.m_mayDraft = false;
    options.m_accessMarks = false;
    CHECK(test::imageOf(Report(model, nullptr, options)).m_pixels != exported.m_pixels);
}

TEST_CASE("a sample's point (for the window's playback) is where the report draws it, in its block's bin's view") {
    auto model = threadsModel(3);  // thread 100's block begins at seq 1, thread 102's at seq 3
    timeline::AccessMark read{5, 5000, 0x100400, 1, 100};
    timeline::AccessMark write{6, 6000, 0x102800, 3, 102};
    write.m_write = true;
    model.setAccessMarks({read, write});
    for (const bool bins : {false, true}) {
        ReportOptions options = flatOptions();
        options.m_colourBy = ColourBy::Size;
        if (bins) options.m_bins = timeline::BinKind::Thread;
        const Report report(model, nullptr, options);
        const Image image = test::imageOf(report);
        std::vector<render::Rect> views;
        for (size_t i = 0; i < 2; ++i) {
            const auto point = report.markPoint(i);
            REQUIRE(point);
            const render::Rect& view = point->m_view;
            CHECK(point->m_x >= view.m_x);
            CHECK(point->m_x < view.right());
            CHECK(point->m_y >= view.m_y);
            CHECK(point->m_y < view.bottom());
            const render::Rgb pixel =
                render::fromArgb(image.at(static_cast<int>(point->m_x), static_cast<int>(point->m_y)));
            if (i == 1)
                CHECK(pixel.m_r > pixel.m_b + 0.4);  // the write, drawn red there
            else
                CHECK(pixel.m_b > pixel.m_r + 0.4);  // the read, blue
            views.push_back(view);
        }
        // One view holds both; with bins by thread, each its own thread's.
        CHECK((views[0].m_y == views[1].m_y && views[0].m_x == views[1].m_x) == !bins);
    }
    // A sample outside the window shown has no point.
    ReportOptions zoomed = flatOptions();
    zoomed.m_window = timeline::XWindow{6, 20};
    CHECK_FALSE(Report(model, nullptr, zoomed).markPoint(0));
    CHECK(Report(model, nullptr, zoomed).markPoint(1));
}

TEST_CASE("cushion cursors darken a soft band at their time in every view and bar, and nothing else") {
    const auto model = threadsModel(3);
    ReportOptions options = flatOptions();
    options.m_bins = timeline::BinKind::Thread;
    const Report plain(model, nullptr, options);
    options.m_cursors = {8};
    const Report cursor(model, nullptr, options);
    const Image a = test::imageOf(plain), b = test::imageOf(cursor);
    for (size_t v = 0; v < 3; ++v) {
        for (const render::Rect& rect : {cursor.layout().m_cells[v].m_view, cursor.layout().m_cells[v].m_bar}) {
            const render::XScale scale(cursor.window(), rect.m_width);
            const int centre = static_cast<int>(rect.m_x + scale.x(8));
            const int y = static_cast<int>(rect.m_y + rect.m_height / 2);
            CHECK(test::luminance(b.at(centre, y)) < test::luminance(a.at(centre, y)));  // the band is there
            CHECK(test::luminance(b.at(centre - 6, y)) < test::luminance(b.at(centre, y)));  // darker at its edge
            CHECK(b.at(centre - 20, y) == a.at(centre - 20, y));  // and narrow
            CHECK(b.at(centre + 20, y) == a.at(centre + 20, y));
        }
    }
    CHECK(lists(cursor, "at event 8"));
}

TEST_CASE("a time window and an address window show what is inside them, framed in the context view") {
    LogBuilder log;
    log.thread(1).malloc(1, 0x10000, 4096).malloc(2, 0x7000'0000, 4096).free(50, 0x10000).free(60, 0x7000'0000);
    const auto model = modelOf(log);
    ReportOptions options = flatOptions();
    options.m_window = timeline::XWindow{10, 40};
    options.m_addrLo = 0x6000'0000;
    const Report report(model, nullptr, options);
    REQUIRE(report.scale(0).ranges().ranges().size() == 1);  // the low block's range is outside the window
    CHECK(report.scale(0).ranges().ranges()[0].m_lo == 0x7000'0000);
    const Image image = test::imageOf(report);
    CHECK(coloursIn(image.region(report.layout().m_cells[0].m_view)).size() == 1);
    // The context view frames the window in red.
    const render::Rect context = report.layout().m_context;
    size_t red = 0;
    for (uint32_t pixel : image.region({context.m_x - 2, context.m_y - 2, context.m_width + 4, context.m_height + 4}))
        red += (pixel >> 16 & 0xff) > 180 && (pixel >> 8 & 0xff) < 80;
    CHECK(red > 20);
}

TEST_CASE("every colouring, cushion, axis and layout renders") {
    LogBuilder log;
    auto& t = log.thread(1, 1 << 16);
    for (uint64_t i = 0; i < 400; ++i)
        t.malloc(2 * i + 1, 0x5000 + (i % 50) * 4096, 16 + i * 7).free(2 * i + 2 + (i % 7), 0x5000 + (i % 50) * 4096);
    log.thread(2).heap(test::record(format::Kind::Mmap, 900, 0x7f00'0000'0000, 1 << 20));
    const auto model = modelOf(log);
    for (ColourBy by : {ColourBy::Thread, ColourBy::Size, ColourBy::Lifetime, ColourBy::Age, ColourBy::Waste}) {
        for (CushionStyle cushion : {CushionStyle::None, CushionStyle::Parabolic, CushionStyle::Plateau}) {
            ReportOptions options;
            options.m_colourBy = by;
            options.m_cushion = cushion;
            options.m_width = 900;
            options.m_height = 600;
            const Report report(model, nullptr, options);
            const auto view = test::imageOf(report).region(report.layout().m_cells[0].m_view);
            CHECK(std::set<uint32_t>(view.begin(), view.end()).size() > 3);  // blocks, shades, edges
        }
    }
    for (auto kind : {timeline::BinKind::Size, timeline::BinKind::Thread, timeline::BinKind::Region}) {
        for (auto layout : {render::BinLayout::Time, render::BinLayout::Address}) {
            ReportOptions options;
            options.m_colourBy = ColourBy::Size;
            options.m_axis = XAxis::Events;
            options.m_bins = kind;
            options.m_layout = layout;
            const Report report(model, nullptr, options);
            CHECK(report.viewCount() >= 2);
            const Image image = test::imageOf(report);
            for (size_t v = 0; v < report.viewCount(); ++v)
                CHECK_FALSE(coloursIn(image.region(report.layout().m_cells[v].m_view)).empty());
        }
    }
}

TEST_CASE("PNG, SVG and PDF files of the same report") {
    const auto model = threadsModel(2);
    const Report report(model, nullptr, flatOptions());
    for (auto [name, format, magic] : {std::tuple{"png", render::OutputFormat::Png, std::string("\x89PNG")},
                                       std::tuple{"svg", render::OutputFormat::Svg, std::string("<?xml")},
                                       std::tuple{"pdf", render::OutputFormat::Pdf, std::string("%PDF")}}) {
        const std::string path = "/tmp/memlog-report-" + std::to_string(getpid()) + "." + name;
        render::OutputFormat parsed;
        REQUIRE(render::outputFormatOf(path, parsed));
        CHECK(parsed == format);
        std::FILE* out = std::fopen(path.c_str(), "wb");
        render::exportReport(report, format, out, path);
        std::fclose(out);
        std::ifstream in(path, std::ios::binary);
        std::string head(magic.size(), '\0');
        in.read(head.data(), static_cast<std::streamsize>(head.size()));
        CHECK(head == magic);
        if (format == render::OutputFormat::Png) {
            cairo_surface_t* png = cairo_image_surface_create_from_png(path.c_str());
            CHECK(cairo_image_surface_get_width(png) == 1600);
            CHECK(cairo_image_surface_get_height(png) == 1000);
            CHECK(test::imageOf(png).m_pixels == test::imageOf(report).m_pixels);  // the file is the drawing
            cairo_surface_destroy(png);
        }
        unlink(path.c_str());
    }
    render::OutputFormat any;
    CHECK_FALSE(render::outputFormatOf("report.jpg", any));
    CHECK_FALSE(render::outputFormatOf("dir.png/report", any));
    CHECK(render::outputFormatOf("REPORT.PNG", any));
}

TEST_CASE("brushing: the point under a pixel of a view finds the block drawn there") {
    const auto model = threadsModel(4);
    const Report report(model, nullptr, flatOptions());
    const render::Rect view = report.layout().m_cells[0].m_view;
    const Image image = test::imageOf(report);
    size_t found = 0;
    for (int y = static_cast<int>(view.m_y) + 2; y < view.bottom(); y += 37)
        for (int x = static_cast<int>(view.m_x) + 2; x < view.right(); x += 53) {
            const auto point = report.pointAt(x + 0.5, y + 0.5);
            REQUIRE(point);
            const auto block = model.blockAt(XAxis::Events, point->first, point->second);
            // A pixel shows a thread's colour exactly when brushing finds that thread's block.
            const bool coloured = image.at(x, y) != kBackground;
            if (!block) continue;
            ++found;
            CHECK(coloured);
            CHECK(image.at(x, y) == render::toArgb(render::categoryColour(model[*block].thread())));
        }
    CHECK(found > 20);
    CHECK_FALSE(report.pointAt(view.m_x - 5, view.m_y + 5));  // outside every view
}

TEST_CASE("the header names the program and the log, with their full paths only when asked") {
    const timeline::BlockModel model = threadsModel(2);
    ReportOptions options = flatOptions();
    options.m_logPath = "/home/someone/builds/run.memlog";
    const Report named(model, nullptr, options);
    const std::vector<std::string> lines = named.headerLines();
    REQUIRE(lines.size() == 3);
    CHECK(lines[0].find("synthetic") != std::string::npos);
    CHECK(lines[2].find("log run.memlog") != std::string::npos);
    for (const std::string& line : lines) CHECK(line.find('/') == std::string::npos);  // no path at all
    options.m_fullPaths = true;
    const Report full(model, nullptr, options);
    CHECK(full.headerLines()[2].find("/usr/bin/synthetic") != std::string::npos);
    CHECK(full.headerLines()[2].find("/home/someone/builds/run.memlog") != std::string::npos);
}

TEST_CASE("a full trace on its instructions: the view spans them, the legend and the ticks say so") {
    const std::string path = "/tmp/memlog-report-" + std::to_string(getpid()) + "-trace.memlog";
    test::writeTwoThreadTrace(path);  // blocks begin at 1102, 1652 and 2652 instructions
    timeline::LogReader reader(path);
    const timeline::BlockModel model = timeline::buildBlockModel(reader, {}, false, XAxis::Instructions);
    std::remove(path.c_str());
    ReportOptions options = flatOptions();
    options.m_axis = XAxis::Instructions;
    const Report report(model, nullptr, options);
    CHECK(report.window() == timeline::XWindow{1102, 2652});
    CHECK(lists(report, "x: instructions the program ran"));
    CHECK_FALSE(lists(report, "x: time"));
    CHECK(lists(Report(threadsModel(2), nullptr, flatOptions()), "x: event number"));
    std::vector<std::string> labels;
    for (const render::Tick& tick : render::xTicks(XAxis::Instructions, {0, 10'000'000}, 800, 80))
        labels.push_back(tick.m_label);
    REQUIRE(labels.size() >= 3);
    CHECK(labels[0] == "0");
    CHECK(labels[1].find("M instr") != std::string::npos);
}

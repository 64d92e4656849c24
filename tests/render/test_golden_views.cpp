// The pictures stay the same: views of fixed random heaps, drawn with a set of options by the
// export (one walk sorting the blocks into tiles) and through a frame context, each view's pixels hashed and compared
// with tests/render/golden_views.txt. A change of the picture that is meant is named in its commit and the file written
// again: MEMLOG_UPDATE_GOLDEN=1 build/bin/memlog_render_tests '[golden]'.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "random_heap.hpp"
#include "render/frame/frame_context.hpp"
#include "render_helpers.hpp"

using namespace memlog;
using render::ColourBy;
using render::CushionStyle;

namespace {

const std::string kGoldenFile = std::string(MEMLOG_TEST_SOURCE_DIR) + "/tests/render/golden_views.txt";

uint64_t fnv1a(const std::vector<uint32_t>& pixels) {
    uint64_t hash = 0xcbf29ce484222325ull;
    for (uint32_t pixel : pixels)
        for (int shift = 0; shift < 32; shift += 8) hash = (hash ^ ((pixel >> shift) & 0xff)) * 0x100000001b3ull;
    return hash;
}

timeline::BlockModel goldenHeap() {
    test::RandomHeap spec;
    spec.m_seed = 7;
    spec.m_events = 20'000;
    spec.m_slots = 300;
    timeline::BlockModel model = test::randomHeap(spec);
    // Samples over the first blocks: reads, and every third a write.
    std::vector<timeline::AccessMark> marks;
    for (size_t i = 0; i < model.size() && marks.size() < 3000; i += 3) {
        const timeline::Block& block = model[i];
        if (block.size() < 8) continue;
        timeline::AccessMark mark;
        mark.m_seq = block.beginSeq();
        mark.m_timeNs = block.beginNs();
        mark.m_addr = block.addr() + block.size() / 2;
        mark.m_blockSeq = block.beginSeq();
        mark.m_write = marks.size() % 3 == 0;
        marks.push_back(mark);
    }
    model.setAccessMarks(std::move(marks));
    return model;
}

struct Case {
    std::string m_name;
    std::function<void(render::ReportOptions&)> m_set;
};

std::vector<Case> cases() {
    return {
        {"default", [](render::ReportOptions&) {}},
        {"events", [](render::ReportOptions& o) { o.m_axis = timeline::XAxis::Events; }},
        {"size-parabolic",
         [](render::ReportOptions& o) {
             o.m_colourBy = ColourBy::Size;
             o.m_cushion = CushionStyle::Parabolic;
         }},
        {"lifetime-alpha",
         [](render::ReportOptions& o) {
             o.m_colourBy = ColourBy::Lifetime;
             o.m_alpha = 0.1;
         }},
        {"thread-flat",
         [](render::ReportOptions& o) {
             o.m_colourBy = ColourBy::Thread;
             o.m_cushion = CushionStyle::None;
         }},
        {"no-accesses", [](render::ReportOptions& o) { o.m_accessMarks = false; }},
        {"bins-size", [](render::ReportOptions& o) { o.m_bins = timeline::BinKind::Size; }},
        {"bins-thread-address",
         [](render::ReportOptions& o) {
             o.m_bins = timeline::BinKind::Thread;
             o.m_layout = render::BinLayout::Address;
         }},
    };
}

}  // namespace

TEST_CASE("golden views: the pictures of fixed heaps, exported and through a frame context", "[golden]") {
    const timeline::BlockModel model = goldenHeap();
    std::map<std::string, std::string> drawn;
    for (const Case& c : cases())
        for (const bool throughFrame : {false, true}) {
            render::ReportOptions options;
            options.m_width = 1000;
            options.m_height = 640;
            c.m_set(options);
            render::FrameContext frame(model, nullptr);
            if (throughFrame) options.m_frame = &frame;  // exact: no level of detail, no drafts
            const render::Report report(model, nullptr, options);
            const test::Image image = test::imageOf(report);
            std::ostringstream hashes;
            for (const auto& cell : report.layout().m_cells)
                hashes << std::hex << fnv1a(image.region(cell.m_view)) << ' ';
            drawn[c.m_name + (throughFrame ? "/frame" : "/walk")] = hashes.str();
        }
    if (const char* update = std::getenv("MEMLOG_UPDATE_GOLDEN"); update && std::string(update) == "1") {
        std::ofstream out(kGoldenFile);
        out << "# view hashes of tests/render/test_golden_views.cpp; rewrite with MEMLOG_UPDATE_GOLDEN=1\n";
        for (const auto& [name, hashes] : drawn) out << name << ' ' << hashes << '\n';
        WARN("golden views written to " << kGoldenFile);
        return;
    }
    std::ifstream in(kGoldenFile);
    REQUIRE(in);
    std::map<std::string, std::string> golden;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        const size_t space = line.find(' ');
        golden[line.substr(0, space)] = line.substr(space + 1);
    }
    for (const auto& [name, hashes] : drawn) {
        INFO(name);
        CHECK(golden[name] == hashes);
    }
    // The two ways of drawing agree on every case.
    for (const Case& c : cases()) {
        INFO(c.m_name);
        CHECK(drawn[c.m_name + "/walk"] == drawn[c.m_name + "/frame"]);
    }
}

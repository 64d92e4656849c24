// memtimeline as a user runs it: reports written in every format, and bad input refused with
// one line and exit status 2, leaving no file behind.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "heap_records.hpp"
#include "render_helpers.hpp"
#include "run_program.hpp"

using namespace memlog;
using memlog::test::LogBuilder;

namespace fs = std::filesystem;

namespace {

// Runs memtimeline with `arguments` in a fresh directory; {dir} in an argument is that directory.
struct Ran {
    test::Outcome m_outcome;
    std::string m_dir;
    ~Ran() { fs::remove_all(m_dir); }
};

std::unique_ptr<Ran> memtimeline(std::vector<std::string> arguments,
                                 const std::function<void(const std::string&)>& prepare = {}) {
    // A directory first, so that the log can be written there before the run.
    char pattern[] = "/tmp/memtimeline-test-XXXXXX";
    REQUIRE(mkdtemp(pattern));
    const std::string dir = pattern;
    if (prepare) prepare(dir);
    test::Run run;
    run.m_preload = false;
    run.m_unset = {"DISPLAY", "WAYLAND_DISPLAY"};  // these runs must never open a window
    run.m_argv = {MEMLOG_TEST_TIMELINE};
    for (std::string& argument : arguments) {
        if (const size_t at = argument.find("{dir}"); at != std::string::npos) argument.replace(at, 5, dir);
        run.m_argv.push_back(argument);
    }
    auto ran = std::make_unique<Ran>();
    ran->m_outcome = test::runProgram(run);
    fs::remove_all(ran->m_outcome.m_directory);
    ran->m_dir = dir;
    return ran;
}

void writeSampleLog(const std::string& dir) {
    LogBuilder log;
    log.thread(1)
        .malloc(1, 0x5000'0000, 4096)
        .malloc(2, 0x5000'2000, 100)
        .free(3, 0x5000'0000)
        .malloc(4, 0x5000'0000, 64);
    log.thread(2).malloc(5, 0x7f00'0000'0000, 1 << 16).free(9, 0x7f00'0000'0000);
    log.write(dir + "/app.memlog");
}

std::string readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

// What the user sees after a refusal: exactly one line on stderr, status 2, no report.
void refused(const Ran& ran, const std::string& expected, const std::string& report = "") {
    INFO("stderr: " << ran.m_outcome.m_stderr);
    CHECK(ran.m_outcome.m_exitStatus == 2);
    CHECK(std::count(ran.m_outcome.m_stderr.begin(), ran.m_outcome.m_stderr.end(), '\n') == 1);
    CHECK(ran.m_outcome.m_stderr.rfind("memtimeline: ", 0) == 0);
    CHECK(ran.m_outcome.m_stderr.find(expected) != std::string::npos);
    CHECK(ran.m_outcome.m_stdout.empty());
    if (!report.empty()) CHECK_FALSE(fs::exists(ran.m_dir + "/" + report));
    for (const auto& entry : fs::directory_iterator(ran.m_dir))  // no temporary left either
        CHECK(entry.path().filename().string().rfind(".memtimeline-", 0) != 0);
}

}  // namespace

TEST_CASE("memtimeline --export writes a PNG of the requested size, silently") {
    const auto ran = memtimeline(
        {"{dir}/app.memlog", "--export", "{dir}/report.png", "--size", "1000x700", "--color-by", "thread", "--alpha",
         "0.4", "--cushion", "parabolic", "--x", "events", "--range", "2:8", "--cursor", "5", "--cursor", "2us"},
        writeSampleLog);
    INFO(ran->m_outcome.m_stderr);
    REQUIRE(ran->m_outcome.m_exitStatus == 0);
    CHECK(ran->m_outcome.m_stderr.empty());
    CHECK(ran->m_outcome.m_stdout.empty());
    cairo_surface_t* png = cairo_image_surface_create_from_png((ran->m_dir + "/report.png").c_str());
    REQUIRE(cairo_surface_status(png) == CAIRO_STATUS_SUCCESS);
    CHECK(cairo_image_surface_get_width(png) == 1000);
    CHECK(cairo_image_surface_get_height(png) == 700);
    cairo_surface_destroy(png);
    struct stat info {};
    REQUIRE(stat((ran->m_dir + "/report.png").c_str(), &info) == 0);
    CHECK((info.st_mode & 0004) != 0);  // an ordinary readable file, not the temporary's 0600
}

TEST_CASE("memtimeline writes SVG and PDF by the file name, bins in both layouts") {
    for (const char* name : {"report.svg", "report.pdf"}) {
        const auto ran = memtimeline({"{dir}/app.memlog", "--export", std::string("{dir}/") + name, "--bins", "size",
                                      "--layout", "address", "--range", "1us:8us"},
                                     writeSampleLog);
        INFO(ran->m_outcome.m_stderr);
        REQUIRE(ran->m_outcome.m_exitStatus == 0);
        const std::string content = readAll(ran->m_dir + "/" + name);
        CHECK(content.rfind(std::string(name).ends_with("svg") ? "<?xml" : "%PDF", 0) == 0);
    }
}

TEST_CASE("--help names every option, --version the version") {
    const auto ran = memtimeline({"--help"});
    CHECK(ran->m_outcome.m_exitStatus == 0);
    for (const char* option :
         {"--export", "--size",   "--color-by", "--alpha", "--cushion", "--x",     "--range",   "--addr",    "--bins",
          "--layout", "--cursor", "--accesses", "--paths", "--verbose", "--quiet", "--help",    "--version", "site",
          "thread",   "size",     "lifetime",   "age",     "waste",     "plateau", "parabolic", "events",    "region",
          "--cache",  "--view",   "--idle",     "memory",  "working-set"})
        CHECK(ran->m_outcome.m_stdout.find(option) != std::string::npos);
    const auto version = memtimeline({"--version"});
    CHECK(version->m_outcome.m_exitStatus == 0);
    CHECK(version->m_outcome.m_stdout.rfind("memtimeline ", 0) == 0);
    CHECK(version->m_outcome.m_stdout.find("log format " + std::to_string(memlog::format::kFormatVersion)) !=
          std::string::npos);
}

TEST_CASE("the option --accesses off draws the blocks alone, on (the default) the samples over them") {
    // One log for every run: the report's header names it, so the pictures differ only by the option.
    char pattern[] = "/tmp/memtimeline-accesses-XXXXXX";
    REQUIRE(mkdtemp(pattern));
    const std::string dir = pattern;
    LogBuilder log;
    log.thread(1).malloc(1, 0x5000'0000, 4096).free(40, 0x5000'0000);
    log.thread(1).write(10, 0x5000'0100).read(30, 0x5000'0e00);
    log.write(dir + "/app.memlog");
    auto draw = [&](const std::string& name, std::vector<std::string> extra) {
        std::vector<std::string> arguments = {dir + "/app.memlog", "--export", dir + "/" + name};
        arguments.insert(arguments.end(), extra.begin(), extra.end());
        CHECK(memtimeline(arguments)->m_outcome.m_exitStatus == 0);
        return readAll(dir + "/" + name);
    };
    const std::string byDefault = draw("default.png", {}), on = draw("on.png", {"--accesses", "on"}),
                      off = draw("off.png", {"--accesses", "off"});
    CHECK(!byDefault.empty());
    CHECK(on == byDefault);
    CHECK(off != on);
    fs::remove_all(dir);
    const auto bad =
        memtimeline({"{dir}/app.memlog", "--export", "{dir}/r.png", "--accesses", "maybe"}, [](const std::string& d) {
            LogBuilder empty;
            empty.thread(1).malloc(1, 0x1000, 10);
            empty.write(d + "/app.memlog");
        });
    refused(*bad, "--accesses maybe: on or off", "r.png");
}

TEST_CASE("the cache views of a full trace: a page each, of the size asked") {
    for (const std::string view : {"memory", "working-set"}) {
        const auto ran = memtimeline({"{dir}/trace.memlog", "--export", "{dir}/r.png", "--view", view, "--size", "900x600"},
                                     [](const std::string& dir) {
                                         LogBuilder log;
                                         log.header().m_accessSampler = format::AccessSampler::FullTrace;
                                         log.thread(1).malloc(1, 0x5000'0000, 4096).free(40, 0x5000'0000);
                                         log.thread(1).write(10, 0x5000'0100).read(30, 0x5000'0e00).read(31, 0x5000'0100);
                                         log.write(dir + "/trace.memlog");
                                     });
        INFO(view << ": " << ran->m_outcome.m_stderr);
        CHECK(ran->m_outcome.m_exitStatus == 0);
        CHECK(ran->m_outcome.m_stderr.empty());
        cairo_surface_t* png = cairo_image_surface_create_from_png((ran->m_dir + "/r.png").c_str());
        CHECK(cairo_surface_status(png) == CAIRO_STATUS_SUCCESS);
        CHECK(cairo_image_surface_get_width(png) == 900);
        CHECK(cairo_image_surface_get_height(png) == 600);
        cairo_surface_destroy(png);
    }
}

TEST_CASE("bad usage: one line naming the problem, exit status 2, no report") {
    struct Case {
        std::vector<std::string> m_arguments;
        std::string m_expected;
    };
    const std::vector<Case> cases = {
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--size", "0x0"}, "--size 0x0"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--size", "big"}, "--size big"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--frobnicate"}, "unknown option '--frobnicate'"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.jpg"}, ".png, .svg or .pdf"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--alpha", "0"}, "--alpha 0"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--alpha", "1.5"}, "--alpha 1.5"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--color-by", "mood"}, "--color-by mood"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--cushion", "pillow"}, "--cushion pillow"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--range", "3s"}, "--range 3s"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--range", "5s:"}, "after the log ends"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--range", "5us:2us"}, "FROM must come before TO"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--range", "10:20"}, "is an event number"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--addr", "0x9:0x1"}, "LO must be below HI"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--bins", "colour"}, "--bins colour"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--cursor"}, "--cursor needs a value"},
        {{"{dir}/app.memlog"},
         "no display (DISPLAY and WAYLAND_DISPLAY are not set): the window needs one; use --export"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--follow"}, "--follow is for the window, not --export"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--trace"}, "--trace is for the window, not --export"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--scale", "2"}, "--scale is for the window, not --export"},
        {{"{dir}/app.memlog", "--scale", "9"}, "--scale 9: a number from 0.5 to 4"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--paths", "absolute"}, "--paths absolute: names or full"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--draft-above", "10"},
         "--draft-above is for the window, not --export"},
        {{"{dir}/app.memlog", "--draft-above", "-3"}, "--draft-above -3: a number, 0 or more"},
        {{"--export", "{dir}/r.png"}, "which log?"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--cache", "32K"}, "--cache 32K: give SIZE:WAYS:LINE"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--cache", "32K:3:64"},
         "--cache 32K:3:64: the size must be a multiple of ways x line"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--cache", "32K:8:48"},
         "--cache 32K:8:48: the line must be a power of two bytes"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--cache", "32K:8:64", "--accesses", "off"},
         "--cache colours the accesses: it cannot go with --accesses off"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--cache", "32K:8:64"},
         "/app.memlog: it holds no accesses; a cache needs every access (memlog run --full-trace"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--view", "memory"},
         "/app.memlog: it holds no accesses; a cache needs every access (memlog run --full-trace"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--view", "pie"}, "--view pie: time, memory or working-set"},
        // The window opens on the memory display now: here, with no display, it says so first.
        {{"{dir}/app.memlog", "--view", "memory"}, "no display (DISPLAY and WAYLAND_DISPLAY are not set)"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--view", "memory", "--bins", "size"},
         "--view memory has no --bins"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--view", "working-set", "--range", "1ms:"},
         "--view working-set sums the whole run: it takes no --range, --addr or --cursor"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--idle", "5ms"}, "--idle is for --view working-set"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--view", "working-set", "--idle", "0"},
         "--idle 0: a time above 0"},
        {{"{dir}/app.memlog", "--export", "{dir}/r.png", "--view", "working-set", "--idle", "soon"},
         "--idle soon: a time above 0"},
        {{"{dir}/app.memlog", "{dir}/other.memlog", "--export", "{dir}/r.png"}, "one log at a time"},
    };
    for (const Case& c : cases) {
        INFO(c.m_expected);
        const auto ran = memtimeline(c.m_arguments, writeSampleLog);
        refused(*ran, c.m_expected, "r.png");
    }
}

TEST_CASE("bad input: a missing or corrupt log, an unwritable report") {
    const auto missing = memtimeline({"{dir}/nothing.memlog", "--export", "{dir}/r.png"});
    refused(*missing, "nothing.memlog: offset 0: cannot open", "r.png");

    const auto corrupt = memtimeline({"{dir}/app.memlog", "--export", "{dir}/r.png"}, [](const std::string& dir) {
        LogBuilder log;
        log.thread(1).malloc(1, 0x1000, 10).malloc(2, 0x2000, 20);
        auto bytes = log.bytes();
        bytes[4096 + 16] = 0x1f;  // an unknown tag where the first record starts, data after it
        std::ofstream(dir + "/app.memlog", std::ios::binary)
            .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    });
    refused(*corrupt, "app.memlog: offset 4112: corrupt record", "r.png");

    const auto foreign = memtimeline({"{dir}/app.memlog", "--export", "{dir}/r.png"}, [](const std::string& dir) {
        std::ofstream(dir + "/app.memlog") << "this is not a memlog log, but it is long enough to have a header";
    });
    refused(*foreign, "app.memlog: offset 0: not a memlog log", "r.png");

    const auto unwritable = memtimeline({"{dir}/app.memlog", "--export", "/nonexistent/dir/r.png"}, writeSampleLog);
    refused(*unwritable, "cannot write /nonexistent/dir/r.png");

    // An existing report is left as it was when the new one cannot be made.
    const auto kept = memtimeline({"{dir}/bad.memlog", "--export", "{dir}/r.png"}, [](const std::string& dir) {
        std::ofstream(dir + "/r.png") << "old report";
        std::ofstream(dir + "/bad.memlog") << "garbage";
    });
    CHECK(kept->m_outcome.m_exitStatus == 2);
    CHECK(readAll(kept->m_dir + "/r.png") == "old report");
}

TEST_CASE("memtimeline --export draws a log cut inside its last record and says where reading stopped") {
    const auto ran = memtimeline({"{dir}/app.memlog", "--export", "{dir}/report.png"}, [](const std::string& dir) {
        LogBuilder log;
        auto& thread = log.thread(1);
        for (uint64_t i = 1; i <= 10; ++i) thread.malloc(i, 0x5000'0000 + 0x1000 * i, 100);
        std::vector<uint8_t> bytes = log.bytes();
        size_t end = bytes.size();  // the last record ends at the last byte that is not unwritten space
        while (end > 0 && bytes[end - 1] == 0) --end;
        bytes.resize(end - 1);
        std::ofstream(dir + "/app.memlog", std::ios::binary)
            .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    });
    INFO("stderr: " << ran->m_outcome.m_stderr);
    CHECK(ran->m_outcome.m_exitStatus == 0);
    CHECK(fs::file_size(ran->m_dir + "/report.png") > 0);
    const std::string& said = ran->m_outcome.m_stderr;
    CHECK(said.rfind("memtimeline: " + ran->m_dir + "/app.memlog: offset ", 0) == 0);
    CHECK(said.find("(torn tail); read up to here\n") != std::string::npos);
    CHECK(std::count(said.begin(), said.end(), '\n') == 1);
}

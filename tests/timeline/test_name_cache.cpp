// Names kept between runs (unwind/name_cache.hpp): a second symboliser of the same module names
// from the file the first wrote, with the same frames; a file that no longer holds (the module
// changed, the file torn or foreign) is not used. The module is a copy of this test program
// (its own build id and debug information), named at the addresses it is loaded at.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "this_program.hpp"
#include "unwind/name_cache.hpp"
#include "unwind/symbolizer.hpp"

using memlog::unwind::LoadedModule;
using memlog::unwind::SourceFrame;
using memlog::unwind::Symbolizer;
namespace fs = std::filesystem;
namespace unwind = memlog::unwind;

extern "C" __attribute__((noinline, used)) int memlogNameCacheTestFunction(int value) {
    __asm__ volatile("" ::: "memory");
    return value * 3 + 1;
}

namespace {

using memlog::test::thisProgramAt;

// A fresh folder with a copy of this program, and the cache directory set to a folder in it.
struct Sandbox {
    fs::path m_root;
    std::string m_copy;
    std::string m_cache;
    explicit Sandbox(const std::string& copyName = "program-copy") {
        m_root = fs::temp_directory_path() / ("memlog-names-" + std::to_string(getpid()));
        fs::remove_all(m_root);
        fs::create_directories(m_root);
        m_copy = (m_root / copyName).string();
        fs::copy_file("/proc/self/exe", m_copy);
        m_cache = (m_root / "cache").string();
        unwind::setNameCacheDirectory(m_cache);
    }
    ~Sandbox() {
        unwind::setNameCacheDirectory("");
        fs::remove_all(m_root);
    }
    std::string keptFile() const { return m_cache + "/names/" + unwind::readerBuildId(); }
};

uint64_t returnAddressInTestFunction() {
    return reinterpret_cast<uint64_t>(&memlogNameCacheTestFunction) + 1;  // named as its first byte
}

struct Named {
    std::vector<SourceFrame> m_frames;
    size_t m_fromKept;
};

Named nameOnce(const std::string& modulePath, uint64_t returnAddress) {
    Symbolizer symbolizer({thisProgramAt(modulePath)}, {});
    Named named{symbolizer.resolve(returnAddress), 0};
    named.m_fromKept = symbolizer.addressesFromKeptNames();
    return named;
}

void requireSameFrames(const std::vector<SourceFrame>& a, const std::vector<SourceFrame>& b) {
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        CHECK(a[i].m_function == b[i].m_function);
        CHECK(a[i].m_file == b[i].m_file);
        CHECK(a[i].m_line == b[i].m_line);
        CHECK(a[i].m_module == b[i].m_module);
        CHECK(a[i].m_inlined == b[i].m_inlined);
    }
}

}  // namespace

TEST_CASE("names kept by one run are the next run's: the same frames, not read from debug information again") {
    REQUIRE(unwind::usableBuildId(unwind::readerBuildId()));  // the test program has a build id
    Sandbox sandbox;
    const Named first = nameOnce(sandbox.m_copy, returnAddressInTestFunction());
    REQUIRE(first.m_frames.size() == 1);
    CHECK(first.m_frames[0].m_function == "memlogNameCacheTestFunction");
    CHECK(first.m_frames[0].m_file.find("test_name_cache.cpp") != std::string::npos);
    CHECK(first.m_fromKept == 0);
    REQUIRE(fs::exists(sandbox.keptFile()));
    const Named second = nameOnce(sandbox.m_copy, returnAddressInTestFunction());
    CHECK(second.m_fromKept == 1);
    requireSameFrames(first.m_frames, second.m_frames);
}

TEST_CASE("kept names take the module's name from the log being read, not from the run that kept them") {
    Sandbox sandbox("first-name");
    // The same file under another name (a hard link: same inode, size and time).
    const std::string other = (sandbox.m_root / "second-name").string();
    fs::create_hard_link(sandbox.m_copy, other);
    REQUIRE(nameOnce(sandbox.m_copy, returnAddressInTestFunction()).m_frames[0].m_module == "first-name");
    const Named again = nameOnce(other, returnAddressInTestFunction());
    CHECK(again.m_fromKept == 1);
    CHECK(again.m_frames[0].m_module == "second-name");
    CHECK(again.m_frames[0].m_function == "memlogNameCacheTestFunction");
}

TEST_CASE("kept names are not used once the module changed or their file is torn or foreign, and are kept anew") {
    Sandbox sandbox;
    const Named first = nameOnce(sandbox.m_copy, returnAddressInTestFunction());
    REQUIRE(fs::exists(sandbox.keptFile()));
    const auto size = fs::file_size(sandbox.keptFile());

    SECTION("torn") {
        fs::resize_file(sandbox.keptFile(), size - 3);
    }
    SECTION("foreign") {
        std::ofstream(sandbox.keptFile(), std::ios::trunc) << "not a file of names, but as long as one might be";
    }
    SECTION("emptied") {
        fs::resize_file(sandbox.keptFile(), 0);
    }
    SECTION("the module rebuilt in place (a new modification time)") {
        fs::last_write_time(sandbox.m_copy, fs::last_write_time(sandbox.m_copy) + std::chrono::hours(1));
    }
    const Named second = nameOnce(sandbox.m_copy, returnAddressInTestFunction());
    CHECK(second.m_fromKept == 0);
    requireSameFrames(first.m_frames, second.m_frames);
    // Written again whole: the next run names from it.
    const Named third = nameOnce(sandbox.m_copy, returnAddressInTestFunction());
    CHECK(third.m_fromKept == 1);
    requireSameFrames(first.m_frames, third.m_frames);
}

TEST_CASE("without a cache directory, or for a module whose build id is not the recorded one, nothing is kept") {
    Sandbox sandbox;
    SECTION("no directory") {
        unwind::setNameCacheDirectory("");
        (void)nameOnce(sandbox.m_copy, returnAddressInTestFunction());
    }
    SECTION("another build id recorded") {
        LoadedModule module = thisProgramAt(sandbox.m_copy);
        module.m_buildId = std::string(module.m_buildId.size(), 'a');
        Symbolizer symbolizer({module}, [](const std::string&) {});
        CHECK(symbolizer.resolve(returnAddressInTestFunction())[0].m_function == "memlogNameCacheTestFunction");
    }
    CHECK_FALSE(fs::exists(sandbox.m_cache));
}

TEST_CASE("a folder of more than 1,024 kept files is cut back to the 768 used last, never the one just written") {
    Sandbox sandbox;
    const fs::path names = fs::path(sandbox.m_cache) / "names";
    fs::create_directories(names);
    const auto now = fs::file_time_type::clock::now();
    for (int i = 0; i < 1100; ++i) {  // file i last used i minutes after the oldest
        const fs::path file = names / ("old" + std::to_string(i));
        std::ofstream(file) << "names of a binary rebuilt since";
        fs::last_write_time(file, now - std::chrono::hours(48) + std::chrono::minutes(i));
    }
    (void)nameOnce(sandbox.m_copy, returnAddressInTestFunction());
    size_t left = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(names)) ++left;
    CHECK(left == 768);
    CHECK(fs::exists(sandbox.keptFile()));
    CHECK(fs::exists(names / "old1099"));  // the most recently used
    CHECK(fs::exists(names / "old333"));   // 1101 files: the oldest 333 went
    CHECK_FALSE(fs::exists(names / "old332"));
    // A load marks its file used: it outlives files written after it.
    fs::last_write_time(sandbox.keptFile(), now - std::chrono::hours(72));
    CHECK(nameOnce(sandbox.m_copy, returnAddressInTestFunction()).m_fromKept == 1);
    CHECK(fs::last_write_time(sandbox.keptFile()) > now - std::chrono::hours(1));
}

TEST_CASE("a build id names a file only when it is hex digits") {
    CHECK(unwind::usableBuildId("49daf84ed369fe589b73ea876f2591cd4c3588bb"));
    CHECK_FALSE(unwind::usableBuildId("../../etc/passwd"));
    CHECK_FALSE(unwind::usableBuildId("49DAF84E"));  // the recorder writes lower case
    CHECK_FALSE(unwind::usableBuildId(""));
    CHECK_FALSE(unwind::usableBuildId("a"));
}

TEST_CASE("the cache directory: MEMLOG_CACHE_DIR, else XDG_CACHE_HOME, else HOME's .cache") {
    auto restore = [](const char* name, const char* value) {
        if (value)
            setenv(name, value, 1);
        else
            unsetenv(name);
    };
    const char* own = std::getenv("MEMLOG_CACHE_DIR");
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    const std::string ownSaved = own ? own : "", xdgSaved = xdg ? xdg : "", homeSaved = home ? home : "";
    setenv("HOME", "/home/someone", 1);
    unsetenv("MEMLOG_CACHE_DIR");
    unsetenv("XDG_CACHE_HOME");
    CHECK(unwind::defaultNameCacheDirectory() == "/home/someone/.cache/memlog");
    setenv("XDG_CACHE_HOME", "/var/cache/someone", 1);
    CHECK(unwind::defaultNameCacheDirectory() == "/var/cache/someone/memlog");
    setenv("MEMLOG_CACHE_DIR", "/elsewhere", 1);
    CHECK(unwind::defaultNameCacheDirectory() == "/elsewhere");
    setenv("MEMLOG_CACHE_DIR", "", 1);
    CHECK(unwind::defaultNameCacheDirectory().empty());
    restore("MEMLOG_CACHE_DIR", own ? ownSaved.c_str() : nullptr);
    restore("XDG_CACHE_HOME", xdg ? xdgSaved.c_str() : nullptr);
    restore("HOME", home ? homeSaved.c_str() : nullptr);
}

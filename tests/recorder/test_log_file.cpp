// LogFile: creation rules (new file, 0600, numbered neighbours, no symlinks) and concurrent chunk
// reservation, growth and the trim at a clean end.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <set>
#include <thread>
#include <vector>

#include "start/log_file.hpp"

namespace fs = std::filesystem;
using memlog::preload::LogFile;

namespace {

fs::path freshDirectory() {
    char pattern[] = "/tmp/memlog-logfile-XXXXXX";
    return fs::path(mkdtemp(pattern));
}

}  // namespace

TEST_CASE("a log file is created new with mode 0600 and its header page") {
    const fs::path dir = freshDirectory();
    const std::string path = (dir / "a.memlog").string();
    LogFile file;
    char chosen[4096];
    const char* error = nullptr;
    REQUIRE(file.create(path.c_str(), chosen, sizeof chosen, &error));
    CHECK(std::string(chosen) == path);
    struct stat info {};
    REQUIRE(stat(path.c_str(), &info) == 0);
    CHECK((info.st_mode & 0777) == 0600);
    CHECK(file.dataEnd() == memlog::format::kHeaderBytes);
    file.abandon();
    fs::remove_all(dir);
}

TEST_CASE("an existing name is never reused: numbered neighbours are chosen") {
    const fs::path dir = freshDirectory();
    const std::string path = (dir / "b.memlog").string();
    { std::FILE* existing = std::fopen(path.c_str(), "w"); std::fputs("keep me", existing); std::fclose(existing); }
    LogFile first, second;
    char chosen[4096];
    const char* error = nullptr;
    REQUIRE(first.create(path.c_str(), chosen, sizeof chosen, &error));
    CHECK(std::string(chosen) == (dir / "b.1.memlog").string());
    REQUIRE(second.create(path.c_str(), chosen, sizeof chosen, &error));
    CHECK(std::string(chosen) == (dir / "b.2.memlog").string());
    CHECK(fs::file_size(path) == 7);  // untouched
    first.abandon();
    second.abandon();
    fs::remove_all(dir);
}

TEST_CASE("a symlink at the output path is not followed") {
    const fs::path dir = freshDirectory();
    const fs::path target = dir / "victim";
    { std::FILE* victim = std::fopen(target.c_str(), "w"); std::fputs("precious", victim); std::fclose(victim); }
    fs::create_symlink(target, dir / "c.memlog");
    LogFile file;
    char chosen[4096];
    const char* error = nullptr;
    REQUIRE(file.create((dir / "c.memlog").c_str(), chosen, sizeof chosen, &error));
    CHECK(std::string(chosen) == (dir / "c.1.memlog").string());
    CHECK(fs::file_size(target) == 8);
    file.abandon();
    fs::remove_all(dir);
}

TEST_CASE("an uncreatable path fails with a reason instead of crashing") {
    LogFile file;
    char chosen[4096];
    const char* error = nullptr;
    CHECK_FALSE(file.create("/nonexistent-dir/x.memlog", chosen, sizeof chosen, &error));
    REQUIRE(error != nullptr);
    CHECK(std::strlen(error) > 0);
}

TEST_CASE("threads reserve disjoint chunks while the file grows, and a trim keeps them all") {
    const fs::path dir = freshDirectory();
    const std::string path = (dir / "d.memlog").string();
    LogFile file;
    char chosen[4096];
    const char* error = nullptr;
    REQUIRE(file.create(path.c_str(), chosen, sizeof chosen, &error));
    const uint8_t* base = reinterpret_cast<const uint8_t*>(file.header());

    constexpr int kThreads = 4;
    constexpr int kChunksEach = 300;  // 4 x 300 x 64 KiB = 75 MiB: several growth steps
    std::vector<std::vector<uint64_t>> offsets(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < kChunksEach; ++i) {
                uint8_t* chunk = file.reserveChunk(65536);
                if (!chunk) return;  // counted below: Catch2 assertions are not thread-safe
                std::memset(chunk, t + 1, 65536);  // every byte must be writable
                offsets[t].push_back(static_cast<uint64_t>(chunk - base));
            }
        });
    for (auto& thread : threads) thread.join();
    for (int t = 0; t < kThreads; ++t) REQUIRE(offsets[t].size() == kChunksEach);

    std::set<uint64_t> all;
    for (int t = 0; t < kThreads; ++t)
        for (uint64_t offset : offsets[t]) {
            CHECK(offset % 4096 == 0);
            CHECK(base[offset] == t + 1);  // nobody else wrote over this chunk
            CHECK(base[offset + 65535] == t + 1);
            all.insert(offset);
        }
    CHECK(all.size() == kThreads * kChunksEach);
    const uint64_t expectedEnd = memlog::format::kHeaderBytes + uint64_t(kThreads) * kChunksEach * 65536;
    CHECK(file.dataEnd() == expectedEnd);

    file.trimToData();
    CHECK(fs::file_size(path) == expectedEnd);
    // After a trim, recording goes on: the next chunk grows the file again.
    uint8_t* late = file.reserveChunk(4096);
    REQUIRE(late != nullptr);
    std::memset(late, 9, 4096);
    CHECK(static_cast<uint64_t>(late - base) == expectedEnd);
    CHECK(fs::file_size(path) >= expectedEnd + 4096);
    file.abandon();
    fs::remove_all(dir);
}

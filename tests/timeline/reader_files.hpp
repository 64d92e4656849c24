// What the reader's tests share: log files in /tmp, raw bytes written, every event read back, and
// a two-thread log (test_log_reader.cpp, test_log_damage.cpp).
#pragma once

#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "log_builder.hpp"
#include "timeline/read/log_reader.hpp"

namespace memlog::test {

inline std::string tempPath(const std::string& name) {
    return "/tmp/memlog-reader-" + std::to_string(getpid()) + "-" + name + ".memlog";
}

inline void writeBytes(const std::string& path, const std::vector<uint8_t>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

inline std::vector<timeline::Event> readAll(const std::string& path) {
    timeline::LogReader reader(path);
    std::vector<timeline::Event> events;
    reader.forEachEvent([&](const timeline::Event& e) { events.push_back(e); });
    return events;
}

// The sequence numbers of every heap event and access sample, in the order delivered.
inline std::vector<uint64_t> sequenceOfRecords(const std::string& path) {
    timeline::LogReader reader(path);
    std::vector<uint64_t> seqs;
    reader.forEachRecord([&](const timeline::Event& e) { seqs.push_back(e.m_seq); },
                         [&](const timeline::AccessSample& a) { seqs.push_back(a.m_seq); });
    return seqs;
}

// Two threads, interleaved sequence numbers, chunks small enough that each thread has several.
inline LogBuilder twoThreads() {
    LogBuilder log;
    auto& a = log.thread(100);
    auto& b = log.thread(200);
    for (uint64_t i = 0; i < 600; ++i) {
        const uint64_t seq = 1 + 2 * i;
        a.malloc(seq, 0x10000 + i * 64, 48, 1);
        b.malloc(seq + 1, 0x900000 + i * 64, 32, 2);
    }
    a.stack(1, {0x401000, 0x402000});
    b.stack(2, {0x403000});
    return log;
}

}  // namespace memlog::test

// The memlog command as a user runs it: stat, dump, bad input, usage errors.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>

#include "log_builder.hpp"
#include "run_memlog.hpp"

using memlog::test::LogBuilder;
using memlog::test::Result;
using memlog::test::runMemlog;

namespace {


std::string sampleLog() {
    const std::string path = "/tmp/memlog-cli-" + std::to_string(getpid()) + ".memlog";
    LogBuilder log;
    log.thread(11).malloc(1, 0x1000, 100).malloc(3, 0x2000, 7, 1).stack(1, {0x400000});
    log.thread(12).free(2, 0x1000);
    log.write(path);
    return path;
}

}  // namespace

TEST_CASE("stat --json prints one object with every field") {
    const std::string path = sampleLog();
    const Result r = runMemlog("stat " + path + " --json");
    CHECK(r.m_status == 0);
    CHECK(r.m_stderr.empty());
    for (const char* field :
         {"\"format_version\":5", "\"complete\":true", "\"pid\":4242", "\"exe\":\"/usr/bin/synthetic\"",
          "\"threads\":2", "\"malloc\":2", "\"free\":1", "\"mremap\":0", "\"new[]\":0", "\"allocations\":2",
          "\"frees\":1", "\"peak_bytes\":100", "\"blocks_at_peak\":1", "\"peak_blocks\":1", "\"leaked_bytes\":7", "\"leaked_blocks\":1",
          "\"stacks\":1", "\"unknown_free\":0", "\"lost_events\":0", "\"duration_ns\":2000"}) {
        INFO(field);
        CHECK(r.m_stdout.find(field) != std::string::npos);
    }
    CHECK(std::count(r.m_stdout.begin(), r.m_stdout.end(), '\n') == 1);
    CHECK(r.m_stdout.front() == '{');
    unlink(path.c_str());
}

TEST_CASE("stat without --json is readable text") {
    const std::string path = sampleLog();
    const Result r = runMemlog("stat " + path);
    CHECK(r.m_status == 0);
    CHECK(r.m_stdout.find("peak         100 B in 1 block (live at that moment)\n") != std::string::npos);
    CHECK(r.m_stdout.find("peak blocks  1 (the most live at once)\n") != std::string::npos);
    CHECK(r.m_stdout.find("leaked       7 B in 1 block\n") != std::string::npos);
    unlink(path.c_str());
}

TEST_CASE("stat: the byte peak with its blocks, and the most blocks live at another moment") {
    // 125 bytes in 2 blocks at seq 2; both freed; then 3 one-byte blocks live at once.
    const std::string path = "/tmp/memlog-cli-peaks-" + std::to_string(getpid()) + ".memlog";
    LogBuilder log;
    log.thread(1).malloc(1, 0x1000, 100).malloc(2, 0x2000, 25).free(3, 0x1000).free(4, 0x2000);
    log.thread(1).malloc(5, 0x3000, 1).malloc(6, 0x3010, 1).malloc(7, 0x3020, 1);
    log.write(path);
    const Result text = runMemlog("stat " + path);
    CHECK(text.m_status == 0);
    CHECK(text.m_stdout.find("peak         125 B in 2 blocks (live at that moment)\n") != std::string::npos);
    CHECK(text.m_stdout.find("peak blocks  3 (the most live at once)\n") != std::string::npos);
    const Result json = runMemlog("stat " + path + " --json");
    CHECK(json.m_status == 0);
    CHECK(json.m_stdout.find("\"peak_bytes\":125,\"blocks_at_peak\":2,\"peak_blocks\":3,") != std::string::npos);
    unlink(path.c_str());
}

TEST_CASE("dump --csv prints one row per event in sequence order") {
    const std::string path = sampleLog();
    const Result r = runMemlog("dump " + path + " --csv");
    CHECK(r.m_status == 0);
    CHECK(r.m_stdout ==
          "seq,time_ns,tid,kind,addr,size,old_addr,stack_id\n"
          "1,1000,11,malloc,0x1000,100,0x0,0\n"
          "2,2000,12,free,0x1000,0,0x0,0\n"
          "3,3000,11,malloc,0x2000,7,0x0,1\n");
    unlink(path.c_str());
}

TEST_CASE("access samples: stat counts them by kind and place, dump --accesses --csv lists them") {
    const std::string path = "/tmp/memlog-cli-access-" + std::to_string(getpid()) + ".memlog";
    LogBuilder log;
    log.header().m_accessSampler = memlog::format::AccessSampler::TickPerfClock;
    log.header().m_accessRate = 2000;
    memlog::format::AccessCounters& counters = log.header().m_accessCounters;
    counters.m_ticks = 7;
    counters.m_steps = 3;
    counters.m_samples = 4;
    counters.m_droppedNoAccess = 1;
    counters.m_passedOver = 2;
    log.thread(11).malloc(1, 0x1000, 100).free(6, 0x1000);
    // In the block twice, on thread 12's own stack, then in the block after its free.
    log.thread(12).threadStack(0x7ff000, 0x800000).write(2, 0x1010, 3).read(4, 0x1058).read(5, 0x7ff800).write(7, 0x1010);
    log.thread(13).malloc(3, 0x8000, 16);
    log.write(path);

    const Result json = runMemlog("stat " + path + " --json");
    CHECK(json.m_status == 0);
    for (const char* field :
         {"\"access_sampler\":\"ticks (perf task clock)\"", "\"access_rate\":2000", "\"access_samples\":4",
          "\"access_reads\":2", "\"access_writes\":2", "\"access_heap\":2", "\"access_global\":0",
          "\"access_stack\":1", "\"access_other\":0", "\"access_freed\":1", "\"use_after_free\":1",
          "\"blocks_sampled\":1", "\"access_ticks\":7",
          "\"access_steps\":3", "\"access_passed_over\":2", "\"access_dropped\":1", "\"no_access\":1", "\"access_outside_block\":0",
          "\"events\":3"}) {
        INFO(field);
        CHECK(json.m_stdout.find(field) != std::string::npos);
    }
    const Result text = runMemlog("stat " + path);
    CHECK(text.m_stdout.find("accesses     4 samples (2 reads, 2 writes): heap 2 in 1 block, global 0, stack 1, "
                             "other 0, freed blocks 1\n") != std::string::npos);
    CHECK(text.m_stdout.find("sampler      ticks (perf task clock), 2000 ticks a CPU-second per thread: 7 ticks, 3 "
                             "steps, 2 instructions passed over, 1 dropped (in the recorder 0, while stepping 0, no access within the steps 1, "
                             "undecodable 0, unsupported 0, no room in the log 0)\n") != std::string::npos);

    const Result dump = runMemlog("dump " + path + " --accesses --csv");
    CHECK(dump.m_status == 0);
    CHECK(dump.m_stdout ==
          "seq,time_ns,tid,kind,addr,size,region,block_seq,offset,symbol,ip,stack_id,source,instructions\n"
          "2,2000,12,write,0x1010,8,heap,1,16,,0x402010,3,tick,\n"
          "4,4000,12,read,0x1058,8,heap,1,88,,0x401058,0,tick,\n"
          "5,5000,12,read,0x7ff800,8,stack,,,,0x401800,0,tick,\n"
          "7,7000,12,write,0x1010,8,freed,1,16,,0x402010,0,tick,\n");
    // The heap events are not in it, and the plain dump has no samples.
    CHECK(runMemlog("dump " + path + " --csv").m_stdout.find("read") == std::string::npos);

    const Result blocks = runMemlog("accesses " + path + " --by block --csv");
    CHECK(blocks.m_status == 0);
    CHECK(blocks.m_stdout == "block_seq,addr,size,site,samples,reads,writes,bytes_touched,first_ns,last_ns\n"
                             "1,0x1000,100,(no stack),2,1,1,16,2000,4000\n");
    CHECK(runMemlog("accesses " + path + " --by nothing").m_status == 2);
    unlink(path.c_str());
}

TEST_CASE("a log recorded without access sampling says the sampler was off") {
    const std::string path = sampleLog();
    CHECK(runMemlog("stat " + path + " --json").m_stdout.find("\"access_sampler\":\"off\",\"access_rate\":0,"
                                                              "\"access_samples\":0") != std::string::npos);
    CHECK(runMemlog("dump " + path + " --accesses --csv").m_stdout ==
          "seq,time_ns,tid,kind,addr,size,region,block_seq,offset,symbol,ip,stack_id,source,instructions\n");
    unlink(path.c_str());
}

TEST_CASE("bad input: one line naming the file and the offset, exit status 2") {
    const std::string path = "/tmp/memlog-cli-" + std::to_string(getpid()) + ".bad";
    std::ofstream(path) << "this is not a log at all, just some text";
    for (const std::string& command :
         std::vector<std::string>{"stat " + path, "dump " + path + " --csv", "stat /nonexistent.memlog",
                                  "diff " + path + " " + path, "pprof " + path + " -o /dev/null",
                                  "trace-events " + path + " -o /dev/null"}) {
        INFO(command);
        const Result r = runMemlog(command);
        CHECK(r.m_status == 2);
        CHECK(std::count(r.m_stderr.begin(), r.m_stderr.end(), '\n') == 1);
        CHECK(r.m_stderr.find("offset") != std::string::npos);
    }
    CHECK(runMemlog("stat " + path).m_stderr.find(path) != std::string::npos);
    unlink(path.c_str());
}

TEST_CASE("usage errors exit 2 and --help tells the commands") {
    CHECK(runMemlog("frobnicate").m_status == 2);
    CHECK(runMemlog("stat").m_status == 2);
    CHECK(runMemlog("stat --bogus x").m_status == 2);
    CHECK(runMemlog("run --unwind magic -- true").m_status == 2);
    CHECK(runMemlog("run --access-rate 0 -- true").m_status == 2);
    CHECK(runMemlog("run --access-rate fast -- true").m_status == 2);
    CHECK(runMemlog("run --help").m_stdout.find("--access-rate N") != std::string::npos);
    const Result help = runMemlog("--help");
    CHECK(help.m_status == 0);
    for (const char* command : {"run", "stat", "dump", "ls", "--verbose", "--quiet", "MEMLOG_LOG_LEVEL"})
        CHECK(help.m_stdout.find(command) != std::string::npos);
    CHECK(runMemlog("-v").m_status == 2);  // an option and no command: the usage
    for (const char* command : {"diff", "pprof", "trace-events"}) CHECK(help.m_stdout.find(command) != std::string::npos);
    for (const char* wrong : {"diff one.memlog", "diff a b c", "diff a b --by module", "diff a b --sort size",
                              "diff a b --json --csv", "diff a b --top many", "pprof a", "pprof a -o",
                              "pprof a -o b --at soon", "pprof a -o b --at 5min", "trace-events a",
                              "trace-events a -o b --points 5"}) {
        INFO(wrong);
        const Result r = runMemlog(wrong);
        CHECK(r.m_status == 2);
        CHECK(r.m_stdout.empty());
        CHECK(r.m_stderr.rfind("memlog: ", 0) == 0);
    }
    CHECK(runMemlog("pprof --help").m_stdout.find("--at MOMENT") != std::string::npos);
    CHECK(runMemlog("diff --help").m_stdout.find("--sort METRIC") != std::string::npos);
    CHECK(runMemlog("trace-events --help").m_stdout.find("Perfetto") != std::string::npos);
}

TEST_CASE("memlog run records a program into the named file and keeps its exit status") {
    const std::string path = "/tmp/memlog-cli-run-" + std::to_string(getpid()) + ".memlog";
    std::ofstream(path) << "stale";  // replaced, as -o promises
    const Result r = runMemlog("run -q -o " + path + " -- sh -c 'exit 7'");
    CHECK(r.m_status == 7);
    CHECK(r.m_stderr.empty());
    const Result stat = runMemlog("stat " + path + " --json");
    CHECK(stat.m_status == 0);
    CHECK(stat.m_stdout.find("\"complete\":true") != std::string::npos);
    CHECK(runMemlog("run -q -o " + path + " -- /nonexistent/program").m_status == 127);
    unlink(path.c_str());
}

TEST_CASE("every reader reads a log cut inside its last record up to the tear and says where it stopped") {
    const std::string path = "/tmp/memlog-cli-cut-" + std::to_string(getpid()) + ".memlog";
    LogBuilder log;
    auto& thread = log.thread(11).stack(1, {0x400000});
    for (uint64_t i = 1; i <= 10; ++i) thread.malloc(i, 0x1000 * i, 100, 1);
    std::vector<uint8_t> bytes = log.bytes();
    // The last record: the last byte that is not the chunk's unwritten zeros ends it; the cut
    // falls one byte before that.
    size_t end = bytes.size();
    while (end > 0 && bytes[end - 1] == 0) --end;
    bytes.resize(end - 1);
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                static_cast<std::streamsize>(bytes.size()));
    for (const char* command : {"stat", "stat --json", "dump", "dump --csv", "sites", "flame", "accesses", "uaf",
                                "arrays", "pprof -o /dev/null", "trace-events -o /dev/null"}) {
        INFO(command);
        const Result r = runMemlog(std::string(command) + " " + path);
        CHECK(r.m_status == 0);
        const std::string said = "memlog: " + path + ": offset ";
        const size_t at = r.m_stderr.find(said);
        REQUIRE(at != std::string::npos);
        CHECK(r.m_stderr.find(said, at + 1) == std::string::npos);  // once
        // The offset names the torn record: in the chunk, before the cut.
        const uint64_t offset = std::stoull(r.m_stderr.substr(at + said.size()));
        CHECK(offset > memlog::format::kHeaderBytes + sizeof(memlog::format::ChunkHeader));
        CHECK(offset < bytes.size());
        CHECK(r.m_stderr.find("(torn tail); read up to here\n") != std::string::npos);
    }
    // What was before the tear is all there: nine of the ten blocks.
    CHECK(runMemlog("stat --json " + path).m_stdout.find("\"malloc\":9,") != std::string::npos);
    unlink(path.c_str());
}

TEST_CASE("every reader skips a damaged chunk header in the middle of a log and says where, once") {
    const std::string path = "/tmp/memlog-cli-chunk-" + std::to_string(getpid()) + ".memlog";
    LogBuilder log;
    auto& thread = log.thread(11, 4096).stack(1, {0x400000});
    for (uint64_t i = 1; i <= 3000; ++i) thread.malloc(i, 0x1000 * i, 100, 1);
    std::vector<uint8_t> bytes = log.bytes();
    const size_t second = memlog::format::kHeaderBytes + 4096;  // the second chunk's header
    REQUIRE(bytes.size() > second + 4096);
    bytes[second] ^= 0x20;  // its magic
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                static_cast<std::streamsize>(bytes.size()));
    const std::string said = "memlog: " + path + ": offset " + std::to_string(second) +
                             ": a page that is neither a chunk nor empty (a damaged chunk header?); 4096 bytes "
                             "skipped, read on from offset " +
                             std::to_string(second + 4096) + "\n";
    for (const char* command : {"stat", "stat --json", "dump", "dump --csv", "sites", "flame", "accesses", "uaf",
                                "arrays", "pprof -o /dev/null", "trace-events -o /dev/null"}) {
        INFO(command);
        const Result r = runMemlog(std::string(command) + " " + path);
        CHECK(r.m_status == 0);
        CHECK(r.m_stderr.find(said) == 0);  // first, whatever the command adds after it
        CHECK(r.m_stderr.find(said, 1) == std::string::npos);  // once
    }
    // The other chunks are read: one chunk's mallocs (about 500 here) are missing, no more.
    const std::string json = runMemlog("stat --json " + path).m_stdout;
    const size_t at = json.find("\"malloc\":");
    REQUIRE(at != std::string::npos);
    const uint64_t mallocs = std::stoull(json.substr(at + 9));
    CHECK(mallocs < 3000);
    CHECK(mallocs > 2000);
    unlink(path.c_str());
}

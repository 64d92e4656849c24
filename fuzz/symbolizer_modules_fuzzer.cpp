// The symbolizer's module handling: module maps as a log could give them (any ranges and load
// biases, overlapping, empty, repeated; paths to real ELF files, to things that are not ELF or
// not regular files, to nothing) and addresses anywhere, resolved as code and as data.
#include <fuzzer/FuzzedDataProvider.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "unwind/symbolizer.hpp"

namespace {

// Paths a module record may name. The harness itself is an ELF file with DWARF; the FIFO would
// block an open() for ever.
const std::vector<std::string>& candidatePaths() {
    static const std::vector<std::string> paths = [] {
        const std::string fifo = "/tmp/memlog-fuzz-fifo-" + std::to_string(getpid());
        mkfifo(fifo.c_str(), 0600);
        char self[4096] = {};
        const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
        return std::vector<std::string>{length > 0 ? std::string(self, static_cast<size_t>(length)) : "/proc/self/exe",
                                        "/lib/x86_64-linux-gnu/libc.so.6", "/etc/hostname", "/dev/null", "/",
                                        fifo, "/does/not/exist", "[vdso]", ""};
    }();
    return paths;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    FuzzedDataProvider input(data, size);
    std::vector<memlog::unwind::LoadedModule> modules(input.ConsumeIntegralInRange<size_t>(0, 12));
    for (memlog::unwind::LoadedModule& module : modules) {
        const std::vector<std::string>& paths = candidatePaths();
        module.m_path = input.ConsumeBool() ? paths[input.ConsumeIntegralInRange<size_t>(0, paths.size() - 1)]
                                            : input.ConsumeRandomLengthString(64);
        module.m_buildId = input.ConsumeRandomLengthString(8);
        module.m_base = input.ConsumeIntegral<uint64_t>();
        module.m_lo = input.ConsumeIntegral<uint64_t>();
        module.m_hi = input.ConsumeBool() ? module.m_lo + input.ConsumeIntegral<uint32_t>() : input.ConsumeIntegral<uint64_t>();
    }
    memlog::unwind::Symbolizer symbolizer(modules, [](const std::string&) {});
    while (input.remaining_bytes() >= 8) {
        const uint64_t address = input.ConsumeIntegral<uint64_t>();
        (void)symbolizer.resolve(address);
        (void)symbolizer.resolveInstruction(address);
        (void)symbolizer.symbolAt(address);
        (void)symbolizer.dataSymbolAt(address);
    }
    (void)symbolizer.dataSymbolNamed(input.ConsumeRandomLengthString(32));
    return 0;
}

// The files of kept names (unwind/name_cache.hpp) as another run, a crash or anyone could leave
// them: a file whose header holds for this reader followed by any bytes (the names), or any bytes
// at all. Loaded, looked up, added to and saved, then loaded again.
#include <fuzzer/FuzzedDataProvider.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "unwind/name_cache.hpp"

namespace {

constexpr char kBuildId[] = "00112233445566778899aabbccddeeff00112233";

void putString(std::string& out, const std::string& text) {
    const auto length = static_cast<uint32_t>(text.size());
    out.append(reinterpret_cast<const char*>(&length), sizeof length);
    out += text;
}

const std::string& cacheDirectory() {
    static const std::string directory = [] {
        const std::string path = "/tmp/memlog-fuzz-names-" + std::to_string(getpid());
        std::filesystem::create_directories(path + "/names");
        return path;
    }();
    return directory;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    FuzzedDataProvider input(data, size);
    const memlog::unwind::ModuleNames::Origin origin{"reader", "module stamp", "debug stamp"};
    std::string file;
    if (input.ConsumeBool()) {  // a header that holds: the names are what is fuzzed
        file = "memlog names 1\n";
        for (const std::string& part : {origin.m_reader, origin.m_module, origin.m_buildIdDebug, std::string(),
                                        std::string()})
            putString(file, part);
    }
    const std::vector<uint8_t> rest = input.ConsumeRemainingBytes<uint8_t>();
    file.append(rest.begin(), rest.end());
    const std::string path = cacheDirectory() + "/names/" + kBuildId;
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(file.data(), static_cast<std::streamsize>(file.size()));

    memlog::unwind::ModuleNames names(cacheDirectory(), kBuildId, origin);
    names.load();
    for (uint64_t offset : {0ull, 1ull, 0x1000ull, ~0ull}) (void)names.find(offset);
    // A name the file may already hold (then it stays), else one added; saved and read back.
    const auto* held = names.find(0x1234);
    const std::string expected = held && !held->empty() ? (*held)[0].m_function : "function";
    const size_t frames = held ? held->size() : 1;
    if (!held) names.add(0x1234, {memlog::unwind::SourceFrame{"function", "file.c", 7, {}, false}});
    names.save();
    memlog::unwind::ModuleNames again(cacheDirectory(), kBuildId, origin);
    again.load();
    const auto* back = again.find(0x1234);
    if (held && !back) return 0;  // nothing was added, so nothing was written: the file stays as it was
    if (!back || back->size() != frames || (frames > 0 && (*back)[0].m_function != expected)) __builtin_trap();
    return 0;
}

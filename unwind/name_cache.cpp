// The files of kept names: a header of what the names came from, then the names by offset.
//   "memlog names 1\n"
//   reader, module stamp, build-id debug stamp, debug file, its stamp   (strings)
//   count (u32), then per address: offset (u64), frames (u32), per frame: inlined (u8),
//   line (u32), function, file (strings)
// A string is its length (u32) and bytes; numbers are little-endian. Read with every length
// checked against what is left: a torn or foreign file reads as none.
#include "unwind/name_cache.hpp"

#include <fcntl.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "unwind/build_id.hpp"

namespace memlog::unwind {
namespace {

constexpr char kMagic[] = "memlog names 1\n";
constexpr size_t kMaxFileBytes = 64u << 20;  // a module's names are a few hundred KiB at most
constexpr uint32_t kMaxFrames = 4096;  // inlined calls of one address

std::string& cacheDirectory() {
    static std::string directory;
    return directory;
}

// The main program's GNU build id in hex; empty when it has none.
std::string ownBuildId() {
    std::string id;
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* arg) -> int {
            const uint8_t* bytes = nullptr;
            const uint32_t length = gnuBuildId(info, &bytes, UINT32_MAX);
            *static_cast<std::string*>(arg) = hexBytes(bytes, length);
            return 1;  // the first object is the main program: stop there
        },
        &id);
    return id;
}

void putU32(std::string& out, uint32_t value) { out.append(reinterpret_cast<const char*>(&value), sizeof value); }
void putU64(std::string& out, uint64_t value) { out.append(reinterpret_cast<const char*>(&value), sizeof value); }
void putString(std::string& out, const std::string& text) {
    putU32(out, static_cast<uint32_t>(text.size()));
    out += text;
}

// Reads what a file holds, each step checked against its end.
class Bytes {
public:
    explicit Bytes(const std::string& data) : m_at(data.data()), m_end(data.data() + data.size()) {}
    bool skip(const char* expected, size_t length) {
        if (static_cast<size_t>(m_end - m_at) < length || std::memcmp(m_at, expected, length) != 0) return false;
        m_at += length;
        return true;
    }
    template <typename T>
    bool number(T& value) {
        if (static_cast<size_t>(m_end - m_at) < sizeof value) return false;
        std::memcpy(&value, m_at, sizeof value);
        m_at += sizeof value;
        return true;
    }
    bool string(std::string& text) {
        uint32_t length;
        if (!number(length) || static_cast<size_t>(m_end - m_at) < length) return false;
        text.assign(m_at, length);
        m_at += length;
        return true;
    }
    bool atEnd() const { return m_at == m_end; }

private:
    const char* m_at;
    const char* m_end;
};

std::optional<std::string> readWhole(const std::string& path) {
    FILE* file = std::fopen(path.c_str(), "rb");
    if (!file) return std::nullopt;
    std::string data;
    char buffer[65536];
    size_t got;
    while ((got = std::fread(buffer, 1, sizeof buffer, file)) > 0 && data.size() <= kMaxFileBytes)
        data.append(buffer, got);
    const bool failed = std::ferror(file) || data.size() > kMaxFileBytes;
    std::fclose(file);
    if (failed) return std::nullopt;
    return data;
}

// A folder of more than kMostFiles files (a binary rebuilt often leaves one per build id) is cut
// back to kKeptFiles, the least recently used first (a load marks a file used): bounded without
// a size to tune, and never the file just written.
constexpr size_t kMostFiles = 1024, kKeptFiles = 768;

void pruneLeastRecentlyUsed(const std::string& directory, const std::string& justWritten) {
    namespace fs = std::filesystem;
    std::error_code error;
    std::vector<std::pair<fs::file_time_type, fs::path>> files;
    for (fs::directory_iterator it(directory, error), end; !error && it != end; it.increment(error)) {
        const fs::file_time_type used = it->last_write_time(error);
        if (!error) files.emplace_back(used, it->path());
    }
    if (files.size() <= kMostFiles) return;
    std::sort(files.begin(), files.end());
    for (size_t i = 0; i + kKeptFiles < files.size(); ++i)
        if (files[i].second != justWritten) fs::remove(files[i].second, error);
}

bool makeDirectories(const std::string& path) {
    for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
        const std::string prefix = path.substr(0, slash);
        if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) return false;
        if (slash == std::string::npos) return true;
    }
}

}  // namespace

std::string defaultNameCacheDirectory() {
    if (const char* own = std::getenv("MEMLOG_CACHE_DIR")) return own;
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && xdg[0] == '/') return std::string(xdg) + "/memlog";
    if (const char* home = std::getenv("HOME"); home && home[0] == '/') return std::string(home) + "/.cache/memlog";
    return {};
}

void setNameCacheDirectory(std::string directory) { cacheDirectory() = std::move(directory); }
const std::string& nameCacheDirectory() { return cacheDirectory(); }

bool usableBuildId(const std::string& buildId) {
    if (buildId.size() < 2 || buildId.size() > 128) return false;
    for (const char c : buildId)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

std::string readerBuildId() {
    static const std::string id = [] {
        std::string own = ownBuildId();
        // Without a note, the program file itself stands for its code.
        return own.empty() ? "exe " + fileStamp("/proc/self/exe") : own;
    }();
    return id;
}

std::string fileStamp(const std::string& path) {
    struct stat info {};
    if (path.empty() || ::stat(path.c_str(), &info) != 0) return "-";
    return std::to_string(info.st_size) + ":" + std::to_string(info.st_mtim.tv_sec) + "." +
           std::to_string(info.st_mtim.tv_nsec) + ":" + std::to_string(info.st_ino);
}

std::string buildIdDebugPath(const std::string& buildId) {
    return "/usr/lib/debug/.build-id/" + buildId.substr(0, 2) + "/" + buildId.substr(2) + ".debug";
}

ModuleNames::ModuleNames(const std::string& directory, const std::string& buildId, Origin origin)
    : m_directory(directory + "/names"), m_path(m_directory + "/" + buildId), m_origin(std::move(origin)) {}

void ModuleNames::load() {
    std::string debugFile;
    if (!read(m_names, debugFile)) return;
    m_debugFile = debugFile;
    ::utimensat(AT_FDCWD, m_path.c_str(), nullptr, 0);  // used now: kept the longest (pruneLeastRecentlyUsed)
}

const std::vector<SourceFrame>* ModuleNames::find(uint64_t offset) const {
    auto it = m_names.find(offset);
    return it == m_names.end() ? nullptr : &it->second;
}

void ModuleNames::add(uint64_t offset, std::vector<SourceFrame> frames) {
    m_names.emplace(offset, std::move(frames));
    m_added = true;
}

bool ModuleNames::read(std::unordered_map<uint64_t, std::vector<SourceFrame>>& into, std::string& debugFile) const {
    const std::optional<std::string> data = readWhole(m_path);
    if (!data) return false;
    Bytes bytes(*data);
    Origin origin;
    std::string debugStamp;
    uint32_t count;
    if (!bytes.skip(kMagic, sizeof kMagic - 1) || !bytes.string(origin.m_reader) || !bytes.string(origin.m_module) ||
        !bytes.string(origin.m_buildIdDebug) || !bytes.string(debugFile) || !bytes.string(debugStamp) ||
        !bytes.number(count))
        return false;
    if (!(origin == m_origin) || (!debugFile.empty() && fileStamp(debugFile) != debugStamp)) return false;
    std::unordered_map<uint64_t, std::vector<SourceFrame>> names;
    for (uint32_t i = 0; i < count; ++i) {
        uint64_t offset;
        uint32_t frames;
        if (!bytes.number(offset) || !bytes.number(frames) || frames > kMaxFrames) return false;
        std::vector<SourceFrame> chain(frames);
        for (SourceFrame& frame : chain) {
            uint8_t inlined;
            if (!bytes.number(inlined) || !bytes.number(frame.m_line) || !bytes.string(frame.m_function) ||
                !bytes.string(frame.m_file))
                return false;
            frame.m_inlined = inlined != 0;
        }
        names.emplace(offset, std::move(chain));
    }
    if (!bytes.atEnd()) return false;
    for (auto& [offset, chain] : names) into.try_emplace(offset, std::move(chain));
    return true;
}

void ModuleNames::save() {
    if (!m_added) return;
    // What another run wrote since this one loaded joins ours (a name is the same either way).
    std::string theirDebugFile;
    read(m_names, theirDebugFile);
    std::string data(kMagic, sizeof kMagic - 1);
    putString(data, m_origin.m_reader);
    putString(data, m_origin.m_module);
    putString(data, m_origin.m_buildIdDebug);
    putString(data, m_debugFile);
    putString(data, m_debugFile.empty() ? std::string() : fileStamp(m_debugFile));
    putU32(data, static_cast<uint32_t>(m_names.size()));
    for (const auto& [offset, chain] : m_names) {
        putU64(data, offset);
        putU32(data, static_cast<uint32_t>(chain.size()));
        for (const SourceFrame& frame : chain) {
            data += static_cast<char>(frame.m_inlined ? 1 : 0);
            putU32(data, frame.m_line);
            putString(data, frame.m_function);
            putString(data, frame.m_file);
        }
    }
    if (data.size() > kMaxFileBytes || !makeDirectories(m_directory)) return;
    // Whole or not at all: written aside, then renamed over the old file.
    const std::string aside = m_path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(::gettid());
    FILE* file = std::fopen(aside.c_str(), "wb");
    if (!file) return;
    const bool written = std::fwrite(data.data(), 1, data.size(), file) == data.size();
    if (std::fclose(file) != 0 || !written || std::rename(aside.c_str(), m_path.c_str()) != 0) {
        ::unlink(aside.c_str());
        return;
    }
    m_added = false;
    pruneLeastRecentlyUsed(m_directory, m_path);
}

}  // namespace memlog::unwind

// Names of return addresses kept between runs of the readers, one file per module build id, so
// that a second `memlog stat` of a program does not read its libraries' debug information again
// (the C library's alone is 60-80 ms of decompression). A file is trusted only while everything
// its names came from is unchanged: the reader that named them (its own build id: any rebuild of
// memlog starts afresh), the module file (size, modification time) and the debug files libdw
// used or would look at first. Anything else (a torn, foreign or stale file) reads as empty and
// is written anew. A folder of more than 1,024 files is cut back to the 768 used last. Best
// effort: a directory that cannot be written costs only the time saved.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "unwind/symbolizer.hpp"

namespace memlog::unwind {

// Where the readers keep names: $MEMLOG_CACHE_DIR when set (empty: nowhere), else
// $XDG_CACHE_HOME/memlog, else $HOME/.cache/memlog; empty when none of them is set.
std::string defaultNameCacheDirectory();

// The process's setting, read by every Symbolizer made after it; empty (the default) keeps no
// names. The command-line tools set it first thing in main().
void setNameCacheDirectory(std::string directory);
const std::string& nameCacheDirectory();

// A build id as the cache names files by: hex digits only (a log's build id is not trusted to
// be a file name).
bool usableBuildId(const std::string& buildId);

// The names of one module's addresses (by offset from its load bias) as kept in one file.
// Frames are stored as named before the module's name and the "module+0x..." fallback are put
// in (those come from the log being read, not from the binary).
class ModuleNames {
public:
    // What the names depend on besides the module's build id, known before any name is read.
    struct Origin {
        std::string m_reader;  // the reading program's build id
        std::string m_module;  // the module file's stamp (fileStamp)
        std::string m_buildIdDebug;  // the stamp of the debug file at the build-id path
        bool operator==(const Origin&) const = default;
    };

    ModuleNames(const std::string& directory, const std::string& buildId, Origin origin);

    // The file's names when its origin is this one and the debug file its names came from (if
    // any) is unchanged; none otherwise. Once, before the first find.
    void load();
    const std::vector<SourceFrame>* find(uint64_t offset) const;
    void add(uint64_t offset, std::vector<SourceFrame> frames);
    // The debug file libdw opened for the module, when it looked for one.
    void setDebugFile(const std::string& path) { m_debugFile = path; }
    // Writes the file when names were added (merged with what another run wrote meanwhile).
    void save();

    size_t size() const { return m_names.size(); }
    const std::string& path() const { return m_path; }

private:
    // The file's names into `into`, and its debug file; false when it does not hold for now.
    bool read(std::unordered_map<uint64_t, std::vector<SourceFrame>>& into, std::string& debugFile) const;

    std::string m_directory;
    std::string m_path;
    Origin m_origin;
    std::string m_debugFile;  // empty: none (the module's own DWARF or symbols, or nothing)
    std::unordered_map<uint64_t, std::vector<SourceFrame>> m_names;
    bool m_added = false;
};

// The origin's parts, from the file system (unwind/name_cache.cpp).
std::string readerBuildId();
std::string fileStamp(const std::string& path);  // "size:mtime_ns", or "-" when there is none
std::string buildIdDebugPath(const std::string& buildId);  // /usr/lib/debug/.build-id/xx/rest.debug

}  // namespace memlog::unwind

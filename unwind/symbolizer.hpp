// Offline symbolisation for the readers: a return address from a log becomes the chain of source
// frames it stands for (inlined functions expanded), using the module map the log recorded.
// elfutils' libdw reads the DWARF; stripped code falls back to the ELF symbol tables, then to
// "module+0xoffset": never a blank.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace memlog::unwind {

struct LoadedModule {
    std::string m_path;
    std::string m_buildId;  // hex, as recorded; empty when unknown
    uint64_t m_base = 0;  // load bias
    uint64_t m_lo = 0;  // address range of its segments
    uint64_t m_hi = 0;
};

// The modules that hold addresses, as indexes into `inMapOrder` (the log's module maps, one after
// another): a module with an empty range, or one that a later module overlaps (dlclose, then a
// dlopen at its place), is left out; the rest are in address order. O(n log n): a damaged log
// may name hundreds of thousands.
std::vector<size_t> latestModulesByAddress(const std::vector<LoadedModule>& inMapOrder);

struct SourceFrame {
    std::string m_function;  // demangled; "module+0x1234" when nothing better is known
    std::string m_file;  // empty when unknown
    uint32_t m_line = 0;  // 0 when unknown
    std::string m_module;  // basename of the object the code is in
    bool m_inlined = false;  // inlined into the next frame of the chain
};

class Symbolizer {
public:
    // Names are kept between runs in nameCacheDirectory() when it is set (name_cache.hpp),
    // written when the symboliser is destroyed. `warn` is told once per problem (a binary that changed since the recording, one that is
    // missing), with a sentence for the user.
    Symbolizer(std::vector<LoadedModule> modules, std::function<void(const std::string&)> warn);
    ~Symbolizer();
    Symbolizer(const Symbolizer&) = delete;
    Symbolizer& operator=(const Symbolizer&) = delete;

    // The source frames of one return address, innermost first: inlined callees, then the
    // function the call is in. Cached per address.
    const std::vector<SourceFrame>& resolve(uint64_t returnAddress);
    // How many distinct addresses resolve() has named so far (what a walk cost, for tests).
    size_t addressesResolved() const;
    // How many of them came from names kept by an earlier run (name_cache.hpp), not libdw.
    size_t addressesFromKeptNames() const;
    // The module (basename) of the code at a return address, as resolve() would name it, without
    // reading any debug information: empty when no module of the map holds it.
    const std::string& moduleName(uint64_t returnAddress) const;
    // The same for the instruction at `address` itself (an access sample's instruction).
    const std::vector<SourceFrame>& resolveInstruction(uint64_t address) { return resolve(address + 1); }

    // The ELF symbol whose extent holds a data address: "name", or "name+0x10" inside it; else
    // "module+0xoffset"; else the address in hex.
    std::string symbolAt(uint64_t address);

    // A data symbol (a global) with its place: the one whose extent holds `address`, or the one
    // named `name` (the first found, modules in map order).
    struct DataSymbol {
        std::string m_name;
        uint64_t m_start = 0;
        uint64_t m_size = 0;
    };
    std::optional<DataSymbol> dataSymbolAt(uint64_t address);
    std::optional<DataSymbol> dataSymbolNamed(const std::string& name);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace memlog::unwind

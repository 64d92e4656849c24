// One walk with the summary's attribution: the samples of heap blocks (by their allocation's
// sequence number) and of globals (by their symbol), the blocks' lifetimes and each site's
// ordinals; the names come after the walk, from the annotations, the source and the symbols.
#include "timeline/accesses/sampled_arrays.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "timeline/replay/access_attribution.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/base/number_parsing.hpp"
#include "timeline/base/seeded_hash.hpp"
#include "timeline/names/allocator_plumbing.hpp"
#include "timeline/names/site_table.hpp"
#include "timeline/names/stack_names.hpp"
#include "timeline/names/source_names.hpp"
#include "timeline/replay/block_observer.hpp"

namespace memlog::timeline {
namespace {

// A global array: where the symbol tables put it, named after its symbol.
SampledArray globalArray(const unwind::Symbolizer::DataSymbol& symbol) {
    SampledArray array;
    array.m_global = true;
    array.m_addr = symbol.m_start;
    array.m_size = symbol.m_size;
    array.m_name = symbol.m_name;
    array.m_nameFrom = "symbol";
    return array;
}

// A user's choice of array (findArray), or none: every sampled array (sampledArrays).
struct Wanted {
    enum class By { Everything, Address, Seq, Site, Global } m_by = By::Everything;
    uint64_t m_value = 0;  // the address, the sequence number, the ordinal
    std::string m_name;  // the site function, the global
};

class Gather final : public BlockObserver {
public:
    Gather(StackNames& names, const Wanted& wanted) : m_names(names), m_wanted(wanted) {}

    void begin(const BlockChange& change) override {
        Block& block = m_live[change.m_addr];
        block = {change.m_seq, change.m_addr, change.m_size, change.m_timeNs, change.m_stack, 0};
        block.m_ordinal = ++m_ordinals[siteOf(change.m_stack)];
        if (chosen(block)) open(block);
    }
    void end(const BlockChange& change) override {
        const auto it = m_live.find(change.m_addr);
        if (it == m_live.end()) return;
        if (const auto array = m_index.find(it->second.m_seq); array != m_index.end())
            m_arrays[array->second].m_endNs = change.m_timeNs;
        m_live.erase(it);
    }
    void access(const AccessSample& sample, const Attribution& where) override {
        SampledArray* array = nullptr;
        if (where.m_region == Region::Heap) {
            const auto it = m_index.find(where.m_blockSeq);
            if (it != m_index.end()) {
                array = &m_arrays[it->second];
            } else if (m_wanted.m_by == Wanted::By::Everything) {
                const auto live = m_live.find(where.m_blockAddr);
                if (live != m_live.end()) array = &open(live->second);
            }
        } else if (where.m_region == Region::Global) {
            array = global(sample.m_addr);
        }
        if (!array) return;
        const uint64_t ip = sample.m_ipAfter ? sample.m_ip - 1 : sample.m_ip;
        array->m_samples.push_back({sample.m_seq, sample.m_timeNs, sample.m_addr - array->m_addr, ip,
                                    static_cast<uint32_t>(sample.m_size), sample.m_tid, sample.m_kind});
    }

    std::vector<SampledArray> finish(uint64_t endNs) {
        for (SampledArray& array : m_arrays)
            if (!array.m_global && array.m_endNs == 0) array.m_endNs = endNs;
        return std::move(m_arrays);
    }

private:
    struct Block {
        uint64_t m_seq, m_addr, m_size, m_beginNs;
        uint32_t m_stack;
        uint64_t m_ordinal;
    };

    const std::string& siteOf(uint32_t stack) {
        auto [it, added] = m_siteOfStack.try_emplace(stack);
        if (added) it->second = m_names.site(stack).m_function;
        return it->second;
    }

    bool chosen(const Block& block) {
        switch (m_wanted.m_by) {
            case Wanted::By::Seq:
                return block.m_seq == m_wanted.m_value;
            case Wanted::By::Address:
                return m_wanted.m_value - block.m_addr < block.m_size;
            case Wanted::By::Site:
                return block.m_ordinal == m_wanted.m_value && siteOf(block.m_stack) == m_wanted.m_name;
            default:
                return false;
        }
    }

    SampledArray& open(const Block& block) {
        m_index[block.m_seq] = m_arrays.size();
        SampledArray& array = m_arrays.emplace_back();
        array.m_blockSeq = block.m_seq;
        array.m_addr = block.m_addr;
        array.m_size = block.m_size;
        array.m_beginNs = block.m_beginNs;
        array.m_stack = block.m_stack;
        array.m_ordinal = block.m_ordinal;
        array.m_site = siteOf(block.m_stack);
        return array;
    }

    SampledArray* global(uint64_t addr) {
        const bool wantedGlobal = m_wanted.m_by == Wanted::By::Global || m_wanted.m_by == Wanted::By::Address;
        if (m_wanted.m_by != Wanted::By::Everything && !wantedGlobal) return nullptr;
        const auto symbol = m_names.dataSymbolAt(addr);
        if (!symbol) return nullptr;
        if (m_wanted.m_by == Wanted::By::Global && symbol->m_name != m_wanted.m_name) return nullptr;
        if (m_wanted.m_by == Wanted::By::Address && m_wanted.m_value - symbol->m_start >= symbol->m_size)
            return nullptr;
        auto [it, added] = m_globals.try_emplace(symbol->m_start, m_arrays.size());
        if (added) m_arrays.push_back(globalArray(*symbol));
        return &m_arrays[it->second];
    }

    StackNames& m_names;
    const Wanted& m_wanted;
    NumberMap<uint64_t, Block> m_live;  // by address
    NumberMap<uint32_t, std::string> m_siteOfStack;
    std::unordered_map<std::string, uint64_t> m_ordinals;  // blocks allocated so far, by site
    NumberMap<uint64_t, size_t> m_index;  // block seq: index in m_arrays
    NumberMap<uint64_t, size_t> m_globals;  // a global's address: index
    std::vector<SampledArray> m_arrays;
};

// The name a user knows a heap array by, and its element type when the source shows it.
void nameArray(SampledArray& array, const LogReader& reader, StackNames& names, SourceFiles& files) {
    for (const Annotation& annotation : reader.annotations()) {
        if (annotation.m_addr - array.m_addr >= array.m_size) continue;
        if (!array.m_global && (annotation.m_seq < array.m_blockSeq)) continue;
        if (annotation.m_what == format::AnnotationKind::Name) {
            array.m_name = annotation.m_text;
            array.m_nameFrom = "memlog_name";
        } else if (annotation.m_what == format::AnnotationKind::ArrayShape) {
            array.m_annotatedShape =
                ArrayShape{annotation.m_elementSize, annotation.m_rows, annotation.m_columns, annotation.m_depth};
        }
    }
    if (array.m_global) return;
    // The allocating line, then its caller's: `a = new_matrix(n)` names what new_matrix returns.
    const auto frames = names.frames(array.m_stack);
    const auto site = std::find_if(frames.begin(), frames.end(),
                                   [](const unwind::SourceFrame& f) { return !isAllocatorPlumbing(f); });
    if (site != frames.end()) {
        if (const auto text = files.line(site->m_file, site->m_line)) {
            const SourceLineNames said = parseSourceLine(*text);
            array.m_sourceType = said.m_type;
            array.m_sourceElementSize = said.m_elementSize;
            if (array.m_name.empty() && !said.m_variable.empty()) {
                array.m_name = said.m_variable;
                array.m_nameFrom = "source line " + siteLocation(*site);
            }
        }
        const auto caller = site + 1;
        if (array.m_name.empty() && caller != frames.end())
            if (const auto text = files.line(caller->m_file, caller->m_line)) {
                const SourceLineNames said = parseSourceLine(*text, site->m_function);
                if (!said.m_variable.empty()) {
                    array.m_name = said.m_variable;
                    array.m_nameFrom = "source line " + siteLocation(*caller);
                }
            }
    }
    if (array.m_name.empty()) {
        array.m_name = array.m_site + ":" + std::to_string(array.m_ordinal);
        array.m_nameFrom = "site";
    }
}

uint64_t logEndNs(const LogReader& reader) {
    const auto& header = reader.header();
    return reader.lastTsc() >= reader.firstTsc() ? format::tscToNs(header, reader.lastTsc()) - header.m_startNs : 0;
}

std::vector<SampledArray> gather(LogReader& reader, StackNames& names, const Wanted& wanted) {
    Gather gather(names, wanted);
    summarize(reader, {}, &gather);
    std::vector<SampledArray> arrays = gather.finish(logEndNs(reader));
    SourceFiles files;
    for (SampledArray& array : arrays) nameArray(array, reader, names, files);
    return arrays;
}

}  // namespace

std::vector<SampledArray> sampledArrays(LogReader& reader, StackNames& names) {
    std::vector<SampledArray> arrays = gather(reader, names, Wanted{});
    std::stable_sort(arrays.begin(), arrays.end(), [](const SampledArray& a, const SampledArray& b) {
        return a.m_samples.size() > b.m_samples.size();
    });
    return arrays;
}

std::optional<ArraySpec> parseArraySpec(const std::string& spec) {
    ArraySpec parsed;
    std::optional<uint64_t> number;
    if (spec.starts_with("seq=")) {
        parsed.m_by = ArraySpec::By::Seq;
        number = parseCount(spec.substr(4));
    } else if (spec.starts_with("site=")) {
        parsed.m_by = ArraySpec::By::Site;
        const size_t colon = spec.rfind(':');
        if (colon != std::string::npos && colon > 5) {
            number = parseCount(spec.substr(colon + 1));
            parsed.m_name = spec.substr(5, colon - 5);
        }
        if (number == 0u) number.reset();  // ordinals count from 1
    } else if (spec.starts_with("global=") && spec.size() > 7) {
        parsed.m_by = ArraySpec::By::Global;
        parsed.m_name = spec.substr(7);
        number = 0;
    } else if (spec.starts_with("0x")) {
        parsed.m_by = ArraySpec::By::Address;
        number = parseHex(spec);
    }
    if (!number) return std::nullopt;
    parsed.m_value = *number;
    return parsed;
}

std::optional<SampledArray> findArray(LogReader& reader, StackNames& names, const std::string& spec,
                                      std::string* error) {
    const std::optional<ArraySpec> parsed = parseArraySpec(spec);
    if (!parsed) {
        *error = "'" + spec + "' names no array: give 0xADDRESS, seq=N, site=FUNCTION:K or global=NAME";
        return std::nullopt;
    }
    constexpr Wanted::By kBy[] = {Wanted::By::Address, Wanted::By::Seq, Wanted::By::Site, Wanted::By::Global};
    const Wanted wanted{kBy[static_cast<size_t>(parsed->m_by)], parsed->m_value, parsed->m_name};
    std::vector<SampledArray> arrays = gather(reader, names, wanted);
    if ((wanted.m_by == Wanted::By::Global || wanted.m_by == Wanted::By::Address) && arrays.empty()) {
        // A global with no sample is still an array to draw: its place from the symbol tables.
        const auto symbol = wanted.m_by == Wanted::By::Global ? names.dataSymbolNamed(wanted.m_name)
                                                              : names.dataSymbolAt(wanted.m_value);
        if (symbol) arrays.push_back(globalArray(*symbol));
    }
    if (arrays.empty()) {
        *error = "no block or global matches '" + spec + "' in this log";
        return std::nullopt;
    }
    // An address several blocks held in turn: the one that held it longest.
    auto longest = std::max_element(arrays.begin(), arrays.end(), [](const SampledArray& a, const SampledArray& b) {
        return a.m_endNs - a.m_beginNs < b.m_endNs - b.m_beginNs;
    });
    return std::move(*longest);
}

}  // namespace memlog::timeline

// encodeProfile(): pprof's profile.proto (github.com/google/pprof, proto/profile.proto) written
// field by field. Each table (strings, functions, locations, mappings) is filled as the samples
// first name its entries, then written once; ids are positions, from 1 (0 means none).
#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "timeline/export/heap_profile.hpp"
#include "timeline/export/protobuf_writer.hpp"
#include "timeline/names/allocator_plumbing.hpp"
#include "timeline/names/stack_names.hpp"
#include "timeline/read/log_reader.hpp"

namespace memlog::timeline {

namespace {

// profile.proto's field numbers.
namespace field {
enum Profile : uint32_t {
    kSampleType = 1, kSample = 2, kMapping = 3, kLocation = 4, kFunction = 5, kStringTable = 6,
    kTimeNanos = 9, kDurationNanos = 10, kPeriodType = 11, kPeriod = 12, kComment = 13, kDefaultSampleType = 14,
};
enum ValueType : uint32_t { kType = 1, kUnit = 2 };
enum Sample : uint32_t { kLocationId = 1, kValue = 2 };
enum Mapping : uint32_t {
    kMappingId = 1, kMemoryStart = 2, kMemoryLimit = 3, kFileOffset = 4, kFilename = 5, kBuildId = 6,
    kHasFunctions = 7, kHasFilenames = 8, kHasLineNumbers = 9, kHasInlineFrames = 10,
};
enum Location : uint32_t { kLocationOwnId = 1, kMappingOfLocation = 2, kAddress = 3, kLine = 4 };
enum Line : uint32_t { kFunctionId = 1, kLineNumber = 2 };
enum Function : uint32_t { kFunctionOwnId = 1, kName = 2, kSystemName = 3, kFunctionFile = 4 };
}  // namespace field

class StringTable {
public:
    StringTable() { id(""); }  // string_table[0] must be ""
    uint64_t id(const std::string& text) {
        const auto [at, added] = m_ids.try_emplace(text, m_strings.size());
        if (added) m_strings.push_back(text);
        return at->second;
    }
    void write(ProtobufWriter& profile) const {
        for (const std::string& text : m_strings) profile.bytes(field::kStringTable, text);
    }

private:
    std::unordered_map<std::string, uint64_t> m_ids;
    std::vector<std::string> m_strings;
};

// The profile's tables, filled as the samples ask for their locations.
class ProfileTables {
public:
    ProfileTables(const LogReader& reader, StackNames& names) : m_names(names) {
        std::vector<unwind::LoadedModule> recorded;
        for (const Module& module : reader.modules())
            recorded.push_back({module.m_path, module.m_buildId, module.m_base, module.m_lo, module.m_hi});
        // In map order (the program first), each object once; the latest where two overlap.
        std::vector<size_t> kept = unwind::latestModulesByAddress(recorded);
        std::sort(kept.begin(), kept.end());
        for (const size_t index : kept) m_modules.push_back(recorded[index]);
        for (size_t i = 0; i < m_modules.size(); ++i) m_byAddress.push_back(i);
        std::sort(m_byAddress.begin(), m_byAddress.end(),
                  [&](size_t a, size_t b) { return m_modules[a].m_lo < m_modules[b].m_lo; });
    }

    // The locations of a stack from its allocation site outward, leaf first.
    std::vector<uint64_t> locations(uint32_t stack) {
        std::vector<uint64_t> ids;
        const StackFrames addresses = m_names.addresses(stack);
        if (addresses.empty()) {
            ids.push_back(location(0, 0));
            return ids;
        }
        // Where the site is: the first frame the allocator-plumbing rule leaves (as siteOf());
        // all plumbing, the whole stack.
        size_t siteAddress = 0, siteLine = 0, index = 0;
        bool found = false;
        for (const uint64_t address : addresses) {
            if (!isAllocatorPlumbingModule(m_names.moduleAt(address))) {
                const auto& frames = m_names.framesAt(address);
                for (size_t line = 0; line < frames.size(); ++line)
                    if (!isAllocatorPlumbing(frames[line])) {
                        siteAddress = index;
                        siteLine = line;
                        found = true;
                        break;
                    }
            }
            if (found) break;
            ++index;
        }
        index = 0;
        for (const uint64_t address : addresses) {
            if (!found || index >= siteAddress) ids.push_back(location(address, index == siteAddress ? siteLine : 0));
            ++index;
        }
        return ids;
    }

    void write(ProtobufWriter& profile) {
        for (size_t i = 0; i < m_modules.size(); ++i) {
            const unwind::LoadedModule& module = m_modules[i];
            ProtobufWriter mapping;
            mapping.varint(field::kMappingId, i + 1);
            mapping.varintIfSet(field::kMemoryStart, module.m_lo);
            mapping.varintIfSet(field::kMemoryLimit, module.m_hi);
            // The ELF address of the lowest segment (the load bias taken off): 0 for most objects.
            mapping.varintIfSet(field::kFileOffset, module.m_lo - std::min(module.m_lo, module.m_base));
            mapping.varintIfSet(field::kFilename, m_strings.id(module.m_path));
            mapping.varintIfSet(field::kBuildId, m_strings.id(module.m_buildId));
            // Named already: pprof need not look for the binaries to name the addresses.
            for (const uint32_t flag : {field::kHasFunctions, field::kHasFilenames, field::kHasLineNumbers,
                                        field::kHasInlineFrames})
                mapping.varint(flag, 1);
            profile.message(field::kMapping, mapping);
        }
        for (const ProtobufWriter& location : m_locations) profile.message(field::kLocation, location);
        for (const ProtobufWriter& function : m_functions) profile.message(field::kFunction, function);
    }

    StringTable& strings() { return m_strings; }

private:
    // The location of a return address, its inlined frames from `firstLine` on (0 is no address:
    // a block recorded without a stack).
    uint64_t location(uint64_t address, size_t firstLine) {
        const auto [at, added] = m_locationIds.try_emplace({address, firstLine}, m_locations.size() + 1);
        if (!added) return at->second;
        ProtobufWriter location;
        location.varint(field::kLocationOwnId, at->second);
        if (address == 0) {
            location.message(field::kLine, line({"(no stack)", {}, 0, {}, false}));
        } else {
            location.varintIfSet(field::kMappingOfLocation, mappingOf(address));
            location.varint(field::kAddress, address);
            const auto& frames = m_names.framesAt(address);
            for (size_t i = firstLine; i < frames.size(); ++i) location.message(field::kLine, line(frames[i]));
        }
        m_locations.push_back(std::move(location));
        return at->second;
    }

    ProtobufWriter line(const unwind::SourceFrame& frame) {
        ProtobufWriter line;
        line.varint(field::kFunctionId, function(frame));
        line.varintIfSet(field::kLineNumber, frame.m_line);
        return line;
    }

    uint64_t function(const unwind::SourceFrame& frame) {
        const auto [at, added] = m_functionIds.try_emplace({frame.m_function, frame.m_file}, m_functions.size() + 1);
        if (!added) return at->second;
        ProtobufWriter function;
        function.varint(field::kFunctionOwnId, at->second);
        const uint64_t name = m_strings.id(frame.m_function);
        function.varint(field::kName, name);
        function.varint(field::kSystemName, name);  // the symboliser keeps the demangled name alone
        function.varintIfSet(field::kFunctionFile, m_strings.id(frame.m_file));
        m_functions.push_back(std::move(function));
        return at->second;
    }

    // The mapping id of the module holding `address`, 0 when none does.
    uint64_t mappingOf(uint64_t address) const {
        const auto after = std::upper_bound(m_byAddress.begin(), m_byAddress.end(), address,
                                            [&](uint64_t a, size_t i) { return a < m_modules[i].m_lo; });
        if (after == m_byAddress.begin()) return 0;
        const size_t i = *std::prev(after);
        return address < m_modules[i].m_hi ? i + 1 : 0;
    }

    StackNames& m_names;
    StringTable m_strings;
    std::vector<unwind::LoadedModule> m_modules;  // mapping i + 1
    std::vector<size_t> m_byAddress;  // indexes of m_modules by their start
    std::map<std::pair<uint64_t, size_t>, uint64_t> m_locationIds;
    std::vector<ProtobufWriter> m_locations;
    std::map<std::pair<std::string, std::string>, uint64_t> m_functionIds;
    std::vector<ProtobufWriter> m_functions;
};

ProtobufWriter valueType(StringTable& strings, const char* type, const char* unit) {
    ProtobufWriter value;
    value.varint(field::kType, strings.id(type));
    value.varint(field::kUnit, strings.id(unit));
    return value;
}

}  // namespace

std::string encodeProfile(const MeasuredProfile& profile, const LogReader& reader, StackNames& names,
                          const std::string& comment) {
    ProfileTables tables(reader, names);
    StringTable& strings = tables.strings();
    ProtobufWriter out;
    // Go's heap profiles' four types, in their order: pprof and the profile stores know them.
    out.message(field::kSampleType, valueType(strings, "alloc_objects", "count"));
    out.message(field::kSampleType, valueType(strings, "alloc_space", "bytes"));
    out.message(field::kSampleType, valueType(strings, "inuse_objects", "count"));
    out.message(field::kSampleType, valueType(strings, "inuse_space", "bytes"));
    for (size_t stack = 0; stack < profile.m_stacks.size(); ++stack) {
        const ProfileValues& values = profile.m_stacks[stack];
        if (values.empty()) continue;
        ProtobufWriter sample;
        sample.packed(field::kLocationId, tables.locations(static_cast<uint32_t>(stack)));
        sample.packed(field::kValue,
                      {values.m_allocObjects, values.m_allocSpace, values.m_inuseObjects, values.m_inuseSpace});
        out.message(field::kSample, sample);
    }
    tables.write(out);
    // Sampled: the period as Go's runtime writes its heap profiles' (MemProfileRate). Strings
    // are added only then, so that a full log's profile is what it was before sampling.
    const uint64_t sampleMean = profile.m_summary.m_sampling.m_meanBytes;
    const ProtobufWriter periodType = sampleMean ? valueType(strings, "space", "bytes") : ProtobufWriter{};
    const uint64_t defaultType = strings.id("inuse_space");
    const uint64_t commentId = comment.empty() ? 0 : strings.id(comment);
    strings.write(out);
    out.varintIfSet(field::kTimeNanos, reader.header().m_startRealtimeNs);
    out.varintIfSet(field::kDurationNanos, profile.m_summary.m_durationNs);
    if (sampleMean) {
        out.message(field::kPeriodType, periodType);
        out.varint(field::kPeriod, sampleMean);
    }
    if (commentId) out.varint(field::kComment, commentId);
    out.varint(field::kDefaultSampleType, defaultType);
    return out.take();
}

}  // namespace memlog::timeline

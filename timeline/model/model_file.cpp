// The index file's layout (model_file.hpp), its parts in the order the walk wrote them:
//
//   [chunk 0][chunk 1]...[chunk n-1]   BlockStore::kFileChunkBytes each: blocks, freeing stacks
//   [the tree's arrays]                each on a page boundary (kept_index.hpp), when kept
//   [the access samples]               on a page boundary
//   [their summary]                    on a page boundary, when made (or where it was made, when
//                                      made in the file: before the parts that follow the tree)
//   [the rest]                         identity, shape, summary, threads, where the access
//                                      samples are, the tree's numbers and where its arrays are
//   [trailer]                          64 bytes: magic, version, n, where the chunks and the rest
//                                      are, checksums
//
// A full trace's access samples come first instead, and the chunks after the tree's arrays: the
// walk writes the samples (gigabytes) straight into the index, and copies the chunks (a few
// megabytes) in at the end.
//
// The trailer comes last so that an index cut short anywhere has none, and is built again.
#include "timeline/model/model_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <vector>

#include "timeline/base/byte_codec.hpp"
#include "timeline/base/checksum.hpp"
#include "timeline/base/other_core.hpp"
#include "timeline/model/kept_index.hpp"
#include "timeline/model/model_index.hpp"
#include "timeline/model/view_contents.hpp"

namespace memlog::timeline {

namespace {

constexpr char kMagic[8] = {'M', 'L', 'O', 'G', 'I', 'D', 'X', '\n'};
// 2: the chunks' spans and the reader's walk; 3: the whole spans; 4: the model's index; 5: its
// blocks' stacks and threads in its order, and the access samples out of the rest; 6: the
// samples' summary after them, their tally in the rest; 7: the chunks anywhere (a full trace's
// samples first); 8: the summary's estimates field by field
constexpr uint32_t kVersion = 8;

struct Trailer {
    char m_magic[8];
    uint32_t m_version;
    uint32_t m_blockBytes;  // sizeof(Block): a build with another layout is not read
    uint64_t m_chunks;
    uint64_t m_restOffset;
    uint64_t m_restBytes;
    uint64_t m_restChecksum;
    uint64_t m_chunksOffset;  // where chunk 0 begins, on a page boundary
    uint64_t m_trailerChecksum;  // of the words above
};
static_assert(sizeof(Trailer) == 64);

struct Damaged {
    std::string m_what;
};

// Every field of the summary. A field added to Summary changes its size, and this assertion
// asks for it to be added here too (the x86-64 size of the fields below).
static_assert(sizeof(Summary) == 1200, "a field was added to Summary: add it to summaryFields");
// An estimate field by field: its flag's seven bytes of padding, copied whole, made two builds of
// one index differ (byte_codec.hpp now refuses such a struct).
template <typename Io, typename E>
void estimateFields(Io& io, E& e) {
    io(e.m_value), io(e.m_low), io(e.m_high), io(e.m_samples), io(e.m_exactPoisson);
    io(e.m_sum.m_value), io(e.m_sum.m_variance), io(e.m_sum.m_observed), io(e.m_sum.m_samples);
}

template <typename Io, typename S>
void summaryFields(Io& io, S& s) {
    io(s.m_formatVersion), io(s.m_complete), io(s.m_pid), io(s.m_parentPid), io(s.m_exe), io(s.m_durationNs);
    io(s.m_threads), io(s.m_events), io(s.m_calls), io(s.m_allocations), io(s.m_frees), io(s.m_peakBytes);
    io(s.m_peakSeq), io(s.m_blocksAtPeak), io(s.m_peakBlocks), io(s.m_peakHeapBytes), io(s.m_peakMappedBytes);
    io(s.m_leakedBytes), io(s.m_leakedBlocks), io(s.m_mappedAtExitBytes), io(s.m_mappedAtExitRegions);
    io(s.m_suppressedBytes), io(s.m_suppressedBlocks), io(s.m_stacks), io(s.m_anomalies), io(s.m_lostEvents);
    io(s.m_lostMetaRecords), io(s.m_unwindChecked), io(s.m_unwindMismatches), io(s.m_unwindFullWalks);
    io(s.m_accessSampler), io(s.m_accessStatus), io(s.m_accessRate), io(s.m_accessSamples), io(s.m_accessReads);
    io(s.m_accessWrites), io(s.m_accessHeap), io(s.m_accessGlobal), io(s.m_accessStack), io(s.m_accessOther);
    io(s.m_accessFreed), io(s.m_accessAllocator), io(s.m_blocksSampled), io(s.m_accessCounters);
    io(s.m_watchSampler), io(s.m_watchStatus), io(s.m_watchRate), io(s.m_watchCounters), io(s.m_watchTraps);
    io(s.m_watchOtherThread), io(s.m_watchReuseMedianNs), io(s.m_blocksUsedAfterFree);
    io(s.m_sampling.m_meanBytes), io(s.m_sampling.m_samples), io(s.m_sampling.m_setOverflow);
    estimateFields(io, s.m_sampling.m_calls), estimateFields(io, s.m_sampling.m_bytes);
    estimateFields(io, s.m_sampling.m_peak), estimateFields(io, s.m_sampling.m_leaked);
    static_assert(sizeof(SampleEstimates) == 24 + 4 * 72, "a field was added to SampleEstimates: add it here");
}

template <typename Io, typename Shape>
void shapeFields(Io& io, Shape& shape) {
    io(shape.m_size), io(shape.m_endNs), io(shape.m_firstNs), io(shape.m_firstSeq), io(shape.m_endSeq);
    io(shape.m_stackCount), io(shape.m_clock);
}

// Whether blocks [from, to) name stacks and threads the model has, and end no earlier than they
// began: what the drawing relies on. "" when they do, else the first that does not.
std::string checkBlocks(const BlockModel& model, size_t from, size_t to) {
    const size_t threads = model.threads().size();
    for (size_t i = from; i < to; ++i) {
        const Block& b = model[i];
        if (b.stack() >= model.stackCount() || model.freeStack(i) >= model.stackCount())
            return "block " + std::to_string(i) + " names a stack the log does not have";
        if (b.thread() >= threads && b.thread() != 0xffff)
            return "block " + std::to_string(i) + " names a thread the log does not have";
        if (b.endNs() < b.beginNs() || b.endSeq() < b.beginSeq())
            return "block " + std::to_string(i) + " ends before it begins";
    }
    return "";
}

// Every block checked (the checksum covers the rest, not the blocks, which would cost the same
// read and more), the second half on another core: a read of every block, 0.8 s at 10^8 on one.
std::string checkBlocks(const BlockModel& model) {
    const size_t half = model.size() / 2;
    std::string secondHalf;
    {
        std::jthread second = startOnOtherCore([&] { secondHalf = checkBlocks(model, half, model.size()); });
        if (std::string problem = checkBlocks(model, 0, half); !problem.empty()) return problem;
    }
    return secondHalf;
}

// The access samples' counts and notable places (access_tally.hpp), kept so that an opening
// does not pass over every sample again; either way.
template <typename Fields, typename Tally>
void tallyFields(Fields& fields, Tally& tally) {
    std::vector<uint64_t> armed, traps;
    for (const auto& [from, to] : tally.m_links) armed.push_back(from), traps.push_back(to);
    fields(tally.m_writes), fields(tally.m_traps);
    fields.array(armed), fields.array(traps);
    fields.array(tally.m_usesAfterFree);
    if constexpr (!std::is_const_v<Tally>) {
        if (armed.size() != traps.size()) throw Damaged{"its watchpoints' links do not pair"};
        tally.m_links.clear();
        for (size_t i = 0; i < armed.size(); ++i) tally.m_links.emplace_back(armed[i], traps[i]);
    }
}

// Whether every place `tally` names is a sample of `count`.
bool tallyFits(const AccessTally& tally, uint64_t count) {
    for (const auto& [from, to] : tally.m_links)
        if (from >= count || to >= count) return false;
    for (const size_t at : tally.m_usesAfterFree)
        if (at >= count) return false;
    return tally.m_writes <= count && tally.m_traps <= count;
}

// Writes `bytes` on the next page boundary from `end` (none: at `end`), and moves `end` past
// them; returns where they went.
uint64_t appendIndexBytes(int fd, const std::string& path, uint64_t& end, const void* bytes, size_t size) {
    const uint64_t offset = size == 0 ? end : pageAligned(end);
    writeIndexBytes(fd, path, offset, bytes, size);
    end = offset + size;
    return offset;
}

// Writes chunk `index` of `model` where the chunks begin at `chunksOffset`.
void copyChunk(int fd, const std::string& path, const BlockModel& model, size_t index, uint64_t chunksOffset) {
    static const std::vector<uint32_t> kNoFreeStacks(BlockStore::kChunkBlocks);  // a store that keeps none
    const BlockStore::Chunk& chunk = model.storedChunk(index);
    const uint64_t at = chunksOffset + index * BlockStore::kFileChunkBytes;
    writeIndexBytes(fd, path, at, chunk.m_blocks, BlockStore::kBlockBytes);
    writeIndexBytes(fd, path, at + BlockStore::kBlockBytes,
                    chunk.m_freeStacks ? chunk.m_freeStacks : kNoFreeStacks.data(), BlockStore::kFreeStackBytes);
}

}  // namespace

void finishModelFile(int fd, const std::string& path, const BlockModel& model, const std::string& identity,
                     const std::vector<unsigned char>& readerWalk, const ModelIndex* index, IndexLead lead) {
    // Asked before any part is placed: made now (accessSummary), it may be made in the file,
    // past its end (the arrays of an index being written are: ArraysInFiles), where the parts go.
    const AccessSummary summary = model.accessSummary();
    const size_t chunks = model.chunkCount();
    const auto& marks = model.accessMarks();
    const size_t marksBytes = marks.size() * sizeof(AccessMark);
    // The samples were written at the start only when every one of them went in (the spool maps
    // them back from the file then; a disk that took no more left them in memory).
    const bool marksInPlace = lead == IndexLead::AccessMarks && model.accessMarksMapped();
    // Past what the walk wrote, and past the arrays the index was built in, when in the file.
    uint64_t end = lead == IndexLead::Blocks ? chunks * BlockStore::kFileChunkBytes : marksInPlace ? marksBytes : 0;
    if (struct stat info{}; fstat(fd, &info) == 0 && static_cast<uint64_t>(info.st_size) > end)
        end = static_cast<uint64_t>(info.st_size);
    std::vector<unsigned char> treeFields;
    if (index) treeFields = writeKeptIndex(fd, path, end, *index);
    uint64_t chunksOffset = 0;
    if (lead != IndexLead::Blocks) {
        chunksOffset = pageAligned(end);
        for (size_t i = 0; i < chunks; ++i) copyChunk(fd, path, model, i, chunksOffset);
        end = chunksOffset + chunks * BlockStore::kFileChunkBytes;
    }
    // The access samples on pages of their own, with a checksum of their own: in the rest they
    // were copied twice on the way in and out, and summed byte by byte (a full trace's 62 M took
    // 17 GB to index).
    const uint64_t marksOffset = marksInPlace ? 0 : appendIndexBytes(fd, path, end, marks.data(), marksBytes);
    // Their coarse levels the same way, after them; where they were made in the file already,
    // they stay there (written twice, they took 25 MB more of sqlite3's trace's index).
    const std::span<const AccessPoint> points = summary.points();
    const int64_t pointsMade = points.empty() ? -1 : ArraysInFiles::keep(points.data());
    const uint64_t pointsOffset = pointsMade >= 0 ? static_cast<uint64_t>(pointsMade)
                                                  : appendIndexBytes(fd, path, end, points.data(), points.size_bytes());
    const uint64_t restOffset = end;
    if (ftruncate(fd, static_cast<off_t>(restOffset)) != 0)
        throw IndexError(path + ": cannot write the index: " + std::strerror(errno));
    ByteWriter rest;
    rest(identity);
    BlockModel::Shape shape = model.shape();
    shapeFields(rest, shape);
    summaryFields(rest, model.summary());
    rest.array(model.threads());
    rest.array(model.chunkSpans());
    rest(marksOffset), rest(static_cast<uint64_t>(marks.size())), rest(fnv1a64Words(marks.data(), marksBytes));
    rest(model.accessMarksInOrder());
    rest(pointsOffset), rest(static_cast<uint64_t>(points.size()));
    rest(fnv1a64Words(points.data(), points.size_bytes()));
    tallyFields(rest, model.accessTally());
    rest.array(readerWalk);
    rest.array(wholeSpans(model));
    rest(static_cast<uint8_t>(index != nullptr));
    rest(index ? index->axis() : XAxis::Time);
    rest.array(treeFields);
    Trailer trailer{};
    std::memcpy(trailer.m_magic, kMagic, sizeof kMagic);
    trailer.m_version = kVersion;
    trailer.m_blockBytes = sizeof(Block);
    trailer.m_chunks = chunks;
    trailer.m_restOffset = restOffset;
    trailer.m_restBytes = rest.bytes().size();
    trailer.m_restChecksum = fnv1a64(rest.bytes().data(), rest.bytes().size());
    trailer.m_chunksOffset = chunksOffset;
    trailer.m_trailerChecksum = fnv1a64(&trailer, offsetof(Trailer, m_trailerChecksum));
    writeIndexBytes(fd, path, restOffset, rest.bytes().data(), rest.bytes().size());
    writeIndexBytes(fd, path, restOffset + rest.bytes().size(), &trailer, sizeof trailer);
}

ModelFileRead readModelFile(const std::string& path, const std::string& identity) {
    ModelFileRead read;
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        read.m_missing = errno == ENOENT;
        if (!read.m_missing) read.m_problem = std::strerror(errno);
        return read;
    }
    struct FdCloser {
        int m_fd;
        ~FdCloser() { close(m_fd); }
    } closer{fd};
    try {
        struct stat info {};
        if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) throw Damaged{"not a regular file"};
        const uint64_t size = static_cast<uint64_t>(info.st_size);
        Trailer trailer{};
        if (size < sizeof trailer || pread(fd, &trailer, sizeof trailer, static_cast<off_t>(size - sizeof trailer)) !=
                                         static_cast<ssize_t>(sizeof trailer))
            throw Damaged{"too short to be an index"};
        if (std::memcmp(trailer.m_magic, kMagic, sizeof kMagic) != 0) throw Damaged{"no index trailer at its end"};
        if (trailer.m_trailerChecksum != fnv1a64(&trailer, offsetof(Trailer, m_trailerChecksum)))
            throw Damaged{"its trailer is damaged"};
        if (trailer.m_version != kVersion || trailer.m_blockBytes != sizeof(Block))
            throw Damaged{"an index of another version (" + std::to_string(trailer.m_version) + ")"};
        if (trailer.m_chunks > size / BlockStore::kFileChunkBytes || trailer.m_chunksOffset % kIndexPage != 0 ||
            trailer.m_restOffset > size || trailer.m_chunksOffset > trailer.m_restOffset ||
            trailer.m_chunks > (trailer.m_restOffset - trailer.m_chunksOffset) / BlockStore::kFileChunkBytes ||
            trailer.m_restBytes != size - sizeof trailer - trailer.m_restOffset)
            throw Damaged{"its parts do not add up to its size"};
        std::vector<unsigned char> restBytes(trailer.m_restBytes);
        if (!readIndexBytes(fd, trailer.m_restOffset, restBytes.data(), restBytes.size()))
            throw Damaged{"cannot read its model"};
        if (fnv1a64(restBytes.data(), restBytes.size()) != trailer.m_restChecksum)
            throw Damaged{"its model is damaged (checksum)"};
        ByteReader rest(restBytes.data(), restBytes.size());
        std::string builtFrom;
        rest(builtFrom);
        if (builtFrom != identity) throw Damaged{"built from another log, or from this one before it changed"};
        BlockModel::Shape shape;
        Summary summary;
        std::vector<uint32_t> threads;
        std::vector<BlockModel::ChunkSpan> spans;
        uint64_t marksOffset = 0, marksCount = 0, marksChecksum = 0;
        uint8_t marksInOrder = 0;
        uint64_t pointsOffset = 0, pointsCount = 0, pointsChecksum = 0;
        shapeFields(rest, shape);
        summaryFields(rest, summary);
        rest.array(threads);
        rest.array(spans);
        rest(marksOffset), rest(marksCount), rest(marksChecksum), rest(marksInOrder);
        rest(pointsOffset), rest(pointsCount), rest(pointsChecksum);
        AccessTally tally;
        tallyFields(rest, tally);
        rest.array(read.m_readerWalk);
        std::vector<AddressRange> whole;
        rest.array(whole);
        uint8_t hasTree = 0;
        auto kept = std::make_shared<KeptModelIndex>();
        rest(hasTree);
        rest(kept->m_axis);
        rest.array(kept->m_fields);
        if (rest.left() != 0) throw Damaged{"its model has bytes to spare"};
        const uint64_t chunks = (shape.m_size + BlockStore::kChunkBlocks - 1) / BlockStore::kChunkBlocks;
        if (chunks != trailer.m_chunks || spans.size() != chunks)
            throw Damaged{"its block count does not match its chunks"};
        if (shape.m_stackCount == 0) throw Damaged{"a model without stack 0"};
        if (shape.m_clock != XAxis::Time && shape.m_clock != XAxis::Instructions) throw Damaged{"an unknown clock"};
        if (hasTree > 1 || (hasTree && kept->m_axis != shape.m_clock)) throw Damaged{"its tree is of an unknown kind"};
        if ((marksCount > 0 && marksOffset % kIndexPage != 0) || marksOffset > trailer.m_restOffset ||
            marksCount > (trailer.m_restOffset - marksOffset) / sizeof(AccessMark))
            throw Damaged{"its access samples lie outside it"};
        if ((pointsCount > 0 && pointsOffset % kIndexPage != 0) || pointsOffset > trailer.m_restOffset ||
            pointsCount != AccessSummary::pointsFor(marksCount) ||
            pointsCount > (trailer.m_restOffset - pointsOffset) / sizeof(AccessPoint))
            throw Damaged{"its summary of the access samples lies outside it"};
        void* mapping = nullptr;
        if (trailer.m_restOffset > 0) {
            mapping = mmap(nullptr, trailer.m_restOffset, PROT_READ, MAP_PRIVATE, fd, 0);
            if (mapping == MAP_FAILED) throw Damaged{std::string("cannot map its blocks: ") + std::strerror(errno)};
        }
        kept->m_mapping = std::make_shared<const FileMapping>(mapping, trailer.m_restOffset);
        // Mapped, not read: the page cache holds them. The checksum is what lets their flags be
        // read as bools and their kinds as enums.
        const auto* marks = reinterpret_cast<const AccessMark*>(kept->m_mapping->data() + marksOffset);
        if (marksCount > 0 && fnv1a64Words(marks, marksCount * sizeof(AccessMark)) != marksChecksum)
            throw Damaged{"its access samples are damaged (checksum)"};
        const auto* points = reinterpret_cast<const AccessPoint*>(kept->m_mapping->data() + pointsOffset);
        if (pointsCount > 0 && fnv1a64Words(points, pointsCount * sizeof(AccessPoint)) != pointsChecksum)
            throw Damaged{"its summary of the access samples is damaged (checksum)"};
        auto store = std::make_unique<MappedBlocks>(kept->m_mapping, trailer.m_chunksOffset);
        std::vector<BlockStore::Chunk> chunkList;
        for (size_t i = 0; i < chunks; ++i) chunkList.push_back(store->chunk(i));
        BlockModel model(std::move(store), std::move(chunkList), std::move(spans), shape, summary, std::move(threads));
        if (!tallyFits(tally, marksCount)) throw Damaged{"its count of the access samples names one it does not have"};
        model.setAccessMarks(StoredArray<AccessMark>(kept->m_mapping, marks, marksCount), marksInOrder,
                             StoredArray<AccessPoint>(kept->m_mapping, points, pointsCount), std::move(tally));
        model.setWholeSpans(std::move(whole));
        const std::string folder = std::filesystem::path(path).parent_path().string();
        model.setScratchFolder(folder.empty() ? "." : folder);
        if (std::string problem = checkBlocks(model); !problem.empty()) throw Damaged{std::move(problem)};
        if (hasTree) {
            const ModelIndex checked(model, *kept);  // throws IndexError when its arrays make no index of this model
            kept->m_checked = true;
            model.setKeptIndex(std::move(kept));
        }
        read.m_model = std::move(model);
    } catch (const Damaged& damaged) {
        read.m_problem = damaged.m_what;
    } catch (const std::out_of_range&) {  // from the ByteReader
        read.m_problem = "its model ends early";
    } catch (const IndexError& error) {  // from the tree's arrays
        read.m_problem = error.what();
    }
    return read;
}

}  // namespace memlog::timeline

// Opening a .memlog file: map it, check its header, find its chunks and group them by thread.
// Decoding and merging the records is the walk's (log_walk.cpp). Streaming: nothing is kept
// per event, so memory stays small on logs of hundreds of millions of events.
#include "timeline/read/log_reader.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>

#include "timeline/base/byte_codec.hpp"
#include "timeline/base/sigbus_guard.hpp"
#include "timeline/read/reader_state.hpp"

namespace memlog::timeline {

LogError::LogError(const std::string& path, uint64_t offset, const std::string& reason)
    : std::runtime_error(path + ": offset " + std::to_string(offset) + ": " + reason), m_path(path), m_offset(offset) {}

namespace {

// The recorder's chunks are 4, 8, 16 or 64 KiB (preload/src/record/record_writer.cpp: chunkBytesFor),
// a full trace's 64 KiB; the tests build chunks up to 1 MiB. A size that is not a power of two in
// that range is a damaged header: its chunk is skipped and told, rather than trusted to find the
// next chunk (a high bit flipped in a 64 KiB size would otherwise hide every chunk after it).
constexpr uint32_t kMaxChunkBytes = 1u << 20;
bool plausibleChunkBytes(uint32_t bytes) {
    return bytes >= format::kPageBytes && bytes <= kMaxChunkBytes && (bytes & (bytes - 1)) == 0;
}

}  // namespace

LogReader::LogReader(const std::string& path) : m_path(path), m_impl(new Impl) {
    Impl& impl = *m_impl;
    impl.m_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (impl.m_fd < 0) {
        const std::string reason = std::strerror(errno);
        delete m_impl;
        throw LogError(path, 0, "cannot open: " + reason);
    }
    struct stat info {};
    if (fstat(impl.m_fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        ::close(impl.m_fd);
        delete m_impl;
        throw LogError(path, 0, "not a regular file");
    }
    impl.m_size = static_cast<uint64_t>(info.st_size);
    auto fail = [&](uint64_t offset, const std::string& reason) {
        unwatchMapping(impl.m_watched);
        if (impl.m_data) munmap(const_cast<uint8_t*>(impl.m_data), impl.m_size);
        ::close(impl.m_fd);
        delete m_impl;
        throw LogError(path, offset, reason);
    };
    if (impl.m_size < sizeof(format::kMagic)) fail(impl.m_size, "too short to be a memlog log");
    void* mapped = mmap(nullptr, impl.m_size, PROT_READ, MAP_PRIVATE, impl.m_fd, 0);
    if (mapped == MAP_FAILED) fail(0, std::string("cannot map: ") + std::strerror(errno));
    impl.m_data = static_cast<const uint8_t*>(mapped);
    impl.m_watched = watchMapping(impl.m_data, impl.m_size, m_path.c_str());
    madvise(mapped, impl.m_size, MADV_SEQUENTIAL);
    if (std::memcmp(impl.m_data, format::kMagic, sizeof(format::kMagic)) != 0) fail(0, "not a memlog log (bad magic)");
    if (impl.m_size < sizeof(format::FileHeader)) fail(impl.m_size, "file header cut short");
    std::memcpy(&impl.m_header, impl.m_data, sizeof(format::FileHeader));
    if (impl.m_header.m_version < format::kOldestReadableVersion || impl.m_header.m_version > format::kFormatVersion)
        fail(offsetof(format::FileHeader, m_version),
             "unsupported format version " + std::to_string(impl.m_header.m_version) + " (this memlog reads " +
                 std::to_string(format::kOldestReadableVersion) + " to " + std::to_string(format::kFormatVersion) +
                 ")");
    if (impl.m_header.m_headerBytes != format::kHeaderBytes)
        fail(offsetof(format::FileHeader, m_headerBytes), "bad header size");

    impl.m_mappedBytes = impl.m_size;
    impl.scanChunks(format::kHeaderBytes, impl.m_size);
}

// Chunks start on page boundaries; a page that is not one is skipped: quietly when it is empty
// (reserved but unwritten space), told when it is not (a damaged chunk header, or the records
// behind one). A header with an impossible size is damaged too: trusting it to find the next
// chunk would skip, or cut, the chunks it claims.
void LogReader::Impl::scanChunks(uint64_t from, uint64_t to) {
    uint64_t skippingFrom = 0;  // where the pages being skipped begin; 0: none
    std::string skippingWhat;
    auto endSkip = [&](uint64_t at) {
        if (skippingFrom) noteSkip(skippingFrom, at, skippingWhat);
        skippingFrom = 0;
    };
    uint64_t emptyFrom = 0;  // where the empty pages being passed begin; 0: none
    auto endEmpty = [&](uint64_t at) {
        if (emptyFrom && at > emptyFrom) m_emptyRuns.emplace_back(emptyFrom, at);
        emptyFrom = 0;
    };
    // The chunk headers by pread, not through the mapping: touching a page of a log just written
    // maps the whole large folio the page cache holds it in (64 KiB and more), so that a scan
    // through the mapping made the log resident whole before the walk began (the 700 MB of a
    // python3 full trace, for memlog run's closing list, which reads its heap records alone).
    auto readChunkHeader = [&](uint64_t at, format::ChunkHeader& chunk) {
        if (pread(m_fd, &chunk, sizeof chunk, static_cast<off_t>(at)) != static_cast<ssize_t>(sizeof chunk)) chunk = {};
    };
    uint64_t offset = from;
    for (; offset + sizeof(format::ChunkHeader) <= to;) {
        format::ChunkHeader chunk;
        readChunkHeader(offset, chunk);
        const uint64_t pageEnd = std::min(offset + format::kPageBytes, m_size);
        if (chunk.m_magic != format::kChunkMagic || !plausibleChunkBytes(chunk.m_bytes)) {
            // A header being written has its fields before its magic and no record yet.
            const bool empty = chunk.m_magic == 0 && allZero(m_data + offset + sizeof chunk, m_data + pageEnd);
            if (!empty) {
                // A live log's writer may have finished that header since: its magic is stored
                // before any record, so records seen mean the magic is visible on a second look.
                readChunkHeader(offset, chunk);
                if (chunk.m_magic == format::kChunkMagic && plausibleChunkBytes(chunk.m_bytes)) continue;
                endEmpty(offset);
                if (!skippingFrom) {
                    skippingFrom = offset;
                    skippingWhat =
                        chunk.m_magic == format::kChunkMagic
                            ? "a chunk header with an impossible size (" + std::to_string(chunk.m_bytes) + ")"
                            : std::string("a page that is neither a chunk nor empty (a damaged chunk header?)");
                }
            } else {
                endSkip(offset);
                if (!emptyFrom) emptyFrom = offset;
            }
            offset += format::kPageBytes;
            continue;
        }
        endSkip(offset);
        endEmpty(offset);
        auto [it, added] = m_threadIndex.try_emplace({chunk.m_tid, chunk.m_reserved}, m_threads.size());
        if (added) {
            m_threads.emplace_back().m_tid = chunk.m_tid;
            m_threads.back().m_stream = chunk.m_reserved;
        }
        std::vector<ChunkRef>& chunks = m_threads[it->second].m_chunks;
        // A thread fills its chunks one after another, each further on in the file; one found
        // before its last (in pages that were empty at the last scan) came out of order.
        if (!chunks.empty() && chunks.back().m_offset > offset) m_chunkOutOfOrder = true;
        const uint64_t claimedEnd = offset + chunk.m_bytes;
        chunks.push_back({offset, std::min(claimedEnd, m_size), claimedEnd > m_size, claimedEnd});
        offset = claimedEnd;
    }
    endSkip(to);
    endEmpty(std::min(offset, to));
    m_scanEnd = std::max(m_scanEnd, offset);
}

LogReader::~LogReader() {
    unwatchMapping(m_impl->m_watched);
    if (m_impl->m_data) munmap(const_cast<uint8_t*>(m_impl->m_data), m_impl->m_mappedBytes);
    if (m_impl->m_fd >= 0) ::close(m_impl->m_fd);
    delete m_impl;
}

namespace {

// Address space for a followed log to grow into: 8 bytes an event, a billion events.
constexpr uint64_t kGrowthRoom = uint64_t{8} << 30;

uint64_t nsOf(const timespec& time) {
    return static_cast<uint64_t>(time.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(time.tv_nsec);
}

}  // namespace

void LogReader::followGrowth(std::function<uint64_t()> cutNow) {
    Impl& impl = *m_impl;
    impl.m_cutNow = cutNow ? std::move(cutNow) : std::function<uint64_t()>([this] { return safeCut(); });
    if (impl.m_mappedBytes > impl.m_size) return;
    // Mapped again with room, while nothing points into the mapping yet: the pages past the
    // file's end read as the file reaches them, so that the stacks' views and the cursors stay
    // where they are as it grows.
    void* mapped = mmap(nullptr, impl.m_size + kGrowthRoom, PROT_READ, MAP_PRIVATE, impl.m_fd, 0);
    if (mapped == MAP_FAILED) return;  // readOn will find no room: the log is read anew
    unwatchMapping(impl.m_watched);
    munmap(const_cast<uint8_t*>(impl.m_data), impl.m_mappedBytes);
    impl.m_data = static_cast<const uint8_t*>(mapped);
    impl.m_mappedBytes = impl.m_size + kGrowthRoom;
    impl.m_watched = watchMapping(impl.m_data, impl.m_size, m_path.c_str());
    madvise(mapped, impl.m_size, MADV_SEQUENTIAL);
}

uint64_t LogReader::safeCut() const {
    const Impl& impl = *m_impl;
    format::FileHeader header{};  // as the recorder keeps it now: its clean end is set at exit
    if (pread(impl.m_fd, &header, sizeof header, 0) != static_cast<ssize_t>(sizeof header)) return UINT64_MAX;
    if ((header.m_flags & format::kFlagCleanEnd) || header.m_tscPerNsQ32 == 0) return UINT64_MAX;
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    constexpr uint64_t kSecond = 1'000'000'000;
    const uint64_t since = nsOf(now) - std::min(nsOf(now), header.m_startNs);
    if (since <= kSecond) return header.m_startTsc;
    return header.m_startTsc +
           static_cast<uint64_t>((static_cast<unsigned __int128>(since - kSecond) * header.m_tscPerNsQ32) >> 32);
}

bool LogReader::readOn(RecordSink& sink, const std::function<void(double)>& progress) {
    Impl& impl = *m_impl;
    if (!impl.m_cutNow || impl.m_outOfStep) return false;
    struct stat opened = {};
    struct stat named = {};
    if (fstat(impl.m_fd, &opened) != 0 || stat(m_path.c_str(), &named) != 0 || opened.st_ino != named.st_ino ||
        opened.st_dev != named.st_dev)
        return false;  // gone, or another file under its name
    if (!growTo(static_cast<uint64_t>(opened.st_size))) return false;
    for (const ThreadCursor& cursor : impl.m_threads)
        if (cursor.m_stream == format::kTraceStream && !impl.leftOut(cursor)) return false;
    return inBatches(sink, progress, Decoding::SecondThreadIfIdle, true).m_read;
}

// The file as it is now: the chunks it gained (in the pages that were empty, and past its old
// end), and the newest chunk of each thread that its old end cut short, read further. A file
// may also shrink, but not into its chunks: the recorder's clean end cuts the space it had
// reserved past its last chunk.
bool LogReader::growTo(uint64_t bytes) {
    Impl& impl = *m_impl;
    if (bytes > impl.m_mappedBytes) return false;
    if (bytes < impl.m_size)
        for (const ThreadCursor& cursor : impl.m_threads)
            if (!cursor.m_chunks.empty() && cursor.m_chunks.back().m_claimedEnd > bytes) return false;
    if (bytes != impl.m_size) {
        unwatchMapping(impl.m_watched);
        impl.m_size = bytes;
        impl.m_watched = watchMapping(impl.m_data, impl.m_size, m_path.c_str());
        for (ThreadCursor& cursor : impl.m_threads) {
            if (cursor.m_chunks.empty() || !cursor.m_chunks.back().m_cutShort) continue;
            ChunkRef& chunk = cursor.m_chunks.back();
            chunk.m_end = std::min(chunk.m_claimedEnd, bytes);
            chunk.m_cutShort = chunk.m_claimedEnd > bytes;
            if (cursor.m_at && cursor.m_nextChunk == cursor.m_chunks.size()) cursor.m_end = impl.m_data + chunk.m_end;
        }
    }
    std::vector<std::pair<uint64_t, uint64_t>> empty;
    empty.swap(impl.m_emptyRuns);
    for (const auto& [from, to] : empty)
        if (from < bytes) impl.scanChunks(from, std::min(to, bytes));
    if (impl.m_scanEnd < impl.m_size) impl.scanChunks(impl.m_scanEnd, impl.m_size);
    return !impl.m_chunkOutOfOrder;
}

void LogReader::leaveOutTraces(bool leave) { m_impl->m_leaveOutTraces = leave; }

const format::FileHeader& LogReader::header() const { return m_impl->m_header; }
bool LogReader::complete() const { return m_impl->m_header.m_flags & format::kFlagCleanEnd; }
uint64_t LogReader::fileBytes() const { return m_impl->m_size; }
const StackRecords& LogReader::stacks() const { return m_impl->m_stacks; }
const std::vector<Module>& LogReader::modules() const { return m_impl->m_modules; }
const std::vector<ThreadStackRange>& LogReader::threadStacks() const { return m_impl->m_threadStacks; }
const std::vector<Annotation>& LogReader::annotations() const { return m_impl->m_annotations; }
uint64_t LogReader::lostEvents() const { return m_impl->m_header.m_lostEvents + m_impl->m_lostRecords; }
uint32_t LogReader::threadCount() const {
    std::set<uint32_t> threads;  // a thread may have two streams (format::kTraceStream)
    for (const ThreadCursor& cursor : m_impl->m_threads)
        if (!m_impl->leftOut(cursor)) threads.insert(cursor.m_tid);
    return static_cast<uint32_t>(threads.size());
}
bool LogReader::countsInstructions() const {
    const format::FileHeader& header = m_impl->m_header;
    if (header.m_version < 5 || header.m_accessSampler != format::AccessSampler::FullTrace) return false;
    for (const ThreadCursor& cursor : m_impl->m_threads)
        if (cursor.m_stream == format::kTraceStream) return true;
    return false;
}
namespace {

// Every field a walk leaves, one list for both ways (byte_codec.hpp).
template <typename Io, typename Stacks, typename Modules, typename Annotations, typename Impl>
void walkFields(Io& io, Stacks& stacks, Modules& modules, Annotations& annotations, Impl& impl) {
    io.array(stacks);
    io(impl.m_lostRecords), io(impl.m_firstTsc), io(impl.m_lastTsc), io(impl.m_stoppedAt), io(impl.m_stopReason);
    // The threads' stacks field by field: a range's bytes after its thread id are padding.
    uint64_t threadStacks = impl.m_threadStacks.size();
    io(threadStacks);
    if (threadStacks > (uint64_t{1} << 24)) throw std::out_of_range("more threads' stacks than threads");
    impl.m_threadStacks.resize(threadStacks);
    for (ThreadStackRange& range : impl.m_threadStacks) io(range.m_tid), io(range.m_lo), io(range.m_hi);
    for (auto& module : modules)
        io(module.m_base), io(module.m_lo), io(module.m_hi), io(module.m_buildId), io(module.m_path),
            io(module.m_validFromSeq);
    for (auto& a : annotations)
        io(a.m_seq), io(a.m_timeNs), io(a.m_tid), io(a.m_what), io(a.m_addr), io(a.m_text), io(a.m_elementSize),
            io(a.m_rows), io(a.m_columns), io(a.m_depth);
}

}  // namespace

std::vector<unsigned char> LogReader::walkResults() const {
    ByteWriter out;
    std::vector<StackRecords::Place> stacks = m_impl->m_stacks.places(m_impl->m_data);
    out(static_cast<uint64_t>(m_impl->m_modules.size()));
    out(static_cast<uint64_t>(m_impl->m_annotations.size()));
    walkFields(out, stacks, m_impl->m_modules, m_impl->m_annotations, *m_impl);
    return out.bytes();
}

bool LogReader::restoreWalkResults(const std::vector<unsigned char>& bytes) {
    Impl restored;  // the fields read into a copy first: a damaged input leaves this reader whole
    std::vector<StackRecords::Place> stacks;
    std::vector<Module> modules;
    std::vector<Annotation> annotations;
    try {
        ByteReader in(bytes.data(), bytes.size());
        uint64_t moduleCount = 0, annotationCount = 0;
        in(moduleCount), in(annotationCount);
        if (moduleCount > bytes.size() || annotationCount > bytes.size()) return false;
        modules.resize(moduleCount);
        annotations.resize(annotationCount);
        walkFields(in, stacks, modules, annotations, restored);
        if (in.left() != 0) return false;
    } catch (const std::out_of_range&) {
        return false;
    }
    if (!m_impl->m_stacks.setPlaces(stacks, m_impl->m_data, m_impl->m_size)) return false;
    m_impl->m_modules = std::move(modules);
    m_impl->m_annotations = std::move(annotations);
    m_impl->m_annotationsTimed = m_impl->m_annotations.size();
    m_impl->m_threadStacks = std::move(restored.m_threadStacks);
    m_impl->m_lostRecords = restored.m_lostRecords;
    m_impl->m_firstTsc = restored.m_firstTsc;
    m_impl->m_lastTsc = restored.m_lastTsc;
    m_impl->m_stoppedAt = restored.m_stoppedAt;
    m_impl->m_stopReason = std::move(restored.m_stopReason);
    return true;
}

uint64_t LogReader::firstTsc() const { return m_impl->m_firstTsc; }
uint64_t LogReader::lastTsc() const { return m_impl->m_lastTsc; }
std::optional<std::string> LogReader::whatWasSkipped() const {
    const Impl& impl = *m_impl;
    if (impl.m_skippedPlaces == 0) return std::nullopt;
    std::string text = m_path + ": offset " + std::to_string(impl.m_skippedAt) + ": " + impl.m_skipReason + "; " +
                       std::to_string(impl.m_skippedTo - impl.m_skippedAt) + " bytes skipped, " +
                       (impl.m_skippedTo == impl.m_size ? std::string("to the end of the file")
                                                        : "read on from offset " + std::to_string(impl.m_skippedTo));
    if (impl.m_skippedPlaces > 1)
        text += " (and " + std::to_string(impl.m_skippedPlaces - 1) +
                (impl.m_skippedPlaces == 2 ? " more such place: " : " more such places: ") +
                std::to_string(impl.m_skippedBytes) + " bytes skipped in all)";
    return text;
}

std::optional<std::string> LogReader::whereReadingStopped() const {
    if (m_impl->m_stopReason.empty()) return std::nullopt;
    return m_path + ": offset " + std::to_string(m_impl->m_stoppedAt) + ": " + m_impl->m_stopReason +
           "; read up to here";
}

}  // namespace memlog::timeline

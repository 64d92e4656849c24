// Opens a .memlog file by mmap, validates it and walks its records in global sequence order.
// Torn tails (crash, kill -9, a log still being written) are read up to the tear; anything that
// cannot be a memlog log, or a corrupt record, raises LogError naming the file and byte offset.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "memlog/format.hpp"
#include "timeline/read/stack_records.hpp"

namespace memlog::timeline {

// A bad input: `what()` reads "<path>: offset <offset>: <reason>".
class LogError : public std::runtime_error {
public:
    LogError(const std::string& path, uint64_t offset, const std::string& reason);
    const std::string& path() const { return m_path; }
    uint64_t offset() const { return m_offset; }

private:
    std::string m_path;
    uint64_t m_offset;
};

// One heap event as the reader delivers it, times already converted to ns since the start. One
// cache line: the events cross from the decoding thread to the tally's (event_ring.hpp), and at
// 88 bytes (with the alignment and a resize's old size, which no reader used) an event took 1.4
// lines there. The log keeps both fields (format::HeapRecord).
struct alignas(64) Event {
    uint64_t m_seq = 0;  // for resizes: the moment the old block ended (before the call)
    uint64_t m_seqAfter = 0;  // resizes: the moment the new block began; others: equal to m_seq
    uint64_t m_timeNs = 0;  // since the recording started
    uint64_t m_addr = 0;
    uint64_t m_size = 0;
    uint64_t m_oldAddr = 0;  // resizes
    uint32_t m_tid = 0;
    uint32_t m_stack = 0;  // 0 = none
    format::Kind m_kind = format::Kind::End;
};
static_assert(sizeof(Event) == 64);

// One sampled memory access (format::AccessRecord), times converted like Event's. Which block,
// global or stack it touched is the attribution's to say (access_attribution.hpp).
struct AccessSample {
    uint64_t m_seq = 0;  // in the same sequence as the heap events
    uint64_t m_timeNs = 0;  // since the recording started
    uint32_t m_tid = 0;  // the accessing thread
    uint64_t m_addr = 0;  // the first byte accessed
    uint64_t m_size = 0;  // bytes accessed
    format::AccessKind m_kind = format::AccessKind::Read;
    format::AccessSource m_source = format::AccessSource::Tick;
    bool m_ipAfter = false;  // m_ip is the instruction after the access (a watchpoint's trap)
    bool m_inAllocator = false;  // taken inside malloc, free and the like (their own bookkeeping)
    uint64_t m_armedBy = 0;  // a watchpoint's trap: the seq of the sample that armed it; else 0
    uint64_t m_ip = 0;  // the accessing instruction (or the one after it)
    uint32_t m_stack = 0;  // the accessing code's callers; 0 = none
    uint64_t m_blockSeq = 0;  // version 2 logs: the block the recorder named (else 0)
    uint64_t m_offset = 0;  // version 2 logs: m_addr minus that block's start
    // A full trace's (version 5): the thread's instructions up to the accessing one; else 0.
    uint64_t m_instructions = 0;
    bool writes() const { return format::writes(m_kind); }
    bool reads() const { return format::reads(m_kind); }
};

// What the program said of itself through memlog.h (format::AnnotationRecord).
struct Annotation {
    uint64_t m_seq = 0;
    uint64_t m_timeNs = 0;  // since the recording started
    uint32_t m_tid = 0;
    format::AnnotationKind m_what = format::AnnotationKind::Phase;
    uint64_t m_addr = 0;  // Name, ArrayShape: inside the block or global it is about
    std::string m_text;  // Name, Phase
    uint64_t m_elementSize = 0, m_rows = 0, m_columns = 0, m_depth = 0;  // ArrayShape
};

// A thread's stack as its ThreadStack record gave it.
struct ThreadStackRange {
    uint32_t m_tid = 0;
    uint64_t m_lo = 0;
    uint64_t m_hi = 0;
};

struct Module {
    uint64_t m_base = 0;
    uint64_t m_lo = 0;
    uint64_t m_hi = 0;
    std::string m_buildId;  // hex
    std::string m_path;
    uint64_t m_validFromSeq = 0;  // the module map this belongs to began at this sequence number
};

// Receives a walk's records in batches (LogReader::forEachBatch), on the calling thread while
// another thread decodes the log: one call per batch of heap events instead of one std::function
// call per event. The reader's meta records (stacks, modules) are being read meanwhile: a sink
// that asks the reader for them during the walk uses forEachRecord instead.
class RecordSink {
public:
    virtual ~RecordSink() = default;
    // Consecutive heap events in sequence order.
    virtual void events(const Event* events, size_t count) = 0;
    // A sampled access, after every event before it in the sequence has been delivered.
    virtual void access(const AccessSample& sample) { (void)sample; }
    virtual bool wantsAccesses() const { return false; }
};

class LogReader {
public:
    // Throws LogError for a missing file, a file that is not a memlog log, or an unknown version.
    explicit LogReader(const std::string& path);
    ~LogReader();
    LogReader(const LogReader&) = delete;
    LogReader& operator=(const LogReader&) = delete;

    const std::string& path() const { return m_path; }
    // Before a walk: the walks read the recorder's records only, not a full trace's accesses
    // (a list of logs that wants their events and peaks, not hundreds of millions of accesses;
    // a reader that wants the stacks and the module map before its own walk of the accesses).
    // False: the walks read them again.
    void leaveOutTraces(bool leave = true);
    const format::FileHeader& header() const;
    bool complete() const;  // the recorder wrote a clean end
    uint64_t fileBytes() const;

    // Calls `onEvent` for every heap event in sequence order. Meta records (stacks, modules,
    // thread exits, lost counts) are collected on the way and available after the walk.
    // Throws LogError at a corrupt record (not at a torn tail). `progress`, when set, is told
    // the fraction of the file read so far, at most a few times a second.
    void forEachEvent(const std::function<void(const Event&)>& onEvent,
                      const std::function<void(double)>& progress = {});
    // The same walk with the access samples too, each delivered in its place in the sequence.
    void forEachRecord(const std::function<void(const Event&)>& onEvent,
                       const std::function<void(const AccessSample&)>& onAccess,
                       const std::function<void(double)>& progress = {});

    // Where forEachBatch decodes. A second thread halves the wall time only with a core free
    // for it: on a busy machine the two threads share their session's turn and the batches'
    // handover costs a tenth more CPU time (docs/BENCHMARKS.md, `memlog stat`).
    enum class Decoding {
        SecondThreadIfIdle,  // when the threads ready to run leave a core free (idle_core.hpp)
        SecondThread,
        CallingThread,
    };
    // The same walk, heap events handed to `sink` in batches on the calling thread. A LogError is
    // thrown here, after the events before it were delivered; `progress` is called on the
    // decoding thread. True when a second thread decoded (`memlog -v stat` says which).
    bool forEachBatch(RecordSink& sink, const std::function<void(double)>& progress = {},
                      Decoding decoding = Decoding::SecondThreadIfIdle);

    // Following a log still being written (memtimeline --follow), before the first walk: each walk
    // then delivers the records before a cut, and readOn() those after it with what the file
    // has gained since, so that following costs what the log gains, not what it holds. The cut is
    // a second before `cutNow()`'s moment (a TSC of the log's clock; UINT64_MAX: no cut); by
    // default a second before now, or none when the file has not changed for a second (safeCut).
    // A thread writes its record microseconds after it took its sequence number: a second later
    // every number taken before the cut is in the file, and the merge has no holes to leave.
    void followGrowth(std::function<uint64_t()> cutNow = {});
    // After a walk with followGrowth: the records after its cut, and those the file has gained,
    // up to a new cut; the stacks, modules and annotations read on too. False, with nothing
    // delivered, when the log cannot be read on and must be read anew by a new reader: it shrank
    // or was replaced, outgrew the room mapped for it, holds a full trace's streams (not left
    // out), or a record turned up that belongs before one already delivered.
    bool readOn(RecordSink& sink, const std::function<void(double)>& progress = {});
    // The cut a walk now makes by default: a second before now on the log's clock, or UINT64_MAX
    // when the file has not changed for a second or the log has no clock rate.
    uint64_t safeCut() const;

    // Filled by forEachEvent.
    const StackRecords& stacks() const;  // index = stack id; [0] empty; views of the mapped file
    const std::vector<Module>& modules() const;
    const std::vector<ThreadStackRange>& threadStacks() const;  // as read so far, in file order
    const std::vector<Annotation>& annotations() const;  // after a walk, in sequence order
    uint64_t lostEvents() const;  // header count plus Lost records
    uint32_t threadCount() const;  // distinct thread ids that wrote records
    // Whether this is a full trace whose accesses carry their threads' instruction counts: memlog's
    // Valgrind tool wrote its streams here (format_trace.hpp, version 5 on). An imported trace and
    // one of version 4 (Valgrind's lackey, its accesses appended as plain records) count none.
    bool countsInstructions() const;
    uint64_t firstTsc() const;  // earliest and latest timestamp of any record read
    uint64_t lastTsc() const;

    // What a walk left besides its events (the stacks as places in the file, the modules, the
    // threads' stacks, the annotations, lost records, the first and last timestamps, where
    // reading stopped), as bytes: a log's index keeps them, so that an opening that reads its
    // model back need not walk the log for them. restoreWalkResults puts them back in a reader
    // of the same log unchanged (the caller checks that); false, the reader as it was, when the
    // bytes are damaged or name places outside the file.
    std::vector<unsigned char> walkResults() const;
    bool restoreWalkResults(const std::vector<unsigned char>& bytes);

    // After a walk: where reading stopped before the data's end, when it did: a record in the
    // file's last chunk cut by the file's end or damaged, or a chunk the file's end cuts short.
    // "<path>: offset <offset>: <what>; read up to here", for a warning; nothing when whole.
    std::optional<std::string> whereReadingStopped() const;
    // Known once the file is open: data that was not a readable chunk (a damaged chunk header, or
    // the records behind one) and was skipped, so its records are missing. "<path>: offset
    // <offset>: <what>; <n> bytes skipped, read on from offset <offset>", for a warning.
    std::optional<std::string> whatWasSkipped() const;

private:
    // A walk from the start, or on from where the last one stopped (followGrowth). False: it
    // cannot read on (readOn).
    template <typename Deliver>
    bool walk(Deliver& deliver, const std::function<void(double)>& progress, bool on = false);
    struct Batches {
        bool m_read;  // walk()'s answer
        bool m_secondThread;
    };
    Batches inBatches(RecordSink& sink, const std::function<void(double)>& progress, Decoding decoding, bool on);
    bool growTo(uint64_t bytes);  // readOn: the file's new size mapped and scanned

    struct Impl;
    std::string m_path;
    Impl* m_impl;
};

}  // namespace memlog::timeline

// Heap records for hand-made logs (LogBuilder::Thread::heap), and the block model of a log,
// read back through the real reader: shared by the timeline and render tests.
#pragma once

#include <unistd.h>

#include <string>

#include "log_builder.hpp"
#include "memlog/format.hpp"
#include "timeline/model/block_model.hpp"
#include "timeline/read/log_reader.hpp"

namespace memlog::test {

// A record of `kind` at `seq`, its timestamp seq * LogBuilder::kTicksPerSeq.
inline format::HeapRecord record(format::Kind kind, uint64_t seq, uint64_t addr, uint64_t size, uint64_t stack = 0) {
    format::HeapRecord r;
    r.m_kind = kind;
    r.m_seq = seq;
    r.m_tsc = seq * LogBuilder::kTicksPerSeq;
    r.m_addr = addr;
    r.m_size = size;
    r.m_stack = stack;
    return r;
}

// realloc, reallocarray or mremap: the old block ends at seq, the new one begins at seqAfter.
inline format::HeapRecord resize(format::Kind kind, uint64_t seq, uint64_t seqAfter, uint64_t oldAddr, uint64_t addr,
                                 uint64_t size, uint64_t oldSize = 0) {
    format::HeapRecord r = record(kind, seq, addr, size);
    r.m_oldAddr = oldAddr;
    r.m_seqAfter = seqAfter;
    r.m_oldSize = oldSize;
    return r;
}

// Writes the log to a temporary file and builds its block model.
inline timeline::BlockModel modelOf(const LogBuilder& log) {
    const std::string path = "/tmp/memlog-model-" + std::to_string(getpid()) + ".memlog";
    log.write(path);
    timeline::LogReader reader(path);
    timeline::BlockModel model = timeline::buildBlockModel(reader);
    unlink(path.c_str());
    return model;
}

}  // namespace memlog::test

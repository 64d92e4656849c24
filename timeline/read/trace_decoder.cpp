// A full trace's stream decoded: blocks kept as declared, runs read one access at a time.
#include "timeline/read/trace_decoder.hpp"

namespace memlog::timeline {

using format::Kind;

bool TraceDecoder::record(uint8_t tag, const uint8_t** cursor, const uint8_t* end) {
    switch (static_cast<Kind>(tag & format::kKindMask)) {
        case Kind::TraceBlock:
            return block(cursor, end);
        case Kind::TraceRun:
        case Kind::TraceRunPredicted:
            return run(tag, cursor, end);
        case Kind::TraceEnd:
            m_ended = true;
            return true;
        default:
            return false;
    }
}

// Decoded whole before it is kept: a record cut short leaves the stream as it was.
bool TraceDecoder::block(const uint8_t** cursor, const uint8_t* end) {
    uint64_t id;
    uint32_t count;
    if (!format::decodeTraceBlockHead(cursor, end, &id, &count) || id != m_blocks.size() + 1) return false;
    Block block;
    block.m_ops.resize(count);
    format::TraceOp previous;
    for (format::TraceOp& op : block.m_ops) {
        if (!format::decodeTraceOp(cursor, end, previous, op)) return false;
        previous = op;
    }
    block.m_last.assign(count, 0);
    m_blocks.push_back(std::move(block));
    m_ended = false;
    return true;
}

bool TraceDecoder::run(uint8_t tag, const uint8_t** cursor, const uint8_t* end) {
    format::TraceRunHead head;
    if (!format::decodeTraceRunHead(cursor, end, tag, head)) return false;
    if (format::predictedRun(tag)) {
        if (m_lastBlock == 0 || m_blocks[m_lastBlock - 1].m_next == 0) return false;
        head.m_block = m_blocks[m_lastBlock - 1].m_next;
        head.m_start = m_blocks[m_lastBlock - 1].m_nextStart;
    }
    if (head.m_block == 0 || head.m_block > m_blocks.size()) return false;
    Block& block = m_blocks[head.m_block - 1];
    const auto ops = static_cast<uint32_t>(block.m_ops.size());
    if ((tag & format::kTraceRunReached) && (head.m_reached == 0 || head.m_reached > ops)) return false;
    m_run = &block;
    m_op = 0;
    m_reached = (tag & format::kTraceRunReached) ? static_cast<uint32_t>(head.m_reached) : ops;
    m_hold = head.m_hold;
    m_nextSeq += head.m_seqDelta;
    m_tsc += static_cast<uint64_t>(head.m_tscDelta);
    m_instructions += head.m_start;
    if (m_lastBlock) {
        m_blocks[m_lastBlock - 1].m_next = head.m_block;
        m_blocks[m_lastBlock - 1].m_nextStart = head.m_start;
    }
    m_lastBlock = head.m_block;
    m_ended = false;
    return true;
}

TraceDecoder::Step TraceDecoder::next(const uint8_t** cursor, const uint8_t* end, format::AccessRecord& access) {
    while (m_op < m_reached) {
        const uint32_t index = m_op++;
        const format::TraceOp& op = m_run->m_ops[index];
        bool done;
        if (!format::decodeTraceAddress(cursor, end, op, m_run->m_last[index], &done)) {
            m_op = m_reached;
            return Step::Damaged;
        }
        if (!done) continue;
        access = format::AccessRecord{};
        access.m_seq = m_nextSeq;
        if (!m_hold) ++m_nextSeq;
        access.m_tsc = m_tsc;
        access.m_addr = m_run->m_last[index];
        access.m_size = op.m_size;
        access.m_kind = op.m_kind;
        access.m_source = format::AccessSource::Trace;
        access.m_ip = op.m_ip;
        access.m_instructions = m_instructions + op.m_index + 1;
        return Step::Access;
    }
    return Step::RunEnded;
}

}  // namespace memlog::timeline

#include "timeline/trace/lackey_trace.hpp"

#include <charconv>

namespace memlog::timeline {

namespace {

bool hexAt(std::string_view text, uint64_t& value, size_t& used) {
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
    used = static_cast<size_t>(end - text.data());
    return error == std::errc() && used > 0;
}

}  // namespace

void LackeyTrace::feed(std::string_view bytes) {
    while (!bytes.empty()) {
        const size_t newline = bytes.find('\n');
        if (newline == std::string_view::npos) {
            m_partial.append(bytes);
            return;
        }
        if (m_partial.empty()) {
            line(bytes.substr(0, newline));
        } else {
            m_partial.append(bytes.substr(0, newline));
            line(m_partial);
            m_partial.clear();
        }
        bytes.remove_prefix(newline + 1);
    }
}

void LackeyTrace::line(std::string_view text) {
    if (text.size() >= 4 && (text[0] == 'I' || text[0] == ' ') && text[2] == ' ') {
        uint64_t addr = 0, size = 0;
        size_t used = 0;
        std::string_view rest = text.substr(3);
        while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
        if (!hexAt(rest, addr, used) || used >= rest.size() || rest[used] != ',') return;
        std::from_chars(rest.data() + used + 1, rest.data() + rest.size(), size);
        if (text[0] == 'I') {
            m_ip = addr;
            return;
        }
        const char what = text[1];
        if (what != 'L' && what != 'S' && what != 'M') return;
        if (m_quiet || !m_started) {
            ++m_leftOut;
            return;
        }
        const format::AccessKind kind = what == 'L'   ? format::AccessKind::Read
                                        : what == 'S' ? format::AccessKind::Write
                                                      : format::AccessKind::ReadWrite;
        m_pending.push_back({addr, m_ip, static_cast<uint32_t>(size), kind});
        return;
    }
    if (text.rfind("==", 0) == 0) {
        if (m_valgrindLines.size() < 50) m_valgrindLines.emplace_back(text);
        return;
    }
    const size_t marker = text.find("memlog");
    if (text.rfind("**", 0) != 0 || marker == std::string_view::npos || marker + 7 > text.size()) return;
    const char bracket = text[marker + 6];
    if (bracket == '<') {
        m_quiet = true;
        return;
    }
    if (bracket != '>') return;
    m_quiet = false;
    std::string_view numbers = text.substr(marker + 7);
    uint64_t seq = 0, tsc = 0;
    while (!numbers.empty() && numbers.front() == ' ') numbers.remove_prefix(1);
    const auto [afterSeq, seqError] = std::from_chars(numbers.data(), numbers.data() + numbers.size(), seq);
    if (seqError != std::errc() || seq <= m_eventSeq) return;  // a bracket without an event
    const char* tscAt = afterSeq;
    while (tscAt < numbers.data() + numbers.size() && *tscAt == ' ') ++tscAt;
    std::from_chars(tscAt, numbers.data() + numbers.size(), tsc);
    flush(tsc);
    m_eventSeq = seq;
    m_eventTsc = tsc;
    m_started = true;
    ++m_events;
}

// The accesses since the last event, numbered after it and spread in time up to `nextTsc`.
void LackeyTrace::flush(uint64_t nextTsc) {
    const uint64_t count = m_pending.size();
    const uint64_t span = nextTsc > m_eventTsc ? nextTsc - m_eventTsc : 0;
    for (uint64_t i = 0; i < count; ++i) {
        if (i + 1 >= format::kTraceSeqStride) {  // more than the room between two events: cannot be placed
            m_leftOut += count - i;
            break;
        }
        const Pending& access = m_pending[i];
        format::AccessRecord record;
        record.m_seq = m_eventSeq + i + 1;
        record.m_tsc =
            m_eventTsc + (span ? static_cast<uint64_t>(static_cast<unsigned __int128>(span) * i / count) : i);
        record.m_addr = access.m_addr;
        record.m_size = access.m_size;
        record.m_kind = access.m_kind;
        record.m_source = format::AccessSource::Trace;
        record.m_ip = access.m_ip;
        m_emit(record);
        ++m_accesses;
    }
    m_pending.clear();
}

void LackeyTrace::finish() {
    if (!m_partial.empty()) {
        line(m_partial);
        m_partial.clear();
    }
    flush(0);
}

}  // namespace memlog::timeline

// Lackey's trace with the recorder's markers, read into accesses among the events.
#include <catch2/catch.hpp>

#include "timeline/trace/lackey_trace.hpp"

using namespace memlog;
using timeline::LackeyTrace;

TEST_CASE("lackey: start-up and bracketed accesses are left out, the rest numbered after their event and spread in time") {
    std::vector<format::AccessRecord> got;
    LackeyTrace trace([&](const format::AccessRecord& record) { got.push_back(record); });
    const std::string text =
        "==7== Lackey\n"
        "I  04000100,3\n L 1ffefff000,8\n"                 // start-up: before any event
        "**7** memlog<\n L 5000,8\n S 5008,8\n"             // the recorder at work
        "**7** memlog> 4294967297 1000\n"                  // event 1 done at tsc 1000
        "I  00401000,4\n S 6000,8\n"
        "I  00401004,4\n L 6008,4\n M 6010,2\n"
        "**7** memlog<\n S 5010,8\n**7** memlog>\n"         // allocator work, no event
        " L 6018,8\n"
        "**7** memlog> 8589934593 2000\n"                  // event 2 at tsc 2000
        " S 7000,16\n";
    // Fed in pieces cut in the middle of lines.
    for (size_t at = 0; at < text.size(); at += 7) trace.feed(std::string_view(text).substr(at, 7));
    trace.finish();
    REQUIRE(got.size() == 5);
    CHECK(trace.leftOut() == 4);
    CHECK(trace.events() == 2);
    CHECK(trace.valgrindLines().size() == 1);
    const uint64_t event1 = 4294967297, event2 = 8589934593;
    CHECK(got[0].m_seq == event1 + 1);
    CHECK(got[0].m_addr == 0x6000);
    CHECK(got[0].m_kind == format::AccessKind::Write);
    CHECK(got[0].m_ip == 0x401000);
    CHECK(got[0].m_tsc == 1000);
    CHECK(got[1].m_kind == format::AccessKind::Read);
    CHECK(got[1].m_size == 4);
    CHECK(got[1].m_ip == 0x401004);
    CHECK(got[2].m_kind == format::AccessKind::ReadWrite);
    CHECK(got[3].m_seq == event1 + 4);
    CHECK(got[3].m_tsc == 1750);  // the 4th of 4 between tsc 1000 and 2000
    CHECK(got[4].m_seq == event2 + 1);
    CHECK(got[4].m_size == 16);
    for (const auto& record : got) CHECK(record.m_source == format::AccessSource::Trace);
}

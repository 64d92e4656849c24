// A global's name by address (Symbolizer::symbolAt, dataSymbolAt), as a full trace asks it: the
// answers kept by stretch must be libdw's own for every address, whatever the order of the
// questions, around a symbol nested in another (as merged string constants are), one of no size
// and the gap after them. The symbols are this test program's own, laid out below.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "this_program.hpp"
#include "unwind/symbolizer.hpp"

// outer: 64 bytes; inner: 8 bytes at outer + 16; 8 bytes of no symbol; label: no size, at
// outer + 72; then 56 bytes that no symbol of ours holds (the section's next may follow).
__asm__(
    ".pushsection .data\n"
    ".balign 64\n"
    ".globl memlogTestOuter\n.type memlogTestOuter, @object\n.size memlogTestOuter, 64\n"
    "memlogTestOuter:\n.zero 16\n"
    ".globl memlogTestInner\n.type memlogTestInner, @object\n.size memlogTestInner, 8\n"
    "memlogTestInner:\n.zero 48\n"
    ".zero 8\n"
    ".globl memlogTestLabel\n"
    "memlogTestLabel:\n.zero 56\n"
    ".popsection\n");
extern "C" char memlogTestOuter[];

using memlog::unwind::Symbolizer;

namespace {

Symbolizer thisProgram() {
    return Symbolizer({memlog::test::thisProgramAt(std::filesystem::read_symlink("/proc/self/exe"))}, {});
}

}  // namespace

TEST_CASE("a global's name by address is libdw's, in whatever order asked: nested, sizeless, in a gap") {
    const uint64_t outer = reinterpret_cast<uint64_t>(memlogTestOuter);
    std::vector<uint64_t> addresses;
    for (uint64_t offset = 0; offset < 128; ++offset) addresses.push_back(outer + offset);

    // Each address asked of a symboliser of its own: nothing kept from another question.
    std::vector<std::string> fresh;
    for (uint64_t address : addresses) fresh.push_back(thisProgram().symbolAt(address));
    CHECK(fresh[0] == "memlogTestOuter");
    CHECK(fresh[20] == "memlogTestInner+0x4");
    CHECK(fresh[30] == "memlogTestOuter+0x1e");
    CHECK(fresh[68].find("memlogTestOuter") == std::string::npos);  // past its end
    CHECK(fresh[72] == "memlogTestLabel");

    // One symboliser, outer's first byte first (its extent holds inner's), then every address
    // up and down.
    Symbolizer ascending = thisProgram();
    for (size_t i = 0; i < addresses.size(); ++i) CHECK(ascending.symbolAt(addresses[i]) == fresh[i]);
    Symbolizer descending = thisProgram();
    for (size_t i = addresses.size(); i-- > 0;) CHECK(descending.symbolAt(addresses[i]) == fresh[i]);
    for (size_t i = 0; i < addresses.size(); ++i) CHECK(descending.symbolAt(addresses[i]) == fresh[i]);

    // The extent given with a name is the symbol's own.
    const auto inner = ascending.dataSymbolAt(outer + 23);
    REQUIRE(inner);
    CHECK(inner->m_name == "memlogTestInner");
    CHECK(inner->m_start == outer + 16);
    CHECK(inner->m_size == 8);
    const auto whole = ascending.dataSymbolAt(outer + 63);
    REQUIRE(whole);
    CHECK(whole->m_name == "memlogTestOuter");
    CHECK(whole->m_size == 64);
    CHECK_FALSE(ascending.dataSymbolAt(outer + 72));  // a symbol of no size holds nothing
}

TEST_CASE("a global's name by address: a gap in one module's symbols never covers another module") {
    // A module's symbol table holds undefined symbols (address 0): a question about an address
    // of the module before its first symbol once kept a "no symbol here" stretch from address 1
    // up to that symbol, over every module below it, whose globals were then unnamed when that
    // question came first (and named when it came last: the golden `memlog cache` output changed
    // from run to run with the hash order). Here the module above is this program's file again,
    // laid 4 GiB above it.
    const memlog::unwind::LoadedModule program =
        memlog::test::thisProgramAt(std::filesystem::read_symlink("/proc/self/exe"));
    memlog::unwind::LoadedModule above = program;
    above.m_base = (program.m_hi + (uint64_t{1} << 32)) & ~uint64_t{0xfffff};
    above.m_lo = above.m_base + (program.m_lo - program.m_base);
    above.m_hi = above.m_base + (program.m_hi - program.m_base);
    const std::vector<memlog::unwind::LoadedModule> modules{program, above};
    const uint64_t outer = reinterpret_cast<uint64_t>(memlogTestOuter);
    Symbolizer aboveFirst(modules, {});
    const std::string header = aboveFirst.symbolAt(above.m_lo + 16);  // the ELF header: no symbol
    CHECK(aboveFirst.symbolAt(outer) == "memlogTestOuter");
    CHECK(aboveFirst.symbolAt(outer + 20) == "memlogTestInner+0x4");
    CHECK(aboveFirst.symbolAt(outer - program.m_base + above.m_base) == "memlogTestOuter");  // the copy's own
    Symbolizer belowFirst(modules, {});
    CHECK(belowFirst.symbolAt(outer) == "memlogTestOuter");
    CHECK(belowFirst.symbolAt(above.m_lo + 16) == header);
}

// validUtf8: text from logs and binaries made safe for Cairo and JSON, byte by byte.
#include <catch2/catch.hpp>

#include "timeline/base/text_format.hpp"

using memlog::timeline::validUtf8;

TEST_CASE("valid UTF-8 passes unchanged, every stray byte becomes one U+FFFD") {
    const std::string replacement = "\xef\xbf\xbd";
    CHECK(validUtf8("") == "");
    CHECK(validUtf8("/usr/bin/python3") == "/usr/bin/python3");
    CHECK(validUtf8("caf\xc3\xa9 \xe2\x80\xa6 \xf0\x9f\x90\x8d") == "caf\xc3\xa9 \xe2\x80\xa6 \xf0\x9f\x90\x8d");
    CHECK(validUtf8("pyth\xf6n") == "pyth" + replacement + "n");              // a Latin-1 byte
    CHECK(validUtf8("\xc0\xaf") == replacement + replacement);                 // an overlong '/'
    CHECK(validUtf8("\xed\xa0\x80") == replacement + replacement + replacement);  // a surrogate
    CHECK(validUtf8("\xf4\x90\x80\x80") == replacement + replacement + replacement + replacement);  // past U+10FFFF
    CHECK(validUtf8("ab\xe2\x80") == "ab" + replacement + replacement);        // cut short
    CHECK(validUtf8(std::string("a\0b", 3)) == std::string("a\0b", 3));
}

// The protocol buffers wire format as pprof reads it (the encoding guide's own examples), and the
// gzip around it read back by zlib.
#include <catch2/catch.hpp>

#include <zlib.h>

#include <string>

#include "timeline/export/protobuf_writer.hpp"

using memlog::timeline::ProtobufWriter;

namespace {

std::string bytes(std::initializer_list<unsigned> values) {
    std::string out;
    for (unsigned value : values) out += static_cast<char>(value);
    return out;
}

std::string gunzip(const std::string& data) {
    z_stream stream{};
    REQUIRE(inflateInit2(&stream, 15 + 16) == Z_OK);
    std::string out(1 << 20, '\0');
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    stream.avail_in = static_cast<uInt>(data.size());
    stream.next_out = reinterpret_cast<Bytef*>(out.data());
    stream.avail_out = static_cast<uInt>(out.size());
    const int status = inflate(&stream, Z_FINISH);
    out.resize(stream.total_out);
    inflateEnd(&stream);
    REQUIRE(status == Z_STREAM_END);
    return out;
}

}  // namespace

TEST_CASE("protobuf: varints, strings, packed numbers and nested messages as the wire format lays them out") {
    ProtobufWriter varint;
    varint.varint(1, 150);
    CHECK(varint.data() == bytes({0x08, 0x96, 0x01}));
    ProtobufWriter text;
    text.bytes(2, "testing");
    CHECK(text.data() == bytes({0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g'}));
    ProtobufWriter packed;
    packed.packed(4, {3, 270, 86942});
    CHECK(packed.data() == bytes({0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05}));
    ProtobufWriter outer;
    outer.message(3, varint);
    CHECK(outer.data() == bytes({0x1a, 0x03, 0x08, 0x96, 0x01}));
    ProtobufWriter large;
    large.varint(15, UINT64_MAX);  // ten bytes, the last holding the top bit
    CHECK(large.data() == bytes({0x78, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}));
    ProtobufWriter unset;
    unset.varintIfSet(1, 0);
    unset.packed(2, {});
    CHECK(unset.data().empty());
}

TEST_CASE("gzipped: a gzip stream that inflates to the input, the same bytes every time") {
    std::string input;
    for (int i = 0; i < 10'000; ++i) input += "sample " + std::to_string(i % 97) + ";";
    const std::string once = memlog::timeline::gzipped(input);
    CHECK(once.substr(0, 2) == bytes({0x1f, 0x8b}));  // the gzip magic
    CHECK(once.size() < input.size() / 4);
    CHECK(gunzip(once) == input);
    CHECK(memlog::timeline::gzipped(input) == once);  // no time in the header
    CHECK(gunzip(memlog::timeline::gzipped("")).empty());
}

// Varints and length-delimited fields appended to a string; gzip through zlib.
#include "timeline/export/protobuf_writer.hpp"

#include <zlib.h>

#include <cstdint>
#include <stdexcept>

namespace memlog::timeline {

namespace {

enum WireType : uint64_t { kVarint = 0, kLengthDelimited = 2 };

}  // namespace

void ProtobufWriter::raw(uint64_t value) {
    while (value >= 0x80) {
        m_bytes += static_cast<char>((value & 0x7f) | 0x80);
        value >>= 7;
    }
    m_bytes += static_cast<char>(value);
}

void ProtobufWriter::varint(uint32_t field, uint64_t value) {
    raw(uint64_t{field} << 3 | kVarint);
    raw(value);
}

void ProtobufWriter::bytes(uint32_t field, const std::string& data) {
    raw(uint64_t{field} << 3 | kLengthDelimited);
    raw(data.size());
    m_bytes += data;
}

void ProtobufWriter::packed(uint32_t field, const std::vector<uint64_t>& values) {
    if (values.empty()) return;
    ProtobufWriter numbers;
    for (const uint64_t value : values) numbers.raw(value);
    bytes(field, numbers.m_bytes);
}

std::string gzipped(const std::string& data) {
    if (data.size() > UINT32_MAX) throw std::runtime_error("zlib: more than 4 GiB to compress at once");
    z_stream stream{};
    // 15 + 16: the largest window, with a gzip header and trailer rather than zlib's.
    if (deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("zlib: cannot start a gzip stream");
    gz_header header{};
    header.os = 3;  // Unix; time 0: no moment of writing in the bytes
    deflateSetHeader(&stream, &header);
    std::string out(deflateBound(&stream, static_cast<uLong>(data.size())) + 32, '\0');
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    stream.avail_in = static_cast<uInt>(data.size());
    stream.next_out = reinterpret_cast<Bytef*>(out.data());
    stream.avail_out = static_cast<uInt>(out.size());
    const int finished = deflate(&stream, Z_FINISH);
    const size_t written = stream.total_out;
    deflateEnd(&stream);
    if (finished != Z_STREAM_END) throw std::runtime_error("zlib: the gzip stream did not finish");
    out.resize(written);
    return out;
}

}  // namespace memlog::timeline

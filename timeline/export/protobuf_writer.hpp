// The protocol buffers wire format, written by hand for pprof's profile.proto: varints, and
// length-delimited fields (strings, packed numbers, nested messages). No schema and no library:
// a message is the bytes of its fields, in the order the caller writes them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace memlog::timeline {

class ProtobufWriter {
public:
    // A field's varint (wire type 0). Zero is written too: a caller leaves out what proto3
    // leaves out.
    void varint(uint32_t field, uint64_t value);
    // Only when not zero: proto3's default, which a reader takes as zero anyway.
    void varintIfSet(uint32_t field, uint64_t value) {
        if (value) varint(field, value);
    }
    // A length-delimited field (wire type 2): a string, bytes, or a nested message's bytes.
    void bytes(uint32_t field, const std::string& data);
    void message(uint32_t field, const ProtobufWriter& nested) { bytes(field, nested.m_bytes); }
    // A packed repeated varint field (wire type 2 holding the varints); nothing when empty.
    void packed(uint32_t field, const std::vector<uint64_t>& values);

    const std::string& data() const { return m_bytes; }
    std::string take() { return std::move(m_bytes); }

private:
    void raw(uint64_t value);  // a varint with no key
    std::string m_bytes;
};

// `data` as a gzip stream (zlib's deflate with a gzip wrapper, the whole input at once): what
// pprof expects of a profile on disk. The header says no time, so equal input gives equal bytes.
std::string gzipped(const std::string& data);

}  // namespace memlog::timeline

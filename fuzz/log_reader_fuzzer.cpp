// The log reader and the block model on any bytes: every record walked with the access samples,
// then the model the pictures draw, built and asked for the block under a few points. Bad input
// must end as LogError; anything else (a crash, a sanitizer report, another exception) is a bug.
#include <cstdint>

#include "input_file.hpp"
#include "timeline/model/block_model.hpp"
#include "timeline/read/log_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static memlog::fuzz::InputFile file;
    const std::string& path = file.write(data, size);
    try {
        memlog::timeline::LogReader reader(path);
        uint64_t lastSeq = 0;
        reader.forEachRecord([&](const memlog::timeline::Event& event) { lastSeq = event.m_seq; },
                             [&](const memlog::timeline::AccessSample& sample) { lastSeq = sample.m_seq; });
        const memlog::timeline::BlockModel model = memlog::timeline::buildBlockModel(reader, {}, true);
        using memlog::timeline::XAxis;
        for (size_t i = 0; i < model.size(); i += 1 + model.size() / 8) {
            const memlog::timeline::Block& block = model[i];
            (void)model.blockAt(XAxis::Time, block.beginNs(), block.addr());
            (void)model.blockAt(XAxis::Events, block.beginSeq(), block.endAddr());
            (void)model.seqAtTime(block.endNs());
            (void)model.freeStack(i);
        }
        (void)model.extent(XAxis::Time);
        (void)model.extent(XAxis::Events);
        (void)lastSeq;
    } catch (const memlog::timeline::LogError&) {
    }
    return 0;
}

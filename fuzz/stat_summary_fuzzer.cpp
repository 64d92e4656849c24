// What `memlog stat` computes from any bytes: the summary with its per-stack metrics, the access
// attribution when there are samples, the stacks named through the log's module map and the top
// sites by every metric, and the sampler's sentences. Bad input must end as LogError.
#include <cstdint>

#include "input_file.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/names/site_table.hpp"
#include "timeline/names/stack_names.hpp"
#include "timeline/replay/stack_metrics.hpp"
#include "timeline/replay/summary.hpp"
#include "timeline/base/text_format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace memlog::timeline;
    static memlog::fuzz::InputFile file;
    const std::string& path = file.write(data, size);
    try {
        LogReader reader(path);
        const MeasuredLog measured = measureStacks(reader);
        StackNames names(reader, {});
        for (const Metric metric : {Metric::Calls, Metric::Bytes, Metric::Peak, Metric::Leaked})
            (void)siteTable(names, measured.m_stacks, metric, 5);
        const Summary& s = measured.m_summary;
        (void)accessSamplerText(s);
        (void)watchSamplerText(s);
        (void)validUtf8(s.m_exe);
        (void)peakText(s.m_peakBytes, s.m_blocksAtPeak, s.m_peakBlocks);
    } catch (const LogError&) {
    }
    return 0;
}

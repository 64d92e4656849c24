// memlog arrays: the blocks and globals with access samples, as arrays: the name a user knows
// each by (and where the name came from), its size, its samples, and the element size and shape
// memlog_array() gave or the samples suggest, with how sure that guess is.
#include <cinttypes>
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "timeline/accesses/array_shape.hpp"
#include "timeline/names/stack_names.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/base/text_format.hpp"

namespace memlog::cli {
namespace {

constexpr options::Row kOptions[] = {
    topRow("20", "at most N arrays, 0 for all"),
    {.m_name = "--csv",
     .m_help = "rows of name,name_from,choose,addr,size,samples,element_size,rows,columns,depth,shape_from,"
               "element_confidence,row_confidence"},
    {.m_name = "--candidates",
     .m_help = "under each array, the row lengths its samples support, best first (the first is the shape's), "
               "each with its agreement, the steps it was told from and the columns they advance by; none for a "
               "shape memlog_array() gave. With --csv, rows of name,choose,row_length,rows,support,steps,offset "
               "instead"},
};

constexpr timeline::CommandSyntax kSyntax{
    .m_usage = "memlog arrays FILE [--top N] [--csv] [--candidates]",
    .m_about = R"(The heap blocks and globals of a .memlog log that access samples fell in
(MEMLOG_ACCESS=1), most sampled first, seen as arrays: each one's name (from
memlog_name() in memlog.h, else the variable its allocating source line assigns
it to, else its allocation site and ordinal, site=FUNCTION:K; a global: its
symbol), how to choose it for memtimeline --array (seq=N for a block), its size,
its samples, and its shape: the one memlog_array() gave, else a guess from the
samples with how sure it is (the element size from the accesses' sizes, the
row length from instructions that walk its columns: between two of their
samples they move by many whole rows plus about the same few columns, so that
modulo the row length their steps agree; the agreement is the row confidence,
1 when every step agrees, near 0 for no relation). The best supported row
length is the shape's; --candidates lists every one the samples support.
)",
    .m_options = kOptions,
    .m_notes = R"(A full trace (memlog run --full-trace) counts every access of an array and
tells its element size from all of them; the row length and memtimeline's
array views rest on its first accesses: 4096, or one per 4 bytes of a larger
array, at most 2^20 (memory follows the arrays, not the trace's length).
)"};

std::string shapeText(const timeline::ArrayShape& shape) {
    if (shape.m_columns == 0) return "?";
    std::string text = std::to_string(shape.m_rows) + "x" + std::to_string(shape.m_columns);
    if (shape.m_depth > 1) text += "x" + std::to_string(shape.m_depth);
    return text;
}

std::string chooser(const timeline::SampledArray& array) {
    return array.m_global ? "global=" + array.m_name : "seq=" + std::to_string(array.m_blockSeq);
}

// --candidates: the row lengths the samples support, as lines under the array's row or as CSV rows.
void printCandidates(const timeline::SampledArray& array, const timeline::ShapeGuess& guess, bool csv) {
    const uint64_t elements = guess.m_shape.m_elementSize ? array.m_size / guess.m_shape.m_elementSize : 0;
    for (const timeline::RowCandidate& candidate : guess.m_candidates) {
        if (csv)
            std::printf("%s,%s,%" PRIu64 ",%" PRIu64 ",%.2f,%" PRIu64 ",%" PRIu64 "\n", csvField(array.m_name).c_str(),
                        csvField(chooser(array)).c_str(), candidate.m_columns, elements / candidate.m_columns,
                        candidate.m_support, candidate.m_steps, candidate.m_offset);
        else
            std::printf("%-24s row length %s: %s x %s, %.0f%% agreement, %s steps, about %s columns a step\n", "",
                        timeline::countText(candidate.m_columns).c_str(),
                        timeline::countText(elements / candidate.m_columns).c_str(),
                        timeline::countText(candidate.m_columns).c_str(), candidate.m_support * 100,
                        timeline::countText(candidate.m_steps).c_str(),
                        timeline::countText(candidate.m_offset).c_str());
    }
}

}  // namespace

int arraysCommand(const Arguments& arguments) {
    const CommandLine line = readCommandLine("arrays", kSyntax, arguments);
    if (line.m_exit >= 0) return line.m_exit;
    const std::string& path = line.m_options.operands()[0];
    const size_t top = line.m_options.number("--top");
    const bool csv = line.m_options.given("--csv");
    const bool candidates = line.m_options.given("--candidates");
    try {
        timeline::OpenedLog log =
            openLog(path, {.m_walk = timeline::OpenedLog::Walk::Stacks, .m_names = timeline::OpenedLog::Names::Every});
        const auto arrays = timeline::sampledArrays(log.reader(), log.names());
        if (csv && candidates)
            std::puts("name,choose,row_length,rows,support,steps,offset");
        else if (csv)
            std::puts(
                "name,name_from,choose,addr,size,samples,element_size,rows,columns,depth,shape_from,"
                "element_confidence,row_confidence");
        else
            std::printf("%-24s %-12s %14s %10s %9s %-12s  %s\n", "array", "choose", "address", "size", "samples",
                        "shape", "name from; shape from");
        size_t shown = 0;
        for (const auto& array : arrays) {
            if (top && shown++ == top) break;
            timeline::ShapeGuess guess;
            std::string shapeFrom;
            if (array.m_annotatedShape) {
                guess.m_shape = *array.m_annotatedShape;
                guess.m_elementConfidence = guess.m_rowConfidence = 1;
                shapeFrom = "memlog_array";
            } else {
                guess = timeline::inferShape(array);
                shapeFrom = "guessed: " + guess.m_how;
            }
            if (csv && candidates) {
                printCandidates(array, guess, true);
                continue;
            }
            if (csv) {
                std::printf("%s,%s,%s,0x%" PRIx64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                            ",%s,%.2f,%.2f\n",
                            csvField(array.m_name).c_str(), csvField(array.m_nameFrom).c_str(),
                            csvField(chooser(array)).c_str(), array.m_addr, array.m_size, array.m_sampleCount,
                            guess.m_shape.m_elementSize, guess.m_shape.m_rows, guess.m_shape.m_columns,
                            guess.m_shape.m_depth, csvField(shapeFrom).c_str(), guess.m_elementConfidence,
                            guess.m_rowConfidence);
                continue;
            }
            const std::string shape =
                (guess.m_shape.m_elementSize ? std::to_string(guess.m_shape.m_elementSize) + " B " : "") +
                shapeText(guess.m_shape);
            std::printf("%-24s %-12s %14s %10s %9s %-12s  %s; %s\n", array.m_name.c_str(), chooser(array).c_str(),
                        timeline::hexText(array.m_addr).c_str(),
                        timeline::bytesText(static_cast<double>(array.m_size)).c_str(),
                        timeline::countText(array.m_sampleCount).c_str(), shape.c_str(), array.m_nameFrom.c_str(),
                        shapeFrom.c_str());
            if (candidates) printCandidates(array, guess, false);
        }
        if (arrays.empty() && !csv)
            std::fprintf(stderr, "memlog: %s has no access samples (record with MEMLOG_ACCESS=1)\n", path.c_str());
    } catch (const timeline::LogError& error) {
        std::fprintf(stderr, "memlog: %s\n", error.what());
        return 2;
    }
    return 0;
}

}  // namespace memlog::cli

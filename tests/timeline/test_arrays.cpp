// Arrays from samples: what an allocating line says, cells in row- and column-major order, and
// the shape guessed from the samples, on made-up samples with known answers.
#include <catch2/catch.hpp>

#include "timeline/accesses/array_cells.hpp"
#include "timeline/accesses/array_shape.hpp"
#include "timeline/names/source_names.hpp"

using namespace memlog::timeline;

TEST_CASE("an allocating line names its variable and element type, as a reader of the source would") {
    const SourceLineNames pin = parseSourceLine("    int* pin = malloc(n * sizeof(int));");
    CHECK(pin.m_variable == "pin");
    CHECK(pin.m_type == "int");
    CHECK(pin.m_elementSize == 4);
    const SourceLineNames cast = parseSourceLine("grid = (double *)calloc(rows * cols, sizeof( double ));");
    CHECK(cast.m_variable == "grid");
    CHECK(cast.m_elementSize == 8);
    const SourceLineNames array = parseSourceLine("auto* v = new uint16_t[count];");
    CHECK(array.m_variable == "v");
    CHECK(array.m_elementSize == 2);
    const SourceLineNames member = parseSourceLine("self->rows[i] = malloc(width * sizeof(float*));");
    CHECK(member.m_variable == "rows");
    CHECK(member.m_elementSize == 8);
    // A caller's line names what the allocating function returned.
    CHECK(parseSourceLine("    double* a = new_matrix(n);", "new_matrix").m_variable == "a");
    CHECK(parseSourceLine("    double* a = other(n);", "new_matrix").m_variable.empty());
    // No assignment, a comparison, an unknown type: no name, no size, never a guess.
    CHECK(parseSourceLine("return malloc(n);").m_variable.empty());
    CHECK(parseSourceLine("if (p == malloc(n)) {").m_variable.empty());
    CHECK(parseSourceLine("node = malloc(sizeof(struct node));").m_elementSize == 0);
    CHECK(scalarTypeSize("const unsigned long long") == 8);
    CHECK(scalarTypeSize("char *") == 8);
}

TEST_CASE("element places: row-major runs the last index fastest, column-major the first, planes outermost") {
    const ArrayShape shape{8, 3, 4, 2};  // 2 planes of 3 rows x 4 columns
    const CellPlace row = placeOf(1 * 12 + 2 * 4 + 3, shape, ArrayOrder::RowMajor);
    CHECK(row.m_plane == 1);
    CHECK(row.m_row == 2);
    CHECK(row.m_column == 3);
    const CellPlace column = placeOf(1 * 12 + 3 * 3 + 2, shape, ArrayOrder::ColumnMajor);
    CHECK(column.m_plane == 1);
    CHECK(column.m_row == 2);
    CHECK(column.m_column == 3);
}

namespace {

SampledArray arrayWith(uint64_t size, std::initializer_list<std::tuple<uint64_t, uint64_t, bool>> samples) {
    SampledArray array;
    array.m_size = size;
    uint64_t seq = 1;
    for (const auto& [offset, ip, write] : samples)
        array.m_samples.push_back({seq, seq * 1000, offset, ip, 8, 1,
                                   write ? memlog::format::AccessKind::Write : memlog::format::AccessKind::Read});
    for (ArraySample& sample : array.m_samples) sample.m_seq = seq++, sample.m_timeNs = sample.m_seq * 1000;
    return array;
}

}  // namespace

TEST_CASE("cells count the reads and writes of each element, and when, samples past the shape are counted apart") {
    const SampledArray array = arrayWith(8 * 12, {{0, 1, false}, {8 * 5, 1, true}, {8 * 5, 2, false}, {8 * 20, 1, false}});
    const ArrayCells cells = arrayCells(array, ArrayShape{8, 3, 4, 1}, ArrayOrder::RowMajor);
    CHECK(cells.m_samples == 3);
    CHECK(cells.m_outside == 1);
    const ArrayCell& five = cells.cellAt(0, 1, 1);
    CHECK(five.m_writes == 1);
    CHECK(five.m_reads == 1);
    CHECK(five.m_firstNs == 2000);
    CHECK(five.m_lastNs == 3000);
    CHECK_FALSE(cells.cellAt(0, 2, 3).sampled());  // no sample: not "not accessed"
    CHECK(cells.m_mostTouched == 2);
    CHECK(arrayCells(array, ArrayShape{8, 3, 4, 1}, ArrayOrder::RowMajor, 1500).m_samples == 1);
}

TEST_CASE("the shape from the samples: an instruction walking columns tells the row length") {
    // 100 rows of 60 doubles; one instruction walks down column 7 (steps of 60 elements) and
    // wraps to column 8; another sweeps along rows.
    SampledArray array;
    array.m_size = 100 * 60 * 8;
    uint64_t seq = 1;
    for (uint64_t i = 0; i < 90; ++i) {
        const uint64_t row = (i * 7) % 100, column = 7 + i / 45;
        array.m_samples.push_back({seq, seq * 1000, (row * 60 + column) * 8, 0x401000, 8, 1, memlog::format::AccessKind::Read});
        ++seq;
        array.m_samples.push_back({seq, seq * 1000, (i * 61) % 6000 * 8, 0x402000, 8, 1, memlog::format::AccessKind::Write});
        ++seq;
    }
    const ShapeGuess guess = inferShape(array);
    CHECK(guess.m_shape.m_elementSize == 8);
    CHECK(guess.m_elementConfidence == 1.0);
    CHECK(guess.m_shape.m_columns == 60);
    CHECK(guess.m_shape.m_rows == 100);
    CHECK(guess.m_rowConfidence >= 0.6);
    CHECK(guess.m_how.find("rows of 60 elements") != std::string::npos);
}

TEST_CASE("no column walks: a square is assumed and said to be, anything else is left unknown") {
    SampledArray square = arrayWith(64 * 64 * 8, {{0, 1, false}, {8, 1, false}, {16, 1, false}});
    const ShapeGuess assumed = inferShape(square);
    CHECK(assumed.m_shape.m_columns == 64);
    CHECK(assumed.m_rowConfidence == 0);
    CHECK(assumed.m_how.find("assumed") != std::string::npos);
    SampledArray odd = arrayWith(8 * 1000, {{0, 1, false}, {8, 1, false}});
    CHECK(inferShape(odd).m_shape.m_columns == 0);
    // The sizeof on the allocating line wins over the accesses' sizes.
    SampledArray typed = arrayWith(4 * 100, {{0, 1, false}});
    typed.m_sourceElementSize = 4;
    typed.m_sourceType = "int";
    CHECK(inferShape(typed).m_shape.m_elementSize == 4);
}

// A damaged size field: the divisors of the element count were searched one by one, 1.5 billion
// of them for 2^61 elements (and for 2^64 one-byte elements d * d overflows first: no end).
TEST_CASE("a block larger than the address space gets no shape, at once") {
    for (const uint64_t size : {UINT64_MAX, uint64_t{1} << 47}) {
        const ShapeGuess guess = inferShape(arrayWith(size, {{0, 1, false}, {8, 1, false}}));
        CHECK(guess.m_shape.m_columns == 0);
        CHECK(guess.m_how == "no shape: the block's size is larger than a process's address space");
    }
    CHECK(inferShape(arrayWith((uint64_t{1} << 47) - 8, {{0, 1, false}})).m_shape.m_elementSize == 8);
}

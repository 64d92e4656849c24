// Arrays from samples: what an allocating line says and cells in row- and column-major order, on
// made-up samples with known answers (the shape guessed from them: test_array_shape.cpp).
#include <catch2/catch.hpp>

#include "timeline/accesses/array_cells.hpp"
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

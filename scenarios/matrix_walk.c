/* One heap matrix of ROWS x COLUMNS doubles, stored row by row, read again and again in one order:
 *   rows     along each row, row after row: steps of one element
 *   columns  down each column, column after column: steps of a whole row (COLUMNS elements)
 *   blocked  tiles of 32 x 32, each row by row
 * Usage: matrix_walk rows|columns|blocked [ROWS=384] [COLUMNS=640] [PASSES=200]. Log: malloc 1
 * (the matrix, ROWS*COLUMNS*8 bytes) from fill_matrix, free 1; the samples of walk_* show the
 * order, and a non-square matrix tells a row length from a column count. */
#include <stdlib.h>

#include "scenario.h"

__attribute__((noinline)) static double* fill_matrix(size_t rows, size_t columns) {
    double* m = scenario_keep(malloc(rows * columns * sizeof(double)));
    for (size_t i = 0; i < rows * columns; ++i) m[i] = (double)(i % 13);
    return m;
}

__attribute__((noinline)) static double walk_rows(const double* m, size_t rows, size_t columns) {
    double sum = 0;
    for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < columns; ++c) sum += m[r * columns + c];
    return sum;
}

__attribute__((noinline)) static double walk_columns(const double* m, size_t rows, size_t columns) {
    double sum = 0;
    for (size_t c = 0; c < columns; ++c)
        for (size_t r = 0; r < rows; ++r) sum += m[r * columns + c];
    return sum;
}

__attribute__((noinline)) static double walk_blocked(const double* m, size_t rows, size_t columns) {
    const size_t tile = 32;
    double sum = 0;
    for (size_t rr = 0; rr < rows; rr += tile)
        for (size_t cc = 0; cc < columns; cc += tile)
            for (size_t r = rr; r < rr + tile && r < rows; ++r)
                for (size_t c = cc; c < cc + tile && c < columns; ++c) sum += m[r * columns + c];
    return sum;
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    const char* order = argc > 1 ? argv[1] : "columns";
    const size_t rows = argc > 2 ? (size_t)atoi(argv[2]) : 384;
    const size_t columns = argc > 3 ? (size_t)atoi(argv[3]) : 640;
    const int passes = argc > 4 ? atoi(argv[4]) : 200;
    if (rows == 0 || columns == 0 || passes <= 0) return 2;
    double* m = fill_matrix(rows, columns);
    double total = 0;
    for (int pass = 0; pass < passes; ++pass) {
        if (strcmp(order, "rows") == 0)
            total += walk_rows(m, rows, columns);
        else if (strcmp(order, "blocked") == 0)
            total += walk_blocked(m, rows, columns);
        else
            total += walk_columns(m, rows, columns);
    }
    free(m);
    return total < 0 ? 1 : 0; /* never true: keeps the sums observable */
}

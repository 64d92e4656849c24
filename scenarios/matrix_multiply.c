/* C = A x B with heap matrices of N x N doubles, all stored row by row, in one of three loop orders:
 *   row      i-k-j: every inner step moves along a row (of B and C), A is read row after row
 *   col      j-k-i: every inner step moves down a column (of A and C), B is read column after
 *            column: strides of N*8 bytes, which a set-associative cache maps to few sets
 *   blocked  tiles of 32 x 32
 * C's row (row order) or column (column order) is zeroed just before it is summed, so C too is
 * written in the loop's order. Usage: matrix_multiply row|col|blocked [N=256]. Log: malloc 3
 * (A, B, C) of N*N*8 bytes, free 3, peak 3*N*N*8 bytes in 3 blocks. The access patterns
 * differ; the heap does not. */
#include <stdlib.h>

#include "scenario.h"

__attribute__((noinline)) static double* new_matrix(size_t n) { return scenario_keep(malloc(n * n * sizeof(double))); }

__attribute__((noinline)) static void fill(double* m, size_t n, double seed) {
    for (size_t i = 0; i < n * n; ++i) m[i] = seed + (double)(i % 17);
}

__attribute__((noinline)) static void multiply_row(const double* a, const double* b, double* c, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < n; ++j) c[i * n + j] = 0;
        for (size_t k = 0; k < n; ++k)
            for (size_t j = 0; j < n; ++j) c[i * n + j] += a[i * n + k] * b[k * n + j];
    }
}

__attribute__((noinline)) static void multiply_col(const double* a, const double* b, double* c, size_t n) {
    for (size_t j = 0; j < n; ++j) {
        for (size_t i = 0; i < n; ++i) c[i * n + j] = 0;
        for (size_t k = 0; k < n; ++k)
            for (size_t i = 0; i < n; ++i) c[i * n + j] += a[i * n + k] * b[k * n + j];
    }
}

__attribute__((noinline)) static void multiply_blocked(const double* a, const double* b, double* c, size_t n) {
    const size_t tile = 32;
    for (size_t i = 0; i < n * n; ++i) c[i] = 0;
    for (size_t ii = 0; ii < n; ii += tile)
        for (size_t kk = 0; kk < n; kk += tile)
            for (size_t jj = 0; jj < n; jj += tile)
                for (size_t i = ii; i < ii + tile && i < n; ++i)
                    for (size_t k = kk; k < kk + tile && k < n; ++k)
                        for (size_t j = jj; j < jj + tile && j < n; ++j) c[i * n + j] += a[i * n + k] * b[k * n + j];
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    const char* order = argc > 1 ? argv[1] : "row";
    const size_t n = argc > 2 ? (size_t)atoi(argv[2]) : 256;
    if (n == 0) return 2;
    double* a = new_matrix(n);
    double* b = new_matrix(n);
    double* c = new_matrix(n);
    fill(a, n, 1.0);
    fill(b, n, 2.0);
    if (strcmp(order, "col") == 0)
        multiply_col(a, b, c, n);
    else if (strcmp(order, "blocked") == 0)
        multiply_blocked(a, b, c, n);
    else
        multiply_row(a, b, c, n);
    const int checksum = (int)c[n * n / 2] & 0xff;
    free(a);
    free(b);
    free(c);
    return checksum == 256 ? 1 : 0;  /* never true: keeps the product observable */
}

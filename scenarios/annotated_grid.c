/* A 3-D grid of 8 planes of 64 x 64 doubles that says what it is through memlog.h: its name
 * (temperature), its shape (memlog_array) and two phases (fill, smooth). The fill sweeps it
 * plane by plane, row by row. Without the recorder the calls do nothing and the program runs
 * the same. Usage: annotated_grid [WORK=40]. Log: malloc 1, free 1; annotations: a name, a
 * shape, two phases. */
#include <stdlib.h>

#include "memlog.h"
#include "scenario.h"

enum { kDepth = 8, kRows = 64, kColumns = 64 };

/* Each cell is worked on in place, WORK times (volatile: in memory each time), so that the
 * samples of the fill fall on the cell of the moment. */
__attribute__((noinline)) static void fill(volatile double* grid, int work) {
    for (size_t plane = 0; plane < kDepth; ++plane)
        for (size_t row = 0; row < kRows; ++row)
            for (size_t column = 0; column < kColumns; ++column) {
                volatile double* cell = &grid[(plane * kRows + row) * kColumns + column];
                *cell = (double)(plane + row + column);
                for (int w = 0; w < work; ++w) *cell = *cell * 0.5 + 1.0;
            }
}

__attribute__((noinline)) static double smooth(const double* grid) {
    double sum = 0;
    for (size_t i = 0; i < kDepth * kRows * kColumns; ++i) sum += grid[i];
    return sum;
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    const int work = argc > 1 ? atoi(argv[1]) : 100;
    double* grid = scenario_keep(malloc(kDepth * kRows * kColumns * sizeof(double)));
    memlog_name(grid, "temperature");
    memlog_array(grid, sizeof(double), kRows, kColumns, kDepth);
    memlog_phase("fill");
    fill(grid, work);
    memlog_phase("smooth");
    const double sum = smooth(grid);
    free(grid);
    scenario_say(sum > 0 ? "filled 8 planes of 64 x 64\n" : "?\n");
    return 0;
}

/* The program's own anonymous mappings: mmap 1 MiB, unmap 64 KiB from its middle (two pieces
 * remain), grow the last piece with mremap, unmap everything. A file mapping is made and
 * unmapped too: it is not heap and must not count.
 * Log: mmap 1, mremap 1, munmap 3 (middle, first piece, moved piece); 3 blocks begun (the
 * mapping, the piece split off, the remapped piece) and 3 ended; peak 512 KiB + 896 KiB =
 * 1441792 bytes in 2 blocks; no leak. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/mman.h>

#include "scenario.h"

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    const size_t mib = 1 << 20, hole = 64 << 10;
    char* region = mmap(NULL, mib, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED) return 1;
    region[0] = 1;
    char* middle = region + 512 * 1024;
    munmap(middle, hole);                                   /* pieces: [0,512K) and [576K,1M) */
    char* tail = middle + hole;
    const size_t tailSize = mib - 512 * 1024 - hole;
    char* moved = mremap(tail, tailSize, 2 * tailSize, MREMAP_MAYMOVE);
    if (moved == MAP_FAILED) return 1;
    munmap(region, 512 * 1024);
    munmap(moved, 2 * tailSize);

    const int fd = open("/proc/self/exe", O_RDONLY);
    void* file = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
    if (file != MAP_FAILED) munmap(file, 4096);
    close(fd);
    return 0;
}

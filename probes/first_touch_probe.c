/* first_touch_probe: the first-touch measurement with nothing in the way.
 *
 * mmap 1 GiB (or argv[1] MiB) with MADV_NOHUGEPAGE, write one byte per 4 KiB
 * page twice, and print ns/page for each pass. No allocator, no Rust, no
 * counters: if the collector's `nohugepage` figure and this one disagree,
 * the collector's harness is the suspect.
 *
 *   cc -O2 -o first_touch_probe first_touch_probe.c && ./first_touch_probe
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#define PAGE 4096UL

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/* volatile: the stores are the measurement and must not be optimised away. */
static double pass(volatile unsigned char *p, size_t len) {
    double start = now_ns();
    for (size_t off = 0; off < len; off += PAGE)
        p[off] = 1;
    return now_ns() - start;
}

int main(int argc, char **argv) {
    size_t len = (argc > 1 ? strtoul(argv[1], NULL, 10) : 1024) << 20;
    size_t pages = len / PAGE;
    unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    if (madvise(p, len, MADV_NOHUGEPAGE) != 0) {
        perror("madvise(MADV_NOHUGEPAGE)");
        return 1;
    }
    double first = pass(p, len);
    double second = pass(p, len);
    printf("%zu MiB, %zu pages\n", len >> 20, pages);
    printf("first pass:  %8.1f ms  %7.1f ns/page\n", first / 1e6, first / pages);
    printf("second pass: %8.1f ms  %7.1f ns/page\n", second / 1e6, second / pages);
    munmap(p, len);
    return 0;
}

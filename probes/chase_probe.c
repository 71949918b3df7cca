/* chase_probe: a dependent pointer chase with nothing in the way.
 *
 * For each region size given (in KiB), map it with MADV_NOHUGEPAGE (or
 * MADV_HUGEPAGE on a 2 MiB-aligned region with -H, or from the 1 GiB
 * hugetlbfs pool with -G: MAP_HUGETLB | MAP_HUGE_1GB, whole 1 GiB pages),
 * link one pointer per 64-byte line into a single random cycle (Sattolo,
 * its own generator: not the collector's permutation), walk it once to warm
 * it, then time enough dependent loads for ~20 ms, five times, and print
 * `KiB ns_per_load`, the median. No Rust, no counters, no verification
 * pass: if the collector's staircase and this disagree, the collector's
 * harness is the suspect.
 *
 * -G reserves nothing: the 1 GiB pool must have a free page already (as
 * root: echo 1 > /sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages,
 * and the old value back afterwards; scripts/report-translation does so).
 * Without one, mmap fails and the probe exits 1, saying so.
 *
 *   cc -O2 -o chase_probe chase_probe.c && ./chase_probe 16 256 4096 65536
 *   ./chase_probe -G 16 65536 1048576
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define LINE 64UL
#define HUGE (2UL << 20)
#define GIGANTIC (1UL << 30)
#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#ifndef MAP_HUGE_1GB
#define MAP_HUGE_1GB (30 << MAP_HUGE_SHIFT)
#endif

enum regime { SMALL, THP, HUGETLB_1G };

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint64_t next_random(void) { /* xorshift64* */
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 0x2545F4914F6CDD1DULL;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ANCHOR: chase (quoted in book/staircases.md) */
/* noinline + the returned pointer: every load stays, one after another. */
__attribute__((noinline)) static void **chase(void **p, uint64_t loads) {
    while (loads--)
        p = (void **)*p;
    return p;
}
/* ANCHOR_END: chase */

/* The region to chase: its mapping in *base / *map, its start returned. */
static char *map_region(size_t len, enum regime regime, char **base, size_t *map) {
    int flags = MAP_PRIVATE | MAP_ANONYMOUS;
    if (regime == HUGETLB_1G) {
        /* The kernel places a hugetlbfs mapping on its page size. */
        *map = (len + GIGANTIC - 1) / GIGANTIC * GIGANTIC;
        flags |= MAP_HUGETLB | MAP_HUGE_1GB;
    } else {
        *map = (len + HUGE - 1) / HUGE * HUGE + (regime == THP ? HUGE : 0);
    }
    *base = mmap(NULL, *map, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (*base == MAP_FAILED) {
        if (regime == HUGETLB_1G)
            fprintf(stderr,
                    "chase_probe: mmap of %zu GiB with MAP_HUGETLB | MAP_HUGE_1GB: %s"
                    " (-G reserves nothing: the 1 GiB pool needs %zu free page(s))\n",
                    *map / GIGANTIC, strerror(errno), *map / GIGANTIC);
        else
            perror("mmap");
        exit(1);
    }
    if (regime == HUGETLB_1G)
        return *base;
    char *start = regime == THP ? (char *)(((uintptr_t)*base + HUGE - 1) & ~(HUGE - 1)) : *base;
    madvise(start, *map - (size_t)(start - *base), regime == THP ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    return start;
}

static double measure(size_t kib, enum regime regime) {
    size_t len = kib << 10, slots = len / LINE, map;
    char *base, *start = map_region(len, regime, &base, &map);

    size_t *order = malloc(slots * sizeof *order);
    for (size_t i = 0; i < slots; i++)
        order[i] = i;
    for (size_t i = slots - 1; i > 0; i--) { /* Sattolo: one cycle through all */
        size_t j = next_random() % i, t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (size_t i = 0; i < slots; i++)
        *(void **)(start + order[i] * LINE) = start + order[(i + 1) % slots] * LINE;
    free(order);

    void **p = chase((void **)start, slots < 20000 ? 20000 : slots); /* warm */
    double t = now_ns();
    p = chase(p, 100000);
    double per = (now_ns() - t) / 100000;
    uint64_t loads = (uint64_t)(20e6 / (per > 0.1 ? per : 0.1));
    double ns[5];
    for (int rep = 0; rep < 5; rep++) {
        t = now_ns();
        p = chase(p, loads);
        ns[rep] = (now_ns() - t) / loads;
    }
    qsort(ns, 5, sizeof ns[0], cmp);
    if (p == NULL) /* consumes the final pointer */
        puts("?");
    munmap(base, map);
    return ns[2]; /* the median, as the collector reports */
}

int main(int argc, char **argv) {
    enum regime regime = SMALL;
    int first = 1;
    if (argc > 1 && strcmp(argv[1], "-H") == 0)
        regime = THP, first = 2;
    else if (argc > 1 && strcmp(argv[1], "-G") == 0)
        regime = HUGETLB_1G, first = 2;
    if (first >= argc) {
        fprintf(stderr, "usage: %s [-H | -G] KIB...\n", argv[0]);
        return 2;
    }
    for (int i = first; i < argc; i++) {
        size_t kib = strtoul(argv[i], NULL, 10);
        printf("%zu %.3f\n", kib, measure(kib, regime));
    }
    return 0;
}

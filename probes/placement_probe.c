/* placement_probe: does a fresh mapping of the same size chase at another
 * speed, and does it even get other physical pages?
 *
 * For each region size given (in KiB, 4 KiB pages, MADV_NOHUGEPAGE), map it
 * M times (-m, default 3). Each mapping gets one pointer per 64-byte line in
 * one random cycle (Sattolo, its own generator, not the collector's), a warm
 * lap, then R timed samples of ~10 ms (-r, default 3). With -f each mapping
 * is unmapped before the next is made (the usual "map afresh" loop); without
 * it every mapping is held until the size is done, as the collector does.
 * Prints, per size:
 *
 *   KiB  between% within%  reused%  median-per-mapping...
 *
 * between: max/min - 1 of the mappings' medians; within: the median over
 * mappings of each one's own max/min - 1; reused: the share of the last
 * mapping's frames that an earlier mapping of the size already had
 * (/proc/self/pagemap, root only; "-" otherwise). No Rust, no collector
 * code: if its spreads and this disagree in kind, the harness is suspect.
 *
 *   cc -O2 -o placement_probe placement_probe.c && ./placement_probe 65536 262144
 *   ./placement_probe -f 65536        # unmap first: watch the frames come back
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define LINE 64UL
#define PAGE 4096UL
#define MAX_MAPPINGS 16

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static uint64_t rng = 0x243F6A8885A308D3ULL;
static uint64_t next_random(void) { /* splitmix64 */
    uint64_t z = (rng += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

__attribute__((noinline)) static void **chase(void **p, uint64_t loads) {
    while (loads--)
        p = (void **)*p;
    return p;
}

static double median(double *v, int n) {
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The frame numbers of `pages` pages from `start`, sorted; NULL when
 * pagemap shows none (not root). */
static uint64_t *frames(char *start, size_t pages) {
    int fd = open("/proc/self/pagemap", O_RDONLY);
    if (fd < 0)
        return NULL;
    uint64_t *f = malloc(pages * sizeof *f);
    ssize_t want = pages * sizeof *f;
    int any = 0;
    if (pread(fd, f, want, (uintptr_t)start / PAGE * 8) != want) {
        free(f);
        close(fd);
        return NULL;
    }
    close(fd);
    for (size_t i = 0; i < pages; i++) {
        f[i] &= (1ULL << 55) - 1;
        any |= f[i] != 0;
    }
    if (!any) {
        free(f);
        return NULL;
    }
    qsort(f, pages, sizeof *f, cmp_u64);
    return f;
}

static void one_size(size_t kib, int mappings, int reps, int free_first) {
    size_t len = kib << 10, slots = len / LINE, pages = len / PAGE;
    char *held[MAX_MAPPINGS] = {0};
    uint64_t *seen[MAX_MAPPINGS] = {0};
    double medians[MAX_MAPPINGS], within[MAX_MAPPINGS], ns[64];
    size_t *order = malloc(slots * sizeof *order);
    for (int m = 0; m < mappings; m++) {
        char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            perror("mmap");
            exit(1);
        }
        madvise(p, len, MADV_NOHUGEPAGE);
        for (size_t i = 0; i < slots; i++)
            order[i] = i;
        for (size_t i = slots - 1; i > 0; i--) {
            size_t j = next_random() % i, t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (size_t i = 0; i < slots; i++)
            *(void **)(p + order[i] * LINE) = p + order[(i + 1) % slots] * LINE;
        void **q = chase((void **)p, slots < 20000 ? 20000 : slots);
        double t = now_ns();
        q = chase(q, 100000);
        double per = (now_ns() - t) / 100000;
        uint64_t loads = (uint64_t)(10e6 / (per > 0.1 ? per : 0.1));
        for (int r = 0; r < reps; r++) {
            t = now_ns();
            q = chase(q, loads);
            ns[r] = (now_ns() - t) / loads;
        }
        if (q == NULL)
            puts("?");
        double lo = ns[0], hi = ns[0];
        for (int r = 1; r < reps; r++) {
            lo = ns[r] < lo ? ns[r] : lo;
            hi = ns[r] > hi ? ns[r] : hi;
        }
        within[m] = hi / lo - 1;
        medians[m] = median(ns, reps);
        seen[m] = frames(p, pages);
        if (free_first)
            munmap(p, len);
        else
            held[m] = p;
    }
    /* The last mapping's frames that any earlier one had. */
    double reused = -1;
    if (mappings > 1 && seen[mappings - 1]) {
        size_t hits = 0;
        for (size_t i = 0; i < pages; i++)
            for (int m = 0; m < mappings - 1 && seen[m]; m++)
                if (bsearch(&seen[mappings - 1][i], seen[m], pages, sizeof(uint64_t), cmp_u64)) {
                    hits++;
                    break;
                }
        reused = (double)hits / pages;
    }
    double sorted[MAX_MAPPINGS];
    memcpy(sorted, medians, mappings * sizeof *medians);
    qsort(sorted, mappings, sizeof *sorted, cmp_double);
    printf("%zu %.1f %.1f ", kib, (sorted[mappings - 1] / sorted[0] - 1) * 100,
           median(within, mappings) * 100);
    if (reused < 0)
        printf("-");
    else
        printf("%.1f", reused * 100);
    for (int m = 0; m < mappings; m++)
        printf(" %.2f", medians[m]);
    printf("\n");
    for (int m = 0; m < mappings; m++) {
        if (held[m])
            munmap(held[m], len);
        free(seen[m]);
    }
    free(order);
}

int main(int argc, char **argv) {
    int mappings = 3, reps = 3, free_first = 0, opt;
    while ((opt = getopt(argc, argv, "m:r:f")) != -1) {
        if (opt == 'm')
            mappings = atoi(optarg);
        else if (opt == 'r')
            reps = atoi(optarg);
        else if (opt == 'f')
            free_first = 1;
        else
            return 2;
    }
    if (optind >= argc || mappings < 2 || mappings > MAX_MAPPINGS || reps < 1 || reps > 64) {
        fprintf(stderr, "usage: %s [-m 2..16] [-r 1..64] [-f] KIB...\n", argv[0]);
        return 2;
    }
    for (int i = optind; i < argc; i++)
        one_size(strtoul(argv[i], NULL, 10), mappings, reps, free_first);
    return 0;
}

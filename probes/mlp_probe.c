/* mlp_probe: how many misses one thread overlaps, with nothing in the way.
 *
 * For a region of SIZE MiB (default 64) on 4 KiB pages (MADV_NOHUGEPAGE),
 * the same on huge pages (2 MiB-aligned, MADV_HUGEPAGE), and a control
 * region of CONTROL MiB (default 4) on 4 KiB pages: one pointer per 64-byte
 * line, linked into one random cycle by its own Sattolo shuffle and its own
 * generator (not the collector's), then k = 1, 2, 4, 8, 16, 32 chains
 * started k evenly spaced points apart along the cycle and advanced
 * together, one load each per step. Prints, per region and k, the median
 * ns per load (elapsed / (steps x k)) of five ~8 ms timings, the chain
 * counts taking turns in each round. If the collector's `mlp` medians and
 * these disagree, its harness is the suspect.
 *
 *   cc -O2 -o mlp_probe mlp_probe.c && ./mlp_probe [SIZE_MIB [CONTROL_MIB]]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define LINE 64
#define HUGE (2UL << 20)
#define ROUNDS 5
#define MAXK 32

static const int ks[] = {1, 2, 4, 8, 16, 32};
#define NK (sizeof ks / sizeof ks[0])

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next_random(void) { /* xorshift64* */
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ULL;
}

/* k chains, `steps` loads each; every chain's address is its last value.
 * One function per k, so the compiler unrolls the inner loop and keeps the
 * chains in registers (as the collector's kernel does). */
#define STEP(K)                                                              \
    static void step##K(void **p, long steps) {                              \
        void *c[K];                                                          \
        memcpy(c, p, sizeof c);                                              \
        for (long s = 0; s < steps; s++)                                     \
            for (int j = 0; j < K; j++)                                      \
                c[j] = *(void **)c[j];                                       \
        memcpy(p, c, sizeof c);                                              \
        __asm__ volatile("" : : "r"(c) : "memory");                          \
    }
STEP(1) STEP(2) STEP(4) STEP(8) STEP(16) STEP(32)

static void step(void **p, int k, long steps) {
    switch (k) {
    case 1: step1(p, steps); break;
    case 2: step2(p, steps); break;
    case 4: step4(p, steps); break;
    case 8: step8(p, steps); break;
    case 16: step16(p, steps); break;
    default: step32(p, steps); break;
    }
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void region(const char *name, size_t bytes, int huge) {
    size_t map = bytes + HUGE;
    char *raw = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) {
        printf("%s skipped: mmap failed\n", name);
        return;
    }
    char *base = (char *)(((uintptr_t)raw + HUGE - 1) & ~(HUGE - 1));
    madvise(base, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    size_t n = bytes / LINE;
    size_t *order = malloc(n * sizeof *order);
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = n - 1; i > 0; i--) { /* Sattolo: one cycle */
        size_t j = next_random() % i, t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (size_t i = 0; i < n; i++)
        *(void **)(base + order[i] * LINE) = base + order[(i + 1) % n] * LINE;
    void *p[NK][MAXK];
    long steps[NK];
    double t[NK][ROUNDS];
    for (size_t a = 0; a < NK; a++) {
        int k = ks[a];
        for (int j = 0; j < k; j++)
            p[a][j] = base + order[(size_t)j * (n / k)] * LINE;
        long warm = 1 << 14;
        double s = now_ns();
        step(p[a], k, warm);
        double per_step = (now_ns() - s) / warm;
        steps[a] = (long)(8e6 / (per_step > 0.1 ? per_step : 0.1));
        if (steps[a] < 1000)
            steps[a] = 1000;
    }
    for (int r = 0; r < ROUNDS; r++)
        for (size_t a = 0; a < NK; a++) {
            double s = now_ns();
            step(p[a], ks[a], steps[a]);
            t[a][r] = (now_ns() - s) / ((double)steps[a] * ks[a]);
        }
    for (size_t a = 0; a < NK; a++) {
        qsort(t[a], ROUNDS, sizeof t[a][0], cmp);
        printf("%s %d %.2f\n", name, ks[a], t[a][ROUNDS / 2]);
    }
    free(order);
    munmap(raw, map);
}

int main(int argc, char **argv) {
    size_t size = (argc > 1 ? strtoul(argv[1], NULL, 10) : 64) << 20;
    size_t control = (argc > 2 ? strtoul(argv[2], NULL, 10) : 4) << 20;
    region("small", size, 0);
    region("huge", size, 1);
    region("control", control, 0);
    return 0;
}

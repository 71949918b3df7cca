/* walk_probe: what one load per page costs as the page-table entries of
 * neighbouring pages are pulled apart, with nothing in the way.
 *
 * PAGES pages (default 8192) one STRIDE apart in one MAP_NORESERVE range
 * aligned to the stride, for strides 4 KiB, 32 KiB, 2 MiB and 1 GiB on
 * 4 KiB pages (MADV_NOHUGEPAGE), and HUGE_PAGES pages (default 512) 2 MiB
 * and 1 GiB apart on huge pages (MADV_HUGEPAGE), plus PAGES pages 4 KiB
 * apart inside huge pages (the no-walk baseline). Page i's pointer sits at
 * the same place the collector's `walk` puts it (line (i*13) mod 64; the
 * page-table entry (i*37) mod 512 from 2 MiB on; the directory entry
 * (i*41) mod 512 at 1 GiB), linked into one random cycle by its own Sattolo
 * shuffle and generator. Prints the median ns per load of five ~4 ms
 * timings per point. If the collector's medians and these disagree, its
 * harness is the suspect.
 *
 *   cc -O2 -o walk_probe walk_probe.c && ./walk_probe [PAGES [HUGE_PAGES]]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#define KIB 1024UL
#define HUGE (2UL << 20)
#define GIB (1UL << 30)
#define ROUNDS 5

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static uint64_t rng = 0x2545f4914f6cdd1dULL;
static uint64_t next_random(void) { /* xorshift64* */
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ULL;
}

static uint64_t offset(uint64_t i, uint64_t stride) {
    uint64_t line = (i * 13) % 64 * 64;
    uint64_t pte = stride >= HUGE ? (i * 37) % 512 * 4096 : 0;
    uint64_t pmd = stride >= GIB ? (i * 41) % 512 * HUGE : 0;
    return i * stride + pmd + pte + line;
}

static void *chase(void *p, long loads) {
    for (long i = 0; i < loads; i++)
        p = *(void **)p;
    return p;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void point(const char *regime, uint64_t stride, uint64_t pages, int huge) {
    uint64_t align = stride > HUGE ? stride : HUGE;
    size_t len = pages * stride + align;
    char *raw = mmap(NULL, len, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED) {
        printf("%s %lu skipped: mmap failed\n", regime, (unsigned long)stride);
        return;
    }
    char *base = (char *)(((uintptr_t)raw + align - 1) & ~(align - 1));
    madvise(base, pages * stride, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    uint64_t *order = malloc(pages * sizeof *order);
    for (uint64_t i = 0; i < pages; i++)
        order[i] = i;
    for (uint64_t i = pages - 1; i > 0; i--) {
        uint64_t j = next_random() % i, t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (uint64_t i = 0; i < pages; i++)
        *(void **)(base + offset(order[i], stride)) =
            base + offset(order[(i + 1) % pages], stride);
    double s = now_ns();
    void *p = chase(base + offset(order[0], stride), (long)pages);
    long loads = (long)(4e6 / ((now_ns() - s) / pages + 0.1));
    if (loads < 10000)
        loads = 10000;
    double t[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        s = now_ns();
        p = chase(p, loads);
        t[r] = (now_ns() - s) / loads;
    }
    __asm__ volatile("" : : "r"(p) : "memory");
    qsort(t, ROUNDS, sizeof t[0], cmp);
    printf("%s %lu %.2f\n", regime, (unsigned long)stride, t[ROUNDS / 2]);
    free(order);
    munmap(raw, len);
}

int main(int argc, char **argv) {
    uint64_t pages = argc > 1 ? strtoull(argv[1], NULL, 10) : 8192;
    uint64_t huge = argc > 2 ? strtoull(argv[2], NULL, 10) : 512;
    const uint64_t small[] = {4 * KIB, 32 * KIB, HUGE, GIB};
    for (int i = 0; i < 4; i++)
        point("small", small[i], pages, 0);
    point("huge", 4 * KIB, pages, 1);
    point("huge", HUGE, huge, 1);
    point("huge", GIB, huge, 1);
    return 0;
}

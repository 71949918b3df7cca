/* shootdown_probe: what munmap, mprotect and madvise(MADV_DONTNEED) cost
 * when another thread of the process is running on another CPU, with
 * nothing in the way.
 *
 * This thread is pinned to the first CPU it may use, a second thread to the
 * next one. For each call: map 16 pages, write each, then time one call that
 * takes them away (munmap), makes them read-only (mprotect) or discards them
 * (MADV_DONTNEED). Each is timed 400 times three ways: with no second
 * thread, with the second thread spinning, and with it asleep. Prints the
 * median ns per call and the other CPU's "TLB shootdowns" count from
 * /proc/interrupts per call. No Rust, no allocator in the loop: if the
 * collector's `shootdown` medians and these disagree, its harness is the
 * suspect.
 *
 *   cc -O2 -pthread -o shootdown_probe shootdown_probe.c && ./shootdown_probe
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096UL
#define PAGES 16
#define CALLS 400

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/* The "TLB:" row of /proc/interrupts, column `cpu` (-1 when absent). */
static long shootdowns(int cpu) {
    FILE *f = fopen("/proc/interrupts", "r");
    if (!f)
        return -1;
    char line[8192];
    long found = -1;
    while (fgets(line, sizeof line, f)) {
        char *p = line;
        while (*p == ' ')
            p++;
        if (strncmp(p, "TLB:", 4) != 0)
            continue;
        p += 4;
        for (int i = 0; i <= cpu; i++) {
            char *end;
            long v = strtol(p, &end, 10);
            if (end == p)
                break;
            if (i == cpu)
                found = v;
            p = end;
        }
    }
    fclose(f);
    return found;
}

static atomic_int mode; /* 0: stop, 1: spin, 2: sleep */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static int cpus[2];

static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
}

static void *sibling(void *arg) {
    (void)arg;
    pin(cpus[1]);
    while (atomic_load(&mode) != 0) {
        if (atomic_load(&mode) == 2) {
            pthread_mutex_lock(&lock);
            while (atomic_load(&mode) == 2)
                pthread_cond_wait(&wake, &lock);
            pthread_mutex_unlock(&lock);
        }
    }
    return NULL;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median ns of CALLS calls of `op`, and remote shootdowns per call. */
static void measure(const char *op, const char *who) {
    static double t[CALLS];
    long remote = 0;
    size_t len = PAGES * PAGE;
    for (int i = 0; i < CALLS; i++) {
        volatile char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            perror("mmap");
            exit(1);
        }
        madvise((void *)p, len, MADV_NOHUGEPAGE);
        for (size_t off = 0; off < len; off += PAGE)
            p[off] = 1;
        long before = shootdowns(cpus[1]);
        double start = now_ns();
        if (op[1] == 'u')
            munmap((void *)p, len);
        else if (op[1] == 'p')
            mprotect((void *)p, len, PROT_READ);
        else
            madvise((void *)p, len, MADV_DONTNEED);
        t[i] = now_ns() - start;
        remote += shootdowns(cpus[1]) - before;
        if (op[1] != 'u')
            munmap((void *)p, len);
    }
    qsort(t, CALLS, sizeof t[0], cmp);
    printf("%-14s %-9s %8.0f ns/call  %5.2f shootdowns/call on CPU %d\n", op, who, t[CALLS / 2],
           (double)remote / CALLS, cpus[1]);
}

int main(void) {
    cpu_set_t set;
    sched_getaffinity(0, sizeof set, &set);
    int n = 0;
    for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
        if (CPU_ISSET(c, &set))
            cpus[n++] = c;
    if (n < 2) {
        printf("skipped: one CPU\n");
        return 0;
    }
    pin(cpus[0]);
    const char *ops[] = {"munmap", "mprotect", "madv_dontneed"};
    for (int o = 0; o < 3; o++)
        measure(ops[o], "alone");
    pthread_t th;
    atomic_store(&mode, 1);
    pthread_create(&th, NULL, sibling, NULL);
    usleep(10000);
    for (int o = 0; o < 3; o++)
        measure(ops[o], "spinning");
    atomic_store(&mode, 2);
    usleep(10000);
    for (int o = 0; o < 3; o++)
        measure(ops[o], "asleep");
    pthread_mutex_lock(&lock);
    atomic_store(&mode, 0);
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
    pthread_join(th, NULL);
    return 0;
}

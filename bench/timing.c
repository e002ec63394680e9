/* SPDX-License-Identifier: MIT */
/*
 * timing.c - the benchmark's clocks and statistics. Throughput runs are timed around whole
 * batches (milliseconds each, so the clock read does not matter) with the thread's CPU clock
 * (CLOCK_THREAD_CPUTIME_ID): on the shared 2-core VMs here other processes take the core away
 * for whole time slices, and a CPU clock does not count them, while every cycle the thread
 * spends waiting for memory still counts. Multi-thread runs use CLOCK_MONOTONIC (wall time).
 * Single-call latency groups are short (tens of ns per call), so they are timed with the TSC on
 * x86: an lfence before and after rdtsc keeps the timed calls from leaking out of the window
 * (Intel's "How to Benchmark Code Execution Times", 2010, section 3.2.1), and the tick rate is
 * calibrated against CLOCK_MONOTONIC once. Elsewhere the ticks are nanoseconds.
 */
#include "bench.h"

#include <stdlib.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define BENCH_TSC 1
#endif

static double ns_per_tick = 1.0;

double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double process_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

uint64_t tick_now(void) {
#ifdef BENCH_TSC
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
#else
    return (uint64_t)now_ns();
#endif
}

void tick_fence(void) {
#ifdef BENCH_TSC
    _mm_lfence();
#else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

void tick_calibrate(void) {
#ifdef BENCH_TSC
    /* 20 ms against the monotonic clock: enough for 4 significant digits. */
    double t0 = now_ns();
    uint64_t c0 = tick_now();
    while (now_ns() - t0 < 20e6) {
    }
    uint64_t c1 = tick_now();
    double t1 = now_ns();
    ns_per_tick = (t1 - t0) / (double)(c1 - c0);
#endif
}

double tick_to_ns(uint64_t ticks) { return (double)ticks * ns_per_tick; }

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double percentile(double *v, size_t n, double q) {
    if (n == 0) return 0.0 / 0.0;
    qsort(v, n, sizeof *v, cmp_double);
    /* nearest rank: the smallest value with at least q*n values at or below it */
    double rank = q * (double)n;
    size_t i = rank <= 1.0 ? 0 : (size_t)(rank + 0.999999) - 1;
    return v[i < n ? i : n - 1];
}

double median(double *v, size_t n) {
    if (n == 0) return 0.0 / 0.0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Steele, Lea, Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014. */
uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

uint64_t splitmix64(uint64_t *state) {
    *state += UINT64_C(0x9e3779b97f4a7c15);
    return mix64(*state);
}

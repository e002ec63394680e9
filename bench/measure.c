/* SPDX-License-Identifier: MIT */
/*
 * measure.c - how every number of one filter size is measured. All series of a size are
 * built and queried interleaved: each repetition runs every series once, in an order rotated
 * by one series per repetition, so a burst of load from other processes on this shared
 * machine hits all series alike instead of one series' repetitions; the reported value is the
 * median over repetitions. Single-thread throughput is timed with the thread's CPU clock (see
 * timing.c); the multi-thread series with wall time from the first thread's start to the last
 * one's end (and, for comparison, the slowest thread's CPU time). Before each timed query run
 * a filter that fits in the last-level cache gets one untimed pass (warm()), so "LLC-resident"
 * is measured resident and not cold after the other series' runs.
 *
 *  add          The n keys go in as `reps` equal slices of bb_add_batch (libbloom: bloom_add
 *               one by one) into the empty filter; each slice is one repetition. Filters
 *               smaller than `ops` keys are rebuilt (cleared, untimed) with the next n keys
 *               until every slice has seen `ops`/reps keys; the last build's keys are the
 *               present keys of the queries. The keys of a slice are materialised before
 *               timing.
 *  add_hash,    The same builds of the same keys, hashed with bb_hash before timing, after
 *  add_conc     the queries (they empty the filters): bb_add_hashes into each kernel's
 *               blocked filter, and bb_add_hashes_concurrent once on one thread with each
 *               kernel selected (into a second filter of each kernel's series; the
 *               concurrent kernels follow the plain add's ISA) and once with the
 *               multi-thread series' threads each adding an equal part of every slice into
 *               one shared filter, on the add kernel dispatch chose. All three run in the same slice loop, so each
 *               slice hits every variant at the same fill; the filters must end equal. The
 *               threads' adds up to ops / reps keys are the exception: they time whole builds
 *               (each thread n/N keys in one call; repetition b % reps gets build b), since a
 *               slice of 10^4 keys gave each thread ~1000 keys, ~3 us, so the team's fixed
 *               cost per call (the filter's lines moving to the other core, ~1.2 us for 12 KiB
 *               on Intel Xeon family 6 model A7h) weighed five times what it does in a build.
 *  present,     bb_contains_batch of string keys that are all present / all absent, and of a
 *  absent,      50/50 present/absent mix in random order (batch_str); bb_contains_hashes of
 *  batch_str,   the same mix pre-hashed (batch_hash). libbloom has no batch call: it is
 *  batch_hash   timed as the loop of bloom_check a user writes. Each repetition makes passes
 *               over the query set until `ops` keys are done. Query sets have query_max keys
 *               at every n (present keys drawn with replacement), never a few thousand keys
 *               repeated: the core's branch predictor learns a short repeated sequence of key
 *               lengths, and XXH3's (and libbloom's MurmurHash2's) length branches then stop
 *               mispredicting, which real traffic does not allow (XXH3 of the npm names:
 *               2.4 ns/key over 10,000 names repeated, 6.2 ns/key over 1,000,000).
 *  lat_p50/p99  Single bb_contains calls (libbloom: bloom_check) on the mix, each followed by
 *               a fence (lfence on x86) that lets no later instruction start before the call
 *               has completed, loads included: so calls do not overlap, and branchy code
 *               (classic, libbloom) cannot run ahead on a predicted answer. This is the
 *               latency a caller that waits for the answer sees. Calls are timed in groups of
 *               LAT_GROUP between fenced TSC reads (this VM's TSC advances in 10 ns steps, too
 *               coarse for one call); per group (ticks - the median empty group) / LAT_GROUP.
 *               p50 and p99 over the groups of one repetition, then the median over
 *               repetitions; a p99 of 8-call means is a lower bound on single calls' p99.
 *  loop, view_loop, view_chain  Single lookups of the pre-hashed mix in a plain loop, no fence:
 *               bb_contains_hash calls, the header's inline bb_view_contains_hash, and a
 *               dependent chain of the inline lookup (each answer picks the next key); the line
 *               floor's loop and chain read one line per key the same ways (floors.c).
 *  fpr          fpr_keys keys never added, through the batch call.
 */
#include "bench.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- clocks ----------------------------------------------------------------------------------
 * Why each clock: on these shared 2-vCPU VMs other processes take the core for whole time
 * slices (milliseconds), and a wall clock around a timed call counts them, so long calls (a
 * slice of adds into a 100M-key filter) came out inflated under load. The thread's CPU clock
 * counts only this thread's time on a core, stalls on memory included. Wall time stays where
 * it is the quantity: the multi-thread series, whose point is how long N threads take
 * together (their slowest thread's CPU time is reported beside it). The single-call latency
 * groups stay on the TSC: a CLOCK_THREAD_CPUTIME_ID read is a system call, about 1,500 TSC
 * ticks here (AMD EPYC Zen 4 VM) against 58 for CLOCK_MONOTONIC's vDSO read, ten times a group
 * of 8 calls; a time slice lands in one group, which moves neither the p50 nor, at one slice
 * in thousands of groups, the p99. */
const char *const clock_names[3] = {"thread_cpu", "wall", "tsc"};

bench_clock metric_clock(series_type t, metric m) {
    if (m == M_LAT_P50 || m == M_LAT_P99) return CLK_TSC;
    return t == S_THREADS || t == S_JOBS ? CLK_WALL : CLK_THREAD_CPU;
}

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "blockbloom-bench: out of memory\n");
        exit(1);
    }
    return p;
}

static void record(series *s, metric m, double v) {
    if (s->nreps[m] < (int)(sizeof s->reps[m] / sizeof s->reps[m][0])) s->reps[m][s->nreps[m]++] = v;
}

/* The slowest thread's CPU time of the repetition that the next record(s, m, ...) stores. */
static void note_cpu(series *s, metric m, double cpu) {
    if (s->nreps[m] < (int)(sizeof s->cpu_reps[m] / sizeof s->cpu_reps[m][0]))
        s->cpu_reps[m][s->nreps[m]] = cpu;
}

static void finish(series *s) {
    for (int m = 0; m < M_COUNT; m++) {
        double tmp[64];
        memcpy(tmp, s->reps[m], sizeof tmp);
        s->value[m] = s->nreps[m] ? median(tmp, (size_t)s->nreps[m]) : NAN;
        memcpy(tmp, s->cpu_reps[m], sizeof tmp);
        bool has_cpu = s->type == S_THREADS || s->type == S_JOBS;
        s->cpu_value[m] = s->nreps[m] && has_cpu ? median(tmp, (size_t)s->nreps[m]) : NAN;
    }
}

/* Series j of repetition rep, in the rotated order. */
static series *nth(size_run *r, size_t j, int rep) {
    return &r->series[(j + (size_t)rep) % r->nseries];
}

/* ---- threads -------------------------------------------------------------------------------- */

typedef struct queries queries;

/* One thread's share of a timed run: job(w) is the work, the rest its arguments. */
typedef struct worker {
    void (*job)(struct worker *w);
    series *s;
    metric m;
    const queries *q;          /* queries: `iters` passes over q from key start_key */
    size_t iters, start_key;
    uint8_t *out;
    const keyset *ks;          /* adds: keys (M_ADD) or hashes first .. first+count-1 */
    const uint64_t *hashes;
    size_t first, count;
    atomic_int ready;
    const atomic_int *go;
    double t1, cpu;
} worker;

static void spin_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static void work(worker *w) {
    double c0 = cpu_ns();
    w->job(w);
    w->t1 = now_ns();
    w->cpu = cpu_ns() - c0;
}

/* Helper threads spin until `go`: a blocked thread on an idle vCPU of a VM takes up to
 * milliseconds to wake (the host must schedule the vCPU first), as long as a whole run. */
static void *worker_main(void *arg) {
    worker *w = arg;
    atomic_store(&w->ready, 1);
    while (!atomic_load(w->go)) spin_pause();
    work(w);
    return NULL;
}

/* Runs w[0 .. nt) at once, w[0] in this thread and the others in helper threads that are all
 * already running when the clock starts. Returns the wall time from the start to the last
 * thread's end; *cpu gets the slowest thread's CPU time (with nt = 1: this thread's). */
static double run_threads(worker *w, int nt, double *cpu) {
    pthread_t tid[16];
    atomic_int go = 0;
    for (int i = 0; i < nt; i++) {
        w[i].go = &go;
        atomic_init(&w[i].ready, 0);
        if (i) pthread_create(&tid[i], NULL, worker_main, &w[i]);
    }
    for (int i = 1; i < nt; i++)
        while (!atomic_load(&w[i].ready)) spin_pause();
    double t0 = now_ns();
    atomic_store(&go, 1);
    work(&w[0]);
    double t1 = w[0].t1, c = w[0].cpu;
    for (int i = 1; i < nt; i++) {
        pthread_join(tid[i], NULL);
        t1 = fmax(t1, w[i].t1);
        c = fmax(c, w[i].cpu);
    }
    *cpu = c;
    return t1 - t0;
}

/* ---- adds ----------------------------------------------------------------------------------- */

/* Keys of slice rep of `reps` equal slices of n: returns the first, *count gets how many. */
static uint64_t slice(uint64_t n, int reps, int rep, size_t *count) {
    uint64_t first = n * (uint64_t)rep / (uint64_t)reps;
    *count = (size_t)(n * (uint64_t)(rep + 1) / (uint64_t)reps - first);
    return first;
}

static void add_job(worker *w) {
    if (w->m == M_ADD) series_add(w->s, w->ks, w->first, w->count);
    else series_add_hashes(w->s, w->m, w->hashes + w->first, w->count);
}

/* ns to add the `count` keys of ks, or their hashes h, with metric m's call: a single-thread
 * series' CPU time, as every single-thread number; an S_THREADS series' threads each take an
 * equal part, timed by wall time (*cpu: the slowest thread's CPU time). */
static double time_add(series *s, metric m, const keyset *ks, const uint64_t *h, size_t count,
                       double *cpu) {
    bool threads = s->type == S_THREADS;
    int nt = threads ? s->threads : 1;
    worker w[16];
    for (int i = 0; i < nt; i++) {
        size_t a = count * (size_t)i / (size_t)nt, e = count * (size_t)(i + 1) / (size_t)nt;
        w[i] = (worker){.job = add_job, .s = s, .m = m, .ks = ks, .hashes = h, .first = a,
                        .count = e - a};
    }
    double p0 = process_cpu_ns();
    double wall = run_threads(w, nt, cpu);
    if (s->type == S_JOBS) *cpu = process_cpu_ns() - p0; /* the library's threads too */
    return threads || s->type == S_JOBS ? wall : *cpu;
}

/* Where measure_adds sums the times of series i, metric m, repetition rep. */
static size_t cell(size_t i, metric m, int rep, int reps) {
    return (i * M_COUNT + (size_t)m) * (size_t)reps + (size_t)rep;
}

/* Adds of metrics ms[0 .. nms), interleaved: every slice goes to each series in the rotated
 * order, and within a series to each metric's own filter (the pre-hashed adds get the slice's
 * hashes, computed before timing). Each build starts by emptying the filter, untimed, right
 * before its first slice. */
/* The hashes series s is queried or filled with: its own kind's (split: XXH64). */
static const uint64_t *hashes_for(const series *s, const uint64_t *h, const uint64_t *h64) {
    return s->type == S_SPLIT ? h64 : h;
}

static void measure_adds(size_run *r, const keygen *g, const bench_opts *o, const metric *ms,
                         size_t nms, const bb_filter *hash_with, const bb_filter *hash64_with) {
    uint64_t n = r->n;
    int reps = o->reps;
    size_t builds = n >= o->ops ? 1 : (size_t)((o->ops + n - 1) / n), count;
    keyset ks;
    keyset_init(&ks, (size_t)(n / (uint64_t)reps) + 1);
    uint64_t *h = hash_with ? xcalloc(ks.cap, sizeof *h) : NULL;
    uint64_t *h64 = hash64_with ? xcalloc(ks.cap, sizeof *h64) : NULL;
    /* Thread teams add whole builds when there are at least `reps` of them (n * reps <= ops;
     * see the top of this file): the build's hashes, gathered slice by slice. */
    uint64_t *whole = h && n * (uint64_t)reps <= o->ops ? xcalloc((size_t)n, sizeof *whole) : NULL;
    size_t cells = r->nseries * M_COUNT * (size_t)reps;
    double *wall = xcalloc(cells, sizeof *wall), *cpu = xcalloc(cells, sizeof *cpu);
    double *keys = xcalloc(cells, sizeof *keys);
    for (size_t b = 0; b < builds; b++) {
        for (int rep = 0; rep < reps; rep++) {
            uint64_t first = slice(n, reps, rep, &count);
            keyset_fill_range(&ks, g, b * n + first, count);
            for (size_t i = 0; h && i < count; i++)
                h[i] = bb_hash(hash_with, ks.ptrs[i], ks.lens[i]);
            for (size_t i = 0; h64 && i < count; i++)
                h64[i] = bb_hash(hash64_with, ks.ptrs[i], ks.lens[i]);
            if (whole) memcpy(whole + first, h, count * sizeof *h);
            for (size_t j = 0; j < r->nseries; j++) {
                series *s = nth(r, j, rep);
                bool team = whole && s->type == S_THREADS;
                for (size_t k = 0; k < nms; k++) {
                    if (!series_has(s, ms[k]) || (team && rep != reps - 1)) continue;
                    if (rep == 0 || team) series_clear(s, ms[k]);
                    series_select(s);
                    if (ms[k] == M_ADD_CONC && s->type == S_THREADS) bb_set_isa(s->conc_isa);
                    int into = team ? (int)(b % (size_t)reps) : rep; /* a build: rep b % reps */
                    size_t c = cell((size_t)(s - r->series), ms[k], into, reps);
                    double t;
                    wall[c] += team ? time_add(s, ms[k], &ks, whole, (size_t)n, &t)
                                    : time_add(s, ms[k], &ks, hashes_for(s, h, h64), count, &t);
                    cpu[c] += t;
                    keys[c] += team ? (double)n : (double)count;
                }
            }
        }
    }
    r->mean_key_len = keyset_mean_len(&ks);
    r->key0 = (builds - 1) * n;
    for (size_t i = 0; i < r->nseries; i++) {
        for (size_t k = 0; k < nms; k++) {
            for (int rep = 0; rep < reps && series_has(&r->series[i], ms[k]); rep++) {
                size_t c = cell(i, ms[k], rep, reps);
                note_cpu(&r->series[i], ms[k], cpu[c] / keys[c]);
                record(&r->series[i], ms[k], wall[c] / keys[c]);
            }
        }
    }
    free(keys);
    free(cpu);
    free(wall);
    free(whole);
    free(h);
    free(h64);
    keyset_free(&ks);
}

/* Every kernel, and with `concurrent` every concurrent build, must have made the same filter
 * of the same keys (same bit count; tests check the bytes). */
static void check_builds_agree(const size_run *r, bool concurrent) {
    uint64_t want = 0;
    for (size_t i = 0; i < r->nseries; i++) {
        const series *s = &r->series[i];
        const bb_filter *f[2] = {s->type == S_BLOCKED ? s->f : NULL, concurrent ? s->conc_f : NULL};
        for (int j = 0; j < 2 && !s->skip; j++) {
            if (!f[j]) continue;
            bb_info info = BB_INFO_INIT;
            bb_get_info(f[j], &info);
            if (!want) want = info.bits_set;
            else if (info.bits_set != want)
                fprintf(stderr, "blockbloom-bench: BUG: %s%s set %llu bits, another build %llu\n",
                        s->name, j ? " (concurrent adds)" : "", (unsigned long long)info.bits_set,
                        (unsigned long long)want);
        }
    }
}

/* ---- query sets ------------------------------------------------------------------------------ */

struct queries {
    keyset present, absent, mix;
    uint64_t *mix_hash, *mix_hash64; /* XXH3 for every filter, XXH64 for split */
    size_t count;
};

/* Present keys: key0 .. key0+n-1 (the last build); absent ones: from key0+n on. */
static void make_queries(queries *q, uint64_t key0, uint64_t n, const keygen *g,
                         const bench_opts *o, const bb_filter *hash_with,
                         const bb_filter *hash64_with) {
    size_t qs = o->query_max;
    uint64_t *idx = xcalloc(qs, sizeof *idx), st = o->seed ^ n;
    q->count = qs;
    keyset_init(&q->present, qs);
    keyset_init(&q->absent, qs);
    keyset_init(&q->mix, qs);
    for (size_t i = 0; i < qs; i++) idx[i] = key0 + splitmix64(&st) % n;
    keyset_fill_list(&q->present, g, idx, qs);
    keyset_fill_range(&q->absent, g, key0 + n, qs);
    for (size_t i = 0; i < qs; i++)
        idx[i] = key0 + (i < qs / 2 ? splitmix64(&st) % n : n + splitmix64(&st) % qs);
    for (size_t i = qs; i > 1; i--) { /* Fisher-Yates: present and absent interleaved at random */
        size_t j = (size_t)(splitmix64(&st) % i);
        uint64_t x = idx[i - 1];
        idx[i - 1] = idx[j], idx[j] = x;
    }
    keyset_fill_list(&q->mix, g, idx, qs);
    q->mix_hash = xcalloc(qs, sizeof *q->mix_hash);
    q->mix_hash64 = xcalloc(qs, sizeof *q->mix_hash64);
    for (size_t i = 0; i < qs; i++) {
        q->mix_hash[i] = bb_hash(hash_with, q->mix.ptrs[i], q->mix.lens[i]);
        if (hash64_with) q->mix_hash64[i] = bb_hash(hash64_with, q->mix.ptrs[i], q->mix.lens[i]);
    }
    free(idx);
}

static void free_queries(queries *q) {
    keyset_free(&q->present);
    keyset_free(&q->absent);
    keyset_free(&q->mix);
    free(q->mix_hash);
    free(q->mix_hash64);
}

/* ---- throughput ------------------------------------------------------------------------------ */

/* Queries first .. first+count-1 of the metric's query set. */
static size_t run_range(series *s, metric m, const queries *q, size_t first, size_t count,
                        uint8_t *out) {
    switch (m) {
    case M_PRESENT: return series_contains(s, &q->present, first, count, out);
    case M_ABSENT: return series_contains(s, &q->absent, first, count, out);
    case M_BATCH_STR: return series_contains(s, &q->mix, first, count, out);
    case M_BATCH_HASH:
        return series_contains_hashes(s, hashes_for(s, q->mix_hash, q->mix_hash64) + first, count, out);
    default: return 0;
    }
}

/* One pass over the whole query set, from key `start` to the end and then from the start.
 * Thread t of T starts at t/T of the set, so concurrent threads never walk the same keys at
 * the same time (which would let one thread's misses serve as the other's cache hits). */
static size_t run_once(series *s, metric m, const queries *q, size_t start, uint8_t *out) {
    return run_range(s, m, q, start, q->count - start, out + start) + run_range(s, m, q, 0, start, out);
}

static void query_job(worker *w) {
    for (size_t it = 0; it < w->iters; it++) run_once(w->s, w->m, w->q, w->start_key, w->out);
}

/* Aggregate ns/key of `threads` threads (this one and threads-1 helpers, all already running
 * when the clock starts) each doing `iters` passes: wall time / all keys; *cpu gets the
 * slowest thread's CPU time / all keys. */
static double time_threads(series *s, metric m, const queries *q, size_t iters, uint8_t **outs,
                           double *cpu) {
    int nt = s->threads;
    worker w[16];
    for (int i = 0; i < nt; i++)
        w[i] = (worker){.job = query_job, .s = s, .m = m, .q = q, .iters = iters,
                        .start_key = q->count * (size_t)i / (size_t)nt, .out = outs[i]};
    double wall = run_threads(w, nt, cpu), keys = (double)nt * (double)iters * (double)q->count;
    *cpu /= keys;
    return wall / keys;
}

static double time_metric(series *s, metric m, const queries *q, size_t iters, uint8_t **outs,
                          size_t *hits) {
    uint8_t *out = outs[0];
    if (s->type == S_THREADS) {
        double cpu, wall = time_threads(s, m, q, iters, outs, &cpu);
        note_cpu(s, m, cpu);
        return wall;
    }
    /* S_JOBS: the calls' own threads work too, so the time is the wall's. */
    double (*clock)(void) = s->type == S_JOBS ? now_ns : cpu_ns;
    double keys = (double)iters * (double)q->count, p0 = process_cpu_ns(), t0 = clock();
    for (size_t it = 0; it < iters; it++) *hits = run_once(s, m, q, 0, out);
    double t = clock() - t0;
    if (s->type == S_JOBS) note_cpu(s, m, (process_cpu_ns() - p0) / keys);
    return t / keys;
}

/* No false negatives, and every kernel answers the same. */
static void check_hits(const series *s, metric m, size_t hits, const queries *q, size_t *kernel_hits) {
    if (s->type == S_FLOOR_XXH3 || s->type == S_FLOOR_XXH3_GROUPED || s->type == S_FLOOR_LINE ||
        s->type == S_THREADS)
        return;
    if (m == M_PRESENT && hits != q->count)
        fprintf(stderr, "blockbloom-bench: BUG: %s: %zu of %zu present keys found\n", s->name,
                hits, q->count);
    if (s->type != S_BLOCKED) return;
    if (kernel_hits[m] == SIZE_MAX) kernel_hits[m] = hits;
    else if (kernel_hits[m] != hits)
        fprintf(stderr, "blockbloom-bench: BUG: %s: %s answered %zu, another kernel %zu\n",
                s->name, metric_names[m], hits, kernel_hits[m]);
}

/* One untimed pass over the mix for a filter that fits in the last-level cache, so the timed
 * run measures it cache-resident: the other series run in between evict it (4 to 6 filters
 * of a size share the LLC), and a 12 MiB filter queried cold reads most lines from DRAM.
 * The pass reads what the timed metric reads: the pre-hashed mix before a pre-hashed metric,
 * the string keys before a string one. A string pass streams ~38 MB of keys, pointers and
 * lengths through a 32 MiB LLC, so before a pre-hashed metric it evicted most of a 12 MiB
 * filter, while the line floor (pre-hashed only) stayed warm: at 10^7 keys on Zen 4 the
 * dependent chain read 80-90 ns/step against the floor's 47-58 (2026-12-01). */
static void warm(series *s, metric m, const queries *q, const bench_opts *o, uint8_t *out) {
    uint64_t bytes = s->type == S_THREADS ? s->shared->bytes : s->bytes;
    if (!bytes || bytes > o->warm_max_bytes) return;
    bool hashed = m == M_BATCH_HASH || m == M_LOOP || m == M_VLOOP || m == M_CHAIN;
    bool has_hashed = series_has(s, M_BATCH_HASH);
    if (s->type == S_FLOOR_LINE || (hashed && has_hashed)) run_once(s, M_BATCH_HASH, q, 0, out);
    else run_once(s, M_BATCH_STR, q, 0, out);
}

static void measure_throughput(size_run *r, const queries *q, const bench_opts *o) {
    static const metric ms[] = {M_PRESENT, M_ABSENT, M_BATCH_STR, M_BATCH_HASH};
    size_t iters = (o->ops + q->count - 1) / q->count, kernel_hits[M_COUNT];
    uint8_t *outs[16]; /* one per thread, touched now so no timed run takes page faults */
    for (int i = 0; i < 16; i++) outs[i] = memset(xcalloc(q->count, 1), 1, q->count);
    for (size_t mi = 0; mi < sizeof ms / sizeof *ms; mi++) {
        metric m = ms[mi];
        for (int i = 0; i < M_COUNT; i++) kernel_hits[i] = SIZE_MAX;
        for (int rep = 0; rep < o->reps; rep++) {
            for (size_t j = 0; j < r->nseries; j++) {
                series *s = nth(r, j, rep);
                if (!series_has(s, m)) continue;
                series_select(s);
                warm(s, m, q, o, outs[0]);
                size_t hits = 0;
                record(s, m, time_metric(s, m, q, iters, outs, &hits));
                if (rep == 0) check_hits(s, m, hits, q, kernel_hits);
            }
        }
    }
    for (int i = 0; i < 16; i++) free(outs[i]);
}

/* ---- single-key loops ----------------------------------------------------------------------- */

/* Loops of single lookups of the pre-hashed mix (M_LOOP, M_VLOOP, M_CHAIN): each repetition
 * makes passes over the mix until `ops` calls are done, timed by this thread's CPU clock like
 * the batches; filters that fit in the LLC are warmed first, as for the batches. */
static void measure_single(size_run *r, const queries *q, const bench_opts *o) {
    static const metric ms[] = {M_LOOP, M_VLOOP, M_CHAIN};
    size_t iters = (o->ops + q->count - 1) / q->count;
    uint8_t *out = xcalloc(q->count, 1);
    for (size_t mi = 0; mi < sizeof ms / sizeof *ms; mi++) {
        for (int rep = 0; rep < o->reps; rep++) {
            for (size_t j = 0; j < r->nseries; j++) {
                series *s = nth(r, j, rep);
                if (!series_has(s, ms[mi])) continue;
                series_select(s);
                warm(s, ms[mi], q, o, out);
                size_t hits = 0;
                double t0 = cpu_ns();
                const uint64_t *h = hashes_for(s, q->mix_hash, q->mix_hash64);
                for (size_t it = 0; it < iters; it++) hits += series_single(s, ms[mi], h, q->count);
                record(s, ms[mi], (cpu_ns() - t0) / ((double)iters * (double)q->count));
                BENCH_KEEP(hits);
            }
        }
    }
    free(out);
}

/* ---- latency --------------------------------------------------------------------------------- */

#define LAT_GROUP 8

static double timer_overhead_ns(void) {
    double v[1001];
    for (int i = 0; i < 1001; i++) {
        uint64_t t0 = tick_now();
        for (int j = 0; j < LAT_GROUP; j++) tick_fence();
        v[i] = tick_to_ns(tick_now() - t0);
    }
    return median(v, 1001);
}

static void latency_rep(series *s, const keyset *ks, const bench_opts *o, double *groups,
                        double overhead) {
    size_t ng = o->lat_calls / LAT_GROUP, pos = 0, hits = 0;
    for (size_t g = 0; g < ng; g++) {
        uint64_t t0 = tick_now();
        for (int j = 0; j < LAT_GROUP; j++) {
            hits += series_contains_one(s, ks->ptrs[pos], ks->lens[pos]);
            tick_fence();
            if (++pos == ks->count) pos = 0;
        }
        groups[g] = (tick_to_ns(tick_now() - t0) - overhead) / LAT_GROUP;
    }
    BENCH_KEEP(hits);
    record(s, M_LAT_P50, percentile(groups, ng, 0.50));
    record(s, M_LAT_P99, percentile(groups, ng, 0.99));
}

static void measure_latency(size_run *r, const queries *q, const bench_opts *o) {
    double *groups = xcalloc(o->lat_calls / LAT_GROUP + 1, sizeof *groups);
    uint8_t *out = xcalloc(q->count, 1);
    double overhead = timer_overhead_ns();
    for (int rep = 0; rep < o->reps; rep++) {
        for (size_t j = 0; j < r->nseries; j++) {
            series *s = nth(r, j, rep);
            if (!series_has(s, M_LAT_P50)) continue;
            series_select(s);
            warm(s, M_LAT_P50, q, o, out);
            latency_rep(s, &q->mix, o, groups, overhead);
        }
    }
    free(out);
    free(groups);
}

/* ---- false-positive rate --------------------------------------------------------------------- */

static void measure_fpr(size_run *r, const keygen *g, const bench_opts *o, uint64_t first) {
    enum { CHUNK = 1 << 16 };
    keyset ks;
    keyset_init(&ks, CHUNK);
    uint8_t *out = xcalloc(CHUNK, 1);
    size_t *hits = xcalloc(r->nseries, sizeof *hits);
    for (size_t done = 0; done < o->fpr_keys; done += CHUNK) {
        size_t c = o->fpr_keys - done < CHUNK ? o->fpr_keys - done : CHUNK;
        keyset_fill_range(&ks, g, first + done, c);
        for (size_t i = 0; i < r->nseries; i++) {
            series *s = &r->series[i];
            if (s->skip || !(s->type == S_BLOCKED || s->type == S_SPLIT || s->type == S_SECTORIZED ||
                             s->type == S_CLASSIC || s->type == S_LIBBLOOM))
                continue;
            series_select(s);
            hits[i] += series_contains(s, &ks, 0, ks.count, out);
        }
    }
    for (size_t i = 0; i < r->nseries; i++)
        if (!r->series[i].skip && r->series[i].k) r->series[i].fpr = (double)hits[i] / (double)o->fpr_keys;
    free(hits);
    free(out);
    keyset_free(&ks);
}

/* ---- one size ---------------------------------------------------------------------------------- */

/* The first filter whose keys hash with XXH3 (any kind but split) or, xxh64, with XXH64. */
static const bb_filter *first_filter(const size_run *r, bool xxh64) {
    for (size_t i = 0; i < r->nseries; i++)
        if (r->series[i].f && (r->series[i].type == S_SPLIT) == xxh64) return r->series[i].f;
    return NULL;
}

void measure_size(size_run *r, const keygen *g, const bench_opts *o) {
    static const metric string_adds[] = {M_ADD}, hashed_adds[] = {M_ADD_HASH, M_ADD_CONC};
    double t0 = now_ns();
    measure_adds(r, g, o, string_adds, 1, NULL, NULL);
    check_builds_agree(r, false);
    r->anon_huge_kib = machine_anon_huge_kib();
    queries q;
    make_queries(&q, r->key0, r->n, g, o, first_filter(r, false), first_filter(r, true));
    measure_throughput(r, &q, o);
    measure_latency(r, &q, o);
    measure_single(r, &q, o);
    measure_fpr(r, g, o, r->key0 + r->n + q.count);
    free_queries(&q);
    /* Last, as they empty and refill the filters the queries read. */
    measure_adds(r, g, o, hashed_adds, 2, first_filter(r, false), first_filter(r, true));
    check_builds_agree(r, true);
    for (size_t i = 0; i < r->nseries; i++) finish(&r->series[i]);
    r->build_s = (now_ns() - t0) / 1e9;
}

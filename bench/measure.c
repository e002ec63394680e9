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
 *  fpr          fpr_keys keys never added, through the batch call.
 */
#include "bench.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void finish(series *s) {
    for (int m = 0; m < M_COUNT; m++) {
        double tmp[64];
        memcpy(tmp, s->reps[m], sizeof tmp);
        s->value[m] = s->nreps[m] ? median(tmp, (size_t)s->nreps[m]) : NAN;
        memcpy(tmp, s->cpu_reps[m], sizeof tmp);
        s->cpu_value[m] = s->nreps[m] && s->type == S_THREADS ? median(tmp, (size_t)s->nreps[m]) : NAN;
    }
}

/* Series j of repetition rep, in the rotated order. */
static series *nth(size_run *r, size_t j, int rep) {
    return &r->series[(j + (size_t)rep) % r->nseries];
}

/* ---- add ------------------------------------------------------------------------------------ */

static void measure_add(size_run *r, const keygen *g, const bench_opts *o) {
    uint64_t n = r->n;
    int reps = o->reps;
    size_t builds = n >= o->ops ? 1 : (size_t)((o->ops + n - 1) / n);
    keyset ks;
    keyset_init(&ks, (size_t)(n / (uint64_t)reps) + 1);
    double *t = xcalloc(r->nseries * (size_t)reps, sizeof *t);
    for (size_t b = 0; b < builds; b++) {
        for (int rep = 0; rep < reps; rep++) {
            uint64_t first = n * (uint64_t)rep / (uint64_t)reps;
            size_t count = (size_t)(n * (uint64_t)(rep + 1) / (uint64_t)reps - first);
            keyset_fill_range(&ks, g, b * n + first, count);
            for (size_t j = 0; j < r->nseries; j++) {
                series *s = nth(r, j, rep);
                if (!series_has(s, M_ADD)) continue;
                if (rep == 0 && b > 0) series_clear(s);
                series_select(s);
                double t0 = cpu_ns();
                series_add(s, &ks, 0, count);
                t[(size_t)(s - r->series) * (size_t)reps + (size_t)rep] += cpu_ns() - t0;
            }
        }
    }
    r->mean_key_len = keyset_mean_len(&ks);
    r->key0 = (builds - 1) * n;
    for (size_t i = 0; i < r->nseries; i++) {
        if (!series_has(&r->series[i], M_ADD)) continue;
        for (int rep = 0; rep < reps; rep++) {
            uint64_t first = n * (uint64_t)rep / (uint64_t)reps;
            double count = (double)(n * (uint64_t)(rep + 1) / (uint64_t)reps - first);
            record(&r->series[i], M_ADD, t[i * (size_t)reps + (size_t)rep] / (count * (double)builds));
        }
    }
    free(t);
    keyset_free(&ks);
}

/* Every kernel must have built the same filter (same bit count; tests check the bytes). */
static void check_kernels_agree(const size_run *r) {
    uint64_t want = 0;
    for (size_t i = 0; i < r->nseries; i++) {
        const series *s = &r->series[i];
        if (s->type != S_BLOCKED || s->skip) continue;
        bb_info info;
        bb_get_info(s->f, &info);
        if (!want) want = info.bits_set;
        else if (info.bits_set != want)
            fprintf(stderr, "blockbloom-bench: BUG: %s set %llu bits, another kernel %llu\n",
                    s->name, (unsigned long long)info.bits_set, (unsigned long long)want);
    }
}

/* ---- query sets ------------------------------------------------------------------------------ */

typedef struct queries {
    keyset present, absent, mix;
    uint64_t *mix_hash;
    size_t count;
} queries;

/* Present keys: key0 .. key0+n-1 (the last build); absent ones: from key0+n on. */
static void make_queries(queries *q, uint64_t key0, uint64_t n, const keygen *g,
                         const bench_opts *o, const bb_filter *hash_with) {
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
    for (size_t i = 0; i < qs; i++) q->mix_hash[i] = bb_hash(hash_with, q->mix.ptrs[i], q->mix.lens[i]);
    free(idx);
}

static void free_queries(queries *q) {
    keyset_free(&q->present);
    keyset_free(&q->absent);
    keyset_free(&q->mix);
    free(q->mix_hash);
}

/* ---- throughput ------------------------------------------------------------------------------ */

/* Queries first .. first+count-1 of the metric's query set. */
static size_t run_range(series *s, metric m, const queries *q, size_t first, size_t count,
                        uint8_t *out) {
    switch (m) {
    case M_PRESENT: return series_contains(s, &q->present, first, count, out);
    case M_ABSENT: return series_contains(s, &q->absent, first, count, out);
    case M_BATCH_STR: return series_contains(s, &q->mix, first, count, out);
    case M_BATCH_HASH: return series_contains_hashes(s, q->mix_hash + first, count, out);
    default: return 0;
    }
}

/* One pass over the whole query set, from key `start` to the end and then from the start.
 * Thread t of T starts at t/T of the set, so concurrent threads never walk the same keys at
 * the same time (which would let one thread's misses serve as the other's cache hits). */
static size_t run_once(series *s, metric m, const queries *q, size_t start, uint8_t *out) {
    return run_range(s, m, q, start, q->count - start, out + start) + run_range(s, m, q, 0, start, out);
}

typedef struct worker {
    series *s;
    metric m;
    const queries *q;
    size_t iters, start_key;
    uint8_t *out;
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
    for (size_t it = 0; it < w->iters; it++) run_once(w->s, w->m, w->q, w->start_key, w->out);
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

/* Aggregate ns/key of `threads` threads (this one and threads-1 helpers, all already running
 * when the clock starts) each doing `iters` passes: wall time / all keys; *cpu gets the
 * slowest thread's CPU time / all keys. */
static double time_threads(series *s, metric m, const queries *q, size_t iters, uint8_t **outs,
                           double *cpu) {
    int nt = s->threads;
    worker w[16];
    pthread_t tid[16];
    atomic_int go = 0;
    for (int i = 0; i < nt; i++) {
        w[i] = (worker){.s = s, .m = m, .q = q, .iters = iters, .go = &go,
                        .start_key = q->count * (size_t)i / (size_t)nt, .out = outs[i]};
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
    double keys = (double)nt * (double)iters * (double)q->count;
    *cpu = c / keys;
    return (t1 - t0) / keys;
}

static double time_metric(series *s, metric m, const queries *q, size_t iters, uint8_t **outs,
                          size_t *hits) {
    uint8_t *out = outs[0];
    if (s->type == S_THREADS) {
        double cpu, wall = time_threads(s, m, q, iters, outs, &cpu);
        if (s->nreps[m] < 64) s->cpu_reps[m][s->nreps[m]] = cpu;
        return wall;
    }
    double t0 = cpu_ns();
    for (size_t it = 0; it < iters; it++) *hits = run_once(s, m, q, 0, out);
    return (cpu_ns() - t0) / ((double)iters * (double)q->count);
}

/* No false negatives, and every kernel answers the same. */
static void check_hits(const series *s, metric m, size_t hits, const queries *q, size_t *kernel_hits) {
    if (s->type == S_FLOOR_XXH3 || s->type == S_FLOOR_LINE || s->type == S_THREADS) return;
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
 * of a size share the LLC), and a 12 MiB filter queried cold reads most lines from DRAM. */
static void warm(series *s, const queries *q, const bench_opts *o, uint8_t *out) {
    uint64_t bytes = s->type == S_THREADS ? s->shared->bytes : s->bytes;
    if (!bytes || bytes > o->warm_max_bytes) return;
    run_once(s, s->type == S_FLOOR_LINE ? M_BATCH_HASH : M_BATCH_STR, q, 0, out);
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
                warm(s, q, o, outs[0]);
                size_t hits = 0;
                record(s, m, time_metric(s, m, q, iters, outs, &hits));
                if (rep == 0) check_hits(s, m, hits, q, kernel_hits);
            }
        }
    }
    for (int i = 0; i < 16; i++) free(outs[i]);
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
            warm(s, q, o, out);
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
            if (s->skip || !(s->type == S_BLOCKED || s->type == S_CLASSIC || s->type == S_LIBBLOOM))
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

static const bb_filter *first_filter(const size_run *r) {
    for (size_t i = 0; i < r->nseries; i++)
        if (r->series[i].f) return r->series[i].f;
    return NULL;
}

void measure_size(size_run *r, const keygen *g, const bench_opts *o) {
    double t0 = now_ns();
    measure_add(r, g, o);
    check_kernels_agree(r);
    r->anon_huge_kib = machine_anon_huge_kib();
    queries q;
    make_queries(&q, r->key0, r->n, g, o, first_filter(r));
    measure_throughput(r, &q, o);
    measure_latency(r, &q, o);
    measure_fpr(r, g, o, r->key0 + r->n + q.count);
    free_queries(&q);
    for (size_t i = 0; i < r->nseries; i++) finish(&r->series[i]);
    r->build_s = (now_ns() - t0) / 1e9;
}

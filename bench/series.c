/* SPDX-License-Identifier: MIT */
/*
 * series.c - one adapter per measured series, so measure.c runs every series through the
 * same calls: blockbloom's blocked filter (one series per kernel, selected with bb_set_isa),
 * its split-block (Parquet) filter (one series per kernel too), its classic filter, libbloom 1.6 (the C library users pick today; only the calls its API
 * has: bloom_add and bloom_check, one key at a time, int lengths and sizes), and the two
 * floors. All blockbloom filters use the same seed, so one array of pre-hashed keys serves
 * every one of them but split, which hashes with XXH64 and gets an array of its own. The multi-thread series reads the filter of its kernel's blocked series;
 * the concurrent adds (that series' and each kernel's 1-thread ones) each build a
 * filter of their own, conc_f, so one measurement never adds into bits another one set.
 */
#include "bench.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const metric_names[M_COUNT] = {
    "add", "add_hash", "add_conc", "present", "absent", "lat_p50", "lat_p99", "batch_str", "batch_hash",
    "loop", "view_loop", "view_chain",
};

#ifdef BENCH_HAVE_LIBBLOOM
/* libbloom sizes itself in int: bits = entries * (-ln p / ln^2 2) must fit (bloom.c, 1.6),
 * and bloom_init refuses fewer than 1000 entries. */
static bool libbloom_fits(uint64_t n, double fpr, char *why, size_t cap) {
    double bits = (double)n * (-log(fpr) / (M_LN2 * M_LN2));
    if (n > INT_MAX || bits > INT_MAX) {
        snprintf(why, cap, "libbloom's int sizes: %.3g bits > INT_MAX", bits);
        return false;
    }
    if (n < 1000) {
        snprintf(why, cap, "libbloom needs >= 1000 entries");
        return false;
    }
    return true;
}
#endif

static bool create_filter(series *s, bb_filter **f, bb_kind kind, uint64_t n, double fpr,
                          uint64_t seed) {
    bb_status st = bb_create_for(f, kind, n, fpr, seed);
    if (st != BB_OK) snprintf(s->skip_why, sizeof s->skip_why, "bb_create_for: %s", bb_strerror(st));
    return st == BB_OK;
}

static bool create_bb(series *s, bb_kind kind, uint64_t n, double fpr, uint64_t seed) {
    if (!create_filter(s, &s->f, kind, n, fpr, seed)) return false;
    bb_info info = BB_INFO_INIT;
    bb_get_info(s->f, &info);
    s->bytes = info.bytes;
    s->k = info.k;
    s->bits_per_key = (double)info.bits / (double)n;
    bb_fpr_model(kind, n, info.bits, info.k, &s->fpr_model);
    return true;
}

bool series_create(series *s, uint64_t n, double fpr, uint64_t seed, uint64_t line_bytes) {
    for (int m = 0; m < M_COUNT; m++) s->value[m] = NAN, s->nreps[m] = 0;
    s->fpr = s->fpr_model = s->bits_per_key = NAN;
    s->skip = false;
    s->seed = seed;
    bool ok = true;
    if (s->concurrent || s->type == S_THREADS)
        ok = create_filter(s, &s->conc_f, BB_BLOCKED, n, fpr, seed);
    switch (s->type) {
    case S_BLOCKED: ok = ok && create_bb(s, BB_BLOCKED, n, fpr, seed); break;
    case S_JOBS:
        ok = create_bb(s, BB_BLOCKED, n, fpr, seed) &&
             bb_set_threads(s->f, (unsigned)s->threads) == BB_OK;
        break;
    case S_SPLIT: ok = create_bb(s, BB_SPLIT, n, fpr, seed); break;
    case S_SECTORIZED: ok = create_bb(s, BB_SECTORIZED, n, fpr, seed); break;
    case S_CLASSIC: ok = create_bb(s, BB_CLASSIC, n, fpr, seed); break;
    case S_LIBBLOOM:
#ifdef BENCH_HAVE_LIBBLOOM
        ok = libbloom_fits(n, fpr, s->skip_why, sizeof s->skip_why) &&
             bloom_init(&s->lb, (int)n, fpr) == 0;
        if (ok) {
            s->bytes = (uint64_t)s->lb.bytes;
            s->k = (unsigned)s->lb.hashes;
            s->bits_per_key = (double)s->lb.bits / (double)n;
            s->fpr_model = pow(1.0 - exp(-(double)s->k * (double)n / s->lb.bits), s->k);
        } else if (!s->skip_why[0]) {
            snprintf(s->skip_why, sizeof s->skip_why, "bloom_init failed");
        }
#else
        ok = false;
        snprintf(s->skip_why, sizeof s->skip_why, "built without libbloom");
#endif
        break;
    case S_FLOOR_LINE:
        s->floor_lines = (line_bytes + 63) / 64;
        s->bytes = s->floor_lines * 64;
        s->floor_data = floor_alloc(s->bytes, &s->floor_base, &s->floor_len);
        ok = s->floor_data != NULL;
        if (!ok) snprintf(s->skip_why, sizeof s->skip_why, "out of memory");
        break;
    case S_FLOOR_XXH3:
    case S_FLOOR_XXH3_GROUPED:
    case S_THREADS: break;
    }
    s->skip = !ok;
    return ok;
}

void series_destroy(series *s) {
    bb_free(s->f);
    bb_free(s->conc_f);
    s->f = s->conc_f = NULL;
#ifdef BENCH_HAVE_LIBBLOOM
    if (s->type == S_LIBBLOOM && !s->skip) bloom_free(&s->lb);
#endif
    if (s->floor_data) floor_free(s->floor_base, s->floor_len);
    s->floor_data = NULL;
}

void series_clear(series *s, metric m) {
    if (m == M_ADD_CONC) {
        bb_clear(s->conc_f);
        return;
    }
    if (s->f) bb_clear(s->f);
#ifdef BENCH_HAVE_LIBBLOOM
    if (s->type == S_LIBBLOOM) bloom_reset(&s->lb);
#endif
}

void series_select(const series *s) {
    if (s->type == S_BLOCKED || s->type == S_SPLIT || s->type == S_SECTORIZED ||
        s->type == S_THREADS || s->type == S_JOBS)
        bb_set_isa(s->isa);
}

bool series_has(const series *s, metric m) {
    if (s->skip) return false;
    switch (s->type) {
    case S_BLOCKED: return m != M_ADD_CONC || s->concurrent;
    case S_SPLIT:
    case S_SECTORIZED: return m != M_ADD_CONC && m != M_VLOOP && m != M_CHAIN;
    case S_CLASSIC: return m != M_ADD_HASH && m != M_ADD_CONC && m != M_VLOOP && m != M_CHAIN;
    case S_LIBBLOOM:
        return m != M_BATCH_HASH && m != M_ADD_HASH && m != M_ADD_CONC && m < M_LOOP;
    case S_FLOOR_XXH3:
    case S_FLOOR_XXH3_GROUPED: return m == M_BATCH_STR;
    case S_FLOOR_LINE: return m == M_BATCH_HASH || m == M_LOOP || m == M_CHAIN;
    case S_THREADS: return m == M_BATCH_STR || m == M_BATCH_HASH || m == M_ADD_CONC;
    case S_JOBS:
        return m == M_ADD || m == M_ADD_HASH || m == M_BATCH_STR || m == M_BATCH_HASH ||
               m == M_PRESENT;
    }
    return false;
}

/* The S_JOBS series' batches of at most s->batch keys (--batch), as a caller that streams its
 * keys in chunks makes them. */
static size_t piece(const series *s, size_t left) {
    return s->type == S_JOBS && s->batch && s->batch < left ? s->batch : left;
}

void series_add(series *s, const keyset *ks, size_t first, size_t count) {
    if (s->f) {
        for (size_t i = 0, c; i < count; i += c) {
            c = piece(s, count - i);
            bb_add_batch(s->f, ks->ptrs + first + i, ks->lens + first + i, c);
        }
        return;
    }
#ifdef BENCH_HAVE_LIBBLOOM
    if (s->type == S_LIBBLOOM)
        for (size_t i = first; i < first + count; i++)
            bloom_add(&s->lb, ks->ptrs[i], (int)ks->lens[i]);
#endif
}

void series_add_hashes(series *s, metric m, const uint64_t *h, size_t n) {
    if (m == M_ADD_CONC) bb_add_hashes_concurrent(s->conc_f, h, n, NULL);
    else
        for (size_t i = 0, c; i < n; i += c) bb_add_hashes(s->f, h + i, c = piece(s, n - i));
}

size_t series_contains(series *s, const keyset *ks, size_t first, size_t count, uint8_t *out) {
    const void *const *keys = ks->ptrs + first;
    const size_t *lens = ks->lens + first;
    size_t hits = 0;
    switch (s->type) {
    case S_JOBS:
        for (size_t i = 0, c, h; i < count; i += c, hits += h) {
            c = piece(s, count - i);
            bb_contains_batch(s->f, keys + i, lens + i, c, out + i, &h);
        }
        break;
    case S_BLOCKED:
    case S_SPLIT:
    case S_SECTORIZED:
    case S_CLASSIC: bb_contains_batch(s->f, keys, lens, count, out, &hits); break;
    case S_THREADS: bb_contains_batch(s->shared->f, keys, lens, count, out, &hits); break;
    case S_FLOOR_XXH3: hits = (size_t)floor_xxh3(keys, lens, count, s->seed) & 1; break;
    case S_FLOOR_XXH3_GROUPED:
        hits = (size_t)floor_xxh3_grouped(keys, lens, count, s->seed) & 1;
        break;
    case S_LIBBLOOM:
#ifdef BENCH_HAVE_LIBBLOOM
        for (size_t i = 0; i < count; i++) {
            out[i] = bloom_check(&s->lb, keys[i], (int)lens[i]) == 1;
            hits += out[i];
        }
#endif
        break;
    case S_FLOOR_LINE: break;
    }
    return hits;
}

size_t series_contains_hashes(series *s, const uint64_t *h, size_t n, uint8_t *out) {
    size_t hits = 0;
    if (s->type == S_FLOOR_LINE) return floor_lines(s->floor_data, s->floor_lines, h, n, out);
    const bb_filter *f = s->type == S_THREADS ? s->shared->f : s->f;
    for (size_t i = 0, c, got; f && i < n; i += c, hits += got) {
        c = piece(s, n - i);
        bb_contains_hashes(f, h + i, c, out + i, &got);
    }
    return hits;
}

bool series_contains_one(series *s, const void *key, size_t len) {
    if (s->f) return bb_contains(s->f, key, len);
#ifdef BENCH_HAVE_LIBBLOOM
    if (s->type == S_LIBBLOOM) return bloom_check(&s->lb, key, (int)len) == 1;
#endif
    return false;
}

size_t series_single(series *s, metric m, const uint64_t *h, size_t n) {
    size_t hits = 0;
    if (s->type == S_FLOOR_LINE)
        return m == M_CHAIN ? floor_line_chain(s->floor_data, s->floor_lines, h, n, n)
                            : floor_line_loop(s->floor_data, s->floor_lines, h, n);
    bb_view v;
    if (m == M_LOOP) {
        for (size_t i = 0; i < n; i++) hits += bb_contains_hash(s->f, h[i]);
        return hits;
    }
    if (bb_get_view(s->f, &v) != BB_OK) return 0;
    view_loops_fn *run = view_loops_scalar; /* the inline test a caller built for s's ISA gets */
#if defined(__x86_64__) || defined(__i386__)
    if (s->isa == BB_ISA_AVX2) run = view_loops_avx2;
    if (s->isa == BB_ISA_AVX512 || s->isa == BB_ISA_AVX512GFNI) run = view_loops_avx512;
#endif
    return run(&v, h, n, m == M_CHAIN);
}

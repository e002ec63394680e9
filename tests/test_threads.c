/* SPDX-License-Identifier: MIT */
/*
 * test_threads.c - concurrent readers on one shared filter. The header promises that any
 * number of threads may call the read-only functions on one filter at once; these tests run
 * every query entry point (single keys, pre-hashed keys, and the four batch shapes) from
 * several pthreads at the same time, on both kinds and on every kernel this CPU has, and
 * require each thread's answers to equal a single-threaded run made before the threads start.
 * Under ThreadSanitizer (scripts/sanitize.sh, BB_SANITIZE=thread) the same runs also prove
 * the absence of data races, including the lazy first-use kernel choice in dispatch.c.
 *
 * Concurrent adds (blockbloom.h, "Concurrent build") are tested in test_concurrent.c, which
 * the ThreadSanitizer build runs too.
 *
 * Every key is 16 bytes, so one key array feeds all shapes: pointer arrays, Arrow offsets
 * (32- and 64-bit) and fixed-width records must then give the same answers as well. The
 * independent truth is "no false negative": every added key answers 1 on every path.
 */
#ifdef BB_PLAIN_TESTS /* ThreadSanitizer build: Criterion cannot run there */
#include "plain_criterion.h"
#else
#include <criterion/criterion.h>
#endif
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "blockbloom.h"

#define KEY_W 16
#define N_ADDED 3000
#define N_QUERY 6000 /* first N_ADDED are added, the rest are (almost all) absent */
#define N_THREADS 4
#define ROUNDS 3

/* The query set in every shape the API accepts; built once per test, then read only. */
typedef struct keyset {
    uint8_t bytes[N_QUERY][KEY_W];
    const void *ptrs[N_QUERY];
    size_t lens[N_QUERY];
    int32_t off32[N_QUERY + 1];
    int64_t off64[N_QUERY + 1];
    uint64_t hashes[N_QUERY];
} keyset;

/* splitmix64 (Steele, Lea, Flood 2014): a fixed-seed source of key bytes. */
static uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static keyset *make_keys(const bb_filter *f) {
    keyset *ks = calloc(1, sizeof *ks);
    cr_assert_not_null(ks);
    uint64_t st = 42;
    for (size_t i = 0; i < N_QUERY; i++) {
        uint64_t a = splitmix64(&st), b = splitmix64(&st);
        memcpy(ks->bytes[i], &a, 8);
        memcpy(ks->bytes[i] + 8, &b, 8);
        ks->ptrs[i] = ks->bytes[i];
        ks->lens[i] = KEY_W;
        ks->off32[i] = (int32_t)(i * KEY_W);
        ks->off64[i] = (int64_t)(i * KEY_W);
        ks->hashes[i] = bb_hash(f, ks->bytes[i], KEY_W);
    }
    ks->off32[N_QUERY] = N_QUERY * KEY_W;
    ks->off64[N_QUERY] = N_QUERY * KEY_W;
    return ks;
}

/* The query entry points, each filling out[0..N_QUERY). */
enum { Q_SINGLE, Q_SINGLE_HASH, Q_BATCH, Q_ARROW32, Q_ARROW64, Q_FIXED, Q_HASHES, Q_COUNT };
static const char *const q_names[Q_COUNT] = {"contains", "contains_hash", "contains_batch",
                                             "contains_arrow32", "contains_arrow64",
                                             "contains_fixed", "contains_hashes"};

/* Runs query `q`; returns the reported number present (single calls count themselves),
 * or SIZE_MAX if the call failed. */
static size_t run_query(const bb_filter *f, const keyset *ks, int q, uint8_t *out) {
    size_t present = 0;
    bb_status s = BB_OK;
    switch (q) {
    case Q_SINGLE:
        for (size_t i = 0; i < N_QUERY; i++) present += out[i] = bb_contains(f, ks->bytes[i], KEY_W);
        break;
    case Q_SINGLE_HASH:
        for (size_t i = 0; i < N_QUERY; i++) present += out[i] = bb_contains_hash(f, ks->hashes[i]);
        break;
    case Q_BATCH: s = bb_contains_batch(f, ks->ptrs, ks->lens, N_QUERY, out, &present); break;
    case Q_ARROW32: s = bb_contains_arrow32(f, ks->bytes, ks->off32, N_QUERY, out, &present); break;
    case Q_ARROW64: s = bb_contains_arrow64(f, ks->bytes, ks->off64, N_QUERY, out, &present); break;
    case Q_FIXED: s = bb_contains_fixed(f, ks->bytes, KEY_W, 0, N_QUERY, out, &present); break;
    case Q_HASHES: s = bb_contains_hashes(f, ks->hashes, N_QUERY, out, &present); break;
    }
    return s == BB_OK ? present : SIZE_MAX;
}

typedef struct reader {
    const bb_filter *f;
    const keyset *ks;
    const uint8_t *expected; /* N_QUERY answers of the single-threaded run */
    pthread_barrier_t *start;
    int mismatches;          /* answers differing from expected, over all rounds and queries */
    int failures;            /* calls that returned an error */
} reader;

static void *reader_main(void *arg) {
    reader *r = arg;
    uint8_t *out = malloc(N_QUERY);
    if (!out) { r->failures++; return NULL; }
    pthread_barrier_wait(r->start); /* all threads query at once */
    for (int round = 0; round < ROUNDS; round++)
        for (int q = 0; q < Q_COUNT; q++) {
            memset(out, 0xAA, N_QUERY);
            if (run_query(r->f, r->ks, q, out) == SIZE_MAX) { r->failures++; continue; }
            for (size_t i = 0; i < N_QUERY; i++) r->mismatches += out[i] != r->expected[i];
        }
    free(out);
    return NULL;
}

/* Starts N_THREADS readers on f and asserts each saw exactly `expected` on every query. */
static void run_readers(const bb_filter *f, const keyset *ks, const uint8_t *expected,
                        const char *what) {
    pthread_t tid[N_THREADS];
    reader rd[N_THREADS];
    pthread_barrier_t start;
    cr_assert_eq(pthread_barrier_init(&start, NULL, N_THREADS), 0);
    for (int t = 0; t < N_THREADS; t++) {
        rd[t] = (reader){.f = f, .ks = ks, .expected = expected, .start = &start};
        cr_assert_eq(pthread_create(&tid[t], NULL, reader_main, &rd[t]), 0);
    }
    for (int t = 0; t < N_THREADS; t++) pthread_join(tid[t], NULL);
    pthread_barrier_destroy(&start);
    for (int t = 0; t < N_THREADS; t++) {
        cr_expect_eq(rd[t].failures, 0, "%s: thread %d had %d failing calls", what, t, rd[t].failures);
        cr_expect_eq(rd[t].mismatches, 0, "%s: thread %d saw %d answers differing from the "
                     "single-threaded run", what, t, rd[t].mismatches);
    }
}

/* Single-threaded reference: every entry point agrees, and no added key is missing. The
 * false-positive count among the absent keys must be small but is not pinned here. */
static void reference(const bb_filter *f, const keyset *ks, uint8_t *expected) {
    uint8_t *out = malloc(N_QUERY);
    cr_assert_not_null(out);
    cr_assert_neq(run_query(f, ks, Q_SINGLE, expected), SIZE_MAX);
    for (size_t i = 0; i < N_ADDED; i++)
        cr_assert_eq(expected[i], 1, "false negative for added key %zu", i);
    size_t fp = 0;
    for (size_t i = N_ADDED; i < N_QUERY; i++) fp += expected[i];
    cr_assert_lt(fp, (N_QUERY - N_ADDED) / 20, "%zu false positives of %d at p = 0.01", fp,
                 N_QUERY - N_ADDED);
    for (int q = 0; q < Q_COUNT; q++) {
        cr_assert_neq(run_query(f, ks, q, out), SIZE_MAX, "%s failed", q_names[q]);
        cr_assert_arr_eq(out, expected, N_QUERY, "%s disagrees with contains", q_names[q]);
    }
    free(out);
}

static bb_filter *make_filter(bb_kind kind) {
    bb_filter *f = NULL;
    cr_assert_eq(bb_create_for(&f, kind, N_ADDED, 0.01, 7), BB_OK);
    return f;
}

/* Adds the first N_ADDED keys with the single-key call: it does not touch the kernel table,
 * so a test that queries first from threads exercises the lazy kernel choice concurrently. */
static void add_keys(bb_filter *f, const keyset *ks) {
    for (size_t i = 0; i < N_ADDED; i++) cr_assert_eq(bb_add(f, ks->bytes[i], KEY_W), BB_OK);
}

static void readers_on_every_kernel(bb_kind kind) {
    bb_filter *f = make_filter(kind);
    keyset *ks = make_keys(f);
    add_keys(f, ks);
    uint8_t *expected = malloc(N_QUERY), *scalar = malloc(N_QUERY);
    cr_assert(expected && scalar);
    for (size_t i = 0; i < bb_isa_count(); i++) { /* the library's ISA table, scalar first */
        bb_isa isa = bb_isa_at(i);
        if (!bb_isa_available(isa)) {
            cr_log_info("kernel %s not available on this CPU: skipped", bb_isa_to_string(isa));
            continue;
        }
        cr_assert_eq(bb_set_isa(isa), BB_OK); /* only while no other thread runs */
        reference(f, ks, expected);
        if (isa == BB_ISA_SCALAR) memcpy(scalar, expected, N_QUERY);
        cr_assert_arr_eq(expected, scalar, N_QUERY, "kernel %s differs from scalar", bb_isa_name());
        run_readers(f, ks, expected, bb_isa_name());
    }
    bb_set_isa(BB_ISA_AUTO);
    free(scalar);
    free(expected);
    free(ks);
    bb_free(f);
}

Test(threads, readers_blocked_every_kernel) { readers_on_every_kernel(BB_BLOCKED); }
Test(threads, readers_classic) { readers_on_every_kernel(BB_CLASSIC); }

/* One thread of the first-use race: waits for the others, then makes its first query. */
typedef struct first_user {
    const bb_filter *f;
    const keyset *ks;
    pthread_barrier_t *start;
    uint8_t out[N_QUERY];
    int failures;
} first_user;

static void *first_use_main(void *arg) {
    first_user *u = arg;
    pthread_barrier_wait(u->start);
    if (run_query(u->f, u->ks, Q_HASHES, u->out) == SIZE_MAX) u->failures++;
    return NULL;
}

/* Criterion runs each test in a fresh process, so here no kernel has been chosen yet when the
 * threads start: they race to make the first choice (dispatch.c). Their answers must equal
 * the scalar reference, computed afterwards in the main thread. */
Test(threads, first_use_kernel_choice_races) {
    bb_filter *f = make_filter(BB_BLOCKED);
    keyset *ks = make_keys(f);
    add_keys(f, ks);
    first_user *u = calloc(N_THREADS, sizeof *u);
    cr_assert_not_null(u);
    pthread_t tid[N_THREADS];
    pthread_barrier_t start;
    cr_assert_eq(pthread_barrier_init(&start, NULL, N_THREADS), 0);
    for (int t = 0; t < N_THREADS; t++) {
        u[t].f = f;
        u[t].ks = ks;
        u[t].start = &start;
        cr_assert_eq(pthread_create(&tid[t], NULL, first_use_main, &u[t]), 0);
    }
    for (int t = 0; t < N_THREADS; t++) pthread_join(tid[t], NULL);
    pthread_barrier_destroy(&start);
    uint8_t *expected = malloc(N_QUERY);
    cr_assert_not_null(expected);
    cr_assert_eq(bb_set_isa(BB_ISA_SCALAR), BB_OK);
    reference(f, ks, expected);
    for (int t = 0; t < N_THREADS; t++) {
        cr_expect_eq(u[t].failures, 0, "thread %d: contains_hashes failed", t);
        cr_expect_arr_eq(u[t].out, expected, N_QUERY, "thread %d differs from scalar", t);
    }
    free(expected);
    free(u);
    free(ks);
    bb_free(f);
}


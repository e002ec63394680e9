/*
 * test_threads.c - concurrent readers on one shared filter. The header promises that any
 * number of threads may call the read-only functions on one filter at once; these tests run
 * every query entry point (single keys, pre-hashed keys, and the four batch shapes) from
 * several pthreads at the same time, on both kinds and on every kernel this CPU has, and
 * require each thread's answers to equal a single-threaded run made before the threads start.
 * Under ThreadSanitizer (scripts/sanitize.sh, BB_SANITIZE=thread) the same runs also prove
 * the absence of data races, including the lazy first-use kernel choice in dispatch.c.
 *
 * Concurrent adds (blockbloom.h, "Concurrent build": blocked and classic only) are tested
 * with writer threads using every *_concurrent add while a reader thread queries keys added
 * before they started: every such key must stay present throughout, and once the writers
 * are joined the filter must be byte-identical to a single-threaded build of the same keys.
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
#include <stdatomic.h>
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
    static const bb_isa isas[] = {BB_ISA_SCALAR, BB_ISA_AVX2, BB_ISA_AVX512, BB_ISA_NEON};
    for (size_t i = 0; i < sizeof isas / sizeof *isas; i++) {
        if (!bb_isa_available(isas[i])) {
            cr_log_info("kernel %s not available on this CPU: skipped", bb_isa_to_string(isas[i]));
            continue;
        }
        cr_assert_eq(bb_set_isa(isas[i]), BB_OK); /* only while no other thread runs */
        reference(f, ks, expected);
        if (isas[i] == BB_ISA_SCALAR) memcpy(scalar, expected, N_QUERY);
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

/* ---- Concurrent adds ---------------------------------------------------------------------- */

enum { N_WRITERS = 3, PRESET = N_ADDED / 4 };

typedef struct writer {
    bb_filter *f;
    const keyset *ks;
    int id;
    pthread_barrier_t *start;
    int failures;
} writer;

/* Writer w adds the keys i in [PRESET, N_ADDED) with i % N_WRITERS == w, each through the
 * next of the four concurrent entry points in turn, then every key of the shared slice
 * [PRESET, 2 * PRESET) once more, so that all writers race on the same bits as well. */
static void *writer_main(void *arg) {
    writer *w = arg;
    const keyset *ks = w->ks;
    pthread_barrier_wait(w->start);
    unsigned turn = 0;
    for (size_t i = PRESET + (size_t)w->id; i < N_ADDED; i += N_WRITERS, turn++) {
        bb_status s = BB_OK;
        size_t n_new = 0;
        bool was_new;
        switch (turn % 4) {
        case 0: s = bb_add_concurrent(w->f, ks->bytes[i], KEY_W, &was_new); break;
        case 1: s = bb_add_hash_concurrent(w->f, ks->hashes[i], NULL); break;
        case 2: s = bb_add_batch_concurrent(w->f, &ks->ptrs[i], &ks->lens[i], 1, &n_new); break;
        case 3: s = bb_add_hashes_concurrent(w->f, &ks->hashes[i], 1, NULL); break;
        }
        w->failures += s != BB_OK || n_new > 1;
    }
    size_t n_new = 0;
    w->failures += bb_add_batch_concurrent(w->f, ks->ptrs + PRESET, ks->lens + PRESET, PRESET,
                                           &n_new) != BB_OK || n_new > PRESET;
    return NULL;
}

typedef struct watcher {
    const bb_filter *f;
    const keyset *ks;
    atomic_bool *writers_done;
    pthread_barrier_t *start;
    long misses; /* a preset key answered absent: a lost bit or a torn read */
    long rounds;
} watcher;

static void *watcher_main(void *arg) {
    watcher *r = arg;
    pthread_barrier_wait(r->start);
    do {
        for (size_t i = 0; i < PRESET; i++) {
            r->misses += !bb_contains_concurrent(r->f, r->ks->bytes[i], KEY_W);
            r->misses += !bb_contains_hash_concurrent(r->f, r->ks->hashes[i]);
        }
        r->rounds++;
    } while (!atomic_load(r->writers_done));
    return NULL;
}

static void concurrent_build(bb_kind kind) {
    bb_filter *f = make_filter(kind), *single = make_filter(kind);
    keyset *ks = make_keys(f);
    /* The single-threaded build of the same multiset: all keys once, the shared slice
     * N_WRITERS more times. */
    for (size_t i = 0; i < N_ADDED; i++) cr_assert_eq(bb_add(single, ks->bytes[i], KEY_W), BB_OK);
    for (int w = 0; w < N_WRITERS; w++)
        cr_assert_eq(bb_add_batch(single, ks->ptrs + PRESET, ks->lens + PRESET, PRESET), BB_OK);
    for (size_t i = 0; i < PRESET; i++) cr_assert_eq(bb_add(f, ks->bytes[i], KEY_W), BB_OK);

    pthread_t tid[N_WRITERS + 1];
    writer wr[N_WRITERS];
    atomic_bool done = false;
    pthread_barrier_t start;
    cr_assert_eq(pthread_barrier_init(&start, NULL, N_WRITERS + 1), 0);
    watcher wa = {.f = f, .ks = ks, .writers_done = &done, .start = &start};
    cr_assert_eq(pthread_create(&tid[N_WRITERS], NULL, watcher_main, &wa), 0);
    for (int w = 0; w < N_WRITERS; w++) {
        wr[w] = (writer){.f = f, .ks = ks, .id = w, .start = &start};
        cr_assert_eq(pthread_create(&tid[w], NULL, writer_main, &wr[w]), 0);
    }
    for (int w = 0; w < N_WRITERS; w++) pthread_join(tid[w], NULL);
    atomic_store(&done, true);
    pthread_join(tid[N_WRITERS], NULL);
    pthread_barrier_destroy(&start);

    for (int w = 0; w < N_WRITERS; w++) cr_expect_eq(wr[w].failures, 0, "writer %d failed", w);
    cr_expect_eq(wa.misses, 0, "%ld preset keys missed in %ld rounds", wa.misses, wa.rounds);
    cr_expect(wa.rounds > 0);
    bb_info a, b;
    cr_assert_eq(bb_get_info(f, &a), BB_OK);
    cr_assert_eq(bb_get_info(single, &b), BB_OK);
    cr_expect_eq(a.keys_added, b.keys_added, "keys_added %llu, single-threaded %llu",
                 (unsigned long long)a.keys_added, (unsigned long long)b.keys_added);
    uint64_t la = 0, lb = 0;
    cr_assert_eq(bb_serialized_size(f, &la), BB_OK);
    cr_assert_eq(bb_serialized_size(single, &lb), BB_OK);
    cr_assert_eq(la, lb);
    uint8_t *x = malloc(la), *y = malloc(lb);
    cr_assert(x && y);
    cr_assert_eq(bb_serialize(f, x, la, NULL), BB_OK);
    cr_assert_eq(bb_serialize(single, y, lb, NULL), BB_OK);
    cr_expect_arr_eq(x, y, la, "concurrent build differs from the single-threaded build");
    free(x);
    free(y);
    free(ks);
    bb_free(single);
    bb_free(f);
}

Test(threads, concurrent_adds_blocked) { concurrent_build(BB_BLOCKED); }
Test(threads, concurrent_adds_classic) { concurrent_build(BB_CLASSIC); }

/* The other kinds have no concurrent adds and must say so, not add racily. */
Test(threads, concurrent_adds_unsupported_elsewhere) {
    static const bb_kind kinds[] = {BB_COUNTING, BB_SCALABLE};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        bb_filter *f = make_filter(kinds[i]);
        bool was_new = true;
        cr_expect_eq(bb_add_concurrent(f, "k", 1, &was_new), BB_E_UNSUPPORTED, "%s",
                     bb_kind_name(kinds[i]));
        cr_expect_eq(bb_add_hashes_concurrent(f, (const uint64_t[]){1}, 1, NULL),
                     BB_E_UNSUPPORTED, "%s", bb_kind_name(kinds[i]));
        bb_free(f);
    }
}

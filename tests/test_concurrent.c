/* SPDX-License-Identifier: MIT */
/*
 * test_concurrent.c - the concurrent build API (blockbloom.h, "Concurrent build"): 2, 3 and 4
 * threads add interleaved slices of one key set into one blocked or classic filter through
 * every concurrent entry point (single keys, single hashes, hash batches, key batches), and
 * the result must be byte-identical (serialized, header included) to a single-thread build of
 * the same keys: a lost bit or a lost count would show. Blocked filters also get long batches
 * from threads adding the same keys at once, on every kernel, and the exact "new" count of a
 * batch against one-by-one adds. Small filters make the threads fight
 * over the same words. Also: no false negatives; readers running alongside writers see every
 * key whose add happened-before their read (published through a release/acquire counter);
 * "was it new" bounds; the refused kinds and arguments.
 *
 * Built as a plain program under ThreadSanitizer (tests/CMakeLists.txt, BB_THREAD_TESTS), where
 * it also proves the concurrent paths free of data races; so it uses only the Criterion macros
 * that tests/plain_criterion.h provides.
 */
#ifdef BB_PLAIN_TESTS /* ThreadSanitizer build: Criterion cannot run there */
#include "plain_criterion.h"
#else
#include <criterion/criterion.h>
#endif
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blockbloom.h"

#define KEY_W 16
#define N_KEYS 40000
#define MAX_THREADS 4

/* Key i: 16 bytes from splitmix64 (Steele, Lea, Flood 2014) of i, distinct for distinct i. */
static uint64_t mix(uint64_t z) {
    z += UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

typedef struct keyset {
    uint8_t bytes[N_KEYS][KEY_W];
    const void *ptrs[N_KEYS];
    size_t lens[N_KEYS];
} keyset;

static keyset *make_keys(uint64_t tag) {
    keyset *ks = calloc(1, sizeof *ks);
    cr_assert_not_null(ks);
    for (uint64_t i = 0; i < N_KEYS; i++) {
        uint64_t a = mix(i), b = tag;
        memcpy(ks->bytes[i], &a, 8);
        memcpy(ks->bytes[i] + 8, &b, 8);
        ks->ptrs[i] = ks->bytes[i];
        ks->lens[i] = KEY_W;
    }
    return ks;
}

static bb_filter *make(bb_kind kind, uint64_t bits, unsigned k) {
    bb_config cfg = {
        .size = sizeof cfg, .kind = kind, .bits = bits, .k = k, .capacity = N_KEYS, .seed = 1234};
    bb_filter *f = NULL;
    cr_assert_eq(bb_create(&f, &cfg), BB_OK);
    return f;
}

static uint8_t *serialize(const bb_filter *f, size_t *len) {
    uint64_t size = 0;
    cr_assert_eq(bb_serialized_size(f, &size), BB_OK);
    uint8_t *buf = malloc(size);
    cr_assert_not_null(buf);
    cr_assert_eq(bb_serialize(f, buf, size, len), BB_OK);
    return buf;
}

/* ---- Writers ------------------------------------------------------------------------------
 * Thread t of T takes keys i with i % T == t (or, with `same`, every key: all threads add the
 * whole set), in runs of `run` keys, and cycles through the four entry points run by run, so
 * every one of them races against the others. The striped kernels (kernels/conc_loops.h)
 * take every stripe at once for a batch when no other writer is in, else group a chunk by
 * stripe (>= 32 keys) or lock key by key (shorter): runs of 20, 64 and 4500 keys (which
 * crosses their 4096-key chunks) reach each of these beside the single-key adds. */
#define MAX_RUN 4500

typedef struct writer {
    bb_filter *f;
    const keyset *ks;
    unsigned t, n_threads;
    size_t run;
    bool same, count; /* count: batches ask for their "new" count (else they pass NULL) */
    pthread_barrier_t *start;
    size_t n_new;
    bb_status status;
} writer;

static void *write_slice(void *arg) {
    writer *w = arg;
    const void **ptrs = malloc(MAX_RUN * sizeof *ptrs);
    size_t *lens = malloc(MAX_RUN * sizeof *lens);
    uint64_t *hashes = malloc(MAX_RUN * sizeof *hashes);
    cr_assert(ptrs && lens && hashes);
    size_t step = w->same ? 1 : w->n_threads, first = w->same ? 0 : w->t;
    pthread_barrier_wait(w->start);
    for (size_t base = 0, run = 0; base < N_KEYS; base += w->run * step, run++) {
        size_t n = 0;
        for (size_t i = base + first; i < N_KEYS && n < w->run; i += step, n++) {
            ptrs[n] = w->ks->ptrs[i];
            lens[n] = KEY_W;
            hashes[n] = bb_hash(w->f, ptrs[n], KEY_W);
        }
        size_t fresh = 0;
        bool was_new;
        switch ((run + w->t) % 4) {
        case 0:
            w->status |= bb_add_batch_concurrent(w->f, ptrs, lens, n, w->count ? &fresh : NULL);
            break;
        case 1: w->status |= bb_add_hashes_concurrent(w->f, hashes, n, w->count ? &fresh : NULL); break;
        case 2:
            for (size_t j = 0; j < n; j++) {
                w->status |= bb_add_concurrent(w->f, ptrs[j], KEY_W, &was_new);
                fresh += was_new;
            }
            break;
        default:
            for (size_t j = 0; j < n; j++) {
                w->status |= bb_add_hash_concurrent(w->f, hashes[j], &was_new);
                fresh += was_new;
            }
        }
        w->n_new += fresh;
    }
    free(ptrs);
    free(lens);
    free(hashes);
    return NULL;
}

/* Build with T threads, compare with a single-thread build, check no false negative and the
 * bounds on the total of "was new" answers (each set bit is set by exactly one call, and a
 * call that reports new set between 1 and k bits). */
static void check_build_counted(bb_kind kind, uint64_t bits, unsigned k, unsigned n_threads,
                                size_t run, bool same, bool count) {
    keyset *ks = make_keys(n_threads);
    bb_filter *par = make(kind, bits, k), *seq = make(kind, bits, k);
    for (unsigned t = 0; t < (same ? n_threads : 1); t++)
        cr_assert_eq(bb_add_batch(seq, ks->ptrs, ks->lens, N_KEYS), BB_OK);
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, n_threads);
    writer w[MAX_THREADS];
    pthread_t th[MAX_THREADS];
    for (unsigned t = 0; t < n_threads; t++) {
        w[t] = (writer){.f = par, .ks = ks, .t = t, .n_threads = n_threads, .run = run,
                        .same = same, .count = count, .start = &start};
        cr_assert_eq(pthread_create(&th[t], NULL, write_slice, &w[t]), 0);
    }
    size_t n_new = 0;
    for (unsigned t = 0; t < n_threads; t++) {
        pthread_join(th[t], NULL);
        cr_assert_eq(w[t].status, BB_OK, "thread %u failed", t);
        n_new += w[t].n_new;
    }
    pthread_barrier_destroy(&start);

    size_t lp, ls;
    uint8_t *bp = serialize(par, &lp), *bs = serialize(seq, &ls);
    cr_assert_eq(lp, ls);
    cr_assert_arr_eq(bp, bs, lp, "%s, %u threads, runs of %zu: bytes differ from a single-thread build",
                     bb_kind_name(kind), n_threads, run);
    free(bp);
    free(bs);
    for (size_t i = 0; i < N_KEYS; i++) {
        cr_assert(bb_contains(par, ks->bytes[i], KEY_W), "false negative: key %zu", i);
        cr_assert(bb_contains_concurrent(par, ks->bytes[i], KEY_W), "false negative: key %zu", i);
    }
    bb_info in = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(par, &in), BB_OK);
    cr_assert_eq(in.keys_added, (uint64_t)N_KEYS * (same ? n_threads : 1));
    cr_assert(n_new <= in.bits_set && (!count || n_new * k >= in.bits_set) && n_new <= N_KEYS,
              "%zu keys reported new for %llu set bits", n_new, (unsigned long long)in.bits_set);
    bb_free(par);
    bb_free(seq);
    free(ks);
}

static void check_build_runs(bb_kind kind, uint64_t bits, unsigned k, unsigned n_threads,
                             size_t run, bool same) {
    check_build_counted(kind, bits, k, n_threads, run, same, true);
}

static void check_build(bb_kind kind, uint64_t bits, unsigned k, unsigned n_threads) {
    check_build_runs(kind, bits, k, n_threads, 64, false);
}

/* A lost update needs two threads in one word at one moment, which a 2-core machine does not
 * produce on every run: a few rounds make a broken build fail reliably. */
#define ROUNDS 4

/* 64 blocks (4 KiB): tens of thousands of keys on 512 words, so the threads collide often. */
Test(concurrent, blocked_small_filter_2_3_4_threads) {
    for (int round = 0; round < ROUNDS; round++)
        for (unsigned t = 2; t <= 4; t++) {
            check_build(BB_BLOCKED, 64 * 512, 6, t);
            check_build_runs(BB_BLOCKED, 64 * 512, 6, t, 20, round % 2);
        }
}

Test(concurrent, blocked_sized_filter_4_threads) {
    check_build(BB_BLOCKED, (uint64_t)N_KEYS * 10, 7, 4);
}

/* Long batches (the striped kernels' fast path beside grouped adds), on every kernel the CPU
 * has (the concurrent kernel follows the add kernel's ISA): interleaved keys, and every
 * thread adding the whole set at once, so that all of them race on the same blocks. */
/* Runs `body` once with each kernel of the library's ISA table the CPU has selected, then
 * with the automatic choice (bb_isa_at(bb_isa_count()) is BB_ISA_AUTO), which it leaves. */
static void on_every_kernel(void (*body)(void)) {
    for (size_t i = 0; i <= bb_isa_count(); i++) {
        bb_isa isa = bb_isa_at(i);
        if (!bb_isa_available(isa)) {
            cr_log_info("kernel %s not available here: skipped", bb_isa_to_string(isa));
            continue;
        }
        cr_assert_eq(bb_set_isa(isa), BB_OK);
        body();
    }
    cr_assert_eq(bb_set_isa(BB_ISA_AUTO), BB_OK);
}

static void long_batches(void) {
    for (unsigned t = 2; t <= 4; t += 2) {
        check_build_runs(BB_BLOCKED, 64 * 512, 6, t, MAX_RUN, false);
        check_build_runs(BB_BLOCKED, 64 * 512, 6, t, MAX_RUN, true);
        check_build_runs(BB_BLOCKED, (uint64_t)N_KEYS * 10, 7, t, MAX_RUN, true);
    }
    /* Fewer blocks than stripes: one block per stripe. */
    check_build_runs(BB_BLOCKED, 5 * 512, 3, 3, MAX_RUN, true);
}

Test(concurrent, blocked_long_batches_every_kernel) { on_every_kernel(long_batches); }

/* Batches that do not ask for their "new" count, into small filters with at least 4 keys per
 * block per batch: with another writer in, the striped kernels build such a batch in a
 * private copy and OR it in (kernels/conc_loops.h, the private path). Breaking its merge (one
 * stripe left out) made this test fail. */
static void uncounted_batches(void) {
    for (int round = 0; round < ROUNDS; round++)
        for (unsigned t = 2; t <= 4; t += 2) {
            check_build_counted(BB_BLOCKED, 64 * 512, 6, t, MAX_RUN, round % 2, false);
            check_build_counted(BB_BLOCKED, 5 * 512, 3, t, MAX_RUN, true, false);
        }
}

Test(concurrent, blocked_uncounted_batches_every_kernel) { on_every_kernel(uncounted_batches); }

/* One thread: a batch's "new" count is what adding its keys one by one reports, repeated keys
 * inside the batch included (the grouping is stable), both below and above the fast-path
 * size; the expected count comes from plain bb_contains / bb_add_hash on a second filter. */
Test(concurrent, batch_new_count_matches_one_by_one) {
    keyset *ks = make_keys(5);
    const size_t sizes[] = {1, 200, 255, 256, 1023, 1024, 1025, 4095, 4096, 4097, 9000};
    uint64_t *h = malloc(9000 * sizeof *h);
    cr_assert_not_null(h);
    for (size_t i = 0; i <= bb_isa_count(); i++) { /* every kernel, then the automatic mix */
        bb_isa isa = bb_isa_at(i);
        if (!bb_isa_available(isa)) continue;
        cr_assert_eq(bb_set_isa(isa), BB_OK);
        bb_filter *f = make(BB_BLOCKED, 64 * 512, 5), *ref = make(BB_BLOCKED, 64 * 512, 5);
        size_t next = 0;
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
            size_t want = 0, got = 99;
            for (size_t j = 0; j < sizes[z]; j++) { /* every fourth key repeats an earlier one */
                size_t key = j % 4 == 3 ? next - 1 - (j % 7) % next : next++;
                h[j] = bb_hash(f, ks->bytes[key % N_KEYS], KEY_W);
                want += !bb_contains_hash(ref, h[j]);
                cr_assert_eq(bb_add_hash(ref, h[j]), BB_OK);
            }
            cr_assert_eq(bb_add_hashes_concurrent(f, h, sizes[z], &got), BB_OK);
            cr_assert_eq(got, want, "%s, batch of %zu: %zu new, one by one %zu",
                         bb_isa_to_string(isa), sizes[z], got, want);
        }
        size_t lf, lr;
        uint8_t *bf = serialize(f, &lf), *br = serialize(ref, &lr);
        cr_assert_eq(lf, lr);
        cr_assert_arr_eq(bf, br, lf, "%s: bytes differ", bb_isa_to_string(isa));
        free(bf);
        free(br);
        bb_free(f);
        bb_free(ref);
    }
    cr_assert_eq(bb_set_isa(BB_ISA_AUTO), BB_OK);
    free(h);
    free(ks);
}

/* Classic: bits not a multiple of 64 (the last word is partial) and k = 16. */
Test(concurrent, classic_2_3_4_threads) {
    for (int round = 0; round < ROUNDS; round++)
        for (unsigned t = 2; t <= 4; t++) check_build(BB_CLASSIC, 40000 * 3 + 13, 16, t);
}

/* Split-block (Parquet): 64 blocks of 8 words, so threads collide often; k is 8. */
Test(concurrent, split_small_filter_2_3_4_threads) {
    for (int round = 0; round < ROUNDS; round++)
        for (unsigned t = 2; t <= 4; t++) check_build(BB_SPLIT, 64 * 256, 8, t);
}

/* ---- Readers alongside a writer -----------------------------------------------------------
 * The writer adds key i, then publishes i + 1 with a release store; readers acquire the count
 * and must find every published key (the documented guarantee: an add that happens-before a
 * read is seen). Keys not yet published may be seen either way. */
typedef struct shared {
    bb_filter *f;
    const keyset *ks;
    _Atomic size_t published;
    _Atomic int misses;
} shared;

static void *publish_all(void *arg) {
    shared *s = arg;
    for (size_t i = 0; i < N_KEYS; i++) {
        bb_add_concurrent(s->f, s->ks->bytes[i], KEY_W, NULL);
        atomic_store_explicit(&s->published, i + 1, memory_order_release);
    }
    return NULL;
}

/* The same in batches of 1000 keys (the striped kernels' fast path: every stripe taken). */
static void *publish_batches(void *arg) {
    shared *s = arg;
    enum { RUN = 1000 };
    uint64_t h[RUN];
    for (size_t i = 0; i < N_KEYS; i += RUN) {
        for (size_t j = 0; j < RUN; j++) h[j] = bb_hash(s->f, s->ks->bytes[i + j], KEY_W);
        bb_add_hashes_concurrent(s->f, h, RUN, NULL);
        atomic_store_explicit(&s->published, i + RUN, memory_order_release);
    }
    return NULL;
}

static void *read_published(void *arg) {
    shared *s = arg;
    size_t seen = 0;
    while (seen < N_KEYS) {
        size_t upto = atomic_load_explicit(&s->published, memory_order_acquire);
        for (size_t i = seen; i < upto; i++) /* check the new ones, and a few old ones again */
            if (!bb_contains_hash_concurrent(s->f, bb_hash(s->f, s->ks->bytes[i], KEY_W)))
                atomic_fetch_add(&s->misses, 1);
        if (upto > 0 && !bb_contains_concurrent(s->f, s->ks->bytes[upto / 2], KEY_W))
            atomic_fetch_add(&s->misses, 1);
        seen = upto;
    }
    return NULL;
}

static void check_readers_of(bb_kind kind, uint64_t bits, unsigned k, void *(*write)(void *)) {
    keyset *ks = make_keys(99);
    shared s = {.f = make(kind, bits, k), .ks = ks};
    pthread_t w, r[2];
    cr_assert_eq(pthread_create(&r[0], NULL, read_published, &s), 0);
    cr_assert_eq(pthread_create(&r[1], NULL, read_published, &s), 0);
    cr_assert_eq(pthread_create(&w, NULL, write, &s), 0);
    pthread_join(w, NULL);
    pthread_join(r[0], NULL);
    pthread_join(r[1], NULL);
    cr_assert_eq(atomic_load(&s.misses), 0, "%s: readers missed published keys",
                 bb_kind_name(kind));
    bb_free(s.f);
    free(ks);
}

static void check_readers(bb_kind kind, uint64_t bits, unsigned k) {
    check_readers_of(kind, bits, k, publish_all);
}

_Static_assert(N_KEYS % 1000 == 0, "publish_batches adds whole batches");

Test(concurrent, readers_see_keys_published_in_batches) {
    check_readers_of(BB_BLOCKED, 64 * 512, 6, publish_batches);
    check_readers_of(BB_BLOCKED, (uint64_t)N_KEYS * 10, 7, publish_batches);
}

Test(concurrent, readers_see_published_keys) {
    check_readers(BB_BLOCKED, 64 * 512, 6);
    check_readers(BB_CLASSIC, 100003, 7);
}

Test(concurrent, split_readers_see_published_keys) { check_readers(BB_SPLIT, 64 * 256, 8); }

/* ---- Order inside a batch while another writer is in ------------------------------------ */

/* With another writer in, the kernel splits a batch between the halves of the stripes
 * (kernels/conc_loops.h), and a batch's "new" count must still be what adding its keys one
 * by one reports, which depends on their order. Each batch holds pairs in one block: Y, whose
 * probe bits are a strict subset of X's, then X; in that order both are new, reversed only X.
 * The other writer adds into odd blocks only, so it changes no count of the even blocks used
 * here. Hashes are built with the public probe scheme (blockbloom_view.h): block
 * bb_fastrange64(h, blocks), positions (lo32(h) * C^j) >> 23 for j = 1, 2. Leaving the upper
 * half's keys in reverse order made this test fail. */
#define ORDER_BLOCKS 64u
#define ORDER_PAIRS 32u
#define ORDER_BATCHES 300u
#define PROBE_C UINT32_C(0x9E3779B9)

static unsigned order_pos(uint32_t lo, unsigned j) {
    uint32_t x = lo;
    for (unsigned i = 0; i < j; i++) x *= PROBE_C;
    return x >> 23;
}

/* A low half whose two probes both land on position p: t * C^-1 for a t with top bits p and
 * (t * C) >> 23 == p (1 in 512 of them). */
static uint32_t order_single(unsigned p) {
    uint32_t inv = PROBE_C; /* Newton's iteration for the inverse of C mod 2^32 */
    for (int i = 0; i < 5; i++) inv *= 2u - PROBE_C * inv;
    for (uint32_t r = 0; r < (UINT32_C(1) << 23); r++) {
        uint32_t t = (uint32_t)p << 23 | r;
        if ((t * PROBE_C) >> 23 == p) return t * inv;
    }
    cr_assert(false, "no single-position low half for %u", p);
    return 0;
}

typedef struct {
    bb_filter *f;
    atomic_bool stop, started;
} odd_writer;

static void *write_odd_blocks(void *arg) {
    odd_writer *w = arg;
    uint64_t *h = malloc(4096 * sizeof *h), z = 99;
    cr_assert_not_null(h);
    for (size_t i = 0; i < 4096;) {
        uint64_t v = mix(z++);
        if (bb_fastrange64(v, ORDER_BLOCKS) % 2 == 1) h[i++] = v;
    }
    size_t fresh;
    while (!atomic_load(&w->stop)) {
        atomic_store(&w->started, true);
        cr_assert_eq(bb_add_hashes_concurrent(w->f, h, 4096, &fresh), BB_OK);
    }
    free(h);
    return NULL;
}

Test(concurrent, batch_order_kept_beside_another_writer) {
    bb_filter *f = make(BB_BLOCKED, ORDER_BLOCKS * 512, 2),
              *ref = make(BB_BLOCKED, ORDER_BLOCKS * 512, 2);
    bb_view v;
    cr_assert_eq(bb_get_view(f, &v), BB_OK);
    cr_assert_eq(v.blocks, ORDER_BLOCKS, "the block parity below needs exactly this many");
    odd_writer w = {.f = f};
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, write_odd_blocks, &w), 0);
    while (!atomic_load(&w.started)) sched_yield();
    uint64_t batch[2 * ORDER_PAIRS], z = 7;
    size_t mismatches = 0, both_new = 0;
    for (unsigned b = 0; b < ORDER_BATCHES; b++) {
        for (unsigned i = 0; i < ORDER_PAIRS;) {
            uint64_t x = mix(z++);
            uint32_t lo = (uint32_t)x;
            unsigned p1 = order_pos(lo, 1), p2 = order_pos(lo, 2);
            uint64_t y = (x & ~UINT64_C(0xFFFFFFFF)) | order_single(p1);
            uint64_t blk = bb_fastrange64(x, ORDER_BLOCKS);
            if (p1 == p2 || blk % 2 || bb_fastrange64(y, ORDER_BLOCKS) != blk) continue;
            batch[2 * i] = y;
            batch[2 * i + 1] = x;
            i++;
        }
        size_t want = 0, got = 0;
        for (unsigned i = 0; i < 2 * ORDER_PAIRS; i++) {
            want += !bb_contains_hash(ref, batch[i]);
            cr_assert_eq(bb_add_hash(ref, batch[i]), BB_OK);
        }
        cr_assert_eq(bb_add_hashes_concurrent(f, batch, 2 * ORDER_PAIRS, &got), BB_OK);
        mismatches += got != want;
        both_new += want;
    }
    atomic_store(&w.stop, true);
    cr_assert_eq(pthread_join(t, NULL), 0);
    cr_assert_lt(ORDER_BATCHES * ORDER_PAIRS, both_new, "pairs whose Y and X were both new");
    cr_assert_eq(mismatches, 0, "%zu of %u batches counted other than one by one", mismatches,
                 ORDER_BATCHES);
    bb_free(f);
    bb_free(ref);
}

/* ---- Single-thread semantics and refusals ------------------------------------------------ */

Test(concurrent, was_new_is_not_possibly_present_before) {
    const bb_kind kinds[] = {BB_BLOCKED, BB_CLASSIC};
    keyset *ks = make_keys(7);
    for (int t = 0; t < 2; t++) {
        bb_filter *f = make(kinds[t], 8 * 512, 5);
        for (size_t i = 0; i < 2000; i++) {
            bool before = bb_contains(f, ks->bytes[i], KEY_W), was_new = !before;
            cr_assert_eq(bb_add_concurrent(f, ks->bytes[i], KEY_W, &was_new), BB_OK);
            cr_assert_eq(was_new, !before, "%s key %zu", bb_kind_name(kinds[t]), i);
            cr_assert_eq(bb_add_concurrent(f, ks->bytes[i], KEY_W, &was_new), BB_OK);
            cr_assert_eq(was_new, false, "a second add of a key is never new");
        }
        bb_free(f);
    }
    free(ks);
}

Test(concurrent, refused_kinds_and_arguments) {
    bb_filter *c = NULL, *s = NULL, *b = make(BB_BLOCKED, 4096, 4), *m = NULL;
    cr_assert_eq(bb_create_for(&c, BB_COUNTING, 100, 0.01, 1), BB_OK);
    bb_config sc = {.size = sizeof sc, .kind = BB_SCALABLE, .capacity = 100, .fpr = 0.01};
    cr_assert_eq(bb_create(&s, &sc), BB_OK);
    bool was_new = true;
    size_t n_new = 7;
    uint64_t h = 42;
    cr_assert_eq(bb_add_hash_concurrent(c, h, &was_new), BB_E_UNSUPPORTED);
    cr_assert_eq(bb_add_hash_concurrent(s, h, &was_new), BB_E_UNSUPPORTED);
    cr_assert_eq(bb_add_hashes_concurrent(c, &h, 1, &n_new), BB_E_UNSUPPORTED);
    cr_assert_eq(bb_add_hash_concurrent(NULL, h, &was_new), BB_E_INVAL);
    cr_assert_eq(bb_add_concurrent(b, NULL, 3, &was_new), BB_E_INVAL);
    cr_assert_eq(bb_add_hashes_concurrent(b, NULL, 1, &n_new), BB_E_INVAL);
    cr_assert_eq(bb_add_hashes_concurrent(b, NULL, 0, &n_new), BB_OK);
    cr_assert_eq(n_new, 0);
    const void *keys[2] = {"ab", NULL};
    size_t lens[2] = {2, 5};
    cr_assert_eq(bb_add_batch_concurrent(b, keys, lens, 2, &n_new), BB_E_INVAL);
    cr_assert(!bb_contains(b, "ab", 2), "a refused batch must add nothing");
    bb_info in = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(b, &in), BB_OK);
    cr_assert_eq(in.keys_added, 0);
    /* Counting and scalable answer through their plain path. */
    cr_assert_eq(bb_add(c, "x", 1), BB_OK);
    cr_assert(bb_contains_concurrent(c, "x", 1));
    cr_assert(!bb_contains_concurrent(NULL, "x", 1));
    /* Read-only (mapped) filters refuse. */
    char path[] = "/tmp/bb_conc_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    cr_assert_eq(bb_save(b, path), BB_OK);
    cr_assert_eq(bb_open_mmap(&m, path), BB_OK);
    unlink(path);
    cr_assert_eq(bb_add_hash_concurrent(m, h, &was_new), BB_E_READONLY);
    bb_free(m);
    bb_free(b);
    bb_free(c);
    bb_free(s);
}

/* SPDX-License-Identifier: MIT */
/*
 * test_conc_private.c - the concurrent adds' private path under attack (kernels/conc_loops.h,
 * blockbloom.h "Concurrent build"): an uncounted batch into a blocked filter of at most 2 MiB
 * beside another writer, with >= 1 key per block, is set in a malloc'd private copy and ORed
 * in stripe by stripe before the call returns. Two to four writers mix such batches with
 * counted batches, single-key calls and tiny batches, each publishing (release) how many of
 * its keys its returned calls added; two readers beside them (acquire) must find every
 * published key with bb_contains_hash_concurrent, and the filter's bytes afterwards must
 * equal a single-thread build. Filters of 1, 2, 5, 15, 16 and 17 blocks (fewer, as many and
 * more blocks than the 16 stripes) and of exactly 2 MiB, on every kernel; the private copy's
 * allocation is watched through this program's own aligned_alloc, which proves the path was
 * taken (and never for 2 MiB + 64 bytes), and made to fail: the batch must then fall back to
 * the locking path and lose nothing; and a long batch that began alone must go private
 * when another writer comes in. test_concurrent.c has the single-writer reader test and
 * the counted paths. Built as a plain program under ThreadSanitizer too (tests/CMakeLists.txt,
 * BB_THREAD_TESTS), so it uses only the macros tests/plain_criterion.h provides.
 */
#ifdef BB_PLAIN_TESTS /* ThreadSanitizer build: Criterion cannot run there */
#include "plain_criterion.h"
#else
#include <criterion/criterion.h>
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "blockbloom.h"

/* ---- The private copy's allocation, watched -------------------------------------------------
 * The library's only aligned_alloc of exactly the filter's payload size while writers run is
 * the private copy (the filter itself and its stripe locks are allocated before). Every other
 * call, and every call outside a run, is served by posix_memalign. */
static _Atomic size_t watch_bytes;   /* 0: nothing watched */
static _Atomic bool fail_watched;
static _Atomic unsigned long watched_calls;

/* Default visibility: the build hides symbols (-fvisibility=hidden), and a hidden definition
 * would not interpose on the shared library's calls. */
__attribute__((visibility("default"))) void *aligned_alloc(size_t alignment, size_t size) {
    if (size && size == atomic_load(&watch_bytes)) {
        atomic_fetch_add(&watched_calls, 1);
        if (atomic_load(&fail_watched)) {
            errno = ENOMEM;
            return NULL;
        }
    }
    void *p = NULL;
    return posix_memalign(&p, alignment < sizeof p ? sizeof p : alignment, size) ? NULL : p;
}

/* ---- Writers and readers -------------------------------------------------------------------- */

#define MAX_WRITERS 4
#define N_READERS 2

static uint64_t mix(uint64_t z) { /* splitmix64 (Steele, Lea, Flood 2014) */
    z += UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

typedef struct writer {
    bb_filter *f;
    const _Atomic size_t *held_calls; /* start once the holder is in its second call */
    uint64_t *h;
    size_t n, big; /* its keys; `big`: the uncounted batches' length, 4 keys per block */
    unsigned t;
    pthread_barrier_t *start;
    _Atomic size_t published; /* h[0 .. published) were added by calls that returned */
    bb_status status;
} writer;

/* The holder adds the same counted batch over and over until the writers are done, so that
 * it is inside a call nearly all the time: another writer (st->writers > 1) for every
 * writer's batch, whichever way the scheduler runs the threads on few cores. Its batch
 * repeats at most one key per block, so that it does not fill small filters up. */
#define HOLD_KEYS 8192

typedef struct race {
    writer w[MAX_WRITERS];
    unsigned n_writers;
    bb_filter *f;
    uint64_t hold[HOLD_KEYS];
    _Atomic size_t held_calls; /* holder calls returned */
    bb_status hold_status;
    _Atomic unsigned finished;
    _Atomic unsigned long misses;
} race;

static void *hold(void *arg) {
    race *r = arg;
    while (atomic_load(&r->finished) < r->n_writers) {
        size_t fresh;
        r->hold_status |= bb_add_hashes_concurrent(r->f, r->hold, HOLD_KEYS, &fresh);
        atomic_fetch_add_explicit(&r->held_calls, 1, memory_order_release);
    }
    return NULL;
}

/* Cycles through an uncounted long batch (the private path when another writer is in), a
 * counted one (never private), single keys with and without was_new, and a 3-key batch. */
#define CYCLE_KEYS(big) ((big) + (big) / 2 + 1 + 3 + 3)
static void *write_and_publish(void *arg) {
    writer *w = arg;
    pthread_barrier_wait(w->start);
    while (atomic_load_explicit(w->held_calls, memory_order_acquire) == 0) sched_yield();
    for (size_t i = 0, call = w->t; i < w->n; call++) {
        size_t m = (size_t[]){w->big, w->big / 2 + 1, 3, 3}[call % 4], fresh;
        if (m > w->n - i) m = w->n - i;
        bool was_new;
        switch (call % 4) {
        case 1: w->status |= bb_add_hashes_concurrent(w->f, w->h + i, m, &fresh); break;
        case 2:
            for (size_t j = 0; j < m; j++)
                w->status |= bb_add_hash_concurrent(w->f, w->h[i + j], j % 2 ? NULL : &was_new);
            break;
        default: w->status |= bb_add_hashes_concurrent(w->f, w->h + i, m, NULL);
        }
        i += m;
        atomic_store_explicit(&w->published, i, memory_order_release);
    }
    return NULL;
}

/* Checks every newly published key of every writer, and one older one at random, until all
 * writers are done (then one last pass). */
static void *read_published(void *arg) {
    race *r = arg;
    size_t seen[MAX_WRITERS] = {0};
    uint64_t pick = 1;
    for (bool last = false; !last;) {
        last = atomic_load(&r->finished) == r->n_writers;
        for (unsigned t = 0; t < r->n_writers; t++) {
            const writer *w = &r->w[t];
            size_t upto = atomic_load_explicit(&w->published, memory_order_acquire);
            for (size_t i = seen[t]; i < upto; i++)
                if (!bb_contains_hash_concurrent(w->f, w->h[i])) atomic_fetch_add(&r->misses, 1);
            pick = mix(pick);
            if (upto && !bb_contains_hash_concurrent(w->f, w->h[pick % upto]))
                atomic_fetch_add(&r->misses, 1);
            seen[t] = upto;
        }
        if (atomic_load_explicit(&r->held_calls, memory_order_acquire)) {
            pick = mix(pick);
            if (!bb_contains_hash_concurrent(r->f, r->hold[pick % HOLD_KEYS]))
                atomic_fetch_add(&r->misses, 1);
        }
        sched_yield(); /* leave the cores to the writers: there may be only two */
    }
    return NULL;
}

/* One race of n_writers writers (CYCLES of their calls each) and the readers on a filter
 * of `blocks` blocks; with `fail`, every private copy's allocation fails. Asserts no reader
 * miss, every call's success, and blocks equal to a single-thread bb_add_hashes build;
 * returns how many private copies were asked for. A holder thread (hold) keeps another
 * writer in; the bytes are compared without the header, whose keys_added counts its calls. */
#define CYCLES 2

static unsigned long race_once(uint64_t blocks, unsigned k, unsigned n_writers, bool fail,
                               uint64_t tag) {
    size_t big = 4 * blocks, per_writer = CYCLES * CYCLE_KEYS(big);
    size_t distinct = blocks < HOLD_KEYS ? blocks : HOLD_KEYS;
    bb_config cfg = {
        .size = sizeof(bb_config), .kind = BB_BLOCKED, .bits = blocks * 512, .k = k, .seed = tag};
    bb_filter *f = NULL, *ref = NULL;
    cr_assert_eq(bb_create(&f, &cfg), BB_OK);
    cr_assert_eq(bb_create(&ref, &cfg), BB_OK);
    uint64_t first = mix(tag); /* the stripe locks are allocated here, before the watch */
    cr_assert_eq(bb_add_hash_concurrent(f, first, NULL), BB_OK);
    cr_assert_eq(bb_add_hash(ref, first), BB_OK);
    race *r = calloc(1, sizeof *r);
    cr_assert_not_null(r);
    r->n_writers = n_writers;
    r->f = f;
    for (size_t i = 0; i < HOLD_KEYS; i++)
        r->hold[i] = mix((tag << 40) ^ (UINT64_C(0xff) << 32) ^ (i % distinct));
    cr_assert_eq(bb_add_hashes(ref, r->hold, HOLD_KEYS), BB_OK);
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, n_writers);
    for (unsigned t = 0; t < n_writers; t++) {
        writer *w = &r->w[t];
        *w = (writer){.f = f, .held_calls = &r->held_calls, .n = per_writer, .big = big, .t = t,
                      .start = &start};
        w->h = malloc(per_writer * sizeof *w->h);
        cr_assert_not_null(w->h);
        for (size_t i = 0; i < per_writer; i++) w->h[i] = mix((tag << 40) ^ ((uint64_t)t << 32) ^ i);
        cr_assert_eq(bb_add_hashes(ref, w->h, per_writer), BB_OK);
    }
    atomic_store(&watched_calls, 0);
    atomic_store(&fail_watched, fail);
    atomic_store(&watch_bytes, (size_t)blocks * 64);
    pthread_t wt[MAX_WRITERS], rt[N_READERS], ht;
    for (unsigned i = 0; i < N_READERS; i++)
        cr_assert_eq(pthread_create(&rt[i], NULL, read_published, r), 0);
    cr_assert_eq(pthread_create(&ht, NULL, hold, r), 0);
    for (unsigned t = 0; t < n_writers; t++)
        cr_assert_eq(pthread_create(&wt[t], NULL, write_and_publish, &r->w[t]), 0);
    for (unsigned t = 0; t < n_writers; t++) {
        pthread_join(wt[t], NULL);
        atomic_fetch_add(&r->finished, 1);
    }
    for (unsigned i = 0; i < N_READERS; i++) pthread_join(rt[i], NULL);
    pthread_join(ht, NULL);
    atomic_store(&watch_bytes, 0);
    atomic_store(&fail_watched, false);
    pthread_barrier_destroy(&start);

    const char *isa = bb_isa_name();
    for (unsigned t = 0; t < n_writers; t++)
        cr_assert_eq(r->w[t].status, BB_OK, "%s, %llu blocks: writer %u failed", isa,
                     (unsigned long long)blocks, t);
    cr_assert_eq(atomic_load(&r->misses), 0, "%s, %llu blocks, %u writers%s: readers missed "
                 "%lu keys of returned calls", isa, (unsigned long long)blocks, n_writers,
                 fail ? ", private copies failing" : "", atomic_load(&r->misses));
    cr_assert_eq(r->hold_status, BB_OK, "%s: the holder failed", isa);
    /* The holder added its keys held_calls times: the same bits as once, more keys_added. */
    bb_view vf, vr;
    cr_assert_eq(bb_get_view(f, &vf), BB_OK);
    cr_assert_eq(bb_get_view(ref, &vr), BB_OK);
    cr_assert(vf.blocks == blocks && memcmp(vf.data, vr.data, blocks * 64) == 0,
              "%s, %llu blocks, %u writers%s: bytes differ from a single-thread build", isa,
              (unsigned long long)blocks, n_writers, fail ? ", private copies failing" : "");
    bb_info in = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(f, &in), BB_OK);
    cr_assert_eq(in.keys_added, 1 + n_writers * per_writer + HOLD_KEYS * atomic_load(&r->held_calls));
    /* A full filter would hide lost keys: keep at least a fifth of the bits clear. */
    cr_assert_lt(in.bits_set, in.bits / 5 * 4, "%llu blocks, k %u: %llu of %llu bits set",
                 (unsigned long long)blocks, k, (unsigned long long)in.bits_set,
                 (unsigned long long)in.bits);
    for (unsigned t = 0; t < n_writers; t++) free(r->w[t].h);
    free(r);
    bb_free(f);
    bb_free(ref);
    return atomic_load(&watched_calls);
}

/* MIN_RACES races, and more until some writer asked for a private copy: the holder makes
 * that nearly certain in every race, but the scheduler has the last word (two cores shared
 * with other jobs); a few dozen races without any mean the path is gone. */
#define MIN_RACES 4
#define MAX_RACES 40

static void race_until_private(uint64_t blocks, unsigned k, unsigned n_writers, bool fail) {
    unsigned long asked = 0;
    for (unsigned i = 0; i < MAX_RACES && (i < MIN_RACES || !asked); i++)
        asked += race_once(blocks, k, n_writers, fail, blocks * 100 + i);
    cr_assert(asked > 0, "%s, %llu blocks: no private copy in %u races",
                 bb_isa_name(), (unsigned long long)blocks, MAX_RACES);
}

/* Runs body(fail) with each kernel of the library's ISA table the CPU has, then restores
 * the automatic choice. */
static void on_every_kernel(void (*body)(bool), bool fail) {
    for (size_t i = 0; i < bb_isa_count(); i++) {
        if (!bb_isa_available(bb_isa_at(i))) continue; /* skipped: the CPU lacks it */
        cr_assert_eq(bb_set_isa(bb_isa_at(i)), BB_OK);
        body(fail);
    }
    cr_assert_eq(bb_set_isa(BB_ISA_AUTO), BB_OK);
}

/* ---- Tests ----------------------------------------------------------------------------------- */

/* Fewer blocks than the 16 stripes (one block per stripe), as many, and one more (stripes
 * of two blocks, the last of one); k from 1 to 16, 2 to 4 writers. */
static const struct { uint64_t blocks; unsigned k, writers; } small[] = {
    {1, 1, 2}, {2, 4, 3}, {5, 7, 4}, {15, 10, 2}, {16, 16, 2}, {17, 13, 3}};

static void small_filters(bool fail) {
    for (size_t i = 0; i < sizeof small / sizeof *small; i++)
        race_until_private(small[i].blocks, small[i].k, small[i].writers, fail);
}

Test(conc_private, readers_see_returned_batches_beside_other_writers) {
    on_every_kernel(small_filters, false);
}

Test(conc_private, a_failed_private_copy_loses_nothing) { on_every_kernel(small_filters, true); }

/* 2 MiB (32768 blocks) is the largest filter the private path takes (batches of 131072
 * keys); one more block and no private copy is ever asked for. Kernel as dispatched. */
Test(conc_private, two_mib_is_the_limit) {
    race_until_private(32768, 7, 2, false);
    cr_assert_eq(race_once(32769, 7, 2, false, 1), 0,
                 "a private copy of a filter over 2 MiB was asked for");
}

/* ---- A batch joined by another writer ------------------------------------------------------
 * A long uncounted batch that begins as the only writer takes the fast path; once another
 * writer comes in, the rest of it goes by the private path (checked before each chunk of
 * 4096 keys). The other writer (this thread, with counted batches, which never go private)
 * starts only after the batch's keys past its second chunk are visible, so the batch surely
 * began alone: a private copy is then asked for only if the batch switched. */
#define JOIN_BLOCKS 1024u
#define JOIN_DISTINCT 4096u /* 4 keys per block, so the filter stays far from full */
#define JOIN_KEYS (UINT64_C(1) << 22)
#define JOIN_TRIES 10

typedef struct joined {
    bb_filter *f;
    const uint64_t *h;
    _Atomic bool done;
    bb_status status;
} joined;

static void *long_batch(void *arg) {
    joined *j = arg;
    j->status = bb_add_hashes_concurrent(j->f, j->h, JOIN_KEYS, NULL);
    atomic_store(&j->done, true);
    return NULL;
}

/* Until keys 8192 .. 8255 of the batch (its third chunk) are all visible, or it is done. */
static void wait_past_second_chunk(joined *j) {
    for (;;) {
        bool seen = true;
        for (size_t i = 8192; i < 8256 && seen; i++)
            seen = bb_contains_hash_concurrent(j->f, j->h[i]);
        if (seen || atomic_load(&j->done)) return;
        sched_yield();
    }
}

/* One try: true if the batch asked for a private copy; the bytes must equal a single-thread
 * build either way. */
static bool join_once(const uint64_t *h, const bb_filter *ref, uint64_t tag) {
    bb_config cfg = {
        .size = sizeof cfg, .kind = BB_BLOCKED, .bits = JOIN_BLOCKS * 512, .k = 7, .seed = tag};
    bb_filter *f = NULL;
    cr_assert_eq(bb_create(&f, &cfg), BB_OK);
    cr_assert_eq(bb_add_hash_concurrent(f, h[0], NULL), BB_OK); /* stripe locks, before the watch */
    joined j = {.f = f, .h = h};
    atomic_store(&watched_calls, 0);
    atomic_store(&watch_bytes, (size_t)JOIN_BLOCKS * 64);
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, long_batch, &j), 0);
    wait_past_second_chunk(&j);
    bb_status hs = BB_OK;
    while (!atomic_load(&j.done)) {
        size_t fresh;
        hs |= bb_add_hashes_concurrent(f, h, JOIN_DISTINCT, &fresh);
    }
    pthread_join(t, NULL);
    atomic_store(&watch_bytes, 0);
    cr_assert_eq(j.status, BB_OK, "the long batch failed");
    cr_assert_eq(hs, BB_OK, "the joining writer failed");
    bb_view vf, vr;
    cr_assert_eq(bb_get_view(f, &vf), BB_OK);
    cr_assert_eq(bb_get_view(ref, &vr), BB_OK);
    cr_assert(memcmp(vf.data, vr.data, JOIN_BLOCKS * 64) == 0,
              "%s: bytes differ from a single-thread build", bb_isa_name());
    bb_free(f);
    return atomic_load(&watched_calls) > 0;
}

Test(conc_private, a_batch_that_began_alone_switches_when_joined) {
    uint64_t *h = malloc(JOIN_KEYS * sizeof *h);
    cr_assert_not_null(h);
    for (size_t i = 0; i < JOIN_KEYS; i++)
        h[i] = mix(UINT64_C(0x70696e) << 32 ^ (i % JOIN_DISTINCT));
    bool switched = false;
    for (unsigned i = 0; i < JOIN_TRIES && !switched; i++) {
        bb_config cfg = {.size = sizeof cfg,
                         .kind = BB_BLOCKED,
                         .bits = JOIN_BLOCKS * 512,
                         .k = 7,
                         .seed = 77 + i};
        bb_filter *ref = NULL;
        cr_assert_eq(bb_create(&ref, &cfg), BB_OK);
        cr_assert_eq(bb_add_hashes(ref, h, JOIN_DISTINCT), BB_OK);
        switched = join_once(h, ref, 77 + i);
        bb_free(ref);
    }
    free(h);
    cr_assert(switched, "a batch that began alone never went private in %u tries with another "
              "writer in", JOIN_TRIES);
}

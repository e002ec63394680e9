/* SPDX-License-Identifier: MIT */
/*
 * test_batch_threads.c - the library's own threads for batch calls (bb_set_threads). A filter
 * given threads must give exactly what one thread gives: the same serialized bytes (payload,
 * keys_added and every header field) after batch adds of every shape, and the same out[] and
 * *n_present from batch contains of every shape, for every kind and, for the kinds whose adds
 * are partitioned (blocked, split, sectorized), on every kernel this CPU has. The reference is
 * a filter built by the same calls with one thread, which runs no code of threads.c. Also the
 * edge cases of the partition (a filter of two lines, a split payload that ends inside a
 * line) and the setting's argument rules. A batch of few but long keys must get the threads
 * too (hashing them is the work), which this program sees through its own pthread_create
 * (not in the ThreadSanitizer build, whose own pthread_create must stay in place). The
 * ThreadSanitizer build runs this file too.
 */
#ifdef BB_PLAIN_TESTS /* ThreadSanitizer build: Criterion cannot run there */
#include "plain_criterion.h"
#else
#include <criterion/criterion.h>
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blockbloom.h"
#include "cpuinfo.h"

#ifndef BB_PLAIN_TESTS
/* Threads started by the thread in `watcher` while `watching` (the library's calls start
 * their threads from the caller's thread; other threads of the test runner are not counted). */
static volatile bool watching;
static pthread_t watcher;
static volatile unsigned started;

__attribute__((visibility("default"))) int pthread_create(pthread_t *tid,
                                                          const pthread_attr_t *attr,
                                                          void *(*fn)(void *), void *arg) {
    static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "pthread_create");
    if (watching && pthread_equal(pthread_self(), watcher)) started++;
    return real(tid, attr, fn, arg);
}

static void watch(void) {
    watcher = pthread_self();
    started = 0;
    watching = true;
}

static unsigned unwatch(void) {
    watching = false;
    return started;
}
#endif

/* More than 3 x 2^16 keys, so that three threads are used (threads.c's threshold). */
#define N_ADD 200000
#define N_ALL (N_ADD + N_ADD / 2) /* queries: keys N_ADD / 2 .. N_ALL, half of them added */
#define N_QUERY (N_ALL - N_ADD / 2)
#define FIXED_W 12

typedef struct keys {
    uint8_t *bytes;      /* key i at bytes + off64[i], 4 .. 19 bytes long */
    const void **ptrs;
    size_t *lens;
    int32_t *off32;
    int64_t *off64;
    uint8_t *fixed;      /* key i: FIXED_W bytes at fixed + i * FIXED_W */
    uint64_t *hashes;    /* any 64-bit values; splitmix output */
} keys;

static uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static keys *keys_make(void) {
    keys *k = calloc(1, sizeof *k);
    cr_assert_not_null(k);
    k->bytes = malloc((size_t)N_ALL * 20);
    k->ptrs = malloc(sizeof *k->ptrs * N_ALL);
    k->lens = malloc(sizeof *k->lens * N_ALL);
    k->off32 = malloc(sizeof *k->off32 * (N_ALL + 1));
    k->off64 = malloc(sizeof *k->off64 * (N_ALL + 1));
    k->fixed = malloc((size_t)N_ALL * FIXED_W);
    k->hashes = malloc(sizeof *k->hashes * N_ALL);
    cr_assert(k->bytes && k->ptrs && k->lens && k->off32 && k->off64 && k->fixed && k->hashes);
    uint64_t st = 7, at = 0;
    for (size_t i = 0; i < N_ALL; i++) {
        uint64_t a = splitmix64(&st), b = splitmix64(&st), c = splitmix64(&st);
        size_t len = 4 + (size_t)(a % 16);
        uint8_t tmp[24];
        memcpy(tmp, &b, 8);
        memcpy(tmp + 8, &c, 8);
        memcpy(tmp + 16, &a, 8);
        memcpy(k->bytes + at, tmp, len);
        memcpy(k->fixed + i * FIXED_W, tmp + 4, FIXED_W);
        k->off32[i] = (int32_t)at;
        k->off64[i] = (int64_t)at;
        k->ptrs[i] = k->bytes + at;
        k->lens[i] = len;
        k->hashes[i] = splitmix64(&st);
        at += len;
    }
    k->off32[N_ALL] = (int32_t)at;
    k->off64[N_ALL] = (int64_t)at;
    return k;
}

static void keys_free(keys *k) {
    free(k->bytes);
    free(k->ptrs);
    free(k->lens);
    free(k->off32);
    free(k->off64);
    free(k->fixed);
    free(k->hashes);
    free(k);
}

enum { S_PTRS, S_ARROW32, S_ARROW64, S_FIXED, S_HASHES, N_SHAPES };

/* ThreadSanitizer runs every access some 10-50x slower: there the two code paths (keys to
 * hash, pre-computed hashes) on the default kernel, which is what it checks for races. */
#ifdef BB_PLAIN_TESTS
static const int shapes[] = {S_ARROW64, S_HASHES};
#define ALL_KERNELS false
#else
static const int shapes[] = {S_PTRS, S_ARROW32, S_ARROW64, S_FIXED, S_HASHES};
#define ALL_KERNELS true
#endif
#define N_RUN_SHAPES (sizeof shapes / sizeof *shapes)
static const char *const shape_name[N_SHAPES] = {"ptrs", "arrow32", "arrow64", "fixed",
                                                 "hashes"};

/* Add keys [first, first + n) in one batch of the shape. */
static bb_status add_shape(bb_filter *f, const keys *k, int shape, size_t first, size_t n) {
    switch (shape) {
    case S_PTRS: return bb_add_batch(f, k->ptrs + first, k->lens + first, n);
    case S_ARROW32: return bb_add_arrow32(f, k->bytes, k->off32 + first, n);
    case S_ARROW64: return bb_add_arrow64(f, k->bytes, k->off64 + first, n);
    case S_FIXED: return bb_add_fixed(f, k->fixed + first * FIXED_W, FIXED_W, 0, n);
    default: return bb_add_hashes(f, k->hashes + first, n);
    }
}

static bb_status contains_shape(const bb_filter *f, const keys *k, int shape, size_t first,
                                size_t n, uint8_t *out, size_t *hits) {
    switch (shape) {
    case S_PTRS: return bb_contains_batch(f, k->ptrs + first, k->lens + first, n, out, hits);
    case S_ARROW32: return bb_contains_arrow32(f, k->bytes, k->off32 + first, n, out, hits);
    case S_ARROW64: return bb_contains_arrow64(f, k->bytes, k->off64 + first, n, out, hits);
    case S_FIXED:
        return bb_contains_fixed(f, k->fixed + first * FIXED_W, FIXED_W, FIXED_W, n, out, hits);
    default: return bb_contains_hashes(f, k->hashes + first, n, out, hits);
    }
}

static uint8_t *serialized(const bb_filter *f, size_t *len) {
    uint64_t size = 0;
    cr_assert_eq(bb_serialized_size(f, &size), BB_OK);
    uint8_t *buf = malloc(size);
    cr_assert_not_null(buf);
    cr_assert_eq(bb_serialize(f, buf, size, len), BB_OK);
    return buf;
}

static bb_filter *make(const bb_config *cfg, unsigned threads) {
    bb_filter *f = NULL;
    cr_assert_eq(bb_create(&f, cfg), BB_OK);
    cr_assert_eq(bb_set_threads(f, threads), BB_OK);
    return f;
}

/* For each shape: build with 1 thread and with `threads`, in two batches (so a filter that
 * already holds keys is added to), then compare the bytes and the answers. */
static void compare(const bb_config *cfg, const keys *k, unsigned threads, const char *what) {
    uint8_t *out1 = malloc(N_QUERY), *outn = malloc(N_QUERY);
    cr_assert(out1 && outn);
    for (size_t si = 0; si < N_RUN_SHAPES; si++) {
        int shape = shapes[si];
        bb_filter *one = make(cfg, 1), *many = make(cfg, threads);
        for (int pass = 0; pass < 2; pass++) {
            size_t first = pass ? N_ADD / 4 : 0, n = pass ? N_ADD - N_ADD / 4 : N_ADD / 4 * 3;
            bb_status s1 = add_shape(one, k, shape, first, n);
            bb_status sn = add_shape(many, k, shape, first, n);
            cr_assert_eq(s1, BB_OK, "%s %s: one-thread add failed", what, shape_name[shape]);
            cr_assert_eq(sn, BB_OK, "%s %s: %u-thread add failed", what, shape_name[shape],
                         threads);
        }
        size_t len1 = 0, lenn = 0;
        uint8_t *b1 = serialized(one, &len1), *bn = serialized(many, &lenn);
        cr_assert_eq(len1, lenn, "%s %s: serialized sizes differ", what, shape_name[shape]);
        cr_assert(memcmp(b1, bn, len1) == 0, "%s %s: %u threads built other bytes than one",
                  what, shape_name[shape], threads);
        free(b1);
        free(bn);
        size_t hits1 = 0, hitsn = 0;
        memset(outn, 0xAA, N_QUERY);
        cr_assert_eq(contains_shape(one, k, shape, N_ADD / 2, N_QUERY, out1, &hits1), BB_OK);
        cr_assert_eq(contains_shape(many, k, shape, N_ADD / 2, N_QUERY, outn, &hitsn), BB_OK);
        cr_assert_eq(hits1, hitsn, "%s %s: n_present %zu with one thread, %zu with %u", what,
                     shape_name[shape], hits1, hitsn, threads);
        cr_assert(memcmp(out1, outn, N_QUERY) == 0, "%s %s: answers differ", what,
                  shape_name[shape]);
        /* The added half answers 1 (no false negative), and (in a filter sized for the keys,
         * not a tiny saturated one) not every absent key does. */
        for (size_t i = 0; i < N_ADD / 2; i++)
            cr_assert_eq(outn[i], 1, "%s %s: added key %zu absent", what, shape_name[shape],
                         N_ADD / 2 + i);
        if (cfg->capacity)
            cr_assert_lt(hitsn, (size_t)N_QUERY, "%s %s: every key present", what,
                         shape_name[shape]);
        bb_free(one);
        bb_free(many);
    }
    free(out1);
    free(outn);
}

/* The kinds whose adds are partitioned by line, on every kernel. */
Test(batch_threads, partitioned_kinds_every_kernel) {
    keys *k = keys_make();
    const bb_kind kinds[] = {BB_BLOCKED, BB_SPLIT, BB_SECTORIZED};
    for (size_t i = 0; i < bb_isa_count(); i++) { /* the library's ISA table, scalar first */
        bb_isa isa = bb_isa_at(i);
        if (!ALL_KERNELS && isa != BB_ISA_SCALAR) continue; /* TSan: one kernel */
        if (!bb_isa_available(isa)) {
            fprintf(stderr, "[SKIP] kernel %s not available here\n", bb_isa_to_string(isa));
            continue;
        }
        cr_assert_eq(bb_set_isa(isa), BB_OK);
        for (size_t j = 0; j < sizeof kinds / sizeof *kinds; j++) {
            bb_config cfg = {
                .size = sizeof cfg, .kind = kinds[j], .capacity = N_ADD, .fpr = 0.01, .seed = 99};
            char what[64];
            snprintf(what, sizeof what, "%s/%s", bb_kind_name(kinds[j]), bb_isa_to_string(isa));
            compare(&cfg, k, 3, what);
        }
    }
    cr_assert_eq(bb_set_isa(BB_ISA_AUTO), BB_OK);
    keys_free(k);
}

/* The other kinds add on one thread and split only their contains batches. */
Test(batch_threads, other_kinds) {
    keys *k = keys_make();
    bb_config classic = {
        .size = sizeof classic, .kind = BB_CLASSIC, .capacity = N_ADD, .fpr = 0.01, .seed = 5};
    bb_config counting = {
        .size = sizeof counting, .kind = BB_COUNTING, .capacity = N_ADD, .fpr = 0.01, .seed = 5};
    bb_config scalable = {.size = sizeof scalable,
                          .kind = BB_SCALABLE,
                          .capacity = N_ADD / 8,
                          .fpr = 0.01,
                          .seed = 5};
    compare(&classic, k, 2, "classic");
    if (ALL_KERNELS) {
        compare(&counting, k, 2, "counting");
        compare(&scalable, k, 2, "scalable");
    }
    keys_free(k);
}

/* Runs at the partition's edges: more threads than lines, a power-of-two payload, a split
 * payload that ends inside a 64-byte line, and more threads than keys justify. */
Test(batch_threads, partition_edges) {
    keys *k = keys_make();
    bb_config two_lines = {
        .size = sizeof two_lines, .kind = BB_BLOCKED, .bits = 1024, .k = 6, .seed = 1};
    bb_config split_odd = {
        .size = sizeof split_odd, .kind = BB_SPLIT, .bits = 5 * 256, .k = 8, .seed = 2};
    bb_config split_big = {
        .size = sizeof split_big, .kind = BB_SPLIT, .bits = 1001 * 256, .k = 8, .seed = 3};
    bb_config pow2 = {.size = sizeof pow2,
                      .kind = BB_BLOCKED,
                      .capacity = N_ADD,
                      .fpr = 0.02,
                      .flags = BB_POW2_BYTES};
    bb_config sect = {.size = sizeof sect, .kind = BB_SECTORIZED, .bits = 3 * 512, .k = 8};
    compare(&two_lines, k, 8, "blocked, 2 lines");
    compare(&split_odd, k, 4, "split, 5 blocks");
    compare(&split_big, k, 7, "split, 1001 blocks");
    compare(&pow2, k, BB_MAX_THREADS, "blocked, pow2");
    compare(&sect, k, 3, "sectorized, 3 lines");
    keys_free(k);
}

Test(batch_threads, setting) {
    bb_filter *f = NULL, *c = NULL;
    cr_assert_eq(bb_create_for(&f, BB_BLOCKED, 1000, 0.01, 0), BB_OK);
    cr_assert_eq(bb_threads(f), 1u, "a new filter runs its batches on the caller's thread");
    cr_assert_eq(bb_threads(NULL), 1u);
    cr_assert_eq(bb_set_threads(NULL, 2), BB_E_INVAL);
    cr_assert_eq(bb_set_threads(f, BB_MAX_THREADS + 1), BB_E_INVAL);
    cr_assert_eq(bb_threads(f), 1u, "a refused setting changes nothing");
    cr_assert_eq(bb_set_threads(f, 5), BB_OK);
    cr_assert_eq(bb_threads(f), 5u);
    cr_assert_eq(bb_set_threads(f, 0), BB_OK);
    cr_assert(bb_threads(f) >= 1u && bb_threads(f) <= BB_MAX_THREADS);
    cr_assert_eq(bb_set_threads(f, BB_MAX_THREADS), BB_OK);
    cr_assert_eq(bb_threads(f), BB_MAX_THREADS);
    cr_assert_eq(bb_clone(&c, f), BB_OK);
    cr_assert_eq(bb_threads(c), 1u, "bb_clone does not copy the setting");
    /* Empty batches and bad arguments behave as with one thread. */
    uint8_t out[1];
    size_t hits = 7;
    cr_assert_eq(bb_add_hashes(f, NULL, 0), BB_OK);
    cr_assert_eq(bb_contains_hashes(f, NULL, 0, NULL, &hits), BB_OK);
    cr_assert_eq(hits, 0u);
    cr_assert_eq(bb_add_hashes(f, NULL, 1), BB_E_INVAL);
    cr_assert_eq(bb_contains_arrow64(f, NULL, NULL, 1, out, NULL), BB_E_INVAL);
    bb_free(c);
    bb_free(f);
}

#ifndef BB_PLAIN_TESTS
/* n keys of `len` bytes each (distinct: the index in the first 8 bytes, the rest filler). */
static uint8_t *long_keys(size_t n, size_t len, int64_t **off, const void ***ptrs, size_t **lens) {
    uint8_t *b = malloc(n * len);
    *off = malloc(sizeof **off * (n + 1));
    *ptrs = malloc(sizeof **ptrs * n);
    *lens = malloc(sizeof **lens * n);
    cr_assert(b && *off && *ptrs && *lens);
    uint64_t st = 11;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < len; j += 8) {
            uint64_t v = j ? splitmix64(&st) : (uint64_t)i;
            memcpy(b + i * len + j, &v, len - j < 8 ? len - j : 8);
        }
        (*off)[i] = (int64_t)(i * len);
        (*ptrs)[i] = b + i * len;
        (*lens)[i] = len;
    }
    (*off)[n] = (int64_t)(n * len);
    return b;
}

/* Threads one batch of each shape started, and whether it did what one thread does: the
 * filter's bytes after the add, the answers of the contains. */
static void long_batch(size_t n, size_t len, unsigned want_started, const char *what) {
    int64_t *off;
    const void **ptrs;
    size_t *lens;
    uint8_t *b = long_keys(n, len, &off, &ptrs, &lens);
    uint8_t *out1 = malloc(n), *out2 = malloc(n);
    cr_assert(out1 && out2);
    bb_config cfg = {.size = sizeof cfg, .kind = BB_BLOCKED, .capacity = 1000000, .fpr = 0.01};
    for (int shape = 0; shape < 4; shape++) {
        bb_filter *one = make(&cfg, 1), *two = make(&cfg, 2);
        size_t h1 = 0, h2 = 0;
        /* The first half is added; the batch asks for all n keys. */
        cr_assert_eq(bb_add_batch(one, ptrs, lens, n / 2), BB_OK);
        watch();
        bb_status s;
        switch (shape) {
        case 0: s = bb_add_arrow64(two, b, off, n / 2); break;
        case 1: s = bb_add_batch(two, ptrs, lens, n / 2); break;
        case 2: s = bb_add_fixed(two, b, len, len, n / 2); break;
        default: {
            int32_t *o32 = malloc(sizeof *o32 * (n / 2 + 1));
            cr_assert_not_null(o32);
            for (size_t i = 0; i <= n / 2; i++) o32[i] = (int32_t)off[i];
            s = bb_add_arrow32(two, b, o32, n / 2);
            free(o32);
        }
        }
        unsigned add_started = unwatch();
        cr_assert_eq(s, BB_OK);
        cr_assert_eq(add_started, want_started, "%s, shape %d: the add started %u threads, not %u",
                     what, shape, add_started, want_started);
        size_t l1 = 0, l2 = 0;
        uint8_t *s1 = serialized(one, &l1), *s2 = serialized(two, &l2);
        cr_assert(l1 == l2 && memcmp(s1, s2, l1) == 0, "%s, shape %d: 2 threads built other "
                  "bytes than one", what, shape);
        free(s1);
        free(s2);
        cr_assert_eq(bb_contains_arrow64(one, b, off, n, out1, &h1), BB_OK);
        watch();
        if (shape == 1) s = bb_contains_batch(two, ptrs, lens, n, out2, &h2);
        else if (shape == 2) s = bb_contains_fixed(two, b, len, len, n, out2, &h2);
        else s = bb_contains_arrow64(two, b, off, n, out2, &h2);
        unsigned contains_started = unwatch();
        cr_assert_eq(s, BB_OK);
        cr_assert_eq(contains_started, want_started, "%s, shape %d: the contains started %u "
                     "threads, not %u", what, shape, contains_started, want_started);
        cr_assert(h1 == h2 && memcmp(out1, out2, n) == 0, "%s, shape %d: answers differ", what,
                  shape);
        for (size_t i = 0; i < n / 2; i++) cr_assert_eq(out2[i], 1, "%s: key %zu absent", what, i);
        cr_assert_lt(h2, n, "%s: every key present", what);
        bb_free(one);
        bb_free(two);
    }
    free(out1);
    free(out2);
    free(b);
    free(off);
    free(ptrs);
    free(lens);
}

/* Whether /proc/cpuinfo says Intel family 6 model A7h or CFh, whose dispatch rows split adds
 * of hashes into filters of every size; every other CPU keeps those below 4 MiB on one thread
 * (read apart from the library). */
static bool splits_small_adds_here(void) {
    cpuinfo c = read_cpuinfo();
    return c.found && !strcmp(c.vendor, "GenuineIntel") && c.family == 6 &&
           (c.model == 0xa7 || c.model == 0xcf);
}

/* Threads a pre-hashed batch add and a batch add of 20-byte keys started (each must also
 * build what one thread builds, which compare() checks for every shape). */
static void adds_started(uint64_t capacity, size_t n, unsigned *hashed, unsigned *with_keys) {
    uint64_t *h = malloc(sizeof *h * n);
    uint8_t *b = malloc(20 * n);
    cr_assert(h && b);
    for (size_t i = 0; i < n; i++) {
        snprintf((char *)b + 20 * i, 21, "key-%015zu", i);
        h[i] = 0x9E3779B97F4A7C15ull * (i + 1);
    }
    bb_config cfg = {.size = sizeof cfg, .kind = BB_BLOCKED, .capacity = capacity, .fpr = 0.01};
    bb_filter *f = make(&cfg, 2);
    watch();
    cr_assert_eq(bb_add_hashes(f, h, n), BB_OK);
    *hashed = unwatch();
    watch();
    cr_assert_eq(bb_add_fixed(f, b, 20, 20, n), BB_OK);
    *with_keys = unwatch();
    bb_free(f);
    free(h);
    free(b);
}

/* 300000 keys are more than 2 x 2^16: two threads, but for pre-computed hashes only into
 * filters of 4 MiB and more (1.2 MiB for 10^6 keys at 1% stays on one; 6 MiB for 5 x 10^6
 * gets two), except on the CPUs whose rows split every size. Keys to hash get two threads on
 * every CPU. */
Test(batch_threads, small_filters_by_the_cpu_row) {
    unsigned hashed = 0, with_keys = 0, want_small = splits_small_adds_here() ? 1 : 0;
    adds_started(1000000, 300000, &hashed, &with_keys);
    cr_expect_eq(hashed, want_small, "pre-hashed add into 1.2 MiB: %u threads started", hashed);
    cr_expect_eq(with_keys, 1, "add of keys into 1.2 MiB: %u threads started", with_keys);
    adds_started(5000000, 300000, &hashed, &with_keys);
    cr_expect_eq(hashed, 1, "pre-hashed add into 6 MiB: %u threads started", hashed);
    cr_expect_eq(with_keys, 1, "add of keys into 6 MiB: %u threads started", with_keys);
}

/* Batches of 40000 (add) and 80000 (contains) keys of 1000 bytes are fewer than 2 x 2^16
 * keys, but 38 and 76 MiB to hash: two threads. 4096 and 8192 such keys (4 and 8 MiB), and
 * 60000 and 120000 keys of 20 bytes, are too little work for a second thread. */
Test(batch_threads, long_keys_use_threads) {
    long_batch(80000, 1000, 1, "1000-byte keys, 38 MiB");
    long_batch(8192, 1000, 0, "1000-byte keys, 4 MiB");
    long_batch(120000, 20, 0, "20-byte keys");
}
#endif

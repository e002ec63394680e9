/* SPDX-License-Identifier: MIT */
/*
 * test_api.c - the public API's contract for the blocked and classic kinds: argument
 * checking (bad numbers, NULL everywhere, overflow, contradictory configs), status texts,
 * unusual keys (empty, one byte, 1 MiB, unaligned), agreement of every batch shape with the
 * single-key calls, all-or-nothing batch validation, bb_get_info's fields and estimates,
 * clone and clear, kernel selection (including the BB_ISA environment override, checked in
 * forked children) and the version macros. Expected values come from the header's promises,
 * from xxHash's published vectors, or from counting in the test.
 */
#include "testutil.h"

#include <sys/wait.h>
#include <unistd.h>

static const bb_kind kinds[] = {BB_BLOCKED, BB_CLASSIC};
#define N_KINDS 2

static bb_filter *make(bb_kind kind, uint64_t capacity, double fpr, uint64_t seed) {
    bb_filter *f = NULL;
    cr_assert_eq(bb_create_for(&f, kind, capacity, fpr, seed), BB_OK);
    cr_assert_not_null(f);
    return f;
}

static bb_info info_of(const bb_filter *f) {
    bb_info i = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(f, &i), BB_OK);
    return i;
}

/* A sentinel that bb_create must overwrite with NULL on error. */
static bb_filter *const not_null = (bb_filter *)&kinds;

static void expect_create(const bb_config *c, bb_status want, const char *what) {
    bb_filter *f = not_null;
    bb_status s = bb_create(&f, c);
    cr_assert_eq(s, want, "%s: got %d (%s), expected %d (%s)", what, (int)s, bb_strerror(s),
                 (int)want, bb_strerror(want));
    if (want != BB_OK) cr_assert_null(f, "%s: *out not NULL on error", what);
    bb_free(f);
}

/* ---- Bad parameters ----------------------------------------------------------------------- */
Test(api, bad_parameters) {
    const double bad_p[] = {0.0, -0.01, 1.0, 2.0, NAN, -NAN, INFINITY};
    for (int i = 0; i < N_KINDS; i++) {
        bb_kind kd = kinds[i];
        for (size_t j = 0; j < sizeof bad_p / sizeof *bad_p; j++) {
            bb_filter *f = not_null;
            cr_assert_eq(bb_create_for(&f, kd, 1000, bad_p[j], 0), BB_E_INVAL, "p=%g", bad_p[j]);
            cr_assert_null(f);
            /* (fpr = 0 in a config means "not given", which leaves no size: also INVAL) */
            expect_create(TU_CFG(.kind = kd, .capacity = 1000, .fpr = bad_p[j]), BB_E_INVAL,
                          "config with bad p");
        }
        bb_filter *f = not_null;
        cr_assert_eq(bb_create_for(&f, kd, 0, 0.01, 0), BB_E_INVAL, "n = 0 accepted");
        cr_assert_null(f);
        expect_create(TU_CFG(.kind = kd, .capacity = 1000), BB_E_INVAL, "no size at all");
        expect_create(TU_CFG(.kind = kd, .k = 3), BB_E_INVAL, "k alone, no capacity");
        expect_create(TU_CFG(.kind = kd, .bits = 0, .k = 3, .capacity = 0), BB_E_INVAL, "bits = 0");
        expect_create(TU_CFG(.kind = kd, .bits = 4096, .k = BB_MAX_K + 1), BB_E_INVAL, "k = 17");
        expect_create(TU_CFG(.kind = kd, .capacity = 100, .fpr = 0.01, .k = 17), BB_E_INVAL,
                      "k = 17 with fpr");
        expect_create(TU_CFG(.kind = kd, .capacity = 100, .fpr = 0.01, .bits_per_key = 10),
                      BB_E_INVAL, "fpr and bits_per_key both");
        expect_create(TU_CFG(.kind = kd, .capacity = 100, .fpr = 0.01, .bits = 4096), BB_E_INVAL,
                      "fpr and bits both");
        expect_create(TU_CFG(.kind = kd, .capacity = 100, .bits_per_key = 10, .bits = 4096),
                      BB_E_INVAL, "bits_per_key and bits both");
        expect_create(TU_CFG(.kind = kd, .capacity = 100, .bits_per_key = -3), BB_E_INVAL,
                      "negative bits_per_key");
        expect_create(TU_CFG(.kind = kd, .capacity = 100, .bits_per_key = NAN), BB_E_INVAL,
                      "NaN bits_per_key");
        expect_create(TU_CFG(.kind = kd, .bits_per_key = 10), BB_E_INVAL,
                      "bits_per_key without capacity");
        /* Sizes past 64 bits or past BB_MAX_BITS (2^56): 2^64 keys at 1e-9 need ~2^70 bits. */
        expect_create(TU_CFG(.kind = kd, .capacity = UINT64_MAX, .fpr = 1e-9), BB_E_TOO_LARGE,
                      "capacity UINT64_MAX at 1e-9");
        f = not_null;
        cr_assert_eq(bb_create_for(&f, kd, UINT64_MAX, 1e-9, 0), BB_E_TOO_LARGE);
        cr_assert_null(f);
        expect_create(TU_CFG(.kind = kd, .capacity = UINT64_C(1) << 40, .bits_per_key = 1e6),
                      BB_E_TOO_LARGE, "capacity x bits_per_key = 2^60");
        expect_create(TU_CFG(.kind = kd, .bits = BB_MAX_BITS + 1, .k = 3), BB_E_TOO_LARGE,
                      "bits = 2^56 + 1");
        expect_create(TU_CFG(.kind = kd, .bits = UINT64_MAX, .k = 3), BB_E_TOO_LARGE,
                      "bits = UINT64_MAX (must not wrap when rounded up to blocks)");
    }
    expect_create(TU_CFG(.kind = (bb_kind)77, .capacity = 100, .fpr = 0.01), BB_E_INVAL,
                  "unknown kind");
    expect_create(NULL, BB_E_INVAL, "NULL config");
}

/* ---- NULL arguments ------------------------------------------------------------------------ */
Test(api, null_arguments) {
    bb_filter *f = make(BB_BLOCKED, 100, 0.01, 0), *c = not_null;
    bb_config cfg = {.size = sizeof cfg, .capacity = 100, .fpr = 0.01};
    uint8_t out[4] = {7, 7, 7, 7};
    size_t hits;
    const void *keys[1] = {"a"};
    size_t lens[1] = {1};
    int32_t off32[2] = {0, 1};
    int64_t off64[2] = {0, 1};
    uint64_t h = 1;
    bb_info info = BB_INFO_INIT;

    cr_assert_eq(bb_create(NULL, &cfg), BB_E_INVAL);
    cr_assert_eq(bb_create_for(NULL, BB_BLOCKED, 100, 0.01, 0), BB_E_INVAL);
    cr_assert_eq(bb_clone(NULL, f), BB_E_INVAL);
    cr_assert_eq(bb_clone(&c, NULL), BB_E_INVAL);
    cr_assert_null(c);
    bb_free(NULL); /* ignored */
    cr_assert_eq(bb_clear(NULL), BB_E_INVAL);
    cr_assert_eq(bb_get_info(NULL, &info), BB_E_INVAL);
    cr_assert_eq(bb_get_info(f, NULL), BB_E_INVAL);

    cr_assert_eq(bb_add(NULL, "a", 1), BB_E_INVAL);
    cr_assert_eq(bb_add(f, NULL, 1), BB_E_INVAL);
    cr_assert_eq(bb_add_hash(NULL, 1), BB_E_INVAL);
    cr_assert_not(bb_contains(NULL, "a", 1));
    cr_assert_not(bb_contains(f, NULL, 1));
    cr_assert_not(bb_contains_hash(NULL, 1));

    /* Batches: NULL arrays with n > 0 are errors; with n = 0 every pointer may be NULL. */
    cr_assert_eq(bb_add_batch(NULL, keys, lens, 1), BB_E_INVAL);
    cr_assert_eq(bb_add_batch(f, NULL, lens, 1), BB_E_INVAL);
    cr_assert_eq(bb_add_batch(f, keys, NULL, 1), BB_E_INVAL);
    cr_assert_eq(bb_contains_batch(NULL, keys, lens, 1, out, &hits), BB_E_INVAL);
    cr_assert_eq(bb_contains_batch(f, NULL, lens, 1, out, &hits), BB_E_INVAL);
    cr_assert_eq(bb_contains_batch(f, keys, NULL, 1, out, &hits), BB_E_INVAL);
    cr_assert_eq(bb_contains_batch(f, keys, lens, 1, NULL, &hits), BB_E_INVAL);
    cr_assert_eq(bb_add_arrow32(NULL, "a", off32, 1), BB_E_INVAL);
    cr_assert_eq(bb_add_arrow32(f, "a", NULL, 1), BB_E_INVAL);
    cr_assert_eq(bb_add_arrow32(f, NULL, off32, 1), BB_E_INVAL);
    cr_assert_eq(bb_contains_arrow32(f, "a", off32, 1, NULL, &hits), BB_E_INVAL);
    cr_assert_eq(bb_contains_arrow32(f, NULL, off32, 1, out, &hits), BB_E_INVAL);
    cr_assert_eq(bb_add_arrow64(NULL, "a", off64, 1), BB_E_INVAL);
    cr_assert_eq(bb_add_arrow64(f, "a", NULL, 1), BB_E_INVAL);
    cr_assert_eq(bb_add_arrow64(f, NULL, off64, 1), BB_E_INVAL);
    cr_assert_eq(bb_contains_arrow64(f, "a", off64, 1, NULL, &hits), BB_E_INVAL);
    cr_assert_eq(bb_add_fixed(NULL, "abcd", 4, 4, 1), BB_E_INVAL);
    cr_assert_eq(bb_add_fixed(f, NULL, 4, 4, 1), BB_E_INVAL);
    cr_assert_eq(bb_contains_fixed(f, NULL, 4, 4, 1, out, &hits), BB_E_INVAL);
    cr_assert_eq(bb_contains_fixed(f, "abcd", 4, 4, 1, NULL, &hits), BB_E_INVAL);
    cr_assert_eq(bb_add_hashes(NULL, &h, 1), BB_E_INVAL);
    cr_assert_eq(bb_add_hashes(f, NULL, 1), BB_E_INVAL);
    cr_assert_eq(bb_contains_hashes(NULL, &h, 1, out, &hits), BB_E_INVAL);
    cr_assert_eq(bb_contains_hashes(f, NULL, 1, out, &hits), BB_E_INVAL);
    cr_assert_eq(bb_contains_hashes(f, &h, 1, NULL, &hits), BB_E_INVAL);
    cr_assert_eq(info_of(f).keys_added, 0, "a failed call added keys");
    cr_assert_eq(info_of(f).bits_set, 0, "a failed call set bits");
    cr_assert(out[0] == 7 && out[1] == 7, "a failed call wrote answers");

    hits = 99;
    cr_assert_eq(bb_add_batch(f, NULL, NULL, 0), BB_OK);
    cr_assert_eq(bb_contains_batch(f, NULL, NULL, 0, NULL, &hits), BB_OK);
    cr_assert_eq(hits, 0);
    cr_assert_eq(bb_add_arrow32(f, NULL, NULL, 0), BB_OK);
    cr_assert_eq(bb_contains_arrow64(f, NULL, NULL, 0, NULL, NULL), BB_OK);
    cr_assert_eq(bb_add_fixed(f, NULL, 0, 0, 0), BB_OK);
    cr_assert_eq(bb_add_hashes(f, NULL, 0), BB_OK);
    cr_assert_eq(bb_contains_hashes(f, NULL, 0, NULL, NULL), BB_OK);
    /* n_present may be NULL. */
    cr_assert_eq(bb_contains_hashes(f, &h, 1, out, NULL), BB_OK);

    cr_assert_eq(bb_isa_from_string(NULL, &(bb_isa){0}), BB_E_INVAL);
    cr_assert_eq(bb_isa_from_string("scalar", NULL), BB_E_INVAL);
    bb_free(f);
}

/* ---- Status texts ---------------------------------------------------------------------------- */
Test(api, strerror_texts) {
    const bb_status last = BB_E_READONLY;
    const char *unknown = bb_strerror((bb_status)1000);
    cr_assert(unknown && *unknown, "unknown status has no text");
    cr_assert_str_eq(bb_strerror((bb_status)-1), unknown, "unknown statuses differ");
    for (int s = BB_OK; s <= (int)last; s++) {
        const char *t = bb_strerror((bb_status)s);
        cr_assert(t && *t, "status %d has no text", s);
        cr_assert_str_neq(t, unknown, "status %d has the generic text '%s'", s, t);
        for (int r = BB_OK; r < s; r++)
            cr_assert_str_neq(t, bb_strerror((bb_status)r), "statuses %d and %d share '%s'", r,
                              s, t);
    }
}

/* ---- Keys -------------------------------------------------------------------------------------
 * XXH3-64 of the empty input with seed 0 is 0x2D06800538D394C2 (xxHash's self-test,
 * cli/xsum_sanity_check.c), whatever the pointer. */
Test(api, empty_and_one_byte_keys) {
    for (int i = 0; i < N_KINDS; i++) {
        bb_filter *f = make(kinds[i], 1000, 0.001, 0);
        static const char nonnull[1] = {'x'};
        cr_assert_eq(bb_hash(f, NULL, 0), UINT64_C(0x2D06800538D394C2));
        cr_assert_eq(bb_hash(f, nonnull, 0), UINT64_C(0x2D06800538D394C2));
        cr_assert_not(bb_contains(f, NULL, 0));
        cr_assert_eq(bb_add(f, nonnull, 0), BB_OK);
        cr_assert(bb_contains(f, NULL, 0), "empty key added via a non-NULL pointer not found "
                  "via NULL");
        cr_assert(bb_contains(f, "", 0));
        cr_assert_eq(bb_clear(f), BB_OK);
        cr_assert_eq(bb_add(f, NULL, 0), BB_OK);
        cr_assert(bb_contains(f, nonnull, 0));
        /* All 256 one-byte keys, then each is found. */
        for (unsigned b = 0; b < 256; b++) {
            uint8_t key = (uint8_t)b;
            cr_assert_eq(bb_add(f, &key, 1), BB_OK);
        }
        for (unsigned b = 0; b < 256; b++) {
            uint8_t key = (uint8_t)b;
            cr_assert(bb_contains(f, &key, 1), "one-byte key %u missing", b);
        }
        cr_assert_eq(info_of(f).keys_added, 257);
        bb_free(f);
    }
}

Test(api, one_mebibyte_keys) {
    const size_t len = 1u << 20;
    uint8_t *key = malloc(len);
    cr_assert_not_null(key);
    uint64_t st = 1;
    for (size_t i = 0; i < len; i++) key[i] = (uint8_t)tu_splitmix64(&st);
    for (int i = 0; i < N_KINDS; i++) {
        bb_filter *f = make(kinds[i], 1000, 1e-6, 3);
        /* Keys that differ only in their last byte must hash apart. */
        for (unsigned v = 0; v < 8; v++) {
            key[len - 1] = (uint8_t)v;
            cr_assert_eq(bb_add(f, key, len), BB_OK);
        }
        for (unsigned v = 0; v < 16; v++) {
            key[len - 1] = (uint8_t)v;
            bool want = v < 8;
            cr_assert_eq(bb_contains(f, key, len), want, "1 MiB key ending in %u: %d", v, !want);
        }
        /* The batch path hashes the same bytes the same way. */
        const void *keys[1] = {key};
        size_t lens[1] = {len}, hits = 0;
        uint8_t out[1];
        key[len - 1] = 3;
        cr_assert_eq(bb_contains_batch(f, keys, lens, 1, out, &hits), BB_OK);
        cr_assert_eq(hits, 1);
        bb_free(f);
    }
    free(key);
}

/* The same key copied at offsets 0..63 of a buffer hashes and answers the same: XXH3 reads
 * unaligned input correctly. Lengths cover XXH3's size classes (1-3, 4-8, 9-16, 17-128,
 * 129-240, > 240). */
Test(api, unaligned_keys) {
    static const size_t lens[] = {1, 3, 7, 16, 33, 100, 200, 1000};
    uint8_t *buf = malloc(64 + 1000), src[1000];
    cr_assert_not_null(buf);
    for (size_t i = 0; i < sizeof src; i++) src[i] = (uint8_t)(i * 131 + 7);
    for (int i = 0; i < N_KINDS; i++) {
        bb_filter *f = make(kinds[i], 1000, 1e-4, 9);
        for (size_t l = 0; l < sizeof lens / sizeof *lens; l++) {
            cr_assert_eq(bb_add(f, src, lens[l]), BB_OK);
            uint64_t want = bb_hash(f, src, lens[l]);
            for (size_t off = 0; off < 64; off++) {
                memcpy(buf + off, src, lens[l]);
                cr_assert_eq(bb_hash(f, buf + off, lens[l]), want, "len %zu offset %zu", lens[l],
                             off);
                cr_assert(bb_contains(f, buf + off, lens[l]), "len %zu offset %zu", lens[l], off);
                size_t kl = lens[l], hits = 0;
                const void *kp = buf + off;
                uint8_t out;
                cr_assert_eq(bb_contains_batch(f, &kp, &kl, 1, &out, &hits), BB_OK);
                cr_assert_eq(hits, 1, "batch: len %zu offset %zu", lens[l], off);
            }
        }
        bb_free(f);
    }
    free(buf);
}

/* ---- Batch shapes agree with single-key calls -----------------------------------------------
 * Variable-length keys (lengths 0..40, including empty ones with NULL pointers) go in through
 * each variable-length shape and through a bb_add loop; fixed-width keys (12 bytes at a
 * stride of 20) through bb_add_fixed and a loop. The filters must answer every probe alike,
 * have the same set bits and count the same adds. */
#define N_VAR 3000u

typedef struct varkeys {
    uint8_t *data;
    int32_t off32[N_VAR + 1];
    int64_t off64[N_VAR + 1];
    const void *ptrs[N_VAR];
    size_t lens[N_VAR];
    uint64_t hashes[N_VAR];
} varkeys;

static varkeys *varkeys_make(uint64_t seed) {
    varkeys *v = calloc(1, sizeof *v);
    cr_assert_not_null(v);
    v->data = malloc(N_VAR * 40 + 1);
    cr_assert_not_null(v->data);
    uint64_t st = seed;
    size_t at = 0;
    for (size_t i = 0; i < N_VAR; i++) {
        size_t len = (i * 7) % 41;
        v->off32[i] = (int32_t)at;
        v->off64[i] = (int64_t)at;
        v->ptrs[i] = len ? v->data + at : NULL;
        v->lens[i] = len;
        for (size_t j = 0; j < len; j++) v->data[at + j] = (uint8_t)tu_splitmix64(&st);
        at += len;
    }
    v->off32[N_VAR] = (int32_t)at;
    v->off64[N_VAR] = (int64_t)at;
    return v;
}

static void varkeys_free(varkeys *v) {
    free(v->data);
    free(v);
}

static void assert_same_filter(const bb_filter *a, const bb_filter *b, const varkeys *in,
                               const varkeys *out, const char *what) {
    bb_info ia = info_of(a), ib = info_of(b);
    cr_assert_eq(ia.bits_set, ib.bits_set, "%s: %llu vs %llu bits set", what,
                 (unsigned long long)ia.bits_set, (unsigned long long)ib.bits_set);
    cr_assert_eq(ia.keys_added, ib.keys_added, "%s: keys_added differ", what);
    for (size_t i = 0; i < N_VAR; i++) {
        cr_assert(bb_contains(b, in->ptrs[i], in->lens[i]), "%s: key %zu missing", what, i);
        cr_assert_eq(bb_contains(a, out->ptrs[i], out->lens[i]),
                     bb_contains(b, out->ptrs[i], out->lens[i]), "%s: probe %zu differs", what, i);
    }
}

Test(api, batch_shapes_agree_with_single_calls) {
    varkeys *in = varkeys_make(11), *out = varkeys_make(12);
    for (int i = 0; i < N_KINDS; i++) {
        bb_filter *ref = make(kinds[i], N_VAR, 0.05, 5), *f;
        for (size_t j = 0; j < N_VAR; j++) {
            cr_assert_eq(bb_add(ref, in->ptrs[j], in->lens[j]), BB_OK);
            in->hashes[j] = bb_hash(ref, in->ptrs[j], in->lens[j]);
        }
        f = make(kinds[i], N_VAR, 0.05, 5);
        cr_assert_eq(bb_add_batch(f, in->ptrs, in->lens, N_VAR), BB_OK);
        assert_same_filter(ref, f, in, out, "bb_add_batch");
        bb_free(f);
        f = make(kinds[i], N_VAR, 0.05, 5);
        cr_assert_eq(bb_add_arrow32(f, in->data, in->off32, N_VAR), BB_OK);
        assert_same_filter(ref, f, in, out, "bb_add_arrow32");
        bb_free(f);
        f = make(kinds[i], N_VAR, 0.05, 5);
        cr_assert_eq(bb_add_arrow64(f, in->data, in->off64, N_VAR), BB_OK);
        assert_same_filter(ref, f, in, out, "bb_add_arrow64");
        bb_free(f);
        f = make(kinds[i], N_VAR, 0.05, 5);
        cr_assert_eq(bb_add_hashes(f, in->hashes, N_VAR), BB_OK);
        assert_same_filter(ref, f, in, out, "bb_add_hashes");
        bb_free(f);
        f = make(kinds[i], N_VAR, 0.05, 5);
        for (size_t j = 0; j < N_VAR; j++) cr_assert_eq(bb_add_hash(f, in->hashes[j]), BB_OK);
        assert_same_filter(ref, f, in, out, "bb_add_hash loop");
        bb_free(f);

        /* Every contains shape answers as bb_contains on the reference. */
        static uint8_t ans[N_VAR];
        size_t hits = 0, want_hits = 0;
        for (size_t j = 0; j < N_VAR; j++)
            want_hits += bb_contains(ref, out->ptrs[j], out->lens[j]);
        cr_assert_eq(bb_contains_batch(ref, out->ptrs, out->lens, N_VAR, ans, &hits), BB_OK);
        cr_assert_eq(hits, want_hits, "batch hits %zu vs %zu", hits, want_hits);
        for (size_t j = 0; j < N_VAR; j++)
            cr_assert_eq(ans[j], bb_contains(ref, out->ptrs[j], out->lens[j]), "batch %zu", j);
        cr_assert_eq(bb_contains_arrow32(ref, out->data, out->off32, N_VAR, ans, &hits), BB_OK);
        cr_assert_eq(hits, want_hits, "arrow32 hits %zu vs %zu", hits, want_hits);
        cr_assert_eq(bb_contains_arrow64(ref, out->data, out->off64, N_VAR, ans, &hits), BB_OK);
        cr_assert_eq(hits, want_hits, "arrow64 hits %zu vs %zu", hits, want_hits);
        bb_free(ref);
    }
    varkeys_free(in);
    varkeys_free(out);
}

Test(api, fixed_width_with_stride_agrees_with_loop) {
    enum { N = 2000, WIDTH = 12, STRIDE = 20 };
    uint8_t *rows = malloc(N * STRIDE), *ans = malloc(N);
    cr_assert(rows && ans);
    uint64_t st = 77;
    for (size_t i = 0; i < N * STRIDE; i++) rows[i] = (uint8_t)tu_splitmix64(&st);
    for (int i = 0; i < N_KINDS; i++) {
        bb_filter *ref = make(kinds[i], N, 0.01, 8), *f = make(kinds[i], N, 0.01, 8);
        for (size_t j = 0; j < N / 2; j++)
            cr_assert_eq(bb_add(ref, rows + j * STRIDE, WIDTH), BB_OK);
        cr_assert_eq(bb_add_fixed(f, rows, WIDTH, STRIDE, N / 2), BB_OK);
        cr_assert_eq(info_of(f).bits_set, info_of(ref).bits_set);
        size_t hits = 0, want = 0;
        cr_assert_eq(bb_contains_fixed(f, rows, WIDTH, STRIDE, N, ans, &hits), BB_OK);
        for (size_t j = 0; j < N; j++) {
            bool r = bb_contains(ref, rows + j * STRIDE, WIDTH);
            cr_assert_eq(ans[j], r, "row %zu", j);
            want += r;
        }
        cr_assert_eq(hits, want);
        cr_assert_geq(hits, N / 2);
        /* stride 0 means stride = width */
        cr_assert_eq(bb_contains_fixed(f, rows, STRIDE, 0, N, ans, &hits), BB_OK);
        cr_assert_eq(bb_contains_fixed(f, rows, STRIDE, STRIDE - 1, N, ans, &hits), BB_E_INVAL,
                     "stride < width accepted");
        bb_free(ref);
        bb_free(f);
    }
    free(rows);
    free(ans);
}

/* Bad offsets are rejected before anything is added or written, wherever in the batch they
 * are. */
Test(api, bad_batches_change_nothing) {
    static const char data[] = "abcdefghijklmnopqrstuvwxyz";
    const int32_t decreasing32[] = {0, 2, 4, 3, 8};
    const int32_t negative32[] = {-1, 2, 4, 6, 8};
    const int64_t decreasing64[] = {0, 2, 4, 6, 5};
    const int64_t negative64[] = {-8, 2, 4, 6, 8};
    const void *keys[4] = {"a", "b", NULL, "d"};
    const size_t lens[4] = {1, 1, 1, 1};
    for (int i = 0; i < N_KINDS; i++) {
        bb_filter *f = make(kinds[i], 100, 0.01, 0);
        uint8_t out[4] = {9, 9, 9, 9};
        size_t hits = 42;
        cr_assert_eq(bb_add_arrow32(f, data, decreasing32, 4), BB_E_INVAL);
        cr_assert_eq(bb_add_arrow32(f, data, negative32, 4), BB_E_INVAL);
        cr_assert_eq(bb_add_arrow64(f, data, decreasing64, 4), BB_E_INVAL);
        cr_assert_eq(bb_add_arrow64(f, data, negative64, 4), BB_E_INVAL);
        cr_assert_eq(bb_add_batch(f, keys, lens, 4), BB_E_INVAL, "NULL key with length 1");
        bb_info in = info_of(f);
        cr_assert_eq(in.keys_added, 0, "rejected batches added %llu keys",
                     (unsigned long long)in.keys_added);
        cr_assert_eq(in.bits_set, 0, "rejected batches set %llu bits",
                     (unsigned long long)in.bits_set);
        cr_assert_eq(bb_contains_arrow32(f, data, decreasing32, 4, out, &hits), BB_E_INVAL);
        cr_assert_eq(bb_contains_arrow64(f, data, negative64, 4, out, &hits), BB_E_INVAL);
        cr_assert_eq(bb_contains_batch(f, keys, lens, 4, out, &hits), BB_E_INVAL);
        cr_assert(out[0] == 9 && out[3] == 9 && hits == 42, "a rejected query wrote results");
        /* The valid prefix of the same offsets is accepted. */
        cr_assert_eq(bb_add_arrow32(f, data, decreasing32, 2), BB_OK);
        cr_assert_eq(info_of(f).keys_added, 2);
        bb_free(f);
    }
}

/* ---- Info -------------------------------------------------------------------------------------
 * 100,000 distinct keys plus 1,000 repeats into filters sized for 100,000 at 1%. The fpr
 * estimate is checked against 10^6 absent probes: within 3.29 sigma of sampling plus 3% of
 * the estimate for the probe scheme (the blocked filter measures ~1-2% above its independent-
 * probe model, see test_fpr.c). Cardinality (Swamidass-Baldi) within 2% of the true 100,000:
 * its standard error at this fill is ~0.3% (classic) and the per-block sum stays within ~1%. */
Test(api, info_fields_and_estimates) {
    enum { N = 100000, DUP = 1000, PROBES = 1000000 };
    uint8_t *in = tu_keys(1, N), *out = tu_keys(2, PROBES), *ans = malloc(PROBES);
    cr_assert_not_null(ans);
    for (int i = 0; i < N_KINDS; i++) {
        uint64_t bits;
        unsigned k;
        cr_assert_eq(bb_size(kinds[i], N, 0.01, &bits, &k), BB_OK);
        bb_filter *f = make(kinds[i], N, 0.01, 1234);
        bb_info e = info_of(f);
        cr_assert(e.bits_set == 0 && e.fill_ratio == 0.0 && e.fpr_estimate == 0.0 &&
                  e.cardinality_estimate == 0.0 && e.keys_added == 0, "empty filter info");
        cr_assert_eq(bb_add_fixed(f, in, TU_KEY_BYTES, 0, N), BB_OK);
        cr_assert_eq(bb_add_fixed(f, in, TU_KEY_BYTES, 0, DUP), BB_OK);
        bb_info n = info_of(f);
        cr_assert_eq(n.kind, kinds[i]);
        cr_assert_eq(n.bits, bits);
        cr_assert_eq(n.bytes, (bits + 7) / 8);
        cr_assert_eq(n.k, k);
        cr_assert_eq(n.blocks, kinds[i] == BB_BLOCKED ? bits / 512 : 0);
        cr_assert_eq(n.capacity, N);
        cr_assert_eq(n.fpr_target, 0.01);
        cr_assert_eq(n.seed, 1234);
        cr_assert_eq(n.keys_added, N + DUP, "keys_added %llu counts duplicates",
                     (unsigned long long)n.keys_added);
        cr_assert_float_eq(n.bits_per_key, (double)bits / N, 1e-12);
        cr_assert(n.fill_ratio > 0.0 && n.fill_ratio <= 1.0, "fill %g", n.fill_ratio);
        cr_assert_float_eq(n.fill_ratio, (double)n.bits_set / (double)bits, 1e-12);
        /* At the design load about half the bits are set (k = (m/n) ln 2). */
        cr_assert(n.fill_ratio > 0.4 && n.fill_ratio < 0.6, "fill %g", n.fill_ratio);
        cr_assert_not(n.read_only);
        size_t fp = 0;
        cr_assert_eq(bb_contains_fixed(f, out, TU_KEY_BYTES, 0, PROBES, ans, &fp), BB_OK);
        double measured = (double)fp / PROBES;
        double tol = TU_Z999 * tu_sigma(n.fpr_estimate, PROBES) + 0.03 * n.fpr_estimate;
        cr_assert(fabs(measured - n.fpr_estimate) <= tol, "%s: fpr_estimate %.6f, measured %.6f",
                  bb_kind_name(kinds[i]), n.fpr_estimate, measured);
        cr_assert(fabs(n.cardinality_estimate - N) <= 0.02 * N, "%s: cardinality %.1f for %d keys",
                  bb_kind_name(kinds[i]), n.cardinality_estimate, N);
        cr_log_info("%s: fpr_estimate %.6f measured %.6f cardinality %.1f", bb_kind_name(kinds[i]),
                    n.fpr_estimate, measured, n.cardinality_estimate);
        bb_free(f);
    }
    free(in);
    free(out);
    free(ans);
}

/* Every bit set: cardinality is infinite and the estimate exactly 1, never NaN. */
Test(api, saturated_filter_info) {
    const bb_config cfgs[] = {{.size = sizeof(bb_config), .kind = BB_BLOCKED, .bits = 512, .k = 7},
                              {.size = sizeof(bb_config), .kind = BB_CLASSIC, .bits = 64, .k = 3}};
    uint8_t *keys = tu_keys(3, 20000);
    for (size_t i = 0; i < 2; i++) {
        bb_filter *f = NULL;
        cr_assert_eq(bb_create(&f, &cfgs[i]), BB_OK);
        cr_assert_eq(bb_add_fixed(f, keys, TU_KEY_BYTES, 0, 20000), BB_OK);
        bb_info n = info_of(f);
        cr_assert_eq(n.bits_set, n.bits, "%s: %llu of %llu bits set", bb_kind_name(n.kind),
                     (unsigned long long)n.bits_set, (unsigned long long)n.bits);
        cr_assert_eq(n.fill_ratio, 1.0);
        cr_assert(isinf(n.cardinality_estimate) && n.cardinality_estimate > 0,
                  "%s: cardinality %g", bb_kind_name(n.kind), n.cardinality_estimate);
        cr_assert(!isnan(n.fpr_estimate) && n.fpr_estimate == 1.0, "%s: fpr_estimate %g",
                  bb_kind_name(n.kind), n.fpr_estimate);
        cr_assert(bb_contains(f, "anything", 8));
        bb_free(f);
    }
    free(keys);
}

/* ---- Clone and clear --------------------------------------------------------------------- */
Test(api, clone_and_clear) {
    enum { N = 5000 };
    uint8_t *in = tu_keys(4, N), *out = tu_keys(5, N);
    for (int i = 0; i < N_KINDS; i++) {
        bb_filter *f = make(kinds[i], N, 0.02, 99), *c = NULL;
        cr_assert_eq(bb_add_fixed(f, in, TU_KEY_BYTES, 0, N), BB_OK);
        cr_assert_eq(bb_clone(&c, f), BB_OK);
        bb_info fi = info_of(f), ci = info_of(c);
        cr_assert(fi.bits == ci.bits && fi.k == ci.k && fi.seed == ci.seed &&
                  fi.keys_added == ci.keys_added && fi.bits_set == ci.bits_set &&
                  fi.capacity == ci.capacity && fi.fpr_target == ci.fpr_target, "clone info");
        size_t fp = 0;
        for (size_t j = 0; j < N; j++) {
            const uint8_t *p = out + j * TU_KEY_BYTES;
            bool r = bb_contains(f, p, TU_KEY_BYTES);
            cr_assert_eq(bb_contains(c, p, TU_KEY_BYTES), r, "clone answers probe %zu", j);
            cr_assert(bb_contains(c, in + j * TU_KEY_BYTES, TU_KEY_BYTES));
            fp += r;
        }
        cr_assert_lt(fp, N / 10, "too many false positives (%zu) for a meaningful comparison", fp);
        /* Independent copies: clearing the original leaves the clone whole. */
        cr_assert_eq(bb_clear(f), BB_OK);
        bb_info z = info_of(f);
        cr_assert(z.bits_set == 0 && z.keys_added == 0, "cleared: %llu bits, %llu keys",
                  (unsigned long long)z.bits_set, (unsigned long long)z.keys_added);
        cr_assert_eq(z.bits, fi.bits);
        for (size_t j = 0; j < N; j++) {
            cr_assert_not(bb_contains(f, in + j * TU_KEY_BYTES, TU_KEY_BYTES),
                          "cleared filter still has key %zu", j);
            cr_assert(bb_contains(c, in + j * TU_KEY_BYTES, TU_KEY_BYTES), "clone lost key %zu", j);
        }
        cr_assert_eq(info_of(c).bits_set, fi.bits_set);
        bb_free(f);
        bb_free(c);
    }
    free(in);
    free(out);
}

/* ---- Instruction sets -------------------------------------------------------------------- */
Test(api, isa_selection) {
    const char *name = bb_isa_name();
    bool known = false;
    for (size_t i = 0; i < bb_isa_count(); i++)
        known |= strcmp(name, bb_isa_to_string(bb_isa_at(i))) == 0;
    cr_assert(known, "bb_isa_name() = '%s'", name);
    unsigned unavailable = 0;
    for (size_t i = 0; i < bb_isa_count(); i++) {
        bb_isa isa = bb_isa_at(i), back;
        cr_assert_eq(bb_isa_from_string(bb_isa_to_string(isa), &back), BB_OK);
        cr_assert_eq(back, isa);
        if (bb_isa_available(isa)) {
            cr_assert_eq(bb_set_isa(isa), BB_OK);
            cr_assert_str_eq(bb_isa_name(), bb_isa_to_string(isa));
        } else {
            unavailable++;
            cr_assert_eq(bb_set_isa(isa), BB_E_UNSUPPORTED, "unavailable %s",
                         bb_isa_to_string(isa));
        }
    }
    if (!unavailable)
        tu_skip("every kernel is available on this machine: the BB_E_UNSUPPORTED path of "
                "bb_set_isa is not exercised here");
    cr_assert(bb_isa_available(BB_ISA_AUTO) && bb_isa_available(BB_ISA_SCALAR));
    cr_assert_eq(bb_set_isa(BB_ISA_AUTO), BB_OK);
    cr_assert_eq(bb_set_isa((bb_isa)99), BB_E_INVAL);
    cr_assert_eq(bb_isa_from_string("sse9", &(bb_isa){0}), BB_E_INVAL);
}

/* The walk of the ISA table: every pinned ISA once, scalar first, BB_ISA_AUTO past the end;
 * native means available and not emulated (NEON off AArch64). */
Test(api, isa_walk) {
    static const bb_isa pinned[] = {BB_ISA_SCALAR, BB_ISA_AVX2, BB_ISA_AVX512, BB_ISA_NEON,
                                    BB_ISA_AVX512GFNI};
    size_t n = bb_isa_count();
    cr_assert_geq(n, sizeof pinned / sizeof *pinned);
    cr_assert_eq(bb_isa_at(0), BB_ISA_SCALAR);
    cr_assert_eq(bb_isa_at(n), BB_ISA_AUTO);
    cr_assert_eq(bb_isa_at(SIZE_MAX), BB_ISA_AUTO);
    for (size_t p = 0; p < sizeof pinned / sizeof *pinned; p++) {
        size_t seen = 0;
        for (size_t i = 0; i < n; i++) seen += bb_isa_at(i) == pinned[p];
        cr_assert_eq(seen, 1, "%s appears %zu times in the walk", bb_isa_to_string(pinned[p]),
                     seen);
    }
    for (size_t i = 0; i < n; i++) {
        bb_isa isa = bb_isa_at(i);
        cr_assert_neq(isa, BB_ISA_AUTO);
        cr_assert_str_neq(bb_isa_to_string(isa), "unknown");
        cr_assert(!bb_isa_native(isa) || bb_isa_available(isa), "%s", bb_isa_to_string(isa));
    }
    cr_assert(bb_isa_native(BB_ISA_SCALAR));
    cr_assert(!bb_isa_native(BB_ISA_AUTO) && !bb_isa_native((bb_isa)99));
#if defined(__aarch64__)
    cr_assert(bb_isa_native(BB_ISA_NEON));
#else
    cr_assert(bb_isa_available(BB_ISA_NEON) && !bb_isa_native(BB_ISA_NEON), "emulated NEON");
#endif
}

/* Which kernel serves each kind: the facts of the ISA table, written out here (not read from
 * it), for every ISA this CPU has, and what bb_isa_selected reports after bb_set_isa. */
static bb_isa kernel_of(bb_isa isa, bb_kind kind, bb_op op) {
    bb_isa out = (bb_isa)99;
    bb_status st = bb_isa_kernel(isa, kind, op, &out);
    cr_assert_eq(st, BB_OK, "bb_isa_kernel(%s, %s, %d): %s", bb_isa_to_string(isa),
                 bb_kind_name(kind), (int)op, bb_strerror(st));
    return out;
}

Test(api, isa_kernel_per_kind) {
    for (size_t i = 0; i < bb_isa_count(); i++) {
        bb_isa isa = bb_isa_at(i);
        if (!tu_use_isa(isa)) {
            cr_assert_eq(bb_isa_kernel(isa, BB_BLOCKED, BB_OP_CONTAINS, &(bb_isa){0}),
                         BB_E_UNSUPPORTED);
            continue;
        }
        cr_assert_eq(bb_isa_selected(), isa);
        for (int op = BB_OP_CONTAINS; op <= BB_OP_ADD_CONCURRENT; op++)
            for (bb_kind kind = BB_BLOCKED; kind <= BB_SECTORIZED; kind++) {
                bb_isa k;
                if (bb_isa_kernel(isa, kind, op, &k) == BB_OK)
                    cr_assert(bb_isa_available(k), "%s runs on unavailable %s",
                              bb_isa_to_string(isa), bb_isa_to_string(k));
            }
        cr_assert_eq(kernel_of(isa, BB_BLOCKED, BB_OP_CONTAINS), isa);
        cr_assert_eq(kernel_of(isa, BB_BLOCKED, BB_OP_ADD), isa);
        if (isa > BB_ISA_AVX512GFNI) continue; /* an ISA newer than this test: no facts here */
        bool avx512 = isa == BB_ISA_AVX512 || isa == BB_ISA_AVX512GFNI;
        cr_assert_eq(kernel_of(isa, BB_SCALABLE, BB_OP_CONTAINS), isa);
        cr_assert_eq(kernel_of(isa, BB_SCALABLE, BB_OP_ADD), BB_ISA_SCALAR); /* key by key */
        for (int op = BB_OP_CONTAINS; op <= BB_OP_ADD; op++) {
            cr_assert_eq(kernel_of(isa, BB_SPLIT, op), avx512 ? BB_ISA_AVX2 : isa);
            cr_assert_eq(kernel_of(isa, BB_SECTORIZED, op),
                         isa == BB_ISA_AVX512GFNI ? BB_ISA_AVX512 : isa);
            cr_assert_eq(kernel_of(isa, BB_CLASSIC, op), BB_ISA_SCALAR);
            cr_assert_eq(kernel_of(isa, BB_COUNTING, op), BB_ISA_SCALAR);
        }
        cr_assert_eq(kernel_of(isa, BB_BLOCKED, BB_OP_ADD_CONCURRENT),
                     isa == BB_ISA_NEON ? BB_ISA_SCALAR : isa);
        cr_assert_eq(kernel_of(isa, BB_SPLIT, BB_OP_ADD_CONCURRENT), BB_ISA_SCALAR);
        cr_assert_eq(kernel_of(isa, BB_SECTORIZED, BB_OP_ADD_CONCURRENT), BB_ISA_SCALAR);
        cr_assert_eq(kernel_of(isa, BB_CLASSIC, BB_OP_ADD_CONCURRENT), BB_ISA_SCALAR);
        cr_assert_eq(bb_isa_kernel(isa, BB_SCALABLE, BB_OP_ADD_CONCURRENT, &(bb_isa){0}),
                     BB_E_UNSUPPORTED);
        cr_assert_eq(bb_isa_kernel(isa, BB_COUNTING, BB_OP_ADD_CONCURRENT, &(bb_isa){0}),
                     BB_E_UNSUPPORTED);
        cr_assert_str_eq(bb_isa_name_for(BB_OP_ADD_CONCURRENT),
                         bb_isa_to_string(kernel_of(isa, BB_BLOCKED, BB_OP_ADD_CONCURRENT)));
    }
    cr_assert_eq(bb_set_isa(BB_ISA_AUTO), BB_OK);
    cr_assert_eq(bb_isa_selected(), BB_ISA_AUTO);
    /* The automatic choice: blocked operations as bb_isa_name_for reports them. */
    cr_assert_str_eq(bb_isa_to_string(kernel_of(BB_ISA_AUTO, BB_BLOCKED, BB_OP_CONTAINS)),
                     bb_isa_name_for(BB_OP_CONTAINS));
    cr_assert_str_eq(bb_isa_to_string(kernel_of(BB_ISA_AUTO, BB_BLOCKED, BB_OP_ADD)),
                     bb_isa_name_for(BB_OP_ADD));
    bb_isa out;
    cr_assert_eq(bb_isa_kernel(BB_ISA_SCALAR, BB_BLOCKED, BB_OP_ADD, NULL), BB_E_INVAL);
    cr_assert_eq(bb_isa_kernel((bb_isa)99, BB_BLOCKED, BB_OP_ADD, &out), BB_E_INVAL);
    cr_assert_eq(bb_isa_kernel(BB_ISA_SCALAR, (bb_kind)99, BB_OP_ADD, &out), BB_E_INVAL);
    cr_assert_eq(bb_isa_kernel(BB_ISA_SCALAR, BB_BLOCKED, (bb_op)7, &out), BB_E_INVAL);
}

/* BB_ISA is read once, at the first use of a kernel. A forked child that has not used one
 * yet sets BB_ISA, then reports bb_isa_name() through a pipe. If the parent had already
 * chosen a kernel the child would report that one, and the comparison would fail rather than
 * pass silently (unless the requested kernel is also the automatic choice). */
static void child_isa(const char *env, char *name, size_t cap) {
    int fd[2];
    cr_assert_eq(pipe(fd), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0, "fork failed");
    if (pid == 0) {
        close(fd[0]);
        if (env) setenv("BB_ISA", env, 1); else unsetenv("BB_ISA");
        const char *n = bb_isa_name();
        ssize_t w = write(fd[1], n, strlen(n));
        _exit(w == (ssize_t)strlen(n) ? 0 : 1);
    }
    close(fd[1]);
    ssize_t r = read(fd[0], name, cap - 1);
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child for BB_ISA=%s failed", env);
    name[r > 0 ? r : 0] = '\0';
}

Test(api, bb_isa_environment_override) {
    char automatic[32], got[32];
    child_isa(NULL, automatic, sizeof automatic);
    for (size_t i = 0; i < bb_isa_count(); i++) {
        const char *want = bb_isa_to_string(bb_isa_at(i));
        child_isa(want, got, sizeof got);
        if (bb_isa_available(bb_isa_at(i)))
            cr_assert_str_eq(got, want, "BB_ISA=%s gave %s", want, got);
        else /* an unavailable kernel leaves the automatic choice */
            cr_assert_str_eq(got, automatic, "BB_ISA=%s (unavailable) gave %s", want, got);
    }
    child_isa("no-such-isa", got, sizeof got);
    cr_assert_str_eq(got, automatic, "unknown BB_ISA gave %s, not the automatic %s", got,
                     automatic);
}

/* ---- Names and version ------------------------------------------------------------------- */
Test(api, names_and_version) {
    char v[32];
    snprintf(v, sizeof v, "%d.%d.%d", BB_VERSION_MAJOR, BB_VERSION_MINOR, BB_VERSION_PATCH);
    cr_assert_str_eq(v, BB_VERSION_STRING);
    cr_assert_str_eq(bb_version_string(), BB_VERSION_STRING);
    cr_assert_eq(BB_VERSION_NUMBER, BB_VERSION_MAJOR * 10000 + BB_VERSION_MINOR * 100 + BB_VERSION_PATCH);
    cr_assert_eq(BB_VERSION_NUMBER, 200, "0.2.0 is 200");
    cr_assert_str_eq(bb_kind_name(BB_BLOCKED), "blocked");
    cr_assert_str_eq(bb_kind_name(BB_CLASSIC), "classic");
    cr_assert_str_eq(bb_kind_name((bb_kind)77), "unknown");
}

/* bb_add is bb_add_hash of bb_hash (header, conventions): same bits, same answers. */
Test(api, add_equals_add_hash_of_hash) {
    uint8_t *keys = tu_keys(6, 1000);
    for (int i = 0; i < N_KINDS; i++) {
        bb_filter *a = make(kinds[i], 1000, 0.01, 77), *b = make(kinds[i], 1000, 0.01, 77);
        for (size_t j = 0; j < 1000; j++) {
            const uint8_t *k = keys + j * TU_KEY_BYTES;
            cr_assert_eq(bb_add(a, k, TU_KEY_BYTES), BB_OK);
            cr_assert_eq(bb_add_hash(b, bb_hash(b, k, TU_KEY_BYTES)), BB_OK);
            cr_assert(bb_contains_hash(a, bb_hash(a, k, TU_KEY_BYTES)));
        }
        cr_assert_eq(info_of(a).bits_set, info_of(b).bits_set);
        /* A different seed hashes differently. */
        bb_filter *c = make(kinds[i], 1000, 0.01, 78);
        cr_assert_neq(bb_hash(a, keys, TU_KEY_BYTES), bb_hash(c, keys, TU_KEY_BYTES));
        bb_free(a);
        bb_free(b);
        bb_free(c);
    }
    free(keys);
}

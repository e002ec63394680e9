/* SPDX-License-Identifier: MIT */
/*
 * test_hashbatch.c - the batch calls hash string keys exactly as XXH3-64 does. src/hash.c
 * hashes a batch's keys grouped by XXH3's length class, out of their order, one loop per class
 * (and src/batch.c prefetches their lines in between), so these tests feed every variable-length
 * shape keys of every class mixed in one batch, longer than one group, and check: the filter
 * bytes equal those derived (testutil.h's reference probe scheme) from xxHash's published
 * vectors; every batch add and contains agrees with the single-key calls at every length
 * from 0 to 300 and at a few longer ones, on a filter small enough for the plain path and on one
 * large enough for the pipelined one.
 */
#include "testutil.h"

/* ---- xxHash's published vectors through the batch calls --------------------------------------
 * Inputs and values as in test_kernels.c (xxHash's cli/xsum_sanity_check.c): the first len
 * bytes of a buffer filled by gen = PRIME32; byte = gen >> 56; gen *= PRIME64. The lengths hit
 * the classes 0, 1-3, 4-8, 9-16, 17-32, 33-64, 65-96, 129-240 and > 240. */
#define PRIME64 UINT64_C(11400714785074694797)
#define N_VEC 13
static const size_t vec_len[N_VEC] = {0, 1, 6, 12, 24, 48, 80, 195, 403, 512, 2048, 2240, 2367};
static const uint64_t vec_hash[2][N_VEC] = {
    {UINT64_C(0x2D06800538D394C2), UINT64_C(0xC44BDFF4074EECDB), UINT64_C(0x27B56A84CD2D7325),
     UINT64_C(0xA713DAF0DFBB77E7), UINT64_C(0xA3FE70BF9D3510EB), UINT64_C(0x397DA259ECBA1F11),
     UINT64_C(0xBCDEFBBB2C47C90A), UINT64_C(0xCD94217EE362EC3A), UINT64_C(0xCDEB804D65C6DEA4),
     UINT64_C(0x617E49599013CB6B), UINT64_C(0xDD59E2C3A5F038E0), UINT64_C(0x6E73A90539CF2948),
     UINT64_C(0xCB37AEB9E5D361ED)},
    {UINT64_C(0xA8A6B918B2F0364A), UINT64_C(0x032BE332DD766EF8), UINT64_C(0x84589C116AB59AB9),
     UINT64_C(0xE7303E1B2336DE0E), UINT64_C(0x850E80FC35BDD690), UINT64_C(0xADC2CBAA44ACC616),
     UINT64_C(0xC6DD0CB699532E73), UINT64_C(0xBA68003D370CB3D9), UINT64_C(0x6259F6ECFD6443FD),
     UINT64_C(0x3CE457DE14C27708), UINT64_C(0x66F81670669ABABC), UINT64_C(0x757BA8487D1B5247),
     UINT64_C(0xD2DB3415B942B42A)},
};

#define N_GOLDEN (N_VEC * 40) /* each vector 40 times, shuffled: two groups of 256 and more */
#define G_BITS (64u * 512u)
#define G_K 7u

typedef struct batch {
    const void **ptrs;
    size_t *lens;
    int32_t *off32;
    int64_t *off64;
    uint8_t *data;
    size_t n;
} batch;

/* The same n keys as pointers + lengths and as an Arrow column (data + offsets). An empty
 * key gets a NULL pointer, as the API allows. */
static batch batch_of(const uint8_t *const *keys, const size_t *lens, size_t n) {
    batch b = {.ptrs = malloc(n * sizeof *b.ptrs), .lens = malloc(n * sizeof *b.lens),
               .off32 = malloc((n + 1) * sizeof *b.off32), .off64 = malloc((n + 1) * sizeof *b.off64),
               .n = n};
    size_t total = 0;
    for (size_t i = 0; i < n; i++) total += lens[i];
    b.data = malloc(total + 1);
    cr_assert(b.ptrs && b.lens && b.off32 && b.off64 && b.data);
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(b.data + at, keys[i], lens[i]);
        b.ptrs[i] = lens[i] ? keys[i] : NULL;
        b.lens[i] = lens[i];
        b.off32[i] = (int32_t)at;
        b.off64[i] = (int64_t)at;
        at += lens[i];
    }
    b.off32[n] = (int32_t)at;
    b.off64[n] = (int64_t)at;
    return b;
}

static void batch_free(batch *b) {
    free(b->ptrs), free(b->lens), free(b->off32), free(b->off64), free(b->data);
}

static void shuffle(size_t *v, size_t n, uint64_t seed) {
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(tu_splitmix64(&seed) % i), t = v[i - 1];
        v[i - 1] = v[j], v[j] = t;
    }
}

static void assert_payload(const bb_filter *f, const uint8_t *want, const char *what) {
    const void *data;
    size_t len;
    cr_assert_eq(bb_payload(f, &data, &len), BB_OK);
    cr_assert_eq(len, G_BITS / 8);
    cr_assert(memcmp(data, want, len) == 0, "%s: filter bytes differ from the published hashes'",
              what);
}

static bb_filter *golden_filter(uint64_t seed) {
    bb_filter *f = NULL;
    cr_assert_eq(bb_create(&f, TU_CFG(.bits = G_BITS, .k = G_K, .seed = seed)), BB_OK);
    return f;
}

Test(hashbatch, published_vectors_through_every_shape) {
    static uint8_t buf[2367];
    uint64_t gen = 2654435761u;
    for (size_t i = 0; i < sizeof buf; i++) {
        buf[i] = (uint8_t)(gen >> 56);
        gen *= PRIME64;
    }
    size_t which[N_GOLDEN], lens[N_GOLDEN];
    const uint8_t *keys[N_GOLDEN];
    for (size_t i = 0; i < N_GOLDEN; i++) which[i] = i % N_VEC;
    shuffle(which, N_GOLDEN, 3);
    for (size_t i = 0; i < N_GOLDEN; i++) keys[i] = buf, lens[i] = vec_len[which[i]];
    batch b = batch_of(keys, lens, N_GOLDEN);
    for (int s = 0; s < 2; s++) {
        uint64_t seed = s ? PRIME64 : 0;
        /* The expected bytes: the published hashes of the even vectors, set by the spec. */
        uint8_t want[G_BITS / 8] = {0}, all[G_BITS / 8] = {0};
        for (size_t v = 0; v < N_VEC; v++) {
            if (v % 2 == 0) tu_ref_add(want, BB_BLOCKED, G_BITS, G_K, vec_hash[s][v]);
            tu_ref_add(all, BB_BLOCKED, G_BITS, G_K, vec_hash[s][v]);
        }
        bb_filter *f[3] = {golden_filter(seed), golden_filter(seed), golden_filter(seed)};
        cr_assert_eq(bb_add_batch(f[0], b.ptrs, b.lens, b.n), BB_OK);
        cr_assert_eq(bb_add_arrow32(f[1], b.data, b.off32, b.n), BB_OK);
        cr_assert_eq(bb_add_arrow64(f[2], b.data, b.off64, b.n), BB_OK);
        assert_payload(f[0], all, "bb_add_batch");
        assert_payload(f[1], all, "bb_add_arrow32");
        assert_payload(f[2], all, "bb_add_arrow64");
        bb_filter *g = golden_filter(seed);
        for (size_t v = 0; v < N_VEC; v += 2) cr_assert_eq(bb_add_hash(g, vec_hash[s][v]), BB_OK);
        assert_payload(g, want, "bb_add_hash of the even vectors");
        /* Lookups: each answer is the spec's answer for that key's published hash. */
        static uint8_t out[N_GOLDEN];
        size_t hits = 0, want_hits = 0;
        for (size_t i = 0; i < N_GOLDEN; i++)
            want_hits += tu_ref_contains(want, BB_BLOCKED, G_BITS, G_K, vec_hash[s][which[i]]);
        cr_assert_geq(want_hits, (N_VEC + 1) / 2 * 40); /* the even vectors at least */
        for (int shape = 0; shape < 3; shape++) {
            bb_status st =
                shape == 0   ? bb_contains_batch(g, b.ptrs, b.lens, b.n, out, &hits)
                : shape == 1 ? bb_contains_arrow32(g, b.data, b.off32, b.n, out, &hits)
                             : bb_contains_arrow64(g, b.data, b.off64, b.n, out, &hits);
            cr_assert_eq(st, BB_OK);
            cr_assert_eq(hits, want_hits, "shape %d, seed %d: %zu hits, spec %zu", shape, s, hits,
                         want_hits);
            for (size_t i = 0; i < N_GOLDEN; i++)
                cr_assert_eq(out[i],
                             tu_ref_contains(want, BB_BLOCKED, G_BITS, G_K, vec_hash[s][which[i]]),
                             "shape %d, seed %d, key %zu (%zu bytes)", shape, s, i, lens[i]);
        }
        for (int i = 0; i < 3; i++) bb_free(f[i]);
        bb_free(g);
    }
    batch_free(&b);
}

/* ---- Every length, mixed, against the single-key calls --------------------------------------
 * Lengths 0 .. 300 and 1000, 12 keys of each, of random bytes at offsets 0-7, in random
 * order. */
#define N_MIX (302u * 12u) /* adds 1812 keys, probes 3624: several of batch.c's chunks */

static void mixed_lengths(bb_kind kind, uint64_t capacity, uint64_t seed) {
    uint8_t *arena = malloc(N_MIX * 1001 + 8);
    static const uint8_t *keys[N_MIX];
    static size_t lens[N_MIX], order[N_MIX];
    cr_assert_not_null(arena);
    uint64_t st = seed;
    for (size_t i = 0; i < N_MIX * 1001 + 8; i++) arena[i] = (uint8_t)tu_splitmix64(&st);
    for (size_t i = 0; i < N_MIX; i++) order[i] = i;
    shuffle(order, N_MIX, seed);
    for (size_t i = 0; i < N_MIX; i++) {
        size_t l = order[i] / 12 == 301 ? 1000 : order[i] / 12;
        keys[i] = arena + i * 1001 + (i & 7), lens[i] = l;
    }
    /* The first half is added; the probes are all keys, so half present, half not. */
    batch in = batch_of(keys, lens, N_MIX / 2), probe = batch_of(keys, lens, N_MIX);
    bb_filter *ref = NULL, *f[4] = {NULL};
    cr_assert_eq(bb_create_for(&ref, kind, capacity, 0.01, seed), BB_OK);
    for (size_t i = 0; i < in.n; i++) cr_assert_eq(bb_add(ref, in.ptrs[i], in.lens[i]), BB_OK);
    for (int i = 0; i < 4; i++) cr_assert_eq(bb_create_for(&f[i], kind, capacity, 0.01, seed), BB_OK);
    cr_assert_eq(bb_add_batch(f[0], in.ptrs, in.lens, in.n), BB_OK);
    cr_assert_eq(bb_add_arrow32(f[1], in.data, in.off32, in.n), BB_OK);
    cr_assert_eq(bb_add_arrow64(f[2], in.data, in.off64, in.n), BB_OK);
    cr_assert_eq(bb_add_batch_concurrent(f[3], in.ptrs, in.lens, in.n, NULL), BB_OK);
    tu_assert_same_bytes(ref, f[0], "bb_add_batch");
    tu_assert_same_bytes(ref, f[1], "bb_add_arrow32");
    tu_assert_same_bytes(ref, f[2], "bb_add_arrow64");
    tu_assert_same_bytes(ref, f[3], "bb_add_batch_concurrent");
    uint8_t *out = malloc(N_MIX);
    cr_assert_not_null(out);
    for (int shape = 0; shape < 3; shape++) {
        size_t hits = 0, want_hits = 0;
        bb_status s = shape == 0 ? bb_contains_batch(ref, probe.ptrs, probe.lens, N_MIX, out, &hits)
                      : shape == 1
                          ? bb_contains_arrow32(ref, probe.data, probe.off32, N_MIX, out, &hits)
                          : bb_contains_arrow64(ref, probe.data, probe.off64, N_MIX, out, &hits);
        cr_assert_eq(s, BB_OK);
        for (size_t i = 0; i < N_MIX; i++) {
            bool want = bb_contains(ref, probe.ptrs[i], probe.lens[i]);
            cr_assert_eq(out[i], want, "shape %d, probe %zu (%zu bytes)", shape, i, lens[i]);
            if (i < in.n) cr_assert(want, "added key %zu (%zu bytes) not found", i, lens[i]);
            want_hits += want;
        }
        cr_assert_eq(hits, want_hits);
    }
    free(out);
    for (int i = 0; i < 4; i++) bb_free(f[i]);
    bb_free(ref);
    batch_free(&in);
    batch_free(&probe);
    free(arena);
}

/* 1,000 keys: a 1.2 KiB filter (hashing then lookups); 4,000,000: 4.6 MiB, past the 2 MiB at
 * which batch.c prefetches each chunk's lines while it hashes the next (prefetch.h);
 * 20,000,000: 23 MiB, past the 16 MiB above which the dispatch rows of Intel model CFh (adds
 * and lookups) and of Zen 3 (adds) have the hashing prefetch each line itself, in chunks of
 * 256 keys (batch.c). */
Test(hashbatch, every_length_small_filter) { mixed_lengths(BB_BLOCKED, 1000, 21); }
Test(hashbatch, every_length_pipelined_filter) { mixed_lengths(BB_BLOCKED, 4000000, 22); }
Test(hashbatch, every_length_large_filter) { mixed_lengths(BB_BLOCKED, 20000000, 23); }
Test(hashbatch, every_length_large_sectorized_filter) {
    mixed_lengths(BB_SECTORIZED, 20000000, 24);
}

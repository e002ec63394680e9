/* SPDX-License-Identifier: MIT */
/*
 * test_split.c - the split-block kind (BB_SPLIT), Apache Parquet's SBBF: XXH64 against its
 * published test vectors, filter bytes against bit positions worked out from the spec
 * (parquet-format BloomFilter.md) in the table below under every kernel, Parquet bitsets in
 * and out (bb_split_from_bitset, bb_payload), info from hand-made bitsets, the k and size
 * rules, BB_POW2_BYTES, sizing over a sweep of (n, p) and the model against an independent
 * evaluation, union and concurrent adds. Expected values are literals or computed here by
 * other means, never taken from the library. The kernel equivalence over random keys is in
 * test_kernels.c, the file format in test_format.c, FPR measurements in test_fpr.c.
 */
#include "testutil.h"

#include "split_vectors.h"

static bb_filter *split_filter(uint64_t bits, uint64_t seed) {
    bb_filter *f = NULL;
    cr_assert_eq(bb_create(&f, TU_CFG(.kind = BB_SPLIT, .bits = bits, .k = 8, .seed = seed)),
                 BB_OK);
    return f;
}

Test(split, xxh64_published_vectors) {
    for (size_t i = 0; i < N_XXH64_VECTORS; i++) {
        bb_filter *f = split_filter(256, xxh64_vectors[i].seed);
        const char *key = xxh64_vectors[i].key;
        uint64_t got = bb_hash(f, key, strlen(key));
        cr_assert_eq(got, xxh64_vectors[i].h, "XXH64(\"%s\", %llu) = 0x%016llx, published 0x%016llx",
                     key, (unsigned long long)xxh64_vectors[i].seed, (unsigned long long)got,
                     (unsigned long long)xxh64_vectors[i].h);
        bb_free(f);
    }
    /* The other kinds keep XXH3: XXH3("", 0) = 0x2D06800538D394C2. */
    bb_filter *b = NULL;
    cr_assert_eq(bb_create(&b, TU_CFG(.bits = 512, .k = 1)), BB_OK);
    cr_assert_eq(bb_hash(b, "", 0), UINT64_C(0x2D06800538D394C2));
    bb_free(b);
}

/* ---- Filter bytes from the spec (split_vectors.h) ------------------------------------------ */
static void assert_payload_is(const bb_filter *f, const uint8_t *want, size_t len,
                              const char *what) {
    const void *data = NULL;
    size_t got = 0;
    cr_assert_eq(bb_payload(f, &data, &got), BB_OK);
    cr_assert_eq(got, len, "%s: payload %zu bytes, expected %zu", what, got, len);
    for (size_t i = 0; i < len; i++)
        cr_assert_eq(((const uint8_t *)data)[i], want[i], "%s: byte %zu is 0x%02x, spec 0x%02x",
                     what, i, ((const uint8_t *)data)[i], want[i]);
}

Test(split, spec_bits_every_kernel) {
    uint8_t want[5 * 32];
    spec_payload(want);
    unsigned ran = 0;
    for (size_t isa = 0; isa < bb_isa_count(); isa++) {
        if (!tu_use_isa(bb_isa_at(isa))) continue;
        for (int mode = 0; mode < 3; mode++) { /* single adds, a key batch, a hash batch */
            bb_filter *f = split_filter(5 * 256, 0);
            const void *keys[N_SPEC];
            size_t lens[N_SPEC];
            uint64_t h[N_SPEC];
            for (size_t i = 0; i < N_SPEC; i++) {
                keys[i] = spec_bits[i].key;
                lens[i] = strlen(spec_bits[i].key);
                h[i] = bb_hash(f, keys[i], lens[i]);
                if (mode == 0) cr_assert_eq(bb_add(f, keys[i], lens[i]), BB_OK);
            }
            if (mode == 1) cr_assert_eq(bb_add_batch(f, keys, lens, N_SPEC), BB_OK);
            if (mode == 2) cr_assert_eq(bb_add_hashes(f, h, N_SPEC), BB_OK);
            char what[64];
            snprintf(what, sizeof what, "%s kernel, mode %d", bb_isa_to_string(bb_isa_at(isa)),
                     mode);
            assert_payload_is(f, want, sizeof want, what);
            uint8_t out[N_SPEC];
            size_t hits = 0;
            cr_assert_eq(bb_contains_batch(f, keys, lens, N_SPEC, out, &hits), BB_OK);
            cr_assert_eq(hits, N_SPEC, "%s: %zu of %zu keys found", what, hits, N_SPEC);
            bb_info info = BB_INFO_INIT;
            cr_assert_eq(bb_get_info(f, &info), BB_OK);
            cr_assert_eq(info.keys_added, N_SPEC);
            bb_free(f);
        }
        ran++;
    }
    cr_assert(ran >= 2, "only %u kernels ran", ran);
}

/* An absent key is present only if all 8 of its bits are set: with one bit of a present
 * key's block cleared, that key must read absent under every kernel. */
Test(split, one_missing_bit_means_absent) {
    uint8_t want[5 * 32];
    spec_payload(want);
    unsigned j = spec_bits[2].bit[5]; /* "abc", word 5; no other key uses block 1 word 5 bit 14 */
    want[32 * 1 + 4 * 5 + j / 8] &= (uint8_t)~(1u << (j % 8));
    bb_filter *f = NULL;
    cr_assert_eq(bb_split_from_bitset(&f, want, sizeof want), BB_OK);
    for (size_t isa = 0; isa < bb_isa_count(); isa++) {
        if (!tu_use_isa(bb_isa_at(isa))) continue;
        cr_assert(!bb_contains(f, "abc", 3), "%s: abc present with a bit missing",
                  bb_isa_to_string(bb_isa_at(isa)));
        cr_assert(bb_contains(f, "asdf", 4), "%s: asdf (same block) lost",
                  bb_isa_to_string(bb_isa_at(isa)));
        uint64_t h = bb_hash(f, "abc", 3);
        uint8_t out = 9;
        cr_assert_eq(bb_contains_hashes(f, &h, 1, &out, NULL), BB_OK);
        cr_assert_eq(out, 0);
    }
    bb_free(f);
}

/* ---- Parquet bitsets in and out ------------------------------------------------------------- */
Test(split, from_bitset_and_payload) {
    uint8_t bits[96];
    for (size_t i = 0; i < sizeof bits; i++) bits[i] = (uint8_t)(i * 37 + 1);
    bb_filter *f = NULL;
    cr_assert_eq(bb_split_from_bitset(&f, bits, sizeof bits), BB_OK);
    bb_info in = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(f, &in), BB_OK);
    cr_assert_eq(in.kind, BB_SPLIT);
    cr_assert_eq(in.bits, 768);
    cr_assert_eq(in.blocks, 3);
    cr_assert_eq(in.bytes, 96);
    cr_assert_eq(in.k, 8);
    cr_assert_eq(in.seed, 0);
    cr_assert_eq(in.capacity, 0);
    cr_assert_eq(in.fpr_target, 0.0);
    cr_assert_eq(in.keys_added, 0);
    const void *data = NULL;
    size_t len = 0;
    cr_assert_eq(bb_payload(f, &data, &len), BB_OK);
    cr_assert_eq(len, sizeof bits);
    cr_assert(data != (const void *)bits, "the bitset must be copied");
    cr_assert(memcmp(data, bits, sizeof bits) == 0);
    bits[0] ^= 1; /* the filter owns its copy */
    cr_assert(((const uint8_t *)data)[0] != bits[0]);
    bb_free(f);

    cr_assert_eq(bb_split_from_bitset(NULL, bits, 32), BB_E_INVAL);
    f = (bb_filter *)bits;
    cr_assert_eq(bb_split_from_bitset(&f, NULL, 32), BB_E_INVAL);
    cr_assert_null(f, "*out must be NULL on error");
    cr_assert_eq(bb_split_from_bitset(&f, bits, 0), BB_E_INVAL);
    cr_assert_eq(bb_split_from_bitset(&f, bits, 31), BB_E_INVAL);
    cr_assert_eq(bb_split_from_bitset(&f, bits, 33), BB_E_INVAL);
    cr_assert_eq(bb_split_from_bitset(&f, bits, 48), BB_E_INVAL);
    if (sizeof(size_t) >= 8) /* checked before anything is read or allocated */
        cr_assert_eq(bb_split_from_bitset(&f, bits, (size_t)((UINT64_C(1) << 37) + 32)),
                     BB_E_TOO_LARGE);
}

Test(split, payload_of_other_kinds) {
    bb_filter *b = NULL, *s = NULL;
    cr_assert_eq(bb_create_for(&b, BB_BLOCKED, 1000, 0.01, 3), BB_OK);
    cr_assert_eq(bb_add(b, "x", 1), BB_OK);
    const void *data = NULL;
    size_t len = 0;
    cr_assert_eq(bb_payload(b, &data, &len), BB_OK);
    size_t ser_len;
    uint8_t *ser = tu_serialize(b, &ser_len);
    bb_info in = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(b, &in), BB_OK);
    cr_assert_eq(len, in.bytes);
    cr_assert(memcmp(data, ser + 128, len) == 0, "payload is the file's bytes after the header");
    free(ser);
    cr_assert_eq(bb_payload(NULL, &data, &len), BB_E_INVAL);
    cr_assert_eq(bb_payload(b, NULL, &len), BB_E_INVAL);
    cr_assert_eq(bb_payload(b, &data, NULL), BB_E_INVAL);
    cr_assert_eq(bb_create_for(&s, BB_SCALABLE, 1000, 0.01, 3), BB_OK);
    cr_assert_eq(bb_payload(s, &data, &len), BB_E_UNSUPPORTED);
    bb_free(b);
    bb_free(s);
}

/* ---- Info from the fill ---------------------------------------------------------------------
 * Two blocks: in block 0 every word is 0x0000FFFF (16 of 32 bits), block 1 is empty. An
 * absent key hits a set bit in each word of block 0 with probability 1/2, so FPR there is
 * 2^-8 and 0 in block 1: mean 2^-9 = 0.001953125. Each word of block 0 estimates
 * -32 ln(1/2) = 32 ln 2 = 22.18070977791825 keys (one bit per key per word), block 1 none. */
Test(split, info_from_hand_made_bitset) {
    uint8_t bits[64] = {0};
    for (unsigned w = 0; w < 8; w++) bits[4 * w] = bits[4 * w + 1] = 0xFF; /* little-endian */
    bb_filter *f = NULL;
    cr_assert_eq(bb_split_from_bitset(&f, bits, sizeof bits), BB_OK);
    bb_info in = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(f, &in), BB_OK);
    cr_assert_eq(in.bits_set, 128);
    cr_assert_float_eq(in.fill_ratio, 0.25, 1e-15);
    cr_assert_float_eq(in.fpr_estimate, 0.001953125, 1e-15);
    cr_assert_float_eq(in.cardinality_estimate, 22.18070977791825, 1e-9);
    /* A full block: FPR 1 there, cardinality infinite. */
    memset(bits, 0xFF, 32);
    bb_free(f);
    cr_assert_eq(bb_split_from_bitset(&f, bits, sizeof bits), BB_OK);
    cr_assert_eq(bb_get_info(f, &in), BB_OK);
    cr_assert_float_eq(in.fpr_estimate, 0.5, 1e-15);
    cr_assert(isinf(in.cardinality_estimate));
    bb_free(f);
}

/* ---- k, sizes and flags --------------------------------------------------------------------- */
Test(split, config_rules) {
    bb_filter *f = NULL;
    cr_assert_str_eq(bb_kind_name(BB_SPLIT), "split");
    cr_assert_eq(bb_create(&f, TU_CFG(.kind = BB_SPLIT, .bits = 512, .k = 7)), BB_E_INVAL);
    cr_assert_eq(bb_create(&f, TU_CFG(.kind = BB_SPLIT, .bits = 512, .k = 16)), BB_E_INVAL);
    cr_assert_eq(bb_create(&f, TU_CFG(.kind = BB_SPLIT, .capacity = 10, .fpr = 0.01, .k = 3)),
                 BB_E_INVAL);
    cr_assert_eq(bb_create(&f, TU_CFG(.kind = BB_SPLIT, .capacity = 10, .fpr = 0.01, .growth = 2)),
                 BB_E_INVAL);
    cr_assert_eq(
        bb_create(&f, TU_CFG(.kind = BB_SPLIT, .capacity = 10, .fpr = 0.01, .flags = BB_NO_SCALE)),
        BB_E_INVAL);
    cr_assert_eq(bb_create(&f, TU_CFG(.kind = BB_SPLIT, .bits = (UINT64_C(1) << 40) + 256, .k = 8)),
                 BB_E_TOO_LARGE);
    /* bits round up to whole 256-bit blocks; k 0 means 8 */
    cr_assert_eq(bb_create(&f, TU_CFG(.kind = BB_SPLIT, .bits = 300, .capacity = 5)), BB_OK);
    bb_info in = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(f, &in), BB_OK);
    cr_assert_eq(in.bits, 512);
    cr_assert_eq(in.blocks, 2);
    cr_assert_eq(in.k, 8);
    bb_free(f);
    unsigned k = 0;
    cr_assert_eq(bb_best_k(BB_SPLIT, 1000, 1 << 20, &k), BB_OK);
    cr_assert_eq(k, 8);
    double m;
    cr_assert_eq(bb_fpr_model(BB_SPLIT, 10, 512, 7, &m), BB_E_INVAL);
    cr_assert_eq(bb_fpr_model(BB_SPLIT, 10, 300, 8, &m), BB_E_INVAL);
    cr_assert_eq(bb_fpr_model(BB_SPLIT, 10, 512, 8, &m), BB_OK);
}

/* The model, evaluated here a different way: Poisson weights by the recurrence w_0 = e^-l,
 * w_{i+1} = w_i l / (i + 1) (the library uses lgamma per term), summed until negligible. */
static double independent_model(double n, double z) {
    double l = n / z, w = exp(-l), s = 0.0;
    for (unsigned i = 0; i < 4000; i++) {
        s += w * pow(1.0 - pow(31.0 / 32.0, i), 8);
        w *= l / (i + 1);
    }
    return s;
}

Test(split, model_matches_independent_sum) {
    static const double loads[] = {0.5, 5, 20, 32, 100};
    for (size_t i = 0; i < sizeof loads / sizeof *loads; i++) {
        double m = -1.0, want = independent_model(loads[i] * 1000, 1000);
        cr_assert_eq(bb_fpr_model(BB_SPLIT, (uint64_t)(loads[i] * 1000), 1000 * 256, 8, &m), BB_OK);
        cr_assert(fabs(m - want) <= 1e-9 * want, "load %g: model %.12g, independent %.12g",
                  loads[i], m, want);
    }
    /* Pinned: 10^6 keys at 1% take 41,130 blocks (10.53 bits/key), at 0.1% 65,976 blocks
     * (16.89 bits/key); the smallest z with model <= p, found by bisection outside this
     * library (docs/DESIGN.md "Split-block filters"). */
    static const struct { double p; uint64_t blocks; } pinned[] = {{0.01, 41130}, {0.001, 65976}};
    for (size_t i = 0; i < 2; i++) {
        uint64_t bits = 0;
        unsigned k = 0;
        cr_assert_eq(bb_size(BB_SPLIT, 1000000, pinned[i].p, &bits, &k), BB_OK);
        cr_assert_eq(bits, pinned[i].blocks * 256, "p=%g: %llu bits, expected %llu", pinned[i].p,
                     (unsigned long long)bits, (unsigned long long)(pinned[i].blocks * 256));
        cr_assert_eq(k, 8);
    }
}

/* Every (n, p) of the sweep: whole blocks, model <= p, and one block fewer would not do. */
static void sweep_check(uint64_t n, double p, uint64_t bits, unsigned k) {
    (void)k;
    double at = independent_model((double)n, (double)(bits / 256));
    cr_assert(at <= p * (1 + 1e-9), "n=%llu p=%g: %llu bits give %g",
              (unsigned long long)n, p, (unsigned long long)bits, at);
    if (bits > 256) {
        double less = independent_model((double)n, (double)(bits / 256 - 1));
        cr_assert(less > p * (1 - 1e-9), "n=%llu p=%g: one block fewer gives %g",
                  (unsigned long long)n, p, less);
    }
}

Test(split, sizing_sweep_meets_p_minimally) {
    tu_sizing_sweep(BB_SPLIT, 256, sweep_check);
}

/* ---- BB_POW2_BYTES ------------------------------------------------------------------------ */
static uint64_t payload_of(const bb_config *c) {
    bb_filter *f = NULL;
    cr_assert_eq(bb_create(&f, c), BB_OK);
    const void *d;
    size_t len = 0;
    cr_assert_eq(bb_payload(f, &d, &len), BB_OK);
    bb_free(f);
    return len;
}

Test(split, pow2_bytes) {
    static const uint64_t ns[] = {1, 100, 5000, 100000, 1000000};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
        bb_config plain = {
            .size = sizeof(bb_config), .kind = BB_SPLIT, .capacity = ns[i], .fpr = 0.01};
        bb_config pow2 = plain;
        pow2.flags = BB_POW2_BYTES;
        uint64_t a = payload_of(&plain), b = payload_of(&pow2);
        cr_assert((b & (b - 1)) == 0 && b >= 32, "n=%llu: %llu bytes is not a power of two >= 32",
                  (unsigned long long)ns[i], (unsigned long long)b);
        cr_assert(b >= a && (b == 32 || b / 2 < a), "n=%llu: %llu bytes for a %llu-byte need",
                  (unsigned long long)ns[i], (unsigned long long)b, (unsigned long long)a);
    }
    /* explicit size: 1000 bytes -> 1024; blocked: at least one 64-byte block */
    cr_assert_eq(payload_of(TU_CFG(.kind = BB_SPLIT, .bits = 8000, .k = 8, .flags = BB_POW2_BYTES)),
                 1024);
    cr_assert_eq(payload_of(TU_CFG(.kind = BB_SPLIT, .bits = 8, .k = 8, .flags = BB_POW2_BYTES)),
                 32);
    cr_assert_eq(
        payload_of(TU_CFG(.kind = BB_BLOCKED, .capacity = 1, .fpr = 0.5, .flags = BB_POW2_BYTES)),
        64);
    cr_assert_eq(payload_of(TU_CFG(.kind = BB_BLOCKED, .capacity = 100000, .fpr = 0.01,
                                   .flags = BB_POW2_BYTES)),
                 131072);
    /* the writers' cap: 128 MiB, even when p would need more (the FPR then misses p) */
    cr_assert_eq(payload_of(TU_CFG(.kind = BB_SPLIT, .capacity = UINT64_C(300000000), .fpr = 0.001,
                                   .flags = BB_POW2_BYTES)),
                 BB_POW2_MAX_BYTES);
    bb_filter *f = NULL;
    static const bb_kind others[] = {BB_CLASSIC, BB_COUNTING, BB_SCALABLE};
    for (size_t i = 0; i < 3; i++)
        cr_assert_eq(bb_create(&f, TU_CFG(.kind = others[i], .capacity = 100, .fpr = 0.01,
                                          .flags = BB_POW2_BYTES)),
                     BB_E_INVAL, "%s accepted BB_POW2_BYTES", bb_kind_name(others[i]));
}

/* ---- Union and concurrent adds ---------------------------------------------------------------- */
#define N_HALF 3000u

Test(split, union_of_halves_is_the_whole) {
    uint8_t *keys = tu_keys(11, 2 * N_HALF);
    bb_filter *a = split_filter(40 * 256, 5), *b = split_filter(40 * 256, 5),
              *whole = split_filter(40 * 256, 5), *other = split_filter(40 * 256, 6);
    cr_assert_eq(bb_add_fixed(a, keys, TU_KEY_BYTES, 0, N_HALF), BB_OK);
    cr_assert_eq(bb_add_fixed(b, keys + N_HALF * TU_KEY_BYTES, TU_KEY_BYTES, 0, N_HALF), BB_OK);
    cr_assert_eq(bb_add_fixed(whole, keys, TU_KEY_BYTES, 0, 2 * N_HALF), BB_OK);
    cr_assert_eq(bb_union(a, b), BB_OK);
    tu_assert_same_bytes(a, whole, "split union");
    bb_mismatch m;
    cr_assert_eq(bb_union_check(a, other, &m), BB_E_MISMATCH);
    cr_assert_eq(m, BB_MISMATCH_SEED);
    free(keys);
    bb_free(a);
    bb_free(b);
    bb_free(whole);
    bb_free(other);
}

Test(split, concurrent_adds_match_plain_adds) {
    uint8_t *keys = tu_keys(12, N_HALF);
    uint64_t *h = malloc(N_HALF * sizeof *h);
    cr_assert_not_null(h);
    bb_filter *plain = split_filter(20 * 256, 9), *conc = split_filter(20 * 256, 9);
    for (size_t i = 0; i < N_HALF; i++) h[i] = bb_hash(plain, keys + i * TU_KEY_BYTES, TU_KEY_BYTES);
    cr_assert_eq(bb_add_hashes(plain, h, N_HALF), BB_OK);
    size_t fresh = 0;
    cr_assert_eq(bb_add_hashes_concurrent(conc, h, N_HALF, &fresh), BB_OK);
    cr_assert(fresh > 0 && fresh <= N_HALF);
    tu_assert_same_bytes(plain, conc, "concurrent split");
    for (size_t i = 0; i < N_HALF; i += 7)
        cr_assert(bb_contains_hash_concurrent(conc, h[i]));
    bool was_new = true;
    cr_assert_eq(bb_add_hash_concurrent(conc, h[0], &was_new), BB_OK);
    cr_assert(!was_new, "a key added twice is not new");
    free(keys);
    free(h);
    bb_free(plain);
    bb_free(conc);
}

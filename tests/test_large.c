/* SPDX-License-Identifier: MIT */
/*
 * test_large.c - filters past 2^32 bits, where any 32-bit index arithmetic would wrap. Each
 * kind gets a filter of 2^32 + 2^28 bits (544 MiB; built one at a time and freed), so that
 * 1/17 of the bit array lies beyond bit 2^32. Checked: a bit set beyond 2^32 is found there
 * and not at its 32-bit alias (crafted hashes, placed with the documented mapping); 2,000,000
 * keys have no false negatives, the keys the documented mapping sends beyond bit 2^32 are as
 * many as expected and all found; and 10^6 absent probes give the (essentially zero) false
 * positives the model predicts. Runs in a few seconds and < 700 MiB.
 */
#include "testutil.h"

#define BIG_BITS ((UINT64_C(1) << 32) + (UINT64_C(1) << 28))
#define N_KEYS 2000000u
#define N_PROBES 1000000u
#define TWO32 (UINT64_C(1) << 32)

static bb_filter *make_big(bb_kind kind, unsigned k) {
    bb_filter *f = NULL;
    bb_config c = {
        .size = sizeof c, .kind = kind, .bits = BIG_BITS, .k = k, .capacity = N_KEYS, .seed = 2024};
    bb_status s = bb_create(&f, &c);
    cr_assert_eq(s, BB_OK, "%s of %llu bits: %s", bb_kind_name(kind),
                 (unsigned long long)BIG_BITS, bb_strerror(s));
    bb_info in = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(f, &in), BB_OK);
    cr_assert_eq(in.bits, BIG_BITS, "bits %llu", (unsigned long long)in.bits);
    cr_assert_eq(in.bytes, BIG_BITS / 8);
    if (kind == BB_BLOCKED) cr_assert_eq(in.blocks, BIG_BITS / 512);
    return f;
}

/* Smallest 64-bit hash whose multiply-shift image floor(h * range / 2^64) is `target`. */
static uint64_t hash_for(uint64_t target, uint64_t range) {
    unsigned __int128 num = ((unsigned __int128)target << 64) + range - 1;
    uint64_t h = (uint64_t)(num / range);
    cr_assert_eq(tu_mulhi(h, range), target, "crafted hash misses %llu",
                 (unsigned long long)target);
    return h;
}

/* ---- Crafted hashes: bits beyond 2^32 live there, not at their 32-bit alias ------------------
 * Blocked: a hash in block b >= 2^23 (bits >= 2^32) with some low half lo; a 32-bit bit
 * offset would wrap it to block b - 2^23, so the hash with the same lo in that block must be
 * absent from a filter holding only the first. Each block spans 2^64 / blocks > 2^40 hash
 * values, so the low 32 bits can be chosen freely inside it. */
Test(large, blocked_bits_beyond_2_32_are_not_aliased) {
    bb_filter *f = make_big(BB_BLOCKED, 8);
    const uint64_t blocks = BIG_BITS / 512;
    const uint64_t targets[] = {blocks - 1, (UINT64_C(1) << 23), (UINT64_C(1) << 23) + 12345};
    for (size_t i = 0; i < sizeof targets / sizeof *targets; i++) {
        uint64_t b = targets[i], lo = 0x9E3779B9u * (i + 1);
        uint64_t hi_h = (hash_for(b, blocks) | 0xFFFFFFFFu) + 1 + lo; /* next 2^32 boundary + lo */
        uint64_t alias_h = (hash_for(b - (UINT64_C(1) << 23), blocks) | 0xFFFFFFFFu) + 1 + lo;
        cr_assert_eq(tu_mulhi(hi_h, blocks), b);
        cr_assert_eq(tu_mulhi(alias_h, blocks), b - (UINT64_C(1) << 23));
        cr_assert_eq((uint32_t)hi_h, (uint32_t)lo);
        cr_assert_eq(bb_add_hash(f, hi_h), BB_OK);
        cr_assert(bb_contains_hash(f, hi_h), "block %llu: added hash not found",
                  (unsigned long long)b);
        uint8_t out = 2;
        cr_assert_eq(bb_contains_hashes(f, &hi_h, 1, &out, NULL), BB_OK);
        cr_assert_eq(out, 1, "block %llu: batch query misses the added hash",
                     (unsigned long long)b);
        cr_assert_not(bb_contains_hash(f, alias_h), "block %llu: its 32-bit alias block %llu "
                      "answers present", (unsigned long long)b,
                      (unsigned long long)(b - (UINT64_C(1) << 23)));
    }
    bb_free(f);
}

/* Classic, k = 1: the one probe is floor(h * m / 2^64). A bit at 2^32 + d must be found
 * there, and neither at d (its 32-bit alias) nor at its neighbours. */
Test(large, classic_bits_beyond_2_32_are_not_aliased) {
    bb_filter *f = make_big(BB_CLASSIC, 1);
    const uint64_t ds[] = {0, 7, 12345, (UINT64_C(1) << 28) - 2}; /* last: next to the end */
    for (size_t i = 0; i < sizeof ds / sizeof *ds; i++) {
        uint64_t pos = TWO32 + ds[i];
        uint64_t h = hash_for(pos, BIG_BITS);
        cr_assert_eq(bb_add_hash(f, h), BB_OK);
        cr_assert(bb_contains_hash(f, h), "bit %llu: not found", (unsigned long long)pos);
        cr_assert_not(bb_contains_hash(f, hash_for(ds[i], BIG_BITS)),
                      "bit %llu: its 32-bit alias %llu answers present", (unsigned long long)pos,
                      (unsigned long long)ds[i]);
        cr_assert_not(bb_contains_hash(f, hash_for(pos + 1, BIG_BITS)), "bit %llu + 1 set",
                      (unsigned long long)pos);
        cr_assert_not(bb_contains_hash(f, hash_for(pos - 1, BIG_BITS)), "bit %llu - 1 set",
                      (unsigned long long)pos);
    }
    bb_info in = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(f, &in), BB_OK);
    cr_assert_eq(in.bits_set, sizeof ds / sizeof *ds, "%llu bits set",
                 (unsigned long long)in.bits_set);
    bb_free(f);
}

/* ---- 2,000,000 keys ----------------------------------------------------------------------------
 * Where the documented mapping (testutil.h) puts each key's bits, counted against bit 2^32:
 *  - blocked: a key is beyond when its block is >= 2^23; each key independently with
 *    probability 2^28 / (2^32 + 2^28) = 1/17, so the count is Binomial(N, 1/17);
 *  - classic: each probe position is uniform over the m bits and, the probes of one key being
 *    (up to a small fixed offset) an arithmetic progression with a pseudo-random step,
 *    pairwise independent; the count of
 *    positions beyond is then close to Binomial(kN, 1/17). The count of keys with any
 *    position beyond is not Binomial(N, 1 - (16/17)^k) (the progression makes three-way
 *    hits far likelier than for independent probes: measured 0.361 N against 0.346 N for
 *    k = 7), so for keys only the union bounds 1/17 <= P <= k/17 are asserted.
 * Every key beyond must be found.
 * The FPR model at 2M keys in 2^32 bits is ~1e-18 (classic, k = 7: (1 - e^{-7 x 2e6 / 4.56e9})^7)
 * and smaller still for blocked, so 10^6 probes expect ~1e-12 false positives: a single one
 * would already be a 1-in-10^12 event under the model, and more than one a failure. */
static void assert_binomial(const char *what, size_t count, double trials, double p) {
    double want = p * trials, sd = sqrt(trials * p * (1 - p));
    cr_assert(fabs((double)count - want) <= TU_Z999 * sd, "%s: %zu, expected %.0f +- %.0f", what,
              count, want, TU_Z999 * sd);
}

static void check_many_keys(bb_kind kind, unsigned k) {
    bb_filter *f = make_big(kind, k);
    uint8_t *keys = tu_keys(1, N_KEYS), *ans = malloc(N_KEYS);
    uint64_t *far = malloc(N_KEYS * sizeof *far);
    cr_assert(ans && far);
    cr_assert_eq(bb_add_fixed(f, keys, TU_KEY_BYTES, 0, N_KEYS), BB_OK);
    size_t hits = 0, n_far = 0, pos_far = 0;
    cr_assert_eq(bb_contains_fixed(f, keys, TU_KEY_BYTES, 0, N_KEYS, ans, &hits), BB_OK);
    cr_assert_eq(hits, N_KEYS, "%s: %zu of %u keys found", bb_kind_name(kind), hits, N_KEYS);
    for (size_t i = 0; i < N_KEYS; i++) {
        uint64_t h = bb_hash(f, keys + i * TU_KEY_BYTES, TU_KEY_BYTES), pos[BB_MAX_K];
        unsigned n = tu_positions(kind, BIG_BITS, k, h, pos), beyond = 0;
        for (unsigned j = 0; j < n; j++) beyond += pos[j] >= TWO32;
        pos_far += beyond;
        if (beyond) far[n_far++] = h;
    }
    if (kind == BB_BLOCKED) {
        assert_binomial("blocked: keys in blocks beyond bit 2^32", n_far, N_KEYS, 1.0 / 17);
    } else {
        assert_binomial("classic: probe positions beyond bit 2^32", pos_far, (double)k * N_KEYS,
                        1.0 / 17);
        cr_assert(n_far >= N_KEYS / 17 && n_far <= (size_t)k * N_KEYS / 17,
                  "classic: %zu keys reach beyond bit 2^32, outside the union bounds", n_far);
    }
    cr_assert_eq(bb_contains_hashes(f, far, n_far, ans, &hits), BB_OK);
    cr_assert_eq(hits, n_far, "%s: %zu of the %zu keys beyond bit 2^32 found", bb_kind_name(kind),
                 hits, n_far);
    free(keys);
    free(far);

    uint8_t *probes = tu_keys(2, N_PROBES);
    size_t fp = 0;
    double model = -1;
    bb_info info = BB_INFO_INIT;
    cr_assert_eq(bb_fpr_model(kind, N_KEYS, BIG_BITS, k, &model), BB_OK);
    cr_assert(model < 1e-12, "%s: model FPR %g at 2M keys", bb_kind_name(kind), model);
    cr_assert_eq(bb_contains_fixed(f, probes, TU_KEY_BYTES, 0, N_PROBES, ans, &fp), BB_OK);
    cr_assert_leq(fp, 1, "%s: %zu false positives in %u probes; the model (%g) expects %g",
                  bb_kind_name(kind), fp, N_PROBES, model, model * N_PROBES);
    cr_assert_eq(bb_get_info(f, &info), BB_OK);
    cr_assert_eq(info.keys_added, N_KEYS);
    cr_assert(info.bits_set > 0 && info.bits_set <= (uint64_t)N_KEYS * info.k);
    free(probes);
    free(ans);
    bb_free(f);
}

Test(large, blocked_two_million_keys) { check_many_keys(BB_BLOCKED, 8); }
Test(large, classic_two_million_keys) { check_many_keys(BB_CLASSIC, 7); }

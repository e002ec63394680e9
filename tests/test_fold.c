/* SPDX-License-Identifier: MIT */
/*
 * test_fold.c - bb_fold and bb_fold_to_fpr on the blocked and split kinds: a folded filter
 * is byte for byte (header and payload, through bb_serialize) the filter built directly with
 * half the blocks from the same keys, once or several times over; folding refuses odd block
 * counts, other kinds and mapped filters and leaves them unchanged; fold_to_fpr stops at the
 * last size whose model FPR meets the target, and its keys are all still there.
 */
#include "testutil.h"

#define N_KEYS 4000u

static bb_filter *built(bb_kind kind, uint64_t blocks, const uint8_t *keys, size_t n) {
    uint64_t block_bits = kind == BB_SPLIT ? 256 : 512;
    bb_filter *f = NULL;
    cr_assert_eq(bb_create(&f, TU_CFG(.kind = kind, .bits = blocks * block_bits,
                                      .k = kind == BB_SPLIT ? 8 : 6, .seed = 21)),
                 BB_OK);
    cr_assert_eq(bb_add_fixed(f, keys, TU_KEY_BYTES, 0, n), BB_OK);
    return f;
}

/* 2^d z blocks folded d times equal z blocks built directly, for z odd and even. */
static void check_fold_identity(bb_kind kind) {
    static const uint64_t zs[] = {1, 3, 10, 125};
    uint8_t *keys = tu_keys(31, N_KEYS);
    for (size_t i = 0; i < sizeof zs / sizeof *zs; i++)
        for (unsigned d = 1; d <= 3; d++) {
            bb_filter *big = built(kind, zs[i] << d, keys, N_KEYS);
            bb_filter *direct = built(kind, zs[i], keys, N_KEYS);
            for (unsigned j = 0; j < d; j++) cr_assert_eq(bb_fold(big), BB_OK);
            char what[64];
            snprintf(what, sizeof what, "%s: %llu blocks folded %u times", bb_kind_name(kind),
                     (unsigned long long)(zs[i] << d), d);
            tu_assert_same_bytes(big, direct, what);
            bb_free(big);
            bb_free(direct);
        }
    free(keys);
}

Test(fold, blocked_equals_direct_build) { check_fold_identity(BB_BLOCKED); }
Test(fold, split_equals_direct_build) { check_fold_identity(BB_SPLIT); }

Test(fold, refusals_leave_the_filter_unchanged) {
    uint8_t *keys = tu_keys(32, 100);
    bb_filter *odd = built(BB_SPLIT, 3, keys, 100), *copy = NULL;
    cr_assert_eq(bb_clone(&copy, odd), BB_OK);
    cr_assert_eq(bb_fold(odd), BB_E_INVAL);
    cr_assert_eq(bb_fold_to_fpr(odd, 0.5), BB_OK); /* odd: folds zero times */
    tu_assert_same_bytes(odd, copy, "refused fold");
    cr_assert_eq(bb_fold(NULL), BB_E_INVAL);
    cr_assert_eq(bb_fold_to_fpr(NULL, 0.1), BB_E_INVAL);
    bb_filter *even = built(BB_BLOCKED, 4, keys, 100);
    cr_assert_eq(bb_fold_to_fpr(even, 0.0), BB_E_INVAL);
    cr_assert_eq(bb_fold_to_fpr(even, 1.0), BB_E_INVAL);
    cr_assert_eq(bb_fold_to_fpr(even, NAN), BB_E_INVAL);
    static const bb_kind others[] = {BB_CLASSIC, BB_COUNTING, BB_SCALABLE};
    for (size_t i = 0; i < 3; i++) {
        bb_filter *f = NULL;
        cr_assert_eq(bb_create_for(&f, others[i], 1000, 0.01, 1), BB_OK);
        cr_assert_eq(bb_fold(f), BB_E_UNSUPPORTED, "%s folded", bb_kind_name(others[i]));
        cr_assert_eq(bb_fold_to_fpr(f, 0.5), BB_E_UNSUPPORTED);
        bb_free(f);
    }
    char path[32];
    tu_save_temp(even, path);
    bb_filter *m = NULL;
    cr_assert_eq(bb_open_mmap(&m, path), BB_OK);
    cr_assert_eq(bb_fold(m), BB_E_READONLY);
    cr_assert_eq(bb_fold_to_fpr(m, 0.5), BB_E_READONLY);
    unlink(path);
    bb_free(m);
    bb_free(even);
    bb_free(odd);
    bb_free(copy);
    free(keys);
}

/* A filter sized for 64x the keys it gets (a distinct-count over-estimate), folded to p:
 * the result meets p by the model at its key count, one more fold would not (or the block
 * count is odd), it equals the direct build at that size, and holds every key. */
static void check_fold_to_fpr(bb_kind kind, double p) {
    uint8_t *keys = tu_keys(33, N_KEYS);
    bb_filter *f = NULL;
    cr_assert_eq(bb_create(&f, TU_CFG(.kind = kind, .capacity = 64 * N_KEYS, .fpr = p, .seed = 21,
                                      .flags = BB_POW2_BYTES)),
                 BB_OK);
    cr_assert_eq(bb_add_fixed(f, keys, TU_KEY_BYTES, 0, N_KEYS), BB_OK);
    bb_info before = BB_INFO_INIT, after = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(f, &before), BB_OK);
    cr_assert_eq(bb_fold_to_fpr(f, p), BB_OK);
    cr_assert_eq(bb_get_info(f, &after), BB_OK);
    cr_assert(after.blocks < before.blocks / 8, "%s p=%g: only %llu -> %llu blocks",
              bb_kind_name(kind), p, (unsigned long long)before.blocks,
              (unsigned long long)after.blocks);
    cr_assert_eq(after.fpr_target, p);
    cr_assert_eq(after.keys_added, N_KEYS);
    double m = 1.0, next = 0.0;
    cr_assert_eq(bb_fpr_model(kind, N_KEYS, after.bits, after.k, &m), BB_OK);
    cr_assert(m <= p, "%s p=%g: model %g after folding", bb_kind_name(kind), p, m);
    if (after.blocks % 2 == 0) {
        cr_assert_eq(bb_fpr_model(kind, N_KEYS, after.bits / 2, after.k, &next), BB_OK);
        cr_assert(next > p, "%s p=%g: could fold once more (model %g)", bb_kind_name(kind), p,
                  next);
    }
    bb_filter *direct = NULL;
    cr_assert_eq(
        bb_create(&direct, TU_CFG(.kind = kind, .bits = after.bits, .k = after.k, .seed = 21)),
        BB_OK);
    cr_assert_eq(bb_add_fixed(direct, keys, TU_KEY_BYTES, 0, N_KEYS), BB_OK);
    const void *a, *b;
    size_t la, lb;
    cr_assert_eq(bb_payload(f, &a, &la), BB_OK);
    cr_assert_eq(bb_payload(direct, &b, &lb), BB_OK);
    cr_assert(la == lb && memcmp(a, b, la) == 0, "%s p=%g: folded payload differs from direct",
              bb_kind_name(kind), p);
    uint8_t *out = malloc(N_KEYS);
    size_t hits = 0;
    cr_assert_not_null(out);
    cr_assert_eq(bb_contains_fixed(f, keys, TU_KEY_BYTES, 0, N_KEYS, out, &hits), BB_OK);
    cr_assert_eq(hits, N_KEYS, "folding lost keys");
    free(out);
    free(keys);
    bb_free(f);
    bb_free(direct);
}

Test(fold, to_fpr_blocked) {
    check_fold_to_fpr(BB_BLOCKED, 0.01);
    check_fold_to_fpr(BB_BLOCKED, 0.001);
}
Test(fold, to_fpr_split) {
    check_fold_to_fpr(BB_SPLIT, 0.01);
    check_fold_to_fpr(BB_SPLIT, 0.001);
}

/* A Parquet bitset has no key count (keys_added 0): fold_to_fpr goes by the fill's estimate,
 * so the folded filter still meets p for the keys that are in it (up to the estimate's error
 * of a few percent, hence 1.05 p), keeps them all, and is not folded to one block. */
Test(fold, to_fpr_of_a_bitset_uses_the_fill) {
    uint8_t *keys = tu_keys(34, N_KEYS);
    bb_filter *built_f = NULL, *f = NULL;
    cr_assert_eq(bb_create(&built_f, TU_CFG(.kind = BB_SPLIT, .capacity = 64 * N_KEYS, .fpr = 0.01,
                                            .flags = BB_POW2_BYTES)),
                 BB_OK);
    cr_assert_eq(bb_add_fixed(built_f, keys, TU_KEY_BYTES, 0, N_KEYS), BB_OK);
    const void *bits;
    size_t len;
    cr_assert_eq(bb_payload(built_f, &bits, &len), BB_OK);
    cr_assert_eq(bb_split_from_bitset(&f, bits, len), BB_OK);
    cr_assert_eq(bb_fold_to_fpr(f, 0.01), BB_OK);
    bb_info in = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(f, &in), BB_OK);
    double m = 1.0;
    cr_assert_eq(bb_fpr_model(BB_SPLIT, N_KEYS, in.bits, 8, &m), BB_OK);
    cr_assert(in.blocks > 1 && m <= 0.0105, "folded to %llu blocks: model %g at %u keys",
              (unsigned long long)in.blocks, m, N_KEYS);
    uint8_t *out = malloc(N_KEYS);
    size_t hits = 0;
    cr_assert_not_null(out);
    cr_assert_eq(bb_contains_fixed(f, keys, TU_KEY_BYTES, 0, N_KEYS, out, &hits), BB_OK);
    cr_assert_eq(hits, N_KEYS);
    free(out);
    free(keys);
    bb_free(f);
    bb_free(built_f);
}

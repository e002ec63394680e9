/* SPDX-License-Identifier: MIT */
/*
 * test_union.c - bb_union and bb_union_check. The reference for "the union" is the filter built
 * directly from the whole key set: the union of the filters of two halves must equal it byte
 * for byte (serialized, header included, since keys_added is the sum), for the blocked, classic
 * and counting kinds. Also: each mismatch (kind, bits, k, seed, scalable layout) is named and
 * leaves dst unchanged, counting counters add with saturation, scalable filters merge
 * sub-filter by sub-filter, and keys_added is the (upper-bound) sum.
 */
#include "testutil.h"

#include <unistd.h>

static bb_filter *make(bb_kind kind, uint64_t capacity, double fpr, uint64_t seed) {
    bb_filter *f = NULL;
    cr_assert_eq(bb_create_for(&f, kind, capacity, fpr, seed), BB_OK);
    return f;
}

static void add_range(bb_filter *f, uint64_t tag, uint64_t from, uint64_t to) {
    for (uint64_t i = from; i < to; i++) {
        uint8_t key[TU_KEY_BYTES];
        tu_key(key, tag, i);
        cr_assert_eq(bb_add(f, key, sizeof key), BB_OK);
    }
}

Test(union, halves_equal_the_whole) {
    const bb_kind kinds[] = {BB_BLOCKED, BB_CLASSIC, BB_COUNTING};
    enum { N = 6000 };
    for (int t = 0; t < 3; t++) {
        bb_filter *a = make(kinds[t], N, 0.01, 3), *b = make(kinds[t], N, 0.01, 3),
                  *whole = make(kinds[t], N, 0.01, 3);
        add_range(a, 40, 0, N / 2);
        add_range(b, 40, N / 2, N);
        add_range(whole, 40, 0, N);
        bb_mismatch what = BB_MISMATCH_LAYOUT;
        cr_assert_eq(bb_union_check(a, b, &what), BB_OK);
        cr_assert_eq(what, BB_MATCH);
        cr_assert_eq(bb_union(a, b), BB_OK, "%s", bb_kind_name(kinds[t]));
        tu_assert_same_bytes(a, whole, bb_kind_name(kinds[t]));
        bb_free(a);
        bb_free(b);
        bb_free(whole);
    }
}

/* Each difference is named, in the documented order, and dst keeps every byte. */
Test(union, mismatch_is_named_and_leaves_dst_unchanged) {
    bb_filter *dst = make(BB_BLOCKED, 5000, 0.01, 1);
    add_range(dst, 41, 0, 2000);
    size_t len0;
    uint8_t *before = tu_serialize(dst, &len0);
    bb_config k_cfg = {
        .size = sizeof(bb_config), .kind = BB_BLOCKED, .bits = 0, .capacity = 5000, .seed = 1};
    bb_info di = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(dst, &di), BB_OK);
    k_cfg.bits = di.bits;
    k_cfg.k = di.k + 1;
    bb_filter *other_k = NULL;
    cr_assert_eq(bb_create(&other_k, &k_cfg), BB_OK);
    struct { bb_filter *src; bb_mismatch what; } cases[] = {
        {make(BB_CLASSIC, 5000, 0.01, 1), BB_MISMATCH_KIND},
        {make(BB_COUNTING, 5000, 0.01, 1), BB_MISMATCH_KIND},
        {make(BB_BLOCKED, 9000, 0.01, 1), BB_MISMATCH_BITS},
        {other_k, BB_MISMATCH_K},
        {make(BB_BLOCKED, 5000, 0.01, 2), BB_MISMATCH_SEED},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        add_range(cases[i].src, 42, 0, 100);
        bb_mismatch what = BB_MATCH;
        cr_assert_eq(bb_union_check(dst, cases[i].src, &what), BB_E_MISMATCH, "case %zu", i);
        cr_assert_eq(what, cases[i].what, "case %zu: %s, expected %s", i, bb_mismatch_name(what),
                     bb_mismatch_name(cases[i].what));
        cr_assert_eq(bb_union(dst, cases[i].src), BB_E_MISMATCH, "case %zu", i);
        size_t len;
        uint8_t *after = tu_serialize(dst, &len);
        cr_assert_eq(len, len0);
        cr_assert(memcmp(before, after, len) == 0, "case %zu changed dst", i);
        free(after);
        bb_free(cases[i].src);
    }
    cr_assert_str_eq(bb_mismatch_name(BB_MISMATCH_SEED), "seed");
    cr_assert_str_eq(bb_mismatch_name(BB_MISMATCH_LAYOUT), "layout");
    cr_assert_eq(bb_union(NULL, dst), BB_E_INVAL);
    cr_assert_eq(bb_union(dst, NULL), BB_E_INVAL);
    cr_assert_eq(bb_union_check(dst, NULL, NULL), BB_E_INVAL);
    free(before);
    bb_free(dst);
}

/* Counters add and saturate at 15: a key added 10 times on each side is saturated in the
 * union, so 19 removes leave it present. */
Test(union, counting_adds_counters_with_saturation) {
    bb_filter *a = make(BB_COUNTING, 1000, 0.01, 4), *b = make(BB_COUNTING, 1000, 0.01, 4);
    uint8_t key[TU_KEY_BYTES];
    tu_key(key, 43, 0);
    for (int i = 0; i < 10; i++) {
        cr_assert_eq(bb_add(a, key, sizeof key), BB_OK);
        cr_assert_eq(bb_add(b, key, sizeof key), BB_OK);
    }
    bb_info ia = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(a, &ia), BB_OK);
    cr_assert_eq(ia.saturated_counters, 0);
    cr_assert_eq(bb_union(a, b), BB_OK);
    cr_assert_eq(bb_get_info(a, &ia), BB_OK);
    cr_assert_eq(ia.saturated_counters, ia.bits_set, "every counter of the key is at 15");
    cr_assert(ia.bits_set >= 1 && ia.bits_set <= ia.k);
    cr_assert_eq(ia.keys_added, 20);
    for (int i = 0; i < 19; i++) cr_assert_eq(bb_remove(a, key, sizeof key), BB_OK);
    cr_assert(bb_contains(a, key, sizeof key));
    /* Below saturation the sum is exact: 3 + 4 adds need 7 removes. */
    bb_filter *c = make(BB_COUNTING, 1000, 0.01, 4), *d = make(BB_COUNTING, 1000, 0.01, 4);
    for (int i = 0; i < 3; i++) cr_assert_eq(bb_add(c, key, sizeof key), BB_OK);
    for (int i = 0; i < 4; i++) cr_assert_eq(bb_add(d, key, sizeof key), BB_OK);
    cr_assert_eq(bb_union(c, d), BB_OK);
    for (int i = 0; i < 7; i++) cr_assert_eq(bb_remove(c, key, sizeof key), BB_OK, "remove %d", i);
    cr_assert_eq(bb_remove(c, key, sizeof key), BB_E_ABSENT);
    bb_free(a);
    bb_free(b);
    bb_free(c);
    bb_free(d);
}

/* keys_added is the sum (an upper bound): a filter merged with itself counts its keys twice,
 * while its bits, and so the cardinality estimate, do not change. */
Test(union, keys_added_is_the_sum) {
    bb_filter *f = make(BB_BLOCKED, 4000, 0.01, 5);
    add_range(f, 44, 0, 3000);
    bb_info a = BB_INFO_INIT, b = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(f, &a), BB_OK);
    cr_assert_eq(bb_union(f, f), BB_OK);
    cr_assert_eq(bb_get_info(f, &b), BB_OK);
    cr_assert_eq(b.keys_added, 6000);
    cr_assert_eq(b.bits_set, a.bits_set);
    cr_assert_eq(b.cardinality_estimate, a.cardinality_estimate);
    cr_assert(fabs(b.cardinality_estimate - 3000) < 150, "estimate %.1f", b.cardinality_estimate);
    bb_free(f);
}

/* Scalable filters merge when their stacks have the same shape; every key of both is then
 * present and keys_added is the sum. A different number of sub-filters is a layout mismatch. */
Test(union, scalable_merges_matching_layouts) {
    bb_config cfg = {
        .size = sizeof(bb_config), .kind = BB_SCALABLE, .capacity = 100, .fpr = 0.01, .seed = 6};
    bb_filter *a = NULL, *b = NULL, *small = NULL;
    cr_assert_eq(bb_create(&a, &cfg), BB_OK);
    cr_assert_eq(bb_create(&b, &cfg), BB_OK);
    cr_assert_eq(bb_create(&small, &cfg), BB_OK);
    add_range(a, 45, 0, 1000);
    add_range(b, 46, 0, 1000);
    add_range(small, 46, 0, 10);
    bb_info ia = BB_INFO_INIT, ib = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(a, &ia), BB_OK);
    cr_assert_eq(bb_get_info(b, &ib), BB_OK);
    cr_assert_eq(ia.subfilters, ib.subfilters);
    bb_mismatch what;
    cr_assert_eq(bb_union_check(a, small, &what), BB_E_MISMATCH);
    cr_assert_eq(what, BB_MISMATCH_LAYOUT);
    cr_assert_eq(bb_union(a, b), BB_OK);
    bb_info u = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(a, &u), BB_OK);
    cr_assert_eq(u.keys_added, ia.keys_added + ib.keys_added);
    for (uint64_t i = 0; i < 1000; i++) {
        uint8_t key[TU_KEY_BYTES];
        tu_key(key, 45, i);
        cr_assert(bb_contains(a, key, sizeof key));
        tu_key(key, 46, i);
        cr_assert(bb_contains(a, key, sizeof key));
    }
    bb_free(a);
    bb_free(b);
    bb_free(small);
}

/* A memory-mapped dst cannot change. */
Test(union, read_only_dst) {
    bb_filter *f = make(BB_BLOCKED, 1000, 0.01, 7), *m = NULL;
    add_range(f, 47, 0, 100);
    char path[32];
    tu_save_temp(f, path);
    cr_assert_eq(bb_open_mmap(&m, path), BB_OK);
    unlink(path);
    cr_assert_eq(bb_union(m, f), BB_E_READONLY);
    cr_assert_eq(bb_union(f, m), BB_OK, "a mapped src is fine");
    bb_free(m);
    bb_free(f);
}

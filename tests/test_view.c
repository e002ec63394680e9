/*
 * test_view.c - the public header's inline lookups over a read-only view of a blocked filter
 * (bb_get_view, bb_view_contains_hash, bb_view_prefetch): bb_get_view's errors, and the
 * inline answers against the probe scheme written out independently (testutil.h) and against
 * bb_contains_hash on every kernel, for several k, on heap and memory-mapped filters. This
 * file is compiled at the baseline ISA, so it runs the header's byte test; the header's AVX2
 * and AVX-512 tests are the avx2 and avx512 kernels, which test_kernels checks bit for bit.
 */
#include "testutil.h"

#define N_KEYS 20000u
#define N_QUERIES 40000u

Test(view, errors) {
    bb_view v;
    bb_filter *f;
    cr_assert_eq(bb_get_view(NULL, &v), BB_E_INVAL);
    cr_assert_eq(bb_create_for(&f, BB_CLASSIC, 1000, 0.01, 1), BB_OK);
    cr_assert_eq(bb_get_view(f, &v), BB_E_UNSUPPORTED);
    cr_assert_eq(bb_get_view(f, NULL), BB_E_INVAL);
    bb_free(f);
    cr_assert_eq(bb_create_for(&f, BB_BLOCKED, 1000, 0.01, 1), BB_OK);
    cr_assert_eq(bb_get_view(f, NULL), BB_E_INVAL);
    bb_free(f);
}

/* Half the queries are added hashes, half fresh ones; every answer must match the written-out
 * scheme on the view's bytes and bb_contains_hash; present ones must all be found. */
static uint64_t added[N_KEYS];

static void check_view(const bb_filter *f, unsigned k, uint64_t seed, const char *what) {
    bb_view v;
    cr_assert_eq(bb_get_view(f, &v), BB_OK);
    cr_assert_eq(v.k, k, "%s: view k %u", what, v.k);
    cr_assert_eq((uintptr_t)v.data % 64, 0, "%s: view not 64-byte aligned", what);
    uint64_t st = seed, bits = v.blocks * 512;
    size_t hits = 0, agree = 0;
    for (size_t i = 0; i < N_QUERIES; i++) {
        uint64_t h = i % 2 == 0 ? added[(i / 2) % N_KEYS] : tu_splitmix64(&st);
        bb_view_prefetch(&v, h);
        bool got = bb_view_contains_hash(&v, h);
        agree += got == tu_ref_contains(v.data, BB_BLOCKED, bits, k, h) &&
                 got == bb_contains_hash(f, h);
        if (i % 2 == 0) hits += got;
    }
    cr_assert_eq(agree, N_QUERIES, "%s: %zu of %u answers differ", what, N_QUERIES - agree,
                 N_QUERIES);
    cr_assert_eq(hits, N_QUERIES / 2, "%s: a present key was not found", what);
}

static bb_filter *fill(unsigned k, uint64_t seed) {
    bb_config cfg = {.kind = BB_BLOCKED, .capacity = N_KEYS, .fpr = 0.01, .k = k, .seed = 7};
    bb_filter *f;
    cr_assert_eq(bb_create(&f, &cfg), BB_OK);
    uint64_t st = seed ^ 0xadd;
    for (size_t i = 0; i < N_KEYS; i++) {
        added[i] = tu_splitmix64(&st);
        cr_assert_eq(bb_add_hash(f, added[i]), BB_OK);
    }
    return f;
}

Test(view, answers_match_the_scheme_and_every_kernel) {
    static const unsigned ks[] = {1, 6, 11, 16};
    for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
        bb_filter *f = fill(ks[i], 100 + i);
        for (size_t j = 0; j < TU_N_ISAS; j++) {
            if (!tu_use_isa(tu_isas[j])) continue;
            char what[64];
            snprintf(what, sizeof what, "k=%u, kernel %s", ks[i], bb_isa_to_string(tu_isas[j]));
            check_view(f, ks[i], 100 + i, what);
        }
        bb_free(f);
    }
    cr_assert_eq(bb_set_isa(BB_ISA_AUTO), BB_OK);
}

Test(view, memory_mapped_filter) {
    bb_filter *f = fill(6, 5), *m;
    char path[32];
    tu_save_temp(f, path);
    cr_assert_eq(bb_open_mmap(&m, path), BB_OK);
    unlink(path);
    check_view(m, 6, 5, "mmap");
    bb_free(m);
    bb_free(f);
}

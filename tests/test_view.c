/* SPDX-License-Identifier: MIT */
/*
 * test_view.c - the public header's inline lookups over a read-only view of a blocked filter
 * (bb_get_view, bb_view_contains_hash, bb_view_prefetch): bb_get_view's errors, and the
 * inline answers against the probe scheme written out independently (testutil.h) and against
 * bb_contains_hash on every kernel, for every k (1 .. 16), on heap and memory-mapped filters.
 * The file is built three times (tests/CMakeLists.txt), as callers compile the header: at the
 * baseline ISA (test_view, the byte test), with -mavx2 (test_view_avx2: bb_block_test_avx2)
 * and with -mavx512f alone (test_view_avx512f: bb_block_test_avx512, which must then need
 * nothing beyond AVX-512F); the last two skip themselves on a CPU without the instructions.
 * The same SIMD tests are also the avx2 and avx512 kernels, checked by test_kernels.
 */
#include "testutil.h"

/* The header's test this build inlines, and whether the CPU can run it. */
#if defined(__AVX512F__)
#define VIEW_TEST "bb_block_test_avx512"
#define VIEW_CPU_OK() __builtin_cpu_supports("avx512f")
#elif defined(__AVX2__)
#define VIEW_TEST "bb_block_test_avx2"
#define VIEW_CPU_OK() __builtin_cpu_supports("avx2")
#else
#define VIEW_TEST "bb_block_test_bytes"
#define VIEW_CPU_OK() 1
#endif

/* First in every test: the compiler may use this build's instructions anywhere in the file,
 * and the CPU may lack them. */
#define VIEW_NEEDS_CPU()                                                                      \
    do {                                                                                      \
        if (!VIEW_CPU_OK()) cr_skip_test("the CPU cannot run this build's " VIEW_TEST);        \
    } while (0)

#define N_KEYS 20000u
#define N_QUERIES 40000u

Test(view, errors) {
    VIEW_NEEDS_CPU();
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
    cr_assert_eq(agree, N_QUERIES, "%s, %s: %zu of %u answers differ", VIEW_TEST, what,
                 N_QUERIES - agree, N_QUERIES);
    cr_assert_eq(hits, N_QUERIES / 2, "%s: a present key was not found", what);
}

static bb_filter *fill(unsigned k, uint64_t seed) {
    bb_config cfg = {
        .size = sizeof cfg, .kind = BB_BLOCKED, .capacity = N_KEYS, .fpr = 0.01, .k = k, .seed = 7};
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
    VIEW_NEEDS_CPU();
    for (unsigned k = 1; k <= BB_MAX_K; k++) {
        bb_filter *f = fill(k, 100 + k);
        for (size_t j = 0; j < bb_isa_count(); j++) {
            if (!tu_use_isa(bb_isa_at(j))) continue;
            char what[64];
            snprintf(what, sizeof what, "k=%u, kernel %s", k, bb_isa_to_string(bb_isa_at(j)));
            check_view(f, k, 100 + k, what);
        }
        bb_free(f);
    }
    cr_assert_eq(bb_set_isa(BB_ISA_AUTO), BB_OK);
}

Test(view, memory_mapped_filter) {
    VIEW_NEEDS_CPU();
    bb_filter *f = fill(6, 5), *m;
    char path[32];
    tu_save_temp(f, path);
    cr_assert_eq(bb_open_mmap(&m, path), BB_OK);
    unlink(path);
    check_view(m, 6, 5, "mmap");
    bb_free(m);
    bb_free(f);
}

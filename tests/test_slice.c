/* SPDX-License-Identifier: MIT */
/*
 * test_slice.c - bb_slice (a blocked filter built in parts): N slices built from the whole
 * key stream concatenate into exactly the payload of the filter bb_create + bb_add_batch
 * build from the same keys, for several N including ones that leave a short last slice;
 * the split rule; the refusals (other kinds, index >= n, more slices than blocks); and
 * bb_blocks_test on copied blocks answering as bb_contains_hash, with every kernel.
 */
#include "testutil.h"

/* The whole filter's serialized bytes (header 128, then payload). */
static uint8_t *whole_bytes(const bb_config *cfg, const uint8_t *keys, size_t n, size_t *len) {
    bb_filter *f;
    cr_assert_eq(bb_create(&f, cfg), BB_OK);
    cr_assert_eq(bb_add_fixed(f, keys, TU_KEY_BYTES, TU_KEY_BYTES, n), BB_OK);
    uint64_t size;
    cr_assert_eq(bb_serialized_size(f, &size), BB_OK);
    uint8_t *b = malloc(size);
    cr_assert_eq(bb_serialize(f, b, size, len), BB_OK);
    bb_free(f);
    return b;
}

static void check_concat(uint64_t capacity, double fpr, uint64_t n_slices, unsigned flags) {
    const size_t n = 20000;
    uint8_t *keys = tu_keys(7, n);
    int64_t *off = malloc((n + 1) * sizeof *off);
    for (size_t i = 0; i <= n; i++) off[i] = (int64_t)(i * TU_KEY_BYTES);
    bb_config cfg = {.size = sizeof cfg,
                     .kind = BB_BLOCKED,
                     .capacity = capacity,
                     .fpr = fpr,
                     .seed = 99,
                     .flags = flags};
    size_t len;
    uint8_t *whole = whole_bytes(&cfg, keys, n, &len);
    uint64_t at = 128;
    for (uint64_t i = 0; i < n_slices; i++) {
        bb_slice *s;
        cr_assert_eq(bb_slice_create(&s, &cfg, i, n_slices), BB_OK, "slice %llu/%llu",
                     (unsigned long long)i, (unsigned long long)n_slices);
        cr_assert_eq(bb_slice_add_arrow64(s, keys, off, n / 2), BB_OK); /* two calls, as streamed */
        cr_assert_eq(bb_slice_add_arrow64(s, keys, off + n / 2, n - n / 2), BB_OK);
        bb_slice_info in = BB_SLICE_INFO_INIT;
        cr_assert_eq(bb_slice_get_info(s, &in), BB_OK);
        cr_assert_eq(in.keys_added, n);
        cr_assert_eq(in.first_block * 64 + 128, at, "slices are contiguous");
        uint64_t bytes;
        const uint8_t *p = bb_slice_data(s, &bytes);
        cr_assert(bytes > 0 && at + bytes <= len, "slice %llu overruns", (unsigned long long)i);
        cr_assert(memcmp(whole + at, p, bytes) == 0, "slice %llu/%llu differs from the filter",
                  (unsigned long long)i, (unsigned long long)n_slices);
        at += bytes;
        bb_slice_free(s);
    }
    cr_assert_eq(at, len, "slices cover %llu of %zu bytes", (unsigned long long)at, len);
    free(whole);
    free(off);
    free(keys);
}

Test(slice, concatenation_is_the_whole_filter) {
    check_concat(20000, 0.01, 1, 0);
    check_concat(20000, 0.01, 3, 0);  /* 376 blocks: 126 + 126 + 124 */
    check_concat(20000, 0.01, 7, 0);
    check_concat(20000, 0.001, 8, 0);
    check_concat(20000, 0.01, 5, BB_POW2_BYTES); /* 512 blocks: 103 x 4 + 100 */
}

Test(slice, split_rule_and_refusals) {
    uint64_t per = 0;
    cr_assert_eq(bb_slice_split(10, 4, &per), BB_OK);
    cr_assert_eq(per, 3); /* 3 + 3 + 3 + 1 */
    cr_assert_eq(bb_slice_split(9, 4, &per), BB_E_INVAL, "ceil(9/4) = 3 leaves slice 3 empty");
    cr_assert_eq(bb_slice_split(4, 5, &per), BB_E_INVAL);
    cr_assert_eq(bb_slice_split(0, 1, &per), BB_E_INVAL);
    cr_assert_eq(bb_slice_split(5, 0, &per), BB_E_INVAL);
    bb_slice *s = (bb_slice *)1;
    bb_config classic = {
        .size = sizeof(bb_config), .kind = BB_CLASSIC, .capacity = 100, .fpr = 0.01};
    cr_assert_eq(bb_slice_create(&s, &classic, 0, 1), BB_E_INVAL);
    cr_assert_null(s);
    bb_config blocked = {
        .size = sizeof(bb_config), .kind = BB_BLOCKED, .capacity = 100, .fpr = 0.01};
    cr_assert_eq(bb_slice_create(&s, &blocked, 2, 2), BB_E_INVAL);
    cr_assert_eq(bb_slice_create(&s, &blocked, 0, 1000), BB_E_INVAL);
    cr_assert_eq(bb_slice_add_hashes(NULL, NULL, 0), BB_E_INVAL);
    cr_assert_null(bb_slice_data(NULL, NULL));
}

Test(slice, blocks_test_matches_contains_with_every_kernel) {
    enum { N = 4000 };
    bb_filter *f;
    cr_assert_eq(bb_create_for(&f, BB_BLOCKED, 1000, 0.05, 3), BB_OK);
    uint64_t st = 11, *h = malloc(N * sizeof *h);
    for (size_t i = 0; i < N; i++) h[i] = tu_splitmix64(&st);
    cr_assert_eq(bb_add_hashes(f, h, N / 4), BB_OK); /* a quarter present, the rest mostly not */
    uint64_t size;
    cr_assert_eq(bb_serialized_size(f, &size), BB_OK);
    /* blocks + 1: unaligned on purpose (the copying path); blocks + 64 ... aligned below. */
    uint8_t *file = malloc(size), *mem = aligned_alloc(64, (size_t)N * 64 + 64), *out = malloc(N);
    uint8_t *blocks = mem + 1;
    cr_assert_eq(bb_serialize(f, file, size, NULL), BB_OK);
    bb_info in = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(f, &in), BB_OK);
    for (size_t i = 0; i < N; i++) { /* block floor(h * blocks / 2^64), as documented */
        uint64_t b = (uint64_t)(((unsigned __int128)h[i] * in.blocks) >> 64);
        memcpy(blocks + i * 64, file + 128 + b * 64, 64);
    }
    for (size_t t = 0; t < 2 * bb_isa_count(); t++) {
        if (t == bb_isa_count()) { /* again, 64-byte aligned */
            memmove(mem, blocks, (size_t)N * 64);
            blocks = mem;
        }
        if (!tu_use_isa(bb_isa_at(t % bb_isa_count()))) continue;
        size_t hits = 0, want = 0;
        cr_assert_eq(bb_blocks_test(blocks, h, N, in.k, out, &hits), BB_OK);
        for (size_t i = 0; i < N; i++) {
            cr_assert_eq(out[i], bb_contains_hash(f, h[i]), "hash %zu, kernel %s", i, bb_isa_name());
            want += out[i];
        }
        cr_assert_eq(hits, want);
        cr_assert(hits >= N / 4, "every added hash is present");
    }
    bb_set_isa(BB_ISA_AUTO);
    cr_assert_eq(bb_blocks_test(NULL, NULL, 0, in.k, NULL, NULL), BB_OK);
    cr_assert_eq(bb_blocks_test(blocks, h, 1, 0, out, NULL), BB_E_INVAL);
    cr_assert_eq(bb_blocks_test(NULL, h, 1, in.k, out, NULL), BB_E_INVAL);
    free(file);
    free(mem);
    free(out);
    free(h);
    bb_free(f);
}

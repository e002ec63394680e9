/* SPDX-License-Identifier: MIT */
/*
 * blocked.c - the cache-line-blocked Bloom filter (Putze, Sanders, Singler, "Cache-, Hash-
 * and Space-Efficient Bloom Filters", WEA 2007) and its row of the kinds table.
 *
 *   payload: blocks x 64 bytes (one cache line each), bit i = bit (i & 7) of byte i >> 3
 *   +-------- block 0 --------+-------- block 1 --------+ ... +------ block B-1 ------+
 *   | 512 bits                | 512 bits                |     | 512 bits              |
 *   key h -> block floor(h * B / 2^64); inside it, the k positions (lo32(h) * C^j) >> 23
 *
 * The probe scheme (block index and in-block positions) is written once in internal.h,
 * because the SIMD kernels (src/kernels/, chosen once by dispatch.c), the counting kind and
 * this file all use it; sizing is the blocked model of sizing.c. Batches go to the active
 * kernel of their operation (dispatch.c; for adds, of the filter's size); single keys use the
 * reference bb_block_set and the contains kernel's block test. bb_get_view (view.c) exposes
 * the payload to the public header's inline lookups.
 */
#include "../internal.h"
#include "../kernels/prefetch.h"
#include "atomic_bits.h"

static bb_status blocked_add(bb_filter *f, uint64_t h) {
    bb_block_set(bb_block_of(f->data, f->blocks, h), (uint32_t)h, f->k);
    f->keys_added = bb_sat_add(f->keys_added, 1);
    return BB_OK;
}

static bool blocked_contains(const bb_filter *f, uint64_t h) {
    return bb_kernel_active()->contains_one(f->data, f->blocks, f->k, h);
}

static bb_status blocked_add_hashes(bb_filter *f, const uint64_t *h, size_t n) {
    return bb_kernel_add(bb_kernel_add_active(f->payload_bytes), f, h, n);
}

/* Lines already on their way to L2: a CPU row names this kernel apart from the one of adds
 * of hashes, since the prefetch changes which kernel pays: on Xeon family 6 model A7h string
 * adds into a 7.1 MiB filter took 11.14 ns/key on scalar against 12.23 on avx512 (scalar
 * kept), on model CFh into 118 MiB 30.90 against 26.29 (avx512 taken; dispatch.c). */
static bb_status blocked_add_hashes_warm(bb_filter *f, const uint64_t *h, size_t n) {
    return bb_kernel_add(bb_kernel_keys_add(f->payload_bytes), f, h, n);
}

static size_t blocked_contains_hashes(const bb_filter *f, const uint64_t *h, size_t n,
                                      uint8_t *out) {
    return bb_kernel_active()->contains_hashes(f->data, f->blocks, f->k, h, n, out);
}

/* Batches of keys: a CPU row may run them on another kernel in large filters (dispatch.c). */
static size_t blocked_contains_hashes_warm(const bb_filter *f, const uint64_t *h, size_t n,
                                           uint8_t *out) {
    return bb_kernel_keys_contains(f->payload_bytes)
        ->contains_hashes(f->data, f->blocks, f->k, h, n, out);
}

static const uint8_t *blocked_line_of(const bb_filter *f, uint64_t h) {
    return bb_block_of(f->data, f->blocks, h);
}

/* Into L2 (locality 2): batch.c's reason, two chunks of lines would thrash L1. */
static void blocked_prefetch_lines(const bb_filter *f, const uint64_t *h, size_t n) {
    for (size_t i = 0; i < n; i++) __builtin_prefetch(bb_block_of(f->data, f->blocks, h[i]), 0, 2);
}

/* Concurrent adds: under stripe locks, on the concurrent kernel of the plain add's ISA for
 * this filter's size (so BB_ISA and dispatch.c's per-CPU rows choose both;
 * kernels/conc_loops.h). */
static size_t blocked_add_striped(bb_filter *f, bb_stripes *st, const uint64_t *h, size_t n,
                                  bool count) {
    return bb_conc_kernel_active(f->payload_bytes)
        ->add_hashes(f->data, f->blocks, f->k, st, h, n, count);
}

static bool blocked_contains_concurrent(const bb_filter *f, uint64_t h) {
    uint8_t *block = bb_block_of(f->data, f->blocks, h);
    uint32_t x = (uint32_t)h;
    for (unsigned j = 0; j < f->k; j++)
        if (!bb_test_bit(block, bb_probe_next(&x))) return false;
    return true;
}

static bb_status blocked_info(const bb_filter *f, bb_info *out) {
    bb_fill acc = {0};
    bb_info_fields(f, out);
    for (uint64_t b = 0; b < f->blocks; b++)
        bb_fill_block(&acc, bb_popcount_bytes(f->data + b * BB_BLOCK_BYTES, BB_BLOCK_BYTES),
                      BB_BLOCK_BITS, f->k);
    bb_fill_store(&acc, f->bits, out);
    return BB_OK;
}

const bb_kind_ops bb_kind_blocked = {
    .kind = BB_BLOCKED,
    .name = "blocked",
    .layout = BB_LAYOUT_BLOCKED,
    .block_bits = BB_BLOCK_BITS,
    .cell_bits = 1,
    .flags = BB_POW2_BYTES,
    .foldable = true,
    .size = bb_blocked_size,
    .size_for_k = bb_blocked_size_for_k,
    .best_k = bb_blocked_best_k,
    .fpr_model = bb_blocked_fpr,
    .add = blocked_add,
    .contains = blocked_contains,
    .add_hashes = blocked_add_hashes,
    .add_hashes_warm = blocked_add_hashes_warm,
    .contains_hashes = blocked_contains_hashes,
    .contains_hashes_warm = blocked_contains_hashes_warm,
    .line_of = blocked_line_of,
    .prefetch_lines = blocked_prefetch_lines,
    .block_lines = true,
    .add_striped = blocked_add_striped,
    .contains_concurrent = blocked_contains_concurrent,
    .info = blocked_info,
    .merge = bb_merge_or,
};

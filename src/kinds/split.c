/* SPDX-License-Identifier: MIT */
/*
 * split.c - the split-block Bloom filter of Apache Parquet (parquet-format BloomFilter.md,
 * "SBBF"; Putze, Sanders, Singler 2007 for the blocks, the "split" Bloom filter of Broder and
 * Mitzenmacher 2004, section 2.1, inside them) and its row of the kinds table.
 *
 *   payload: z blocks x 32 bytes = exactly the Parquet bitset
 *   block:   8 little-endian uint32 words  | w0 | w1 | w2 | w3 | w4 | w5 | w6 | w7 |
 *   key:     h = XXH64(plain encoding of the value, seed 0)
 *            block ((h >> 32) * z) >> 32, then in each word i bit (lo32(h) * salt[i]) >> 27
 *
 * Every key sets exactly one bit per word, so k is 8 and the FPR model is exact (sizing.c).
 * The probe scheme is in internal.h; the kernels (src/kernels/split_*.c) are dispatch.c's
 * choice for the ISA of the blocked contains kernel (so BB_ISA and bb_set_isa apply to
 * both): AVX2 on AVX2 and AVX-512 machines, NEON on AArch64, the scalar reference otherwise.
 * Blocks are indexed by multiply-shift, so bb_fold halves a filter exactly.
 */
#include "../internal.h"
#include "atomic_bits.h"

#include <string.h>

static bb_status split_add(bb_filter *f, uint64_t h) {
    bb_split_block_set(bb_split_block_of(f->data, f->blocks, h), (uint32_t)h);
    f->keys_added = bb_sat_add(f->keys_added, 1);
    return BB_OK;
}

static bool split_contains(const bb_filter *f, uint64_t h) {
    return bb_split_kernel_active()->block_test(bb_split_block_of(f->data, f->blocks, h),
                                                (uint32_t)h);
}

static bb_status split_add_hashes(bb_filter *f, const uint64_t *h, size_t n) {
    bb_split_kernel_active()->add_hashes(f->data, f->blocks, h, n);
    f->keys_added = bb_sat_add(f->keys_added, n);
    return BB_OK;
}

static size_t split_contains_hashes(const bb_filter *f, const uint64_t *h, size_t n,
                                    uint8_t *out) {
    return bb_split_kernel_active()->contains_hashes(f->data, f->blocks, h, n, out);
}

static const uint8_t *split_line_of(const bb_filter *f, uint64_t h) {
    return bb_split_block_of(f->data, f->blocks, h);
}

/* Concurrent: bit b of word i is payload bit 32 i + b of the block (see the layout), set with
 * an atomic OR on the 64-bit word that holds it (atomic_bits.h). */
static bool split_add_concurrent(bb_filter *f, uint64_t h) {
    uint8_t *block = bb_split_block_of(f->data, f->blocks, h);
    bool fresh = false;
    for (unsigned i = 0; i < 8; i++)
        fresh |= bb_or_bit(block, 32 * i + (((uint32_t)h * bb_split_salts[i]) >> 27));
    return fresh;
}

static bool split_contains_concurrent(const bb_filter *f, uint64_t h) {
    uint8_t *block = bb_split_block_of(f->data, f->blocks, h);
    for (unsigned i = 0; i < 8; i++)
        if (!bb_test_bit(block, 32 * i + (((uint32_t)h * bb_split_salts[i]) >> 27))) return false;
    return true;
}

/* Per block, from the fill of its words: an absent key hits word i's set bits with
 * probability x_i / 32, independently per word, so the block's FPR is prod_i x_i / 32; each
 * word holds one bit per key, so it estimates -32 ln(1 - x_i / 32) keys (Swamidass-Baldi with
 * k = 1), and the block the mean of its 8 words. */
static bb_status split_info(const bb_filter *f, bb_info *out) {
    bb_fill acc = {0};
    bb_info_fields(f, out);
    for (uint64_t b = 0; b < f->blocks; b++) {
        const uint8_t *block = f->data + b * BB_SPLIT_BLOCK_BYTES;
        double fpr = 1.0, keys = 0.0;
        for (unsigned i = 0; i < 8; i++) {
            uint64_t x = bb_popcount_bytes(block + 4 * i, 4);
            acc.bits_set += x;
            fpr *= (double)x / 32.0;
            keys += bb_cardinality(32.0, (double)x, 1);
        }
        acc.blocks++;
        acc.fpr_sum += fpr;
        acc.cardinality += keys / 8.0;
    }
    bb_fill_store(&acc, f->bits, out);
    return BB_OK;
}

bb_status bb_split_from_bitset(bb_filter **out, const void *bitset, size_t len_bytes) {
    if (!out) return BB_E_INVAL;
    *out = NULL;
    if (!bitset || len_bytes == 0 || len_bytes % BB_SPLIT_BLOCK_BYTES) return BB_E_INVAL;
    if ((uint64_t)len_bytes > BB_SPLIT_MAX_BITS / 8) return BB_E_TOO_LARGE;
    bb_status s = bb_filter_alloc(out, BB_SPLIT, (uint64_t)len_bytes * 8, BB_SPLIT_K, 0);
    if (s == BB_OK) memcpy((*out)->data, bitset, len_bytes);
    return s;
}

const bb_kind_ops bb_kind_split = {
    .kind = BB_SPLIT,
    .name = "split",
    .layout = BB_LAYOUT_SPLIT,
    .block_bits = BB_SPLIT_BLOCK_BITS,
    .cell_bits = 1,
    .fixed_k = BB_SPLIT_K,
    .max_bits = BB_SPLIT_MAX_BITS,
    .flags = BB_POW2_BYTES,
    .foldable = true,
    .hash = BB_HASH_XXH64,
    .size = bb_split_size,
    .size_for_k = bb_split_size_for_k,
    .best_k = bb_split_best_k,
    .fpr_model = bb_split_fpr,
    .add = split_add,
    .contains = split_contains,
    .add_hashes = split_add_hashes,
    .contains_hashes = split_contains_hashes,
    .line_of = split_line_of,
    .add_concurrent = split_add_concurrent,
    .contains_concurrent = split_contains_concurrent,
    .info = split_info,
    .merge = bb_merge_or,
};

/* SPDX-License-Identifier: MIT */
/*
 * fold.c - bb_fold and bb_fold_to_fpr: halving the block count of a filter whose blocks are
 * chosen by multiply-shift (blocked: floor(h z / 2^64); split: ((h >> 32) z) >> 32). With 2z
 * blocks a hash picks b' = floor(x 2z / 2^s) and with z blocks floor(x z / 2^s) =
 * floor(b' / 2), while the bits inside a block depend only on the low 32 bits of the hash; so
 * the filter of z blocks is blocks 2j and 2j + 1 ORed into block j, byte for byte what adding
 * the same keys to a z-block filter gives. Folding d times at once ORs groups of 2^d blocks.
 * Which kinds fold is a row's `foldable` (bit payloads with such blocks); no kind is named.
 */
#include "internal.h"

#include <string.h>

/* dst = OR of the `count` blocks of `block_bytes` at src (block_bytes a multiple of 8). */
static void or_group(uint8_t *dst, const uint8_t *src, uint64_t count, unsigned block_bytes) {
    memcpy(dst, src, block_bytes);
    for (uint64_t b = 1; b < count; b++)
        for (unsigned i = 0; i < block_bytes; i += 8) {
            uint64_t a, c;
            memcpy(&a, dst + i, 8);
            memcpy(&c, src + b * block_bytes + i, 8);
            a |= c;
            memcpy(dst + i, &a, 8);
        }
}

/* Fold f 2^d-fold into a new payload (f unchanged on BB_E_NOMEM). */
static bb_status fold_by(bb_filter *f, unsigned d) {
    const unsigned block_bytes = bb_row(f)->block_bits / 8;
    uint64_t group = UINT64_C(1) << d, blocks = f->blocks >> d;
    void *base;
    size_t len;
    uint8_t *data = bb_mem_alloc(blocks * block_bytes, &base, &len);
    if (!data) return BB_E_NOMEM;
    for (uint64_t j = 0; j < blocks; j++)
        or_group(data + j * block_bytes, f->data + j * group * block_bytes, group, block_bytes);
    bb_mem_free(f->map_base, f->map_len);
    f->data = data;
    f->map_base = base;
    f->map_len = len;
    f->blocks = blocks;
    f->bits >>= d;
    f->payload_bytes = blocks * block_bytes;
    f->fpr_target = 0.0;
    return BB_OK;
}

static bb_status check_fold(const bb_filter *f) {
    if (!f) return BB_E_INVAL;
    if (!bb_row(f)->foldable) return BB_E_UNSUPPORTED;
    return f->storage == BB_STORE_FILE ? BB_E_READONLY : BB_OK;
}

bb_status bb_fold(bb_filter *f) {
    bb_status s = check_fold(f);
    if (s != BB_OK) return s;
    if (f->blocks % 2) return BB_E_INVAL;
    return fold_by(f, 1);
}

/* The key count the model is evaluated at: keys_added, or the fill's cardinality estimate if
 * that is larger. A filter taken from a Parquet bitset has keys_added 0, and folding it "for
 * 0 keys" would fold it to one block; an estimate above keys_added cannot happen for a filter
 * built here except by the estimate's noise, which only makes folding more cautious. */
static double key_count(const bb_filter *f) {
    bb_info in = BB_INFO_INIT;
    double n = (double)f->keys_added;
    if (bb_row(f)->info(f, &in) == BB_OK && in.cardinality_estimate > n)
        n = in.cardinality_estimate; /* INFINITY for a saturated block: no fold */
    return n;
}

bb_status bb_fold_to_fpr(bb_filter *f, double fpr) {
    bb_status s = check_fold(f);
    if (s != BB_OK) return s;
    if (!(fpr > 0.0 && fpr < 1.0)) return BB_E_INVAL;
    const bb_kind_ops *row = bb_row(f);
    double n = key_count(f);
    unsigned d = 0;
    while ((f->blocks >> d) % 2 == 0 && row->fpr_model(n, f->bits >> (d + 1), f->k) <= fpr)
        d++;
    if (d == 0) return BB_OK;
    s = fold_by(f, d);
    if (s == BB_OK) f->fpr_target = fpr;
    return s;
}

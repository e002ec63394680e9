/* SPDX-License-Identifier: MIT */
/*
 * object.c - the bb_filter object below the kinds: allocation with a zeroed, aligned payload,
 * release, the flat (one-payload) clone and clear, the info fields stored in the object, the
 * geometry comparison of unions, and the OR merge of bit payloads. It reads a row's data
 * fields (block_bits, cell_bits, fixed_k, max_bits) and never calls a row, so the rows can use
 * it without a call circle (internal.h, "The kinds table").
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

uint64_t bb_payload_bytes(const bb_kind_ops *row, uint64_t bits) {
    return (bits * row->cell_bits + 7) / 8; /* bits <= 2^56 and cell_bits <= 8: no overflow */
}

bb_status bb_filter_alloc(bb_filter **out, bb_kind kind, uint64_t bits, unsigned k,
                          uint64_t seed) {
    *out = NULL;
    const bb_kind_ops *row = bb_kind_row(kind);
    if (!row || bits == 0 || k == 0 || k > BB_MAX_K) return BB_E_INVAL;
    if (bits > BB_MAX_BITS) return BB_E_TOO_LARGE;
    if (row->max_bits && bits > row->max_bits) return BB_E_TOO_LARGE;
    if (row->cell_bits == 0 || (row->block_bits && bits % row->block_bits)) return BB_E_INVAL;
    if (!bb_row_has_k(row, k)) return BB_E_INVAL;
    bb_filter *f = calloc(1, sizeof *f);
    if (!f) return BB_E_NOMEM;
    f->kind = kind;
    f->k = k;
    f->bits = bits;
    f->blocks = row->block_bits ? bits / row->block_bits : 0;
    f->seed = seed;
    f->payload_bytes = bb_payload_bytes(row, bits);
    f->data = bb_mem_alloc(f->payload_bytes, &f->map_base, &f->map_len);
    if (!f->data) { free(f); return BB_E_NOMEM; }
    *out = f;
    return BB_OK;
}

void bb_filter_destroy(bb_filter *f) {
    free(atomic_load_explicit(&f->stripes, memory_order_relaxed));
    bb_mem_free(f->map_base, f->map_len);
    free(f);
}

bb_status bb_flat_clone(bb_filter **out, const bb_filter *f) {
    bb_filter *c;
    bb_status s = bb_filter_alloc(&c, f->kind, f->bits, f->k, f->seed);
    if (s != BB_OK) return s;
    memcpy(c->data, f->data, f->payload_bytes);
    c->capacity = f->capacity;
    c->fpr_target = f->fpr_target;
    c->keys_added = f->keys_added;
    *out = c;
    return BB_OK;
}

void bb_flat_clear(bb_filter *f) {
    memset(f->data, 0, f->payload_bytes);
    f->keys_added = 0;
}

void bb_info_fields(const bb_filter *f, bb_info *out) {
    memset(out, 0, sizeof *out);
    out->size = sizeof *out;
    out->kind = f->kind;
    out->bits = f->bits;
    out->bytes = f->payload_bytes;
    out->k = f->k;
    out->blocks = f->blocks;
    out->capacity = f->capacity;
    out->fpr_target = f->fpr_target;
    out->seed = f->seed;
    out->keys_added = f->keys_added;
    out->read_only = f->storage == BB_STORE_FILE;
    out->format_version = f->scheme.keys ? BB_FORMAT_VERSION_KEYS : BB_FORMAT_VERSION;
    out->bits_per_key = f->capacity ? (double)f->bits / (double)f->capacity : 0.0;
    out->subfilters = 1;
}

bb_mismatch bb_geometry_mismatch(const bb_filter *a, const bb_filter *b) {
    if (a->kind != b->kind) return BB_MISMATCH_KIND;
    if (a->bits != b->bits) return BB_MISMATCH_BITS;
    if (a->k != b->k) return BB_MISMATCH_K;
    if (a->seed != b->seed) return BB_MISMATCH_SEED;
    return BB_MATCH;
}

/* OR in 64-bit words where possible; payloads are 64-byte aligned and a multiple of 64
 * bytes except a classic filter's tail. memcpy keeps the word access free of aliasing UB
 * (the compiler turns it into plain loads and stores, and vectorises the loop). */
static void or_bytes(uint8_t *dst, const uint8_t *src, uint64_t n) {
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t a, b;
        memcpy(&a, dst + i, 8);
        memcpy(&b, src + i, 8);
        a |= b;
        memcpy(dst + i, &a, 8);
    }
    for (; i < n; i++) dst[i] |= src[i];
}

void bb_merge_or(bb_filter *dst, const bb_filter *src) {
    or_bytes(dst->data, src->data, dst->payload_bytes);
    dst->keys_added = bb_sat_add(dst->keys_added, src->keys_added);
}

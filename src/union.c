/*
 * union.c - bb_union: merging filters of identical geometry. A Bloom filter of a set is the
 * bitwise OR of the filters of its parts when both use the same bits, k, seed and layout
 * (Broder and Mitzenmacher, "Network Applications of Bloom Filters", 2004, section 2.1), so
 * the union of filters built from two halves is byte-identical to the filter of the whole.
 * Counting filters add their counters instead, saturating at 15 (a saturated side keeps the
 * sum saturated, so no count is ever under-reported). Scalable filters merge sub-filter by
 * sub-filter, only when both stacks have the same shape.
 *
 * Everything is checked before the first byte of dst changes, so a refused union leaves dst
 * as it was.
 */
#include "internal.h"

#include <string.h>

const char *bb_mismatch_name(bb_mismatch m) {
    switch (m) {
    case BB_MATCH: return "match";
    case BB_MISMATCH_KIND: return "kind";
    case BB_MISMATCH_BITS: return "bits";
    case BB_MISMATCH_K: return "k";
    case BB_MISMATCH_SEED: return "seed";
    case BB_MISMATCH_LAYOUT: return "layout";
    }
    return "unknown";
}

static bb_mismatch geometry_mismatch(const bb_filter *a, const bb_filter *b) {
    if (a->kind != b->kind) return BB_MISMATCH_KIND;
    if (a->bits != b->bits) return BB_MISMATCH_BITS;
    if (a->k != b->k) return BB_MISMATCH_K;
    if (a->seed != b->seed) return BB_MISMATCH_SEED;
    return BB_MATCH;
}

/* Scalable: bits and k of the parents are sums and the newest's k, so compare the stacks. */
static bb_mismatch compare(const bb_filter *a, const bb_filter *b) {
    if (a->kind != BB_SCALABLE || b->kind != BB_SCALABLE) return geometry_mismatch(a, b);
    if (a->seed != b->seed) return BB_MISMATCH_SEED;
    if (a->n_subs != b->n_subs) return BB_MISMATCH_LAYOUT;
    for (size_t i = 0; i < a->n_subs; i++)
        if (geometry_mismatch(a->subs[i], b->subs[i]) != BB_MATCH) return BB_MISMATCH_LAYOUT;
    return BB_MATCH;
}

bb_status bb_union_check(const bb_filter *dst, const bb_filter *src, bb_mismatch *what) {
    if (!dst || !src) return BB_E_INVAL;
    bb_mismatch m = compare(dst, src);
    if (what) *what = m;
    return m == BB_MATCH ? BB_OK : BB_E_MISMATCH;
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

/* Merge one payload-holding filter (not scalable) whose geometry matched. */
static void merge_payload(bb_filter *dst, const bb_filter *src) {
    if (dst->kind == BB_COUNTING)
        bb_counting_merge(dst->data, src->data, dst->payload_bytes);
    else
        or_bytes(dst->data, src->data, dst->payload_bytes);
    dst->keys_added = bb_sat_add(dst->keys_added, src->keys_added);
}

bb_status bb_union(bb_filter *dst, const bb_filter *src) {
    bb_status s = bb_union_check(dst, src, NULL);
    if (s != BB_OK) return s;
    if (dst->storage == BB_STORE_FILE) return BB_E_READONLY;
    if (dst->kind != BB_SCALABLE) {
        merge_payload(dst, src);
        return BB_OK;
    }
    for (size_t i = 0; i < dst->n_subs; i++) merge_payload(dst->subs[i], src->subs[i]);
    bb_scalable_recount(dst);
    return BB_OK;
}

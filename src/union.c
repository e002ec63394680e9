/* SPDX-License-Identifier: MIT */
/*
 * union.c - bb_union: merging filters of identical geometry. A Bloom filter of a set is the
 * bitwise OR of the filters of its parts when both use the same bits, k, seed and layout
 * (Broder and Mitzenmacher, "Network Applications of Bloom Filters", 2004, section 2.1), so
 * the union of filters built from two halves is byte-identical to the filter of the whole.
 * Each kind's row decides what matching means and how payloads merge (bit kinds OR,
 * counting adds counters, scalable merges sub-filter by sub-filter, see src/kinds/).
 *
 * Everything is checked before the first byte of dst changes, so a refused union leaves dst
 * as it was.
 */
#include "internal.h"

const char *bb_mismatch_name(bb_mismatch m) {
    switch (m) {
    case BB_MATCH: return "match";
    case BB_MISMATCH_KIND: return "kind";
    case BB_MISMATCH_BITS: return "bits";
    case BB_MISMATCH_K: return "k";
    case BB_MISMATCH_SEED: return "seed";
    case BB_MISMATCH_LAYOUT: return "layout";
    case BB_MISMATCH_KEYS: return "keys";
    }
    return "unknown";
}

static bb_mismatch compare(const bb_filter *a, const bb_filter *b) {
    const bb_kind_ops *row = bb_row(a);
    return row->union_check ? row->union_check(a, b) : bb_geometry_mismatch(a, b);
}

bb_status bb_union_check(const bb_filter *dst, const bb_filter *src, bb_mismatch *what) {
    if (!dst || !src) return BB_E_INVAL;
    bb_mismatch m = compare(dst, src);
    if (m == BB_MATCH && dst->scheme.keys != src->scheme.keys) m = BB_MISMATCH_KEYS;
    if (what) *what = m;
    return m == BB_MATCH ? BB_OK : BB_E_MISMATCH;
}

bb_status bb_union(bb_filter *dst, const bb_filter *src) {
    bb_status s = bb_union_check(dst, src, NULL);
    if (s != BB_OK) return s;
    if (dst->storage == BB_STORE_FILE) return BB_E_READONLY;
    bb_row(dst)->merge(dst, src);
    for (int i = 0; i < 3; i++) dst->scheme.prefixes.words[i] |= src->scheme.prefixes.words[i];
    dst->scheme.prefixes.ipv4 |= src->scheme.prefixes.ipv4;
    return BB_OK;
}

/* SPDX-License-Identifier: MIT */
/*
 * sbbf.c - a Parquet column chunk's split-block Bloom filter as a blockbloom filter: the
 * validated bitset (meta.c) copied into a BB_SPLIT filter, whose layout is exactly
 * BloomFilter.md's (256-bit blocks of eight 32-bit words, XXH64 seed 0 of the PLAIN value).
 */
#include "pq.h"

bb_status bb_pq_chunk_filter(const bb_pq_file *pf, size_t rg, size_t col, bb_filter **out,
                             bool *pow2) {
    bb_error_clear();
    if (!out) return pq_fail(BB_E_INVAL, "invalid argument");
    *out = NULL;
    const void *bits;
    size_t len;
    bb_status s = bb_pq_chunk_bitset(pf, rg, col, &bits, &len, pow2);
    if (s != BB_OK) return s;
    s = bb_split_from_bitset(out, bits, len);
    if (s != BB_OK)
        return pq_fail(s, "row group %zu, column '%s': %s", rg, pf->cols[col].name,
                       bb_strerror(s));
    return BB_OK;
}

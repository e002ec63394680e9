/* SPDX-License-Identifier: MIT */
/*
 * avx512gfni_mask.h - the avx512gfni kernel's mask of a key's probes, all probes of a pass
 * at once as GF(2) products (the method is in blocked_avx512gfni.c), shared by that kernel's
 * add and the concurrent add kernel conc_avx512gfni.c. Included only by files
 * compiled with blocked_avx512gfni.c's flags, after SIMDe's avx512.h and gfni.h and
 * avx512_probes.h. Little-endian word view: x86 only.
 */
#ifndef BB_AVX512GFNI_MASK_H
#define BB_AVX512GFNI_MASK_H

#include "../internal.h"

/* Byte 8c + j of the transposed rows is byte c of probe j's 64-bit row onehot64(B_j), whose
 * bytes 0-3 are in lane j of `lo` (source index 4j + c) and bytes 4-7 in lane j of `hi`
 * (second source, index 64 + 4j + c - 4). Listed from byte 63 down, as _mm512_set_epi8 wants. */
#define ROW_BYTES(c, base)                                                                     \
    (char)((base) + 28 + (c)), (char)((base) + 24 + (c)), (char)((base) + 20 + (c)),            \
    (char)((base) + 16 + (c)), (char)((base) + 12 + (c)), (char)((base) + 8 + (c)),             \
    (char)((base) + 4 + (c)), (char)((base) + (c))

/* Affine-product matrices whose byte b is 1 << b (transposes rows onto bytes, probe j on bit
 * 7 - j) and 1 << (7 - b) (the same, with byte b holding bit 7 - b: what the final product's
 * matrix rows must be, since gf2p8affineqb takes matrix row i from byte 7 - i). */
#define TRANSPOSE_UP INT64_C(0x8040201008040201)
#define TRANSPOSE_DOWN INT64_C(0x0102040810204080)

/** The mask of probes j0 .. j0+kk-1 (1 <= kk <= 8) of hash-low-half lo. */
#define BB_INLINE static inline __attribute__((always_inline))

BB_INLINE simde__m512i gfni_mask8(uint32_t lo, unsigned j0, unsigned kk) {
    const simde__m256i lanes = simde_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const simde__m256i one = simde_mm256_set1_epi32(1);
    simde__m256i x = simde_mm256_mullo_epi32(
        simde_mm256_set1_epi32((int32_t)lo),
        simde_mm256_loadu_si256((const simde__m256i *)(const void *)(bb_probe_powers + j0)));
    simde__m256i p = simde_mm256_srli_epi32(x, BB_PROBE_SHIFT);
    /* keep lane j if j < kk and no lane before it has the same position */
    simde__m256i earlier = simde_mm256_and_si256(
        simde_mm256_conflict_epi32(p), simde_mm256_set1_epi32((int32_t)((1u << kk) - 1u)));
    simde__m256i keep = simde_mm256_and_si256(
        simde_mm256_cmpeq_epi32(earlier, simde_mm256_setzero_si256()),
        simde_mm256_cmpgt_epi32(simde_mm256_set1_epi32((int32_t)kk), lanes));
    /* M: rows onehot8(i_j) (byte 0 of each lane, gathered into bytes 0-7), transposed */
    simde__m256i bit_rows = simde_mm256_and_si256(
        simde_mm256_sllv_epi32(one, simde_mm256_and_si256(p, simde_mm256_set1_epi32(7))), keep);
    const simde__m256i gather = simde_mm256_setr_epi8(0, 4, 8, 12, 16, 20, 24, 28, 0, 0, 0, 0, 0,
                                                      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                                      0, 0, 0, 0, 0);
    simde__m128i m = simde_mm_gf2p8affine_epi64_epi8(
        simde_mm_set1_epi64x(TRANSPOSE_DOWN),
        simde_mm256_castsi256_si128(simde_mm256_permutexvar_epi8(gather, bit_rows)), 0);
    /* X: rows onehot64(B_j) as two 32-bit halves (vpsllvd gives 0 for counts of 32 and
     * more, and B - 32 < 0 is such a count as unsigned), bytes then bits transposed */
    simde__m256i byte = simde_mm256_srli_epi32(p, 3);
    simde__m256i row_lo = simde_mm256_sllv_epi32(one, byte);
    simde__m256i row_hi =
        simde_mm256_sllv_epi32(one, simde_mm256_sub_epi32(byte, simde_mm256_set1_epi32(32)));
    const simde__m512i by_byte = simde_mm512_set_epi8(
        ROW_BYTES(3, 64), ROW_BYTES(2, 64), ROW_BYTES(1, 64), ROW_BYTES(0, 64),
        ROW_BYTES(3, 0), ROW_BYTES(2, 0), ROW_BYTES(1, 0), ROW_BYTES(0, 0));
    simde__m512i rows = simde_mm512_permutex2var_epi8(simde_mm512_castsi256_si512(row_lo),
                                                      by_byte, simde_mm512_castsi256_si512(row_hi));
    simde__m512i xb =
        simde_mm512_gf2p8affine_epi64_epi8(simde_mm512_set1_epi64(TRANSPOSE_UP), rows, 0);
    return simde_mm512_gf2p8affine_epi64_epi8(xb, simde_mm512_broadcastq_epi64(m), 0);
}

/* Probes j0 .. k-1: one at a time when there are at most BB_GFNI_MIN_PROBES (each costs
 * ~2.5 cycles, a pass of products ~10), else in one pass of up to 8: at k = 4 the two masks
 * tie (2.76 against 2.82 ns/key, 12 KiB filter), at k = 6 the pass wins 2.79 to 4.25 (Zen 4,
 * EPYC family 25 model 17; the other k in docs/PERFORMANCE.md, "Kernel notes"). Every
 * function here is always inlined: GCC 12 otherwise called the set as a function, with k
 * unknown, for some k (12, 14: 8.5 ns/key instead of 5.5). */
#define BB_GFNI_MIN_PROBES 3
BB_INLINE simde__m512i gfni_pass(uint32_t lo, unsigned j0, unsigned k) {
    return k - j0 <= BB_GFNI_MIN_PROBES ? bb_avx512_probe_mask(lo, j0, k)
                                        : gfni_mask8(lo, j0, k - j0);
}

/* k <= BB_MAX_K = 16: probes 0-7, then 8-15. */
BB_INLINE simde__m512i gfni_key_mask(uint32_t lo, unsigned k) {
    simde__m512i mask = gfni_pass(lo, 0, k < 8 ? k : 8);
    if (k > 8) mask = simde_mm512_or_si512(mask, gfni_pass(lo, 8, k));
    return mask;
}

#endif /* BB_AVX512GFNI_MASK_H */

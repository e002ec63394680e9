/* SPDX-License-Identifier: MIT */
/*
 * avx512_line_masks.h - the AVX-512F mask of a key's probes as the OR of one table row per
 * probe, for the avx512 add kernels (blocked_avx512.c, conc_avx512.c). Row p of
 * bb_line_masks (linemasks_avx512.c) is the 64-byte block with only bit p set, so a probe
 * costs one 64-byte load, which the core issues beside the others, and one OR. The
 * probe-at-a-time mask of avx512_probes.h spends a broadcast, a subtract and a variable
 * shift per probe on the vector ports instead, and the scalar add a multiply and a byte
 * read-modify-write. Pre-hashed batch adds of 10^6 keys at 1% (k = 6) took 0.74-0.75x the
 * probe-at-a-time mask's time on the Xeon of model CFh, and 0.95-0.97x the scalar add's
 * (docs/PERFORMANCE.md, "Kernel notes"). The rows are 32 KiB, which that CPU's 48 KiB L1d
 * keeps beside the filter's lines: rows from 4 KiB of the table ran within a few percent.
 * Included only by files compiled with -mavx512f, after SIMDe's avx512.h. Little-endian
 * word view: x86 only.
 */
#ifndef BB_AVX512_LINE_MASKS_H
#define BB_AVX512_LINE_MASKS_H

#include "../internal.h"

extern const uint64_t bb_line_masks[BB_BLOCK_BITS][8];

/* Probes j0 .. j0 + kk - 1 (kk <= 8) ORed into mask: their positions from one 8-lane
 * multiply, as byte offsets of their rows (GCC moves them to registers with extracts, which
 * measured no slower than a trip through the stack). */
static inline __attribute__((always_inline)) simde__m512i
bb_line_mask_pass(simde__m512i mask, uint32_t lo, unsigned j0, unsigned kk) {
    simde__m256i x = simde_mm256_mullo_epi32(
        simde_mm256_set1_epi32((int32_t)lo),
        simde_mm256_loadu_si256((const simde__m256i *)(const void *)(bb_probe_powers + j0)));
    simde__m256i off = simde_mm256_slli_epi32(simde_mm256_srli_epi32(x, BB_PROBE_SHIFT), 6);
    _Alignas(32) uint32_t o[8];
    simde_mm256_store_si256((simde__m256i *)(void *)o, off);
    const char *rows = (const char *)bb_line_masks;
    for (unsigned j = 0; j < kk && j < 8; j++)
        mask = simde_mm512_or_si512(mask, simde_mm512_load_si512((const void *)(rows + o[j])));
    return mask;
}

/** The 512-bit mask of all k probes of hash-low-half lo (k <= BB_MAX_K = 16). */
static inline __attribute__((always_inline)) simde__m512i bb_avx512_line_mask(uint32_t lo,
                                                                              unsigned k) {
    simde__m512i mask = bb_line_mask_pass(simde_mm512_setzero_si512(), lo, 0, k < 8 ? k : 8);
    if (k > 8) mask = bb_line_mask_pass(mask, lo, 8, k - 8);
    return mask;
}

#endif /* BB_AVX512_LINE_MASKS_H */

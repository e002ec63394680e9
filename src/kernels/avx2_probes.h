/* SPDX-License-Identifier: MIT */
/*
 * avx2_probes.h - the AVX2 mask of a key's probes, shared by the avx2 kernel's add (blocked_avx2.c)
 * and the AVX2 concurrent add (conc_avx2.c). Included only by files compiled with -mavx2,
 * after SIMDe's avx2.h.
 *
 * The mask is two 256-bit halves (bits 0-255 and 256-511 of the block): probe p is bit
 * p - 32w of 32-bit word w, so a variable shift of 1 by (p - 32w) over the words of each half
 * sets it and nothing else (vpsllvd gives 0 for counts of 32 and more, which p - 32w < 0 is as
 * unsigned). Little-endian word view: x86 only.
 */
#ifndef BB_AVX2_PROBES_H
#define BB_AVX2_PROBES_H

#include "../internal.h"

/** The mask of probes 0 .. k-1 of hash-low-half lo, as its low and high 256-bit halves. */
static inline __attribute__((always_inline)) void
bb_avx2_probe_mask(uint32_t lo, unsigned k, simde__m256i *m_lo, simde__m256i *m_hi) {
    const simde__m256i base_lo = simde_mm256_setr_epi32(0, 32, 64, 96, 128, 160, 192, 224);
    const simde__m256i base_hi = simde_mm256_setr_epi32(256, 288, 320, 352, 384, 416, 448, 480);
    const simde__m256i one = simde_mm256_set1_epi32(1);
    simde__m256i a = simde_mm256_setzero_si256(), b = a;
    for (unsigned j = 0; j < k; j++) {
        simde__m256i p =
            simde_mm256_set1_epi32((int32_t)((lo * bb_probe_powers[j]) >> BB_PROBE_SHIFT));
        a = simde_mm256_or_si256(a, simde_mm256_sllv_epi32(one, simde_mm256_sub_epi32(p, base_lo)));
        b = simde_mm256_or_si256(b, simde_mm256_sllv_epi32(one, simde_mm256_sub_epi32(p, base_hi)));
    }
    *m_lo = a;
    *m_hi = b;
}

#endif /* BB_AVX2_PROBES_H */

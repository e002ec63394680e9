/* SPDX-License-Identifier: MIT */
/*
 * avx512_probes.h - the AVX-512F mask of a key's probes built one probe at a time, shared by
 * the avx512 kernel (its whole add) and the avx512gfni kernel (for few probes, where it is the
 * cheaper of the two). Included only by files compiled with -mavx512f, after SIMDe's
 * avx512.h.
 *
 * Probe p sets bit p of the block, that is bit p - 64w of 64-bit word w, so one variable
 * shift of 1 by (p - 64w) over the 8 words sets it and nothing else (vpsllvq gives 0 for
 * counts of 64 and more, and p - 64w < 0 is such a count as unsigned). Little-endian word
 * view: x86 only.
 */
#ifndef BB_AVX512_PROBES_H
#define BB_AVX512_PROBES_H

#include "../internal.h"

/** The 512-bit mask of probes j0 .. k-1 of hash-low-half lo (k <= BB_MAX_K). */
static inline __attribute__((always_inline)) simde__m512i
bb_avx512_probe_mask(uint32_t lo, unsigned j0, unsigned k) {
    const simde__m512i word_base = simde_mm512_set_epi64(448, 384, 320, 256, 192, 128, 64, 0);
    const simde__m512i one = simde_mm512_set1_epi64(1);
    simde__m512i mask = simde_mm512_setzero_si512();
    for (unsigned j = j0; j < k && j < BB_MAX_K; j++) {
        int64_t p = (int64_t)((lo * bb_probe_powers[j]) >> BB_PROBE_SHIFT);
        simde__m512i shift = simde_mm512_sub_epi64(simde_mm512_set1_epi64(p), word_base);
        mask = simde_mm512_or_si512(mask, simde_mm512_sllv_epi64(one, shift));
    }
    return mask;
}

/** block |= mask, one 64-byte load and store. */
static inline __attribute__((always_inline)) void bb_avx512_or_block(uint8_t *block,
                                                                    simde__m512i mask) {
    simde__m512i old = simde_mm512_load_si512((const void *)block);
    simde_mm512_store_si512((void *)block, simde_mm512_or_si512(old, mask));
}

#endif /* BB_AVX512_PROBES_H */

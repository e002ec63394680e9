/* SPDX-License-Identifier: MIT */
/*
 * sectorized_avx512.c - the sectorized kernel with AVX-512F through SIMDe; this file alone is
 * compiled with its ISA's flags, and dispatch.c picks it on every CPU with AVX-512F and VL
 * (also under BB_ISA=avx512 or avx512gfni). A line is one register of 8 64-bit lanes, one per
 * word, so for k = 8 a key's mask is a broadcast of lo, one vpmuludq by the salts (the low
 * 32 bits of each 64-bit product are lo * salt mod 2^32), a shift by 26 and a rotate of 1 by
 * that count (vprolvq takes the count mod 64, so bits 26-31 of the product are the bit
 * number with no AND); k = 16 ORs a second such mask. A test is an and-not with the line and
 * one vptestmq; an add one OR and aligned store. k < 8 (runs of fewer words, high FPRs)
 * takes the reference code. x86 only, so the little-endian word view is the byte layout.
 */
#include "sectorized_test.h"

#define SIMDE_ENABLE_NATIVE_ALIASES_NONE
#include <simde/x86/avx512.h>

static inline simde__m512i mask8(simde__m512i lo, unsigned half) {
    simde__m512i x = simde_mm512_mul_epu32(lo, simde_mm512_load_si512((const void *)(bb_sect_salts + 8 * half)));
    return simde_mm512_rolv_epi64(simde_mm512_set1_epi64(1), simde_mm512_srli_epi64(x, 26));
}

static inline __attribute__((always_inline)) simde__m512i key_mask(uint32_t lo, unsigned k) {
    simde__m512i l = simde_mm512_set1_epi32((int32_t)lo);
    simde__m512i m = mask8(l, 0);
    return k == 16 ? simde_mm512_or_si512(m, mask8(l, 1)) : m;
}

static inline __attribute__((always_inline)) bool avx512_sect_test(const uint8_t *line, uint32_t lo,
                                                                   unsigned k) {
    if (k < 8) return bb_sect_test_k(line, lo, k);
    simde__m512i miss = simde_mm512_andnot_si512(simde_mm512_load_si512((const void *)line), key_mask(lo, k));
    return simde_mm512_test_epi64_mask(miss, miss) == 0;
}

static inline __attribute__((always_inline)) void avx512_sect_set(uint8_t *line, uint32_t lo, unsigned k) {
    if (k < 8) {
        bb_sect_line_set(line, lo, k);
        return;
    }
    simde__m512i *p = (simde__m512i *)(void *)line;
    simde_mm512_store_si512(p, simde_mm512_or_si512(simde_mm512_load_si512(p), key_mask(lo, k)));
}

#define KERNEL_NAME sectorized_avx512
#define KERNEL_ISA BB_ISA_AVX512
#define KERNEL_TEST avx512_sect_test
#define KERNEL_SET avx512_sect_set
#include "blocked_loops.h"

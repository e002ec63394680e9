/* SPDX-License-Identifier: MIT */
/*
 * sectorized_avx2.c - the sectorized kernel with AVX2 through SIMDe; compiled alone with
 * -mavx2, dispatch.c's choice on CPUs with AVX2 but not AVX-512. A line is two
 * registers of 4 64-bit lanes, one per word: for k = 8 a key's mask is a broadcast of lo, a
 * vpmuludq by the salts per half (the low 32 bits of each product are lo * salt mod 2^32),
 * bits 26-31 of it as the count (shift and AND; AVX2 has no 64-bit rotate) and a vpsllvq of
 * 1; k = 16 ORs a second such mask. A test is a vptest (all mask bits set) per half; an add
 * one OR and store per half. k < 8 takes the reference code. x86 only, so the little-endian
 * word view is the byte layout.
 */
#include "sectorized_test.h"

#define SIMDE_ENABLE_NATIVE_ALIASES_NONE
#include <simde/x86/avx2.h>

/* Mask of words 4q .. 4q + 3 for salts s .. s + 3. */
static inline simde__m256i mask4(simde__m256i lo, unsigned s) {
    simde__m256i x = simde_mm256_mul_epu32(lo, simde_mm256_load_si256((const void *)(bb_sect_salts + s)));
    simde__m256i c = simde_mm256_and_si256(simde_mm256_srli_epi64(x, 26), simde_mm256_set1_epi64x(63));
    return simde_mm256_sllv_epi64(simde_mm256_set1_epi64x(1), c);
}

static inline __attribute__((always_inline)) simde__m256i half_mask(simde__m256i lo, unsigned q,
                                                                    unsigned k) {
    simde__m256i m = mask4(lo, 4 * q);
    return k == 16 ? simde_mm256_or_si256(m, mask4(lo, 8 + 4 * q)) : m;
}

static inline __attribute__((always_inline)) bool avx2_sect_test(const uint8_t *line, uint32_t lo,
                                                                 unsigned k) {
    if (k < 8) return bb_sect_test_k(line, lo, k);
    simde__m256i l = simde_mm256_set1_epi32((int32_t)lo);
    const simde__m256i *p = (const simde__m256i *)(const void *)line;
    return (simde_mm256_testc_si256(simde_mm256_load_si256(p), half_mask(l, 0, k)) &
            simde_mm256_testc_si256(simde_mm256_load_si256(p + 1), half_mask(l, 1, k))) != 0;
}

static inline __attribute__((always_inline)) void avx2_sect_set(uint8_t *line, uint32_t lo, unsigned k) {
    if (k < 8) {
        bb_sect_line_set(line, lo, k);
        return;
    }
    simde__m256i l = simde_mm256_set1_epi32((int32_t)lo);
    simde__m256i *p = (simde__m256i *)(void *)line;
    simde_mm256_store_si256(p, simde_mm256_or_si256(simde_mm256_load_si256(p), half_mask(l, 0, k)));
    simde_mm256_store_si256(p + 1, simde_mm256_or_si256(simde_mm256_load_si256(p + 1), half_mask(l, 1, k)));
}

#define KERNEL_NAME sectorized_avx2
#define KERNEL_ISA BB_ISA_AVX2
#define KERNEL_TEST avx2_sect_test
#define KERNEL_SET avx2_sect_set
#include "blocked_loops.h"

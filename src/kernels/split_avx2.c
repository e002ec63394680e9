/* SPDX-License-Identifier: MIT */
/*
 * split_avx2.c - the split-block kernel with AVX2 through SIMDe; compiled alone with -mavx2,
 * chosen when the blocked kernel in use is AVX2 or AVX-512 (kinds/split.c). A 256-bit block
 * is exactly one register: the 8 bit numbers are one vpmulld of lo by the salts and a shift
 * by 27, the mask one vpsllvd of 1; a test is one vptest (all mask bits set), an add one OR
 * and store. x86 only, so the little-endian word view is the byte layout. An AVX-512 variant
 * (two keys per 512-bit register) was not written: a key costs a handful of instructions
 * here, and the loop is bound by the block's cache miss, not by them.
 */
#include "../internal.h"

#define SIMDE_ENABLE_NATIVE_ALIASES_NONE
#include <simde/x86/avx2.h>

static inline simde__m256i avx2_split_mask(uint32_t lo) {
    simde__m256i salts = simde_mm256_loadu_si256((const void *)bb_split_salts);
    simde__m256i x = simde_mm256_mullo_epi32(simde_mm256_set1_epi32((int32_t)lo), salts);
    return simde_mm256_sllv_epi32(simde_mm256_set1_epi32(1), simde_mm256_srli_epi32(x, 27));
}

static inline bool avx2_split_test(const uint8_t *block, uint32_t lo) {
    simde__m256i words = simde_mm256_load_si256((const void *)block);
    return simde_mm256_testc_si256(words, avx2_split_mask(lo)) != 0;
}

static inline void avx2_split_set(uint8_t *block, uint32_t lo) {
    simde__m256i *p = (simde__m256i *)(void *)block;
    simde_mm256_store_si256(p, simde_mm256_or_si256(simde_mm256_load_si256(p), avx2_split_mask(lo)));
}

#define SPLIT_NAME avx2
#define SPLIT_ISA BB_ISA_AVX2
#define SPLIT_TEST avx2_split_test
#define SPLIT_SET avx2_split_set
#include "split_loops.h"

/* SPDX-License-Identifier: MIT */
/*
 * split_neon.c - the split-block kernel with NEON through SIMDe. Native on AArch64 (chosen
 * with the blocked NEON kernel, at compile time); elsewhere SIMDe emulates it, so the same
 * code is tested against the scalar kernel on every machine (BB_ISA=neon). A block is two
 * 4 x 32-bit registers; the 8 bit numbers are lo * salt >> 27, the mask 1 << that. Words
 * are little-endian in the payload: loaded as bytes and, on a big-endian machine, byte-
 * reversed within each word (vrev32q_u8), so lanes hold the little-endian values everywhere.
 */
#include "../internal.h"

#define SIMDE_ENABLE_NATIVE_ALIASES_NONE
#include <simde/arm/neon.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define WORD_ORDER(v) simde_vrev32q_u8(v)
#else
#define WORD_ORDER(v) (v)
#endif

static inline simde_uint32x4_t load_words(const uint8_t *p) {
    return simde_vreinterpretq_u32_u8(WORD_ORDER(simde_vld1q_u8(p)));
}

static inline void store_words(uint8_t *p, simde_uint32x4_t w) {
    simde_vst1q_u8(p, WORD_ORDER(simde_vreinterpretq_u8_u32(w)));
}

static inline simde_uint32x4_t neon_mask(uint32_t lo, unsigned i0) {
    simde_uint32x4_t x = simde_vmulq_u32(simde_vdupq_n_u32(lo), simde_vld1q_u32(bb_split_salts + i0));
    simde_int32x4_t shift = simde_vreinterpretq_s32_u32(simde_vshrq_n_u32(x, 27));
    return simde_vshlq_u32(simde_vdupq_n_u32(1), shift);
}

static inline bool neon_split_test(const uint8_t *block, uint32_t lo) {
    simde_uint32x4_t miss = simde_vorrq_u32(simde_vbicq_u32(neon_mask(lo, 0), load_words(block)),
                                            simde_vbicq_u32(neon_mask(lo, 4), load_words(block + 16)));
    return simde_vmaxvq_u32(miss) == 0;
}

static inline void neon_split_set(uint8_t *block, uint32_t lo) {
    store_words(block, simde_vorrq_u32(load_words(block), neon_mask(lo, 0)));
    store_words(block + 16, simde_vorrq_u32(load_words(block + 16), neon_mask(lo, 4)));
}

#define SPLIT_NAME neon
#define SPLIT_ISA BB_ISA_NEON
#define SPLIT_TEST neon_split_test
#define SPLIT_SET neon_split_set
#include "split_loops.h"

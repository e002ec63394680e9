/* SPDX-License-Identifier: MIT */
/*
 * sectorized_neon.c - the sectorized kernel with NEON through SIMDe. Native on AArch64
 * (chosen at compile time); elsewhere SIMDe emulates it, so the
 * same code is tested against the scalar kernel on every machine (BB_ISA=neon). A line is
 * four 2 x 64-bit registers, one lane per word: for k = 8 the 8 products lo * salt come from
 * four vmull_u32 (32 x 32 -> 64 bits; the salts narrowed from their 64-bit lanes), bits
 * 26-31 of each are the count and the mask is 1 shifted by it (vshlq_u64); k = 16 ORs a
 * second such mask. k < 8 takes the reference code.
 * Words are little-endian in the payload: loaded as bytes and, on a big-endian machine,
 * byte-reversed within each word (vrev64q_u8), so lanes hold the little-endian values.
 */
#include "sectorized_test.h"

#define SIMDE_ENABLE_NATIVE_ALIASES_NONE
#include <simde/arm/neon.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define WORD_ORDER(v) simde_vrev64q_u8(v)
#else
#define WORD_ORDER(v) (v)
#endif

static inline simde_uint64x2_t load_words(const uint8_t *p) {
    return simde_vreinterpretq_u64_u8(WORD_ORDER(simde_vld1q_u8(p)));
}

static inline void store_words(uint8_t *p, simde_uint64x2_t w) {
    simde_vst1q_u8(p, WORD_ORDER(simde_vreinterpretq_u8_u64(w)));
}

/* Mask of words 2q, 2q + 1 (salts 2q, 2q + 1, and 8 + 2q, 9 + 2q for k = 16). */
static inline simde_uint64x2_t pair_mask(uint32_t lo, unsigned q, unsigned k) {
    simde_uint32x2_t l = simde_vdup_n_u32(lo);
    simde_uint64x2_t one = simde_vdupq_n_u64(1), bits = simde_vdupq_n_u64(63);
    simde_uint64x2_t x = simde_vmull_u32(l, simde_vmovn_u64(simde_vld1q_u64(bb_sect_salts + 2 * q)));
    simde_int64x2_t c = simde_vreinterpretq_s64_u64(simde_vandq_u64(simde_vshrq_n_u64(x, 26), bits));
    simde_uint64x2_t m = simde_vshlq_u64(one, c);
    if (k == 16) {
        x = simde_vmull_u32(l, simde_vmovn_u64(simde_vld1q_u64(bb_sect_salts + 8 + 2 * q)));
        c = simde_vreinterpretq_s64_u64(simde_vandq_u64(simde_vshrq_n_u64(x, 26), bits));
        m = simde_vorrq_u64(m, simde_vshlq_u64(one, c));
    }
    return m;
}

static inline __attribute__((always_inline)) bool neon_sect_test(const uint8_t *line, uint32_t lo,
                                                                 unsigned k) {
    if (k < 8) return bb_sect_test_k(line, lo, k);
    simde_uint64x2_t miss = simde_vdupq_n_u64(0);
    for (unsigned q = 0; q < 4; q++)
        miss = simde_vorrq_u64(miss, simde_vbicq_u64(pair_mask(lo, q, k), load_words(line + 16 * q)));
    return (simde_vgetq_lane_u64(miss, 0) | simde_vgetq_lane_u64(miss, 1)) == 0;
}

static inline __attribute__((always_inline)) void neon_sect_set(uint8_t *line, uint32_t lo, unsigned k) {
    if (k < 8) {
        bb_sect_line_set(line, lo, k);
        return;
    }
    for (unsigned q = 0; q < 4; q++)
        store_words(line + 16 * q, simde_vorrq_u64(load_words(line + 16 * q), pair_mask(lo, q, k)));
}

#define KERNEL_NAME sectorized_neon
#define KERNEL_ISA BB_ISA_NEON
#define KERNEL_TEST neon_sect_test
#define KERNEL_SET neon_sect_set
#include "blocked_loops.h"

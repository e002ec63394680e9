/* SPDX-License-Identifier: MIT */
/*
 * blocked_neon.c - NEON block test through SIMDe. On AArch64 it is native and chosen at
 * compile time; on x86 SIMDe emulates it with SSE, so the same code is tested against the
 * scalar kernel on every machine (BB_ISA=neon), though there it is not fast and never picked
 * automatically.
 * The 64-byte block is a 4-register table: one TBL (vqtbl4q_u8) fetches byte p_j >> 3 for all
 * 16 probes at once, and each byte is tested against 1 << (p_j & 7); lanes j >= k pass.
 */
#include "../internal.h"

#define SIMDE_ENABLE_NATIVE_ALIASES_NONE
#include <simde/arm/neon.h>

static inline simde_uint16x8_t neon_positions(uint32_t lo, unsigned j0) {
    simde_uint32x4_t l = simde_vdupq_n_u32(lo);
    simde_uint32x4_t a = simde_vshrq_n_u32(simde_vmulq_u32(l, simde_vld1q_u32(bb_probe_powers + j0)), BB_PROBE_SHIFT);
    simde_uint32x4_t b = simde_vshrq_n_u32(simde_vmulq_u32(l, simde_vld1q_u32(bb_probe_powers + j0 + 4)), BB_PROBE_SHIFT);
    return simde_vcombine_u16(simde_vmovn_u32(a), simde_vmovn_u32(b));
}

static const uint8_t lane_index[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

static inline bool neon_test(const uint8_t *block, uint32_t lo, unsigned k) {
    simde_uint8x16x4_t table = {{simde_vld1q_u8(block), simde_vld1q_u8(block + 16),
                                 simde_vld1q_u8(block + 32), simde_vld1q_u8(block + 48)}};
    simde_uint16x8_t p0 = neon_positions(lo, 0), p1 = neon_positions(lo, 8);
    simde_uint8x16_t byte_idx = simde_vcombine_u8(simde_vmovn_u16(simde_vshrq_n_u16(p0, 3)),
                                                  simde_vmovn_u16(simde_vshrq_n_u16(p1, 3)));
    simde_uint8x16_t bit_idx = simde_vandq_u8(
        simde_vcombine_u8(simde_vmovn_u16(p0), simde_vmovn_u16(p1)), simde_vdupq_n_u8(7));
    simde_uint8x16_t bytes = simde_vqtbl4q_u8(table, byte_idx);
    simde_uint8x16_t bit = simde_vshlq_u8(simde_vdupq_n_u8(1), simde_vreinterpretq_s8_u8(bit_idx));
    simde_uint8x16_t inactive = simde_vcgeq_u8(simde_vld1q_u8(lane_index), simde_vdupq_n_u8((uint8_t)k));
    simde_uint8x16_t ok = simde_vorrq_u8(simde_vtstq_u8(bytes, bit), inactive);
    return simde_vminvq_u8(ok) == 0xFF;
}

#define KERNEL_NAME neon
#define KERNEL_ISA BB_ISA_NEON
#define KERNEL_TEST neon_test
#include "blocked_loops.h"

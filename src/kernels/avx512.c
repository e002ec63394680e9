/*
 * avx512.c - AVX-512F block test through SIMDe; this file alone is compiled with -mavx512f so
 * SIMDe emits native instructions, and dispatch.c picks it only when the CPU has AVX-512F.
 * All 16 probes of a key are computed and checked in one pass: 16 lanes of lo * C^j, the
 * 9-bit positions p_j = x_j >> 23, word p_j >> 5 gathered from the block by one in-register
 * permute (vpermd), bit p_j & 31 tested (vptestmd); lanes j >= k are masked off.
 */
#include "../internal.h"

#define SIMDE_ENABLE_NATIVE_ALIASES_NONE
#include <simde/x86/avx512.h>

static inline bool avx512_test(const uint8_t *block, uint32_t lo, unsigned k) {
    simde__m512i words = simde_mm512_load_si512((const void *)block);
    simde__m512i x = simde_mm512_mullo_epi32(simde_mm512_set1_epi32((int32_t)lo),
                                             simde_mm512_loadu_si512((const void *)bb_probe_powers));
    simde__m512i pos = simde_mm512_srli_epi32(x, BB_PROBE_SHIFT);
    simde__m512i word = simde_mm512_permutexvar_epi32(simde_mm512_srli_epi32(pos, 5), words);
    simde__m512i bit = simde_mm512_sllv_epi32(simde_mm512_set1_epi32(1),
                                              simde_mm512_and_si512(pos, simde_mm512_set1_epi32(31)));
    simde__mmask16 want = (simde__mmask16)((1u << k) - 1u);
    return (simde_mm512_mask_test_epi32_mask(want, word, bit)) == want;
}

#define KERNEL_NAME avx512
#define KERNEL_ISA BB_ISA_AVX512
#define KERNEL_TEST avx512_test
#include "loops.h"

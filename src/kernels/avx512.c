/*
 * avx512.c - AVX-512F block test through SIMDe; this file alone is compiled with -mavx512f so
 * SIMDe emits native instructions, and dispatch.c picks it only when the CPU has AVX-512F.
 * All 16 probes of a key are computed and checked in one pass: 16 lanes of lo * C^j, the
 * 9-bit positions p_j = x_j >> 23, word p_j >> 5 gathered from the block by one in-register
 * permute (vpermd), bit p_j & 31 tested (vptestmd); lanes j >= k are masked off.
 * Adds build the key's 512-bit mask in a register and update the block with one 64-byte
 * load, OR and store, instead of k byte read-modify-writes (bb_block_set), which the core
 * cannot overlap well: probe p sets bit p of the block, that is bit p - 64w of 64-bit word w,
 * so one variable shift of 1 by (p - 64w) over the 8 words sets it and nothing else (vpsllvq
 * gives 0 for counts of 64 and more, and p - 64w < 0 is such a count as unsigned). Measured
 * per key on a 12 KiB / 12 MiB / 132 MiB filter: 5.0 / 7.3-9.1 / 12.2-13.8 ns against 6.6-7.0
 * / 8.6-11.1 / 13.4-16.1 ns for the byte updates. Little-endian word view: x86 only.
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

static inline void avx512_set(uint8_t *block, uint32_t lo, unsigned k) {
    const simde__m512i word_base = simde_mm512_set_epi64(448, 384, 320, 256, 192, 128, 64, 0);
    const simde__m512i one = simde_mm512_set1_epi64(1);
    simde__m512i mask = simde_mm512_setzero_si512();
    for (unsigned j = 0; j < k; j++) {
        int64_t p = (int64_t)((lo * bb_probe_powers[j]) >> BB_PROBE_SHIFT);
        simde__m512i shift = simde_mm512_sub_epi64(simde_mm512_set1_epi64(p), word_base);
        mask = simde_mm512_or_si512(mask, simde_mm512_sllv_epi64(one, shift));
    }
    simde_mm512_store_si512((void *)block,
                            simde_mm512_or_si512(simde_mm512_load_si512((const void *)block), mask));
}

#define KERNEL_NAME avx512
#define KERNEL_ISA BB_ISA_AVX512
#define KERNEL_TEST avx512_test
#define KERNEL_SET avx512_set
#include "loops.h"

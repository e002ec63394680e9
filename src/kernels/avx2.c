/*
 * avx2.c - the AVX2 kernel; this file alone is compiled with -mavx2, so SIMDe (adds) and
 * the header's AVX2 test emit native instructions; dispatch.c picks it only with AVX2.
 * The block test is the public header's bb_block_test_avx2 (eight probes per pass, after
 * RocksDB's FastLocalBloom AVX2 path; this file's flags compile it in), so callers' inline
 * lookups and this kernel are one piece of code.
 * Adds build the key's mask in two 256-bit registers (bits 0-255 and 256-511 of the block)
 * and update the block with one load, OR and store per half, instead of k byte
 * read-modify-writes: probe p is bit p - 32w of 32-bit word w, so a variable shift of 1 by
 * (p - 32w) over the words of each half sets it and nothing else (vpsllvd gives 0 for counts
 * of 32 and more, which p - 32w < 0 is as unsigned). Measured on a 12 KiB filter: 5.8-6.0
 * ns/key against 6.6-7.0 for the byte updates; the same on DRAM-resident filters. x86 only,
 * so the little-endian word view is the byte layout.
 */
#include "../internal.h"

#define SIMDE_ENABLE_NATIVE_ALIASES_NONE
#include <simde/x86/avx2.h>

static inline void avx2_set(uint8_t *block, uint32_t lo, unsigned k) {
    const simde__m256i base_lo = simde_mm256_setr_epi32(0, 32, 64, 96, 128, 160, 192, 224);
    const simde__m256i base_hi = simde_mm256_setr_epi32(256, 288, 320, 352, 384, 416, 448, 480);
    const simde__m256i one = simde_mm256_set1_epi32(1);
    simde__m256i m_lo = simde_mm256_setzero_si256(), m_hi = m_lo;
    for (unsigned j = 0; j < k; j++) {
        simde__m256i p = simde_mm256_set1_epi32((int32_t)((lo * bb_probe_powers[j]) >> BB_PROBE_SHIFT));
        m_lo = simde_mm256_or_si256(m_lo, simde_mm256_sllv_epi32(one, simde_mm256_sub_epi32(p, base_lo)));
        m_hi = simde_mm256_or_si256(m_hi, simde_mm256_sllv_epi32(one, simde_mm256_sub_epi32(p, base_hi)));
    }
    simde__m256i *half = (simde__m256i *)(void *)block;
    simde_mm256_store_si256(half, simde_mm256_or_si256(simde_mm256_load_si256(half), m_lo));
    simde_mm256_store_si256(half + 1, simde_mm256_or_si256(simde_mm256_load_si256(half + 1), m_hi));
}

#define KERNEL_NAME avx2
#define KERNEL_ISA BB_ISA_AVX2
#define KERNEL_TEST bb_block_test_avx2
#define KERNEL_SET avx2_set
#include "loops.h"

/*
 * conc_avx2.c - the AVX2 concurrent add kernel (conc_loops.h); this file alone is compiled
 * with -mavx2. The key's mask is built in two 256-bit registers as the plain AVX2 add builds
 * it (avx2.c: a variable shift of 1 per probe over the 32-bit words of each half), ORed
 * into plain loads of the block, and the 8 64-bit words written back with relaxed atomic
 * stores (atomic objects for the readers beside it). The caller holds the block's stripe
 * lock. Little-endian: x86 only.
 */
#include "../internal.h"
#include "../kinds/atomic_bits.h"

#define SIMDE_ENABLE_NATIVE_ALIASES_NONE
#include <simde/x86/avx2.h>

static inline bool avx2_conc_set(uint8_t *block, uint32_t lo, unsigned k) {
    const simde__m256i base_lo = simde_mm256_setr_epi32(0, 32, 64, 96, 128, 160, 192, 224);
    const simde__m256i base_hi = simde_mm256_setr_epi32(256, 288, 320, 352, 384, 416, 448, 480);
    const simde__m256i one = simde_mm256_set1_epi32(1);
    simde__m256i m_lo = simde_mm256_setzero_si256(), m_hi = m_lo;
    for (unsigned j = 0; j < k; j++) {
        simde__m256i p = simde_mm256_set1_epi32((int32_t)((lo * bb_probe_powers[j]) >> BB_PROBE_SHIFT));
        m_lo = simde_mm256_or_si256(m_lo, simde_mm256_sllv_epi32(one, simde_mm256_sub_epi32(p, base_lo)));
        m_hi = simde_mm256_or_si256(m_hi, simde_mm256_sllv_epi32(one, simde_mm256_sub_epi32(p, base_hi)));
    }
    const simde__m256i *half = (const simde__m256i *)(const void *)block;
    simde__m256i o_lo = simde_mm256_load_si256(half), o_hi = simde_mm256_load_si256(half + 1);
    bool all_set = simde_mm256_testc_si256(o_lo, m_lo) & simde_mm256_testc_si256(o_hi, m_hi);
    _Alignas(32) uint64_t w[8];
    simde_mm256_store_si256((simde__m256i *)(void *)w, simde_mm256_or_si256(o_lo, m_lo));
    simde_mm256_store_si256((simde__m256i *)(void *)(w + 4), simde_mm256_or_si256(o_hi, m_hi));
    for (unsigned i = 0; i < 8; i++)
        atomic_store_explicit(bb_word_at(block, i), w[i], memory_order_relaxed);
    return !all_set;
}

#define CONC_NAME avx2
#define CONC_ISA BB_ISA_AVX2
#define CONC_SET avx2_conc_set
#include "conc_loops.h"

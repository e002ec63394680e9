/* SPDX-License-Identifier: MIT */
/*
 * conc_avx2.c - the AVX2 concurrent add kernel (conc_loops.h); this file alone is compiled
 * with -mavx2. The key's mask is built in two 256-bit registers as the plain AVX2 add builds
 * it (avx2_probes.h: a variable shift of 1 per probe over the 32-bit words of each half), ORed
 * into plain loads of the block, and each half written back with one store (store_half).
 * The caller holds the block's stripe lock. Little-endian: x86 only.
 */
#include "../internal.h"
#include "../kinds/atomic_bits.h"

#define SIMDE_ENABLE_NATIVE_ALIASES_NONE
#include <simde/x86/avx2.h>
#include "avx2_probes.h"

/* 32 new bytes of the block: one store in asm, for conc_or512.h's reasons (its
 * bb_conc_store512). Against four relaxed atomic word stores per half, Zen 4 (EPYC family 25
 * model 17), 1-thread batch of 10^4 / 10^6 keys, ratio to the plain AVX2 add in one process,
 * medians of 61 / 21: 1.79 / 1.53 before, 1.23 / 1.04 with it. Under ThreadSanitizer,
 * the atomic stores. */
static inline void store_half(uint8_t *half, simde__m256i v) {
#if defined(BB_TSAN) || !defined(SIMDE_X86_AVX2_NATIVE)
    _Alignas(32) uint64_t w[4];
    simde_mm256_store_si256((simde__m256i *)(void *)w, v);
    for (unsigned i = 0; i < 4; i++)
        atomic_store_explicit(bb_word_at(half, i), w[i], memory_order_relaxed);
#else
    __asm__ volatile("vmovdqa %1, %0" : "=m"(*(uint8_t(*)[32])(void *)half) : "x"(v));
#endif
}

/* block |= (m_lo, m_hi), under the block's stripe lock; true if some bit was clear. */
static inline bool avx2_conc_or(uint8_t *block, simde__m256i m_lo, simde__m256i m_hi) {
    const simde__m256i *half = (const simde__m256i *)(const void *)block;
    simde__m256i o_lo = simde_mm256_load_si256(half), o_hi = simde_mm256_load_si256(half + 1);
    bool all_set = simde_mm256_testc_si256(o_lo, m_lo) & simde_mm256_testc_si256(o_hi, m_hi);
    store_half(block, simde_mm256_or_si256(o_lo, m_lo));
    store_half(block + 32, simde_mm256_or_si256(o_hi, m_hi));
    return !all_set;
}

static inline bool avx2_conc_set(uint8_t *block, uint32_t lo, unsigned k) {
    simde__m256i m_lo, m_hi;
    bb_avx2_probe_mask(lo, k, &m_lo, &m_hi);
    return avx2_conc_or(block, m_lo, m_hi);
}

static inline void avx2_conc_or_block(uint8_t *block, const uint8_t *src) {
    const simde__m256i *s = (const simde__m256i *)(const void *)src;
    avx2_conc_or(block, simde_mm256_load_si256(s), simde_mm256_load_si256(s + 1));
}

#define CONC_NAME avx2
#define CONC_ISA BB_ISA_AVX2
#define CONC_SET avx2_conc_set
#define CONC_OR_BLOCK avx2_conc_or_block
#include "conc_loops.h"

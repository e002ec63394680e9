/* SPDX-License-Identifier: MIT */
/*
 * conc_avx512.c - the AVX-512F concurrent add kernel (conc_loops.h); this file alone is
 * compiled with -mavx512f -mavx512vl. The key's 512-bit mask is the plain AVX-512 add's
 * (avx512_line_masks.h), ORed into the block by conc_or512.h. The caller holds the block's
 * stripe lock. Little-endian: x86 only.
 */
#include "../internal.h"

#define SIMDE_ENABLE_NATIVE_ALIASES_NONE
#include <simde/x86/avx512.h>
#include "avx512_line_masks.h"
#include "conc_or512.h"

static inline bool avx512_conc_set(uint8_t *block, uint32_t lo, unsigned k) {
    return bb_conc_or512(block, bb_avx512_line_mask(lo, k));
}

#define CONC_NAME avx512
#define CONC_ISA BB_ISA_AVX512
#define CONC_SET avx512_conc_set
#define CONC_OR_BLOCK bb_conc_or512_block
#include "conc_loops.h"

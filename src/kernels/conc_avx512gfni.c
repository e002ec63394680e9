/* SPDX-License-Identifier: MIT */
/*
 * conc_avx512gfni.c - the concurrent add kernel (conc_loops.h) of CPUs whose plain adds run
 * on avx512gfni: the same GF(2)-product mask (avx512gfni_mask.h), ORed into the block by
 * conc_or512.h. This file alone is compiled with blocked_avx512gfni.c's flags. The caller holds the
 * block's stripe lock. Little-endian: x86 only.
 */
#include "../internal.h"

#define SIMDE_ENABLE_NATIVE_ALIASES_NONE
#include <simde/x86/avx512.h>
#include <simde/x86/gfni.h>
#include "avx512_probes.h"
#include "avx512gfni_mask.h"
#include "conc_or512.h"

BB_INLINE bool gfni_conc_set(uint8_t *block, uint32_t lo, unsigned k) {
    return bb_conc_or512(block, gfni_key_mask(lo, k));
}

#define CONC_NAME avx512gfni
#define CONC_ISA BB_ISA_AVX512GFNI
#define CONC_SET gfni_conc_set
#define CONC_OR_BLOCK bb_conc_or512_block
#include "conc_loops.h"

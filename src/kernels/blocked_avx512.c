/* SPDX-License-Identifier: MIT */
/*
 * blocked_avx512.c - the AVX-512F kernel; this file alone is compiled with -mavx512f, so
 * SIMDe (adds) and the header's AVX-512 test emit native instructions; dispatch.c picks it
 * only with AVX-512F.
 * The block test is the public header's bb_block_test_avx512 (this file's flags compile it
 * in), so callers' inline lookups and this kernel are one piece of code.
 * Adds build the key's 512-bit mask in a register (avx512_probes.h) and update the block with
 * one 64-byte load, OR and store, instead of k byte read-modify-writes (bb_block_set), which
 * the core cannot overlap well: 5.0 ns/key against 6.6-7.0 on a 12 KiB filter (Zen 4, EPYC
 * family 25 model 17; larger filters in docs/PERFORMANCE.md, "Kernel notes"). CPUs that
 * also have GFNI and AVX512-VBMI get the avx512gfni kernel instead.
 */
#include "../internal.h"

#define SIMDE_ENABLE_NATIVE_ALIASES_NONE
#include <simde/x86/avx512.h>
#include "avx512_probes.h"

static inline void avx512_set(uint8_t *block, uint32_t lo, unsigned k) {
    bb_avx512_or_block(block, bb_avx512_probe_mask(lo, 0, k));
}

#define KERNEL_NAME avx512
#define KERNEL_ISA BB_ISA_AVX512
#define KERNEL_TEST bb_block_test_avx512
#define KERNEL_SET avx512_set
#include "blocked_loops.h"

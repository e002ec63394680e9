/* SPDX-License-Identifier: MIT */
/*
 * blocked_avx512.c - the AVX-512F kernel; this file alone is compiled with -mavx512f, so
 * SIMDe (adds) and the header's AVX-512 test emit native instructions; dispatch.c picks it
 * only with AVX-512F.
 * The block test is the public header's bb_block_test_avx512 (this file's flags compile it
 * in), so callers' inline lookups and this kernel are one piece of code.
 * Adds build the key's 512-bit mask in a register from one table row per probe
 * (avx512_line_masks.h) and update the block with one 64-byte load, OR and store, instead of
 * k byte read-modify-writes (bb_block_set), which the core cannot overlap well. The rows
 * replaced a mask shifted into place one probe at a time (avx512_probes.h), which took 5.0
 * ns/key against 6.6-7.0 for the byte updates on a 12 KiB filter (Zen 4, EPYC family 25
 * model 17) but 1.10-1.27x the byte updates' time on the Xeon of model CFh, where the rows
 * take 0.95-0.97x at 10^6 keys (docs/PERFORMANCE.md, "Kernel notes").
 */
#include "../internal.h"

#define SIMDE_ENABLE_NATIVE_ALIASES_NONE
#include <simde/x86/avx512.h>
#include "avx512_probes.h"
#include "avx512_line_masks.h"

static inline __attribute__((always_inline)) void avx512_set(uint8_t *block, uint32_t lo, unsigned k) {
    bb_avx512_or_block(block, bb_avx512_line_mask(lo, k));
}

#define KERNEL_NAME avx512
#define KERNEL_ISA BB_ISA_AVX512
#define KERNEL_TEST bb_block_test_avx512
#define KERNEL_SET avx512_set
#include "blocked_loops.h"

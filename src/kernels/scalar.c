/*
 * scalar.c - the reference kernel: the probe scheme of internal.h written out one bit at a
 * time on bytes, so it is endian-neutral and obviously right. Every SIMD kernel must give the
 * same answers (tests/test_kernels.c). It is also the kernel on CPUs with no supported SIMD.
 */
#include "../internal.h"
#include "scalar_mask.h"

const uint32_t bb_probe_powers[16] = BB_PROBE_POWERS_INIT;

/* The add: bb_block_set's byte updates, each probe's mask loaded from scalar_mask.h's table
 * instead of shifted. Measured on Zen 4 (EPYC family 25 model 17), forced scalar, two builds
 * of the library in one process, alternating calls of 2^20 pre-hashed keys, thread CPU time,
 * medians of 21 per-call ratios (table / shift): 0.79 at 10^4 keys, 0.82 at 10^6, 0.83 at
 * 10^7 (k = 6; conc_scalar.c's helper measured 0.77-0.85 the same way). Zen 1's adds run on
 * this kernel (dispatch.c). */
static inline void scalar_set(uint8_t *block, uint32_t lo, unsigned k) {
    uint32_t x = lo;
    for (unsigned j = 0; j < k; j++) {
        uint32_t p = bb_probe_next(&x);
        block[p >> 3] |= bb_scalar_mask[p];
    }
}

/* The test is the public header's inline one (bb_block_test_bytes), so the inline lookups
 * of a bb_view and this kernel are one piece of code. */
#define KERNEL_NAME scalar
#define KERNEL_ISA BB_ISA_SCALAR
#define KERNEL_TEST bb_block_test_bytes
#define KERNEL_SET scalar_set
#include "loops.h"

/* SPDX-License-Identifier: MIT */
/*
 * blocked_avx512gfni.c - the AVX-512 kernel for CPUs that also have AVX512-BW, -CD, -VBMI and
 * GFNI (Intel Ice Lake and later, AMD Zen 4 and later); this file alone is compiled with those
 * flags, and dispatch.c picks it only where the CPU reports all of them. Its block test is the
 * avx512 kernel's (the public header's bb_block_test_avx512); its add builds a key's 512-bit
 * mask from all probes at once (avx512gfni_mask.h) instead of one probe at a time.
 *
 * The k probes (at most 8 per pass) sit in the lanes of one vector, and the mask is a product
 * over GF(2), computed by GFNI's gf2p8affineqb, which multiplies each byte of one operand by
 * the 8x8 bit matrix held in the matching 64-bit lane of the other (Intel SDM,
 * "GF2P8AFFINEQB"):
 *   - for probe j with position p_j (0..511), byte B_j = p_j >> 3 and bit i_j = p_j & 7;
 *   - X_B, the set of probes whose byte is B, for all 64 bytes: the rows onehot64(B_j) of the
 *     probes, transposed (bytes by a two-source vpermb, bits by one affine product with the
 *     identity's anti-diagonal pattern);
 *   - M_i, the set of probes whose bit is i: the rows onehot8(i_j), transposed the same way;
 *   - mask byte B, bit i = parity(|X_B & M_i|): one more affine product, with M in every lane.
 * A parity is an OR only if no position is hit twice, so probes repeating an earlier probe's
 * position are dropped first (vpconflictd: about 4% of keys at k = 7 have such a pair).
 *
 * Why: the one-probe-at-a-time mask costs about 2.5 cycles per probe on Zen 4, most of an
 * add; this one took batch adds into a 12 KiB filter from 4.64 to 2.75 ns/key there (EPYC
 * family 25 model 17, k = 7). The variants tried, and why an add still costs about twice a
 * contains: docs/PERFORMANCE.md, "Kernel notes". Little-endian word view: x86 only.
 */
#include "../internal.h"

#define SIMDE_ENABLE_NATIVE_ALIASES_NONE
#include <simde/x86/avx512.h>
#include <simde/x86/gfni.h>
#include "avx512_probes.h"
#include "avx512gfni_mask.h"

BB_INLINE void gfni_set(uint8_t *block, uint32_t lo, unsigned k) {
    bb_avx512_or_block(block, gfni_key_mask(lo, k));
}

#define KERNEL_NAME avx512gfni
#define KERNEL_ISA BB_ISA_AVX512GFNI
#define KERNEL_TEST bb_block_test_avx512
#define KERNEL_SET gfni_set
#include "blocked_loops.h"

/* SPDX-License-Identifier: MIT */
/*
 * blocked_avx512gfni.c - the AVX-512 kernel for CPUs that also have AVX512-BW, -CD, -VBMI and GFNI
 * (Intel Ice Lake and later, AMD Zen 4 and later); this file alone is compiled with those
 * flags and dispatch.c picks it only where CPUID reports all of them. Its block test is the
 * avx512 kernel's (the public header's bb_block_test_avx512); its add builds a key's 512-bit
 * mask from all probes at once instead of one probe at a time.
 *
 * Why: blocked_avx512.c spends a broadcast, a subtract, a 512-bit variable shift and an OR on every
 * probe, about 2.5 cycles each on Zen 4, which runs 512-bit operations as two 256-bit halves;
 * with k = 6-7 that is most of an add. Here the k probes (at most 8 per pass) sit in the
 * lanes of one vector, and the mask is a product over GF(2), computed by GFNI's
 * gf2p8affineqb, which multiplies each byte of one operand by the 8x8 bit matrix held in the
 * matching 64-bit lane of the other (Intel SDM, "GF2P8AFFINEQB"):
 *   - for probe j with position p_j (0..511), byte B_j = p_j >> 3 and bit i_j = p_j & 7;
 *   - X_B, the set of probes whose byte is B, for all 64 bytes: the rows onehot64(B_j) of the
 *     probes, transposed (bytes by a two-source vpermb, bits by one affine product with the
 *     identity's anti-diagonal pattern);
 *   - M_i, the set of probes whose bit is i: the rows onehot8(i_j), transposed the same way;
 *   - mask byte B, bit i = parity(|X_B & M_i|): one more affine product, with M in every lane.
 * A parity is an OR only if no position is hit twice, so probes repeating an earlier probe's
 * position are dropped first (vpconflictd: about 4% of keys at k = 7 have such a pair).
 * Measured on Zen 4 (EPYC family 25 model 17), k = 7, batch add of 2^20 pre-hashed keys,
 * thread CPU time, medians of 11 alternating calls in one process (/work/lab, not kept):
 * 12 KiB filter 4.64 -> 2.75 ns/key (the blocked_avx512.c mask), 1.2 MiB 4.78 -> 2.80, against 1.33
 * and 1.88 for the batch contains there. Tried there and slower: the same products with the
 * fields (q = p >> 6, c, i) transposed separately, 3.24; the mask transposed from qword
 * rows built by a 512-bit vprolvq, 2.90; the broadcasts taken from memory, 3.53; duplicates
 * dropped through a mask register instead of a vector compare, 3.23. Little-endian word view:
 * x86 only.
 * Why an add still costs ~2x a contains on this CPU (Zen 4, same VM, 2026-12-01): throughput
 * loops of 64 independent instructions put 256-bit shifts, shuffles (vpermb), GFNI products and
 * multiplies at 2 per cycle and their 512-bit forms at 1 per cycle (vpconflictd ymm 1.35 per
 * cycle, vpconflictd/q zmm 0.7), so the mask below is ~18 256-bit-op slots on 2 pipes, ~9
 * cycles: the mask alone, over 2^20 keys, 2.49 ns/key, the block's load-OR-store with a trivial
 * mask 1.05-1.17, the add 2.88. Tried there, all with the same bits (12 KiB filter, k = 6, B/A
 * against the add below): the products with 64-bit lanes throughout (vpmuludq, vpconflictq,
 * vprolvq rows and one-source vpermb transposes: 5 fewer instructions, more of them 512-bit)
 * 1.15, mask alone 3.18 ns/key; the same with positions and dedup in 32-bit lanes 1.00-1.02;
 * the final product's matrix broadcast from memory ({1to8}) instead of vpbroadcastq 1.03-1.06;
 * the probes ORed into the block's 64-bit words by scalar code (no mask, no dedup) 1.8-2.0.
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

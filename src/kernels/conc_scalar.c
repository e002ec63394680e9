/*
 * conc_scalar.c - the reference concurrent add kernel (conc_loops.h), the kernel of CPUs
 * without a concurrent SIMD kernel (and of those whose adds dispatch to scalar, dispatch.c)
 * and of AArch64. It is the plain scalar add (bb_block_set: bit p of the block is bit p & 7
 * of byte p >> 3) with each byte's update written as a relaxed atomic byte load and store,
 * and a test of whether some bit was clear. The caller holds the block's stripe lock, so
 * only readers run beside it; a reader's relaxed 64-bit load sees each byte store whole
 * (x86-64, AArch64 and s390x all make an aligned byte store single-copy atomic), so it sees
 * each byte old or new, never fewer bits than the adds that completed (conc_or512.h's rule;
 * C11 itself says nothing of atomics of two sizes on one location, and ThreadSanitizer, which
 * sees both as atomics, accepts them). Bytes are the payload's own layout, so the kernel is
 * endian-neutral without byte swaps (atomic_bits.h).
 *
 * "Some bit was clear" is tested as: the sum of the bytes after their updates differs from
 * the sum before (each byte only gains bits, so the sums are equal exactly when no byte
 * changed; at most 16 bytes of at most 255, no overflow). A probe's byte mask comes from a
 * 512-entry table, not from a shift: x86 takes a variable shift count in CL only, and the
 * shift cost a move of the count, an AND and a move of the 1 per probe. (The same table in
 * the plain add, measured as below: 0.77 / 0.83 / 0.85 of today's plain add at 10^4 / 10^6
 * / 10^7; it is not applied there.)
 *
 * Measured on Zen 4 (AMD EPYC family 25 model 17, 3.6 GHz, 2 vCPUs shared with other
 * agents, load average 4-35), forced scalar: this kernel, the one before it (a relaxed
 * atomic load, OR and store of the probe's 64-bit word) and the plain scalar add linked
 * into one harness, alternating calls of the same 2^20 pre-hashed keys into filters cleared
 * before each call and sized for n keys at 1% (k = 6), thread CPU time, medians of 31
 * per-call ratios to the plain add (interquartile ranges within +-0.05), two runs each:
 *     n        10^4          10^6          10^7
 *     before   1.62-1.64     1.59          1.49-1.58
 *     now      1.18-1.19     1.24-1.25     1.20-1.26
 * and at 10^6 for other k (before -> now): k = 2 1.25 -> 1.16, 4 1.43 -> 1.22, 8 1.64 ->
 * 1.28, 11 1.60 -> 1.31, 16 1.67 -> 1.21. The two libraries (before, now) loaded side by
 * side, bb_add_hashes_concurrent / bb_add_hashes on one thread, medians of 21: 1.16 / 1.23
 * / 1.22 at 10^4 / 10^6 / 10^7 (now / before 0.73 / 0.78 / 0.81). callgrind, instructions
 * per key, k = 6, 10^4 / 10^6 keys: plain add 61.0 / 66.2, before 103.3 / 118.9, now 82.3 /
 * 95.9.
 * Since then the plain scalar add uses the same table (0.79-0.83x, scalar.c), and a batch
 * that does not ask for its "new" count skips the sum test (conc_loops.h's BB_CONC_COUNT):
 * two builds in one process, forced scalar, bb_add_hashes_concurrent(..., NULL) against
 * bb_add_hashes, medians of 21: 1.20 at 10^4 keys, 1.06 at 10^6, 1.05 at 10^7.
 * Tried on the way (ratio to the plain add at 10^4 / 10^6 keys unless said):
 *  - the kernel before, with a branch skipping the store of a word that already has its
 *    bit: 1.21 on a saturated 10^4 filter, but 3.75 at 10^6 (the branch goes either way
 *    while the filter fills);
 *  - the key's 8 mask words built on the stack, then one load, OR and store per word (with
 *    or without skipping the stores of a key that is not new): 2.6-3.0;
 *  - 64-bit words tested with bts and the carry counted with adc (asm): 1.63 / 1.48; the
 *    same with probe j forced into word j (wrong bits, a timing probe): 1.02-1.05. So two
 *    probes of a key in one 64-bit word (92% of keys at k = 6), a store's value loaded back
 *    by the next probe, were the cost of the kernel before. Two probes share a byte in 22%
 *    of keys, as in the plain add;
 *  - bytes, the fresh test as OR of (mask & ~old): 1.47 / 1.40; as AND of old >> bit:
 *    1.36 / 1.40; as OR of (new ^ old): 1.43 / 1.41; bts and adc or sbb (asm, all forms):
 *    1.30-1.50; 32-bit words: 1.63 / 1.48;
 *  - the loop below without the test (wrong counts, a timing probe): 0.95; the test costs
 *    ~1.7 ns per key in every form tried, ~2 instructions per probe;
 *  - the same in x86-64 asm (base+index addresses, no zero-extending moves): 1.23 / 1.22 /
 *    1.23 at 10^4 / 10^6 / 10^7, against the C below in the same run 1.17 / 1.26 / 1.26:
 *    not kept (one code path, seen by ThreadSanitizer).
 */
#include "../internal.h"
#include "../kinds/atomic_bits.h"
#include "scalar_mask.h"


static inline bool scalar_conc_set(uint8_t *block, uint32_t lo, unsigned k) {
    uint32_t x = lo, sum_old = 0, sum_new = 0;
#pragma GCC unroll 16 /* GCC left it a loop for every k */
    for (unsigned j = 0; j < k; j++) {
        uint32_t p = bb_probe_next(&x);
        _Atomic uint8_t *b = bb_byte_at(block, p >> 3);
        uint8_t old = atomic_load_explicit(b, memory_order_relaxed);
        uint8_t now = (uint8_t)(old | bb_scalar_mask[p]);
        atomic_store_explicit(b, now, memory_order_relaxed);
        sum_old += old;
        sum_new += now;
    }
    return sum_new != sum_old;
}

#define CONC_NAME scalar
#define CONC_ISA BB_ISA_SCALAR
#define CONC_SET scalar_conc_set
#include "conc_loops.h"

/* SPDX-License-Identifier: MIT */
/*
 * conc_scalar.c - the reference concurrent add kernel (conc_loops.h), the kernel of CPUs
 * without a concurrent SIMD kernel (and of those whose adds dispatch to scalar, dispatch.c)
 * and of AArch64. It is the plain scalar add (bb_block_set: bit p of the block is bit p & 7
 * of byte p >> 3) with each byte's update written as a relaxed atomic byte load and store
 * (on x86-64 the same instructions in one asm statement, scalar_conc_byte below), and a
 * test of whether some bit was clear. The caller holds the block's stripe lock, so
 * only readers run beside it; a reader's relaxed 64-bit load sees each byte store whole
 * (x86-64, AArch64 and s390x all make an aligned byte store single-copy atomic), so it sees
 * each byte old or new, never fewer bits than the adds that completed (conc_or512.h's rule;
 * C11 itself says nothing of atomics of two sizes on one location, and ThreadSanitizer, which
 * sees both as atomics, accepts them). Bytes are the payload's own layout, so the kernel is
 * endian-neutral without byte swaps (atomic_bits.h).
 *
 * "Some bit was clear" is tested as: the sum of the bytes after their updates differs from
 * the sum before (each byte only gains bits, so the sums are equal exactly when no byte
 * changed; at most 16 bytes of at most 255, no overflow). A probe's byte mask comes from
 * bb_probe_masks (internal.h), not from a shift (measured here first, then given to the
 * plain add, bb_block_set).
 *
 * Measured on Zen 4 (AMD EPYC family 25 model 17, 3.6 GHz, 2 vCPUs shared with other
 * agents, load average 4-35), forced scalar: this kernel's C loop, the kernel before it (a
 * relaxed atomic load, OR and store of the probe's 64-bit word) and the plain scalar add
 * of then (which shifted its masks) linked into one harness, alternating calls of the same
 * 2^20 pre-hashed keys into filters cleared before each call and sized for n keys at 1%
 * (k = 6), thread CPU time, medians of 31 per-call ratios to the plain add (interquartile
 * ranges within +-0.05), two runs each:
 *     n        10^4          10^6          10^7
 *     before   1.62-1.64     1.59          1.49-1.58
 *     C loop   1.18-1.19     1.24-1.25     1.20-1.26
 * and at 10^6 for other k (before -> C loop): k = 2 1.25 -> 1.16, 4 1.43 -> 1.22, 8 1.64 ->
 * 1.28, 11 1.60 -> 1.31, 16 1.67 -> 1.21. The two libraries (before, C loop) loaded side by
 * side, bb_add_hashes_concurrent / bb_add_hashes on one thread, medians of 21: 1.16 / 1.23
 * / 1.22 at 10^4 / 10^6 / 10^7 (C loop / before 0.73 / 0.78 / 0.81). callgrind, instructions
 * per key, k = 6, 10^4 / 10^6 keys: plain add 61.0 / 66.2, before 103.3 / 118.9, C loop
 * 82.3 / 95.9.
 * Since then the plain scalar add uses the same table (0.79-0.83x, blocked_scalar.c), and a batch
 * that does not ask for its "new" count skips the sum test (conc_loops.h's BB_CONC_COUNT):
 * two builds in one process, forced scalar, bb_add_hashes_concurrent(..., NULL) against
 * bb_add_hashes, medians of 21: 1.20 at 10^4 keys, 1.06 at 10^6, 1.05 at 10^7. Against that
 * faster plain add a counted batch cost more: the harness above, load average 20-40,
 * medians of 21-31 per-call ratios, counted / uncounted batches:
 *     n                  10^4                 10^6                 10^7
 *     C loop             1.54-1.66 / 1.20-1.22 1.61-1.66 / 1.06     1.51-1.63 / 1.05-1.08
 *     x86-64 asm (now)   1.45-1.62 / 1.08      1.42-1.46 / 1.09-1.10 1.33-1.42 / 1.09-1.12
 * callgrind, instructions per key at 10^4 / 10^6 keys: plain add 49.0 / 53.2; counted, C
 * 82.3 / 96.9, asm 70.3 / 84.9; uncounted (either) 56.3 / 68.9. So the test is now ~2.3
 * instructions per probe, and conc_loops.h's prefetch ring ~10 per key more than blocked_loops.h's
 * (at 10^6, against ~4).
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
 *  - x86-64 asm for the whole probe, sums included: against the shift plain add 1.23 /
 *    1.22 / 1.23 at 10^4 / 10^6 / 10^7 (the C loop in the same run 1.17 / 1.26 / 1.26),
 *    against the table plain add 1.50-1.53 / 1.45-1.48 / 1.45 counted; not kept, because
 *    uncounted batches would still run the sums; with the OR's mask read from the table in
 *    memory (orb) 1.60-1.77; the asm below with volatile, uncounted 1.11 / 1.26 / 1.14.
 */
#include "../internal.h"
#include "../kinds/atomic_bits.h"

/* Byte p >> 3 of the block |= position p's mask; *old and *now get the byte before and after.
 * On x86-64 in asm: for the relaxed byte load and store GCC puts the address in a register
 * of its own (an ADD per probe) and zero-extends the stored value once more (a MOVZX), 2 of
 * the 12 instructions of a probe with the test (see the top). The asm's byte store is the
 * same single store, which the compiler cannot split, merge or repeat. Not volatile: the
 * block is an output operand, so the statement stays when *old and *now go unused (batches
 * that do not count), and there volatile measured 1.11-1.26 against 1.08-1.12. Under
 * ThreadSanitizer, the C atomics, which it checks (as conc_or512.h does). */
static inline void scalar_conc_byte(uint8_t *block, uint32_t p, uint32_t *old, uint32_t *now) {
#if defined(__x86_64__) && !defined(BB_TSAN)
    __asm__("movzbl (%[blk],%[i]), %[old]\n\t"
            "movzbl (%[tab],%[p]), %[now]\n\t"
            "orl %[old], %[now]\n\t"
            "movb %b[now], (%[blk],%[i])"
            : [old] "=&r"(*old), [now] "=&r"(*now), "+m"(*(uint8_t(*)[BB_BLOCK_BYTES])block)
            : [blk] "r"(block), [i] "r"((uint64_t)(p >> 3)), [tab] "r"(bb_probe_masks),
              [p] "r"((uint64_t)p), "m"(bb_probe_masks)
            : "cc");
#else
    _Atomic uint8_t *b = bb_byte_at(block, p >> 3);
    *old = atomic_load_explicit(b, memory_order_relaxed);
    *now = *old | bb_probe_masks[p];
    atomic_store_explicit(b, (uint8_t)*now, memory_order_relaxed);
#endif
}

static inline bool scalar_conc_set(uint8_t *block, uint32_t lo, unsigned k) {
    uint32_t x = lo, sum_old = 0, sum_new = 0;
#pragma GCC unroll 16 /* GCC left it a loop for every k */
    for (unsigned j = 0; j < k; j++) {
        uint32_t old, now;
        scalar_conc_byte(block, bb_probe_next(&x), &old, &now);
        sum_old += old;
        sum_new += now;
    }
    return sum_new != sum_old;
}

#define CONC_NAME scalar
#define CONC_ISA BB_ISA_SCALAR
#define CONC_SET scalar_conc_set
#include "conc_loops.h"

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
 * Why bytes: two probes of a key share a 64-bit word in 92% of keys at k = 6, and the kernel
 * before, a relaxed load, OR and store of each probe's word, waited on its own stores; bytes
 * took a concurrent batch add from 1.59 to 1.24 times the plain add at 10^6 keys (Zen 4,
 * EPYC family 25 model 17, forced scalar). The measurements and the variants tried:
 * docs/PERFORMANCE.md, "Kernel notes".
 */
#include "../internal.h"
#include "../kinds/atomic_bits.h"

/* Byte p >> 3 of the block |= position p's mask; *old and *now get the byte before and after.
 * On x86-64 in asm: for the relaxed byte load and store GCC puts the address in a register
 * of its own (an ADD per probe) and zero-extends the stored value once more (a MOVZX), 2 of
 * the 12 instructions of a probe with the test (see the top). The asm's byte store is the
 * same single store, which the compiler cannot split, merge or repeat. Not volatile: the
 * block is an output operand, so the statement stays when *old and *now go unused (batches
 * that do not count), and there volatile measured 1.11-1.26 against 1.08-1.12 times the
 * plain add (Zen 4). Under
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

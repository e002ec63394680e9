/*
 * conc_scalar.c - the reference concurrent add kernel (conc_loops.h): each probe bit is ORed
 * into its 64-bit word with a relaxed atomic load and store (no read-modify-write: the
 * caller holds the block's stripe lock, so only readers run beside it). The word view is
 * atomic_bits.h's, byte-swapped on big-endian machines, so it is endian-neutral. The kernel
 * of CPUs without a concurrent SIMD kernel, and of AArch64.
 * Measured on Zen 4 (EPYC family 25 model 17), ratio to the plain scalar add in one process,
 * 1 thread, 10^6 / 10^4 keys, medians of 21 / 61: 1.63 / 1.64; without the unroll pragma
 * 1.66-1.89 / 1.74-1.85 in runs of the same hour; the probes from bb_probe_powers instead of
 * the running product, unrolled, 1.69 / 1.83.
 * Likely cost, not proven: two probes of a key share a 64-bit word ~0.8 times per key at
 * k = 7, and the load of the second then depends on the store of the first, which the core
 * predicts badly; the plain add's byte updates share a byte 8 times less often.
 */
#include "../internal.h"
#include "../kinds/atomic_bits.h"

static inline bool scalar_conc_set(uint8_t *block, uint32_t lo, unsigned k) {
    uint32_t x = lo;
    bool fresh = false;
#pragma GCC unroll 16 /* GCC left it a loop for every k (see the top) */
    for (unsigned j = 0; j < k; j++) {
        uint32_t p = bb_probe_next(&x);
        _Atomic uint64_t *w = bb_word_at(block, p >> 6);
        uint64_t m = bb_payload_mask(UINT64_C(1) << (p & 63));
        uint64_t old = atomic_load_explicit(w, memory_order_relaxed);
        fresh |= (old & m) != m;
        atomic_store_explicit(w, old | m, memory_order_relaxed);
    }
    return fresh;
}

#define CONC_NAME scalar
#define CONC_ISA BB_ISA_SCALAR
#define CONC_SET scalar_conc_set
#include "conc_loops.h"

/* SPDX-License-Identifier: MIT */
/*
 * blocked_loops.h - the batch loops every kernel shares, included once by each ISA file after it has
 * defined its block test:
 *     static inline bool KERNEL_TEST(const uint8_t *block, uint32_t lo, unsigned k);
 * and KERNEL_NAME (a token: scalar, avx2, ...) and KERNEL_ISA (a bb_isa); optionally also
 *     static inline void KERNEL_SET(uint8_t *block, uint32_t lo, unsigned k);
 * which must set exactly the bits bb_block_set sets (the reference, used when KERNEL_SET is
 * not defined). Including this file in each ISA file, compiled with that ISA's flags, lets the
 * compiler inline the test into the loop; the loop itself exists once.
 *
 * Loops prefetch BB_PREFETCH_AHEAD keys ahead (a rolling window, so the memory system always
 * has that many lines in flight), and do not prefetch at all in filters small enough to stay
 * in L2 (prefetch.h has both rules and their measurements). Each loop is written once, as an
 * always-inline function of the distance, and instantiated with the distance and with 0, so
 * neither copy tests at run time whether to prefetch.
 *
 * Adds get one copy of the loop per k (1 .. BB_MAX_K), so KERNEL_SET's probe loop is
 * unrolled for the filter's k. Building a key's 512-bit mask is what an add costs on a
 * filter in cache (the measurements below are of the one-probe-at-a-time masks of blocked_avx2.c
 * and blocked_avx512.c; blocked_avx512gfni.c builds all probes' mask at once and has its own numbers) (a register shift, broadcast and OR per probe, about 2-3 cycles each, the
 * vector pipes' limit; the block's load and store are ~1.5 ns of the ~4.4): measured on
 * Zen 4 (EPYC family 25 model 17), 1M keys at 1%, the same build with and without this
 * unrolling loaded side by side in one process, medians of 11: pre-hashed batch add 4.66 ->
 * 4.27 ns/key, string batch add 13.56 -> 12.97; at 10^4 keys 4.35 -> 4.13. Tried there and
 * slower (ns/key, in-cache filter, k = 6): mask words from a 512-byte one-hot table and
 * vpternlog 6.5, masked ORs under a k-mask 6.5, probes broadcast with vpermd from one vector
 * multiply 6.7, positions through the stack 5.0, a mask built in memory with scalar ORs 20
 * (a wide load of narrow stores cannot be forwarded), alternating vector and 64-bit scalar
 * word updates 4.9, against 4.4 for the loop below.
 * Measured again on that Zen 4, 2026-12-01, load average 8-10 on its 2 vCPUs: both builds
 * linked into one process, A and B alternating, 11-15 calls of 2^20 pre-hashed keys each,
 * timed by the thread's CPU clock (wall time put 4-35 ns/key on the same add loop: calls of
 * ~5 ms lose their slice to the other agents, the ~2 ms contains calls mostly do not), k = 6,
 * medians of the per-call B/A ratios. Current add / contains, ns/key, scalar | avx2 | avx512:
 * 10^4 keys 4.84/5.22 | 4.18/1.43 | 4.06/1.41; 10^6 5.61/6.19 | 4.59/2.15 | 4.27/2.04;
 * 3*10^6 5.92/6.35 | 4.92/2.19 | 4.54/2.17; 10^7 8.15/8.80 | 7.61/4.23 | 6.49/3.46.
 * cachegrind, 10^6 keys: scalar add 67 instructions/key (contains 95), avx2 add 81 (38).
 * Tried, not kept (B/A for avx512 add unless said):
 *  - all k positions from one 8-lane vpmulld, stored to the stack and read back as {1to16}
 *    operands of the shift counts, 16 32-bit words: 1.29 / 1.28 / 0.98 at 10^4 / 10^6 / 10^7;
 *  - the loop below on 16 32-bit words (vpbroadcastd from the GPR, no vmovd): 1.02 / 0.99 /
 *    1.14;
 *  - read prefetch (the split kernels' choice, split_loops.h) instead of prefetchw, scalar /
 *    avx2 / avx512: 10^6 1.00 / 1.01 / 1.00, 3*10^6 1.00 / 1.01 / 1.00, 10^7 1.05 / 1.00 /
 *    1.14 (interquartile 0.90-1.28): no size gains, so adds keep prefetchw. (Both sides of
 *    that comparison were PREFETCHT0: the kernels were built without -mprfchw until
 *    2026-12-01. With it (CMakeLists.txt), PREFETCHW against PREFETCHT0, avx512gfni
 *    plain add, two library builds in one process, medians of 15: 10^6 keys 1.01, 10^7
 *    0.95, 10^8 1.00; it is kept for the concurrent adds, whose lines the other writer
 *    may hold modified: 2 threads at 10^6 0.82-0.98, 10^7 0.92-0.95);
 *  - add prefetch distance 32 or 128 keys instead of BB_PREFETCH_AHEAD (64), at 10^6 / 10^7
 *    / 3*10^7 keys: 32 gave 1.02-1.04 / 0.99-1.13 / 0.99-1.04, 128 gave 0.99-1.00 /
 *    1.03-1.05 / 0.92-1.01 (interquartiles 0.85-1.19): no consistent gain, 64 stays.
 */
#include "prefetch.h"

#ifndef KERNEL_SET
#define KERNEL_SET bb_block_set
#endif

#define BB_CAT2(a, b) a##b
#define BB_CAT(a, b) BB_CAT2(a, b)
#define BB_KFN(suffix) BB_CAT(BB_CAT(bb_, KERNEL_NAME), suffix)
#define BB_STR2(x) #x
#define BB_STR(x) BB_STR2(x)
#define BB_ALWAYS_INLINE inline __attribute__((always_inline))

/* The block of hashes[i]: computed once, when it is prefetched, and kept in a ring of the
 * BB_PREFETCH_AHEAD blocks in flight (dist > 0), or computed on the spot (dist = 0). Taking
 * the multiply-shift once instead of twice per key, measured on Zen 4 (EPYC family 25 model
 * 17, loaded), avx512gfni kernel, 1.2 MiB filter, k = 6 and 9, both builds in one process,
 * alternating calls of 2^20 keys, thread CPU time, medians of 15, seven runs: add B/A
 * 0.90-1.00 (median 0.93), contains 0.91-0.97 (0.95). */
#define BB_RING_AT(i) ring[(i) % BB_PREFETCH_AHEAD]

static BB_ALWAYS_INLINE size_t BB_KFN(_contains_run)(const uint8_t *data, uint64_t blocks,
                                                     unsigned k, const uint64_t *hashes,
                                                     size_t n, uint8_t *out, size_t dist) {
    size_t hits = 0;
    const uint8_t *ring[BB_PREFETCH_AHEAD];
    for (size_t i = 0; i < dist && i < n; i++)
        __builtin_prefetch(BB_RING_AT(i) = bb_block_of(data, blocks, hashes[i]));
    for (size_t i = 0; i < n; i++) {
        const uint8_t *block = dist ? BB_RING_AT(i) : bb_block_of(data, blocks, hashes[i]);
        if (dist && i + dist < n)
            __builtin_prefetch(BB_RING_AT(i) = bb_block_of(data, blocks, hashes[i + dist]));
        bool r = KERNEL_TEST(block, (uint32_t)hashes[i], k);
        out[i] = r;
        hits += r;
    }
    return hits;
}

static size_t BB_KFN(_contains_hashes)(const uint8_t *data, uint64_t blocks, unsigned k,
                                       const uint64_t *hashes, size_t n, uint8_t *out) {
    if (!bb_prefetch_worth(blocks)) return BB_KFN(_contains_run)(data, blocks, k, hashes, n, out, 0);
    return BB_KFN(_contains_run)(data, blocks, k, hashes, n, out, BB_PREFETCH_AHEAD);
}

static BB_ALWAYS_INLINE void BB_KFN(_add_run)(uint8_t *data, uint64_t blocks, unsigned k,
                                              const uint64_t *hashes, size_t n, size_t dist) {
    uint8_t *ring[BB_PREFETCH_AHEAD];
    for (size_t i = 0; i < dist && i < n; i++)
        __builtin_prefetch(BB_RING_AT(i) = bb_block_of(data, blocks, hashes[i]), 1);
    for (size_t i = 0; i < n; i++) {
        uint8_t *block = dist ? BB_RING_AT(i) : bb_block_of(data, blocks, hashes[i]);
        if (dist && i + dist < n)
            __builtin_prefetch(BB_RING_AT(i) = bb_block_of(data, blocks, hashes[i + dist]), 1);
        KERNEL_SET(block, (uint32_t)hashes[i], k);
    }
}

static BB_ALWAYS_INLINE void BB_KFN(_add_k)(uint8_t *data, uint64_t blocks, unsigned k,
                                            const uint64_t *hashes, size_t n) {
    if (!bb_prefetch_worth(blocks)) BB_KFN(_add_run)(data, blocks, k, hashes, n, 0);
    else BB_KFN(_add_run)(data, blocks, k, hashes, n, BB_PREFETCH_AHEAD);
}

/* One copy of the add loop per k (1 .. BB_MAX_K), so the mask loop of KERNEL_SET is
 * unrolled with k known; see the measurements at the top of this file. */
#define BB_ADD_CASE(K) case K: BB_KFN(_add_k)(data, blocks, K, hashes, n); return;
static void BB_KFN(_add_hashes)(uint8_t *data, uint64_t blocks, unsigned k,
                                const uint64_t *hashes, size_t n) {
    switch (k) {
    BB_EACH_K(BB_ADD_CASE)
    default: BB_KFN(_add_k)(data, blocks, k, hashes, n); /* k > BB_MAX_K is never stored */
    }
}
#undef BB_ADD_CASE

static bool BB_KFN(_test)(const uint8_t *block, uint32_t lo, unsigned k) {
    return KERNEL_TEST(block, lo, k);
}

static bool BB_KFN(_contains_one)(const uint8_t *data, uint64_t blocks, unsigned k, uint64_t h) {
    return KERNEL_TEST(bb_block_of(data, blocks, h), (uint32_t)h, k);
}

const bb_kernel BB_CAT(bb_kernel_, KERNEL_NAME) = {
    .isa = KERNEL_ISA,
    .name = BB_STR(KERNEL_NAME),
    .block_test = BB_KFN(_test),
    .contains_one = BB_KFN(_contains_one),
    .contains_hashes = BB_KFN(_contains_hashes),
    .add_hashes = BB_KFN(_add_hashes),
};

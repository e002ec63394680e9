/* SPDX-License-Identifier: MIT */
/*
 * blocked_loops.h - the batch loops every kernel shares, included once by each ISA file after
 * it has defined its block test:
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
 * unrolled for the filter's k: building the key's mask is most of an add on a filter in
 * cache, and the unrolling took pre-hashed batch adds of 1M keys at 1% from 4.66 to 4.27
 * ns/key on Zen 4 (EPYC family 25 model 17). The variants tried and dropped, and each
 * kernel's figures: docs/PERFORMANCE.md, "Kernel notes".
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
 * BB_PREFETCH_AHEAD blocks in flight (dist > 0), or computed on the spot (dist = 0). The
 * multiply-shift once instead of twice per key: adds 0.93x, lookups 0.95x (Zen 4, EPYC family
 * 25 model 17, avx512gfni, 1.2 MiB filter, medians). */
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

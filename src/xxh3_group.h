/* SPDX-License-Identifier: MIT */
/*
 * xxh3_group.h - XXH3-64 of a batch of variable-length keys, grouped by XXH3's length class:
 * src/hash.c's batch hashing, in a header so that the benchmark's hashing floors
 * (bench/floors.c) can time the very same loop next to plain in-order XXH3. Static functions
 * only; include it after xxhash.h with XXH_INLINE_ALL defined, and after internal.h.
 */
#ifndef BB_XXH3_GROUP_H
#define BB_XXH3_GROUP_H

#ifndef XXH_INLINE_ALL
#error "include xxhash.h with XXH_INLINE_ALL before xxh3_group.h"
#endif

/* A zero-length key may come as NULL; never hand NULL (or NULL + 0) to the hash. */
static const uint8_t bb_empty_key[1];

/* Keys over 128 bytes: out of line, so flattened loops do not carry the long-input code. */
static __attribute__((noinline, unused)) uint64_t xxh3_long(const void *key, size_t len,
                                                            uint64_t seed) {
    return XXH3_64bits_withSeed(key, len, seed);
}

/* ---- XXH3 of variable-length keys, grouped by length class -------------------------------------
 * XXH3_64bits_withSeed picks its code by length (xxhash.h 0.8.1, XXH3_64bits_internal):
 * 0-16 bytes (then > 8, >= 4, > 0), 17-128 (then > 32, > 64, > 96), 129-240, longer. Over real
 * keys of mixed lengths (npm names: 9% 4-8 bytes, 33% 9-16, 48% 17-32, 9% 33-64) those branches
 * are close to coin flips, ~0.7 mispredictions per key, and they, not the arithmetic, are most
 * of the hash's cost. So a batch is hashed in groups of BB_GROUP_KEYS: one pass files each key
 * under its class (a table lookup of its length, no branch), then each class is hashed in a
 * loop of its own in which the compiler, told the length range, keeps only that class's code
 * path: no length branch is left to mispredict. The function and its bytes are unchanged, so
 * are the hashes (tests/test_hashbatch.c checks the batch shapes against xxHash's published
 * vectors). The filing pass also prefetches each key's first line: the class loops read the
 * keys out of order, which defeats the hardware's sequential prefetch. On Zen 4 (AMD EPYC
 * family 25 model 17) XXH3 over 10^6 shuffled npm names costs 6.4-6.8 ns/key in order, 6.3-6.8
 * grouped without the prefetch and 4.3 with it, which takes bb_contains_batch of 10^6 keys from
 * 10.86 to 8.43 ns/key; docs/PERFORMANCE.md, "Design choices", has the context.
 */
#define BB_GROUP_KEYS 256
enum { XC_EMPTY, XC_1_3, XC_4_8, XC_9_16, XC_17_32, XC_33_64, XC_65_96, XC_97_128, XC_LONGER,
       XC_COUNT };

#define R2(c) c, c
#define R4(c) R2(c), R2(c)
#define R8(c) R4(c), R4(c)
#define R16(c) R8(c), R8(c)
#define R32(c) R16(c), R16(c)
/* xxh3_class_of[min(len, 129)]: the class of a key of len bytes. */
static const uint8_t xxh3_class_of[130] = {
    XC_EMPTY,      R2(XC_1_3),    XC_1_3,        R4(XC_4_8),     XC_4_8,
    R8(XC_9_16),   R16(XC_17_32), R32(XC_33_64), R32(XC_65_96), R32(XC_97_128),
    XC_LONGER,
};
#undef R2
#undef R4
#undef R8
#undef R16
#undef R32

/* Key i of a pointer or Arrow batch (never FIXED: its keys have one length, nothing to sort). */
static inline __attribute__((always_inline)) size_t key_len(const bb_keysrc *src,
                                                           bb_src_shape shape, size_t i) {
    if (shape == BB_SRC_PTRS) return src->lens[i];
    if (shape == BB_SRC_ARROW32) return (size_t)(src->off32[i + 1] - src->off32[i]);
    return (size_t)(src->off64[i + 1] - src->off64[i]);
}

static inline __attribute__((always_inline)) const void *key_ptr(const bb_keysrc *src,
                                                                 bb_src_shape shape, size_t i) {
    if (shape == BB_SRC_PTRS) return src->keys[i];
    if (shape == BB_SRC_ARROW32) return src->data + src->off32[i];
    return src->data + src->off64[i];
}

/* Where the grouped hashing may prefetch each key's line as soon as its hash is known: the
 * block bb_block_of(data, blocks, hash) into L2. data NULL: no prefetch (every caller but
 * batch.c's, on the CPUs whose dispatch row asks for it). */
typedef struct bb_line_pf {
    const uint8_t *data;
    uint64_t blocks;
} bb_line_pf;

/* hashes[at[j]] for the cnt keys first + at[j] of one class, all of lengths lo .. hi. */
static inline __attribute__((always_inline)) void
hash_class(const bb_keysrc *src, bb_src_shape shape, uint64_t seed, size_t first,
           const uint8_t *at, unsigned cnt, size_t lo, size_t hi, uint64_t *hashes,
           bb_line_pf pf) {
    for (unsigned j = 0; j < cnt; j++) {
        size_t i = first + at[j], len = key_len(src, shape, i);
        if (len < lo || len > hi) __builtin_unreachable();
        uint64_t h = XXH3_64bits_withSeed(key_ptr(src, shape, i), len, seed);
        hashes[at[j]] = h;
        if (pf.data) __builtin_prefetch(bb_block_of(pf.data, pf.blocks, h), 0, 2);
    }
}

/* One group of at most BB_GROUP_KEYS keys of one shape. */
static inline __attribute__((always_inline)) void
xxh3_group(const bb_keysrc *src, bb_src_shape shape, uint64_t seed, size_t first, size_t count,
           uint64_t *hashes, bb_line_pf pf) {
    uint8_t at[XC_COUNT][BB_GROUP_KEYS];
    unsigned cnt[XC_COUNT] = {0};
    for (size_t j = 0; j < count; j++) {
        size_t len = key_len(src, shape, first + j);
        unsigned c = xxh3_class_of[len < 129 ? len : 129];
        __builtin_prefetch(key_ptr(src, shape, first + j));
        at[c][cnt[c]++] = (uint8_t)j;
    }
    uint64_t empty = XXH3_64bits_withSeed(bb_empty_key, 0, seed);
    for (unsigned j = 0; j < cnt[XC_EMPTY]; j++) hashes[at[XC_EMPTY][j]] = empty;
    hash_class(src, shape, seed, first, at[XC_1_3], cnt[XC_1_3], 1, 3, hashes, pf);
    hash_class(src, shape, seed, first, at[XC_4_8], cnt[XC_4_8], 4, 8, hashes, pf);
    hash_class(src, shape, seed, first, at[XC_9_16], cnt[XC_9_16], 9, 16, hashes, pf);
    hash_class(src, shape, seed, first, at[XC_17_32], cnt[XC_17_32], 17, 32, hashes, pf);
    hash_class(src, shape, seed, first, at[XC_33_64], cnt[XC_33_64], 33, 64, hashes, pf);
    hash_class(src, shape, seed, first, at[XC_65_96], cnt[XC_65_96], 65, 96, hashes, pf);
    hash_class(src, shape, seed, first, at[XC_97_128], cnt[XC_97_128], 97, 128, hashes, pf);
    for (unsigned j = 0; j < cnt[XC_LONGER]; j++) {
        size_t i = first + at[XC_LONGER][j];
        uint64_t h = xxh3_long(key_ptr(src, shape, i), key_len(src, shape, i), seed);
        hashes[at[XC_LONGER][j]] = h;
        if (pf.data) __builtin_prefetch(bb_block_of(pf.data, pf.blocks, h), 0, 2);
    }
}

static inline __attribute__((always_inline)) void
xxh3_groups(const bb_keysrc *src, uint64_t seed, size_t first, size_t count, uint64_t *hashes,
            bb_line_pf pf) {
    for (size_t j = 0; j < count; j += BB_GROUP_KEYS) {
        size_t g = count - j < BB_GROUP_KEYS ? count - j : BB_GROUP_KEYS;
        switch (src->shape) {
        case BB_SRC_PTRS: xxh3_group(src, BB_SRC_PTRS, seed, first + j, g, hashes + j, pf); break;
        case BB_SRC_ARROW32:
            xxh3_group(src, BB_SRC_ARROW32, seed, first + j, g, hashes + j, pf);
            break;
        default: xxh3_group(src, BB_SRC_ARROW64, seed, first + j, g, hashes + j, pf); break;
        }
    }
}

/* flatten: XXH3_64bits_withSeed is inlined into every class loop, so each keeps one path.
 * Two copies, so the loops without a prefetch carry no test for one. */
static __attribute__((flatten, unused)) void
xxh3_grouped(const bb_keysrc *src, uint64_t seed, size_t first, size_t count, uint64_t *hashes) {
    xxh3_groups(src, seed, first, count, hashes, (bb_line_pf){NULL, 0});
}

static __attribute__((flatten, unused)) void
xxh3_grouped_pf(const bb_keysrc *src, uint64_t seed, size_t first, size_t count,
                uint64_t *hashes, bb_line_pf pf) {
    xxh3_groups(src, seed, first, count, hashes, pf);
}

#endif /* BB_XXH3_GROUP_H */

/*
 * hash.c - key hashing, single and in batches: XXH3-64 for every kind but split, XXH64 for
 * the split kind (Apache Parquet BloomFilter.md: "xxHash, the 64-bit version", seed 0). This
 * is the only file that includes xxhash.h, and it inlines it (XXH_INLINE_ALL) so no XXH_*
 * symbol leaves the library. Both functions are specified byte for byte (xxhash_spec.md), so
 * the same key and seed hash identically on every machine and every build.
 */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "internal.h"

/* A zero-length key may come as NULL; never hand NULL (or NULL + 0) to the hash. */
static const uint8_t empty_key[1];

static inline uint64_t xxh3(const void *key, size_t len, uint64_t seed) {
    return XXH3_64bits_withSeed(len ? key : empty_key, len, seed);
}

static inline uint64_t xxh64(const void *key, size_t len, uint64_t seed) {
    return XXH64(len ? key : empty_key, len, seed);
}

/* Keys over 128 bytes: out of line, so flattened loops do not carry the long-input code. */
static __attribute__((noinline)) uint64_t xxh3_long(const void *key, size_t len, uint64_t seed) {
    return XXH3_64bits_withSeed(key, len, seed);
}

uint64_t bb_xxh3(const void *key, size_t len, uint64_t seed) { return xxh3(key, len, seed); }

uint64_t bb_hash_bytes(bb_hash_alg alg, const void *key, size_t len, uint64_t seed) {
    return alg == BB_HASH_XXH64 ? xxh64(key, len, seed) : xxh3(key, len, seed);
}

uint64_t bb_hash(const bb_filter *f, const void *key, size_t len) {
    if (!f) return xxh3(key, len, 0);
    return bb_hash_bytes(bb_row(f)->hash, key, len, f->seed);
}

/* The loops over the four batch shapes, written once and instantiated per hash function (an
 * always-inline function of a constant function pointer, so each copy inlines its hash). */
typedef uint64_t (*key_hash_fn)(const void *key, size_t len, uint64_t seed);

static inline __attribute__((always_inline)) void
hash_keys_with(const bb_keysrc *src, uint64_t seed, size_t first, size_t count,
               uint64_t *hashes, key_hash_fn hash) {
    size_t end = first + count;
    if (src->shape != BB_SRC_PTRS && !src->data) {
        /* Validated (bb_keysrc_validate): with no data every key is empty. No pointer
         * arithmetic on NULL, which C leaves undefined even for + 0. */
        uint64_t empty = hash(NULL, 0, seed);
        for (size_t i = 0; i < count; i++) hashes[i] = empty;
        return;
    }
    switch (src->shape) {
    case BB_SRC_PTRS:
        for (size_t i = first; i < end; i++) *hashes++ = hash(src->keys[i], src->lens[i], seed);
        break;
    case BB_SRC_ARROW32:
        for (size_t i = first; i < end; i++)
            *hashes++ = hash(src->data + src->off32[i],
                             (size_t)(src->off32[i + 1] - src->off32[i]), seed);
        break;
    case BB_SRC_ARROW64:
        for (size_t i = first; i < end; i++)
            *hashes++ = hash(src->data + src->off64[i],
                             (size_t)(src->off64[i + 1] - src->off64[i]), seed);
        break;
    case BB_SRC_FIXED:
        for (size_t i = first; i < end; i++)
            *hashes++ = hash(src->data + i * src->stride, src->width, seed);
        break;
    }
}

/* Fixed-width keys of 1 to 128 bytes (5- and 17-byte CIDR keys, 37-byte 5-tuples, IPv4
 * and IPv6 addresses, integers) with XXH3: flatten inlines XXH3_64bits_withSeed into the
 * loop and the range assumption drops its long-input path, so a key costs XXH3's short-input
 * arithmetic, the length branch the same every time, not an out-of-line call. The same
 * function, so the same hashes. Measured with scripts/pcap-bench.sh: see README "Speed of
 * query --pcap". */
static __attribute__((flatten)) void xxh3_fixed_short(const bb_keysrc *src, uint64_t seed,
                                                      size_t first, size_t count,
                                                      uint64_t *hashes) {
    size_t w = src->width;
    if (w < 1 || w > 128) __builtin_unreachable();
    const uint8_t *p = src->data + first * src->stride;
    for (size_t i = 0; i < count; i++, p += src->stride)
        hashes[i] = XXH3_64bits_withSeed(p, w, seed);
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
 * vectors). The filing pass also prefetches each key's first line: the class loops then read
 * the keys out of order, which otherwise defeats the hardware's sequential prefetch.
 * Measured on the Zen 4 VM (AMD EPYC family 25 model 17, 2026-12-01, thread CPU time, medians
 * of 11 interleaved runs; XXH3 alone over 10^6 shuffled npm names in one arena, in chunks of
 * 256): in order (as before) 6.4-6.8 ns/key; grouped without the prefetch 6.3-6.8 (no gain);
 * grouped with it 4.3; the same keys sorted by length into a fresh arena 2.5 (every branch
 * predicted, no filing: the bound). In bb_contains_batch (A/B of two builds in one process, 50/50
 * present/absent npm names, blocked filter, AVX-512): 10^4 keys 10.05 -> 7.18 ns/key, 10^6
 * 10.86 -> 8.43, 10^7 11.55 -> 10.03; bb_add_batch 12.8 -> 10.1, 13.0 -> 10.5, 14.1 -> 12.1.
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

/* hashes[at[j]] for the cnt keys first + at[j] of one class, all of lengths lo .. hi. */
static inline __attribute__((always_inline)) void
hash_class(const bb_keysrc *src, bb_src_shape shape, uint64_t seed, size_t first,
           const uint8_t *at, unsigned cnt, size_t lo, size_t hi, uint64_t *hashes) {
    for (unsigned j = 0; j < cnt; j++) {
        size_t i = first + at[j], len = key_len(src, shape, i);
        if (len < lo || len > hi) __builtin_unreachable();
        hashes[at[j]] = XXH3_64bits_withSeed(key_ptr(src, shape, i), len, seed);
    }
}

/* One group of at most BB_GROUP_KEYS keys of one shape. */
static inline __attribute__((always_inline)) void
xxh3_group(const bb_keysrc *src, bb_src_shape shape, uint64_t seed, size_t first, size_t count,
           uint64_t *hashes) {
    uint8_t at[XC_COUNT][BB_GROUP_KEYS];
    unsigned cnt[XC_COUNT] = {0};
    for (size_t j = 0; j < count; j++) {
        size_t len = key_len(src, shape, first + j);
        unsigned c = xxh3_class_of[len < 129 ? len : 129];
        __builtin_prefetch(key_ptr(src, shape, first + j));
        at[c][cnt[c]++] = (uint8_t)j;
    }
    uint64_t empty = xxh3(NULL, 0, seed);
    for (unsigned j = 0; j < cnt[XC_EMPTY]; j++) hashes[at[XC_EMPTY][j]] = empty;
    hash_class(src, shape, seed, first, at[XC_1_3], cnt[XC_1_3], 1, 3, hashes);
    hash_class(src, shape, seed, first, at[XC_4_8], cnt[XC_4_8], 4, 8, hashes);
    hash_class(src, shape, seed, first, at[XC_9_16], cnt[XC_9_16], 9, 16, hashes);
    hash_class(src, shape, seed, first, at[XC_17_32], cnt[XC_17_32], 17, 32, hashes);
    hash_class(src, shape, seed, first, at[XC_33_64], cnt[XC_33_64], 33, 64, hashes);
    hash_class(src, shape, seed, first, at[XC_65_96], cnt[XC_65_96], 65, 96, hashes);
    hash_class(src, shape, seed, first, at[XC_97_128], cnt[XC_97_128], 97, 128, hashes);
    for (unsigned j = 0; j < cnt[XC_LONGER]; j++) {
        size_t i = first + at[XC_LONGER][j];
        hashes[at[XC_LONGER][j]] = xxh3_long(key_ptr(src, shape, i), key_len(src, shape, i), seed);
    }
}

/* flatten: XXH3_64bits_withSeed is inlined into every class loop, so each keeps one path. */
static __attribute__((flatten)) void xxh3_grouped(const bb_keysrc *src, uint64_t seed,
                                                  size_t first, size_t count,
                                                  uint64_t *hashes) {
    for (size_t j = 0; j < count; j += BB_GROUP_KEYS) {
        size_t g = count - j < BB_GROUP_KEYS ? count - j : BB_GROUP_KEYS;
        switch (src->shape) {
        case BB_SRC_PTRS: xxh3_group(src, BB_SRC_PTRS, seed, first + j, g, hashes + j); break;
        case BB_SRC_ARROW32:
            xxh3_group(src, BB_SRC_ARROW32, seed, first + j, g, hashes + j);
            break;
        default: xxh3_group(src, BB_SRC_ARROW64, seed, first + j, g, hashes + j); break;
        }
    }
}

void bb_hash_keys(const bb_keysrc *src, bb_hash_alg alg, uint64_t seed, size_t first,
                  size_t count, uint64_t *hashes) {
    if (alg == BB_HASH_XXH64) hash_keys_with(src, seed, first, count, hashes, xxh64);
    else if (src->shape == BB_SRC_FIXED && src->width >= 1 && src->width <= 128 && src->data)
        xxh3_fixed_short(src, seed, first, count, hashes);
    else if (src->shape != BB_SRC_FIXED && (src->shape == BB_SRC_PTRS || src->data))
        xxh3_grouped(src, seed, first, count, hashes);
    else hash_keys_with(src, seed, first, count, hashes, xxh3);
}

/* SPDX-License-Identifier: MIT */
/*
 * hash.c - key hashing, single and in batches: XXH3-64 for every kind but split, XXH64 for
 * the split kind (Apache Parquet BloomFilter.md: "xxHash, the 64-bit version", seed 0). This
 * is the only library file that includes xxhash.h (and xxh3_group.h, the batch hashing by
 * length class, which needs it), and it inlines it (XXH_INLINE_ALL) so no XXH_* symbol
 * leaves the library. Both functions are specified byte for byte (xxhash_spec.md), so
 * the same key and seed hash identically on every machine and every build.
 */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "internal.h"
#include "xxh3_group.h"

static inline uint64_t xxh3(const void *key, size_t len, uint64_t seed) {
    return XXH3_64bits_withSeed(len ? key : bb_empty_key, len, seed);
}

static inline uint64_t xxh64(const void *key, size_t len, uint64_t seed) {
    return XXH64(len ? key : bb_empty_key, len, seed);
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
 * function, so the same hashes. Measured with scripts/pcap-bench.sh: see docs/NETWORK.md "Speed of
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

bool bb_hash_grouped(const bb_keysrc *src, bb_hash_alg alg) {
    return alg != BB_HASH_XXH64 && src->shape != BB_SRC_FIXED &&
           (src->shape == BB_SRC_PTRS || src->data);
}

void bb_hash_keys(const bb_keysrc *src, bb_hash_alg alg, uint64_t seed, size_t first,
                  size_t count, uint64_t *hashes) {
    if (alg == BB_HASH_XXH64) hash_keys_with(src, seed, first, count, hashes, xxh64);
    else if (src->shape == BB_SRC_FIXED && src->width >= 1 && src->width <= 128 && src->data)
        xxh3_fixed_short(src, seed, first, count, hashes);
    else if (bb_hash_grouped(src, alg)) xxh3_grouped(src, seed, first, count, hashes);
    else hash_keys_with(src, seed, first, count, hashes, xxh3);
}

void bb_hash_keys_prefetch(const bb_keysrc *src, uint64_t seed, size_t first, size_t count,
                           uint64_t *hashes, const uint8_t *data, uint64_t blocks) {
    xxh3_grouped_pf(src, seed, first, count, hashes, (bb_line_pf){data, blocks});
}

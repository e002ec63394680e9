/*
 * hash.c - XXH3-64 hashing of keys, single and in batches. This is the only file that
 * includes xxhash.h, and it inlines it (XXH_INLINE_ALL) so no XXH_* symbol leaves the
 * library. XXH3's output is specified byte for byte (xxhash_spec.md), so the same key and
 * seed hash identically on every machine and every build.
 */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "internal.h"

uint64_t bb_xxh3(const void *key, size_t len, uint64_t seed) {
    return XXH3_64bits_withSeed(len ? key : NULL, len, seed);
}

uint64_t bb_hash(const bb_filter *f, const void *key, size_t len) {
    return bb_xxh3(key, len, f ? f->seed : 0);
}

void bb_hash_keys(const bb_keysrc *src, uint64_t seed, size_t first, size_t count,
                  uint64_t *hashes) {
    size_t end = first + count;
    if (src->shape != BB_SRC_PTRS && !src->data) {
        /* Validated (bb_keysrc_validate): with no data every key is empty. No pointer
         * arithmetic on NULL, which C leaves undefined even for + 0. */
        uint64_t empty = XXH3_64bits_withSeed(NULL, 0, seed);
        for (size_t i = 0; i < count; i++) hashes[i] = empty;
        return;
    }
    switch (src->shape) {
    case BB_SRC_PTRS:
        for (size_t i = first; i < end; i++)
            *hashes++ = XXH3_64bits_withSeed(src->lens[i] ? src->keys[i] : NULL, src->lens[i], seed);
        break;
    case BB_SRC_ARROW32:
        for (size_t i = first; i < end; i++)
            *hashes++ = XXH3_64bits_withSeed(src->data + src->off32[i],
                                             (size_t)(src->off32[i + 1] - src->off32[i]), seed);
        break;
    case BB_SRC_ARROW64:
        for (size_t i = first; i < end; i++)
            *hashes++ = XXH3_64bits_withSeed(src->data + src->off64[i],
                                             (size_t)(src->off64[i + 1] - src->off64[i]), seed);
        break;
    case BB_SRC_FIXED:
        for (size_t i = first; i < end; i++)
            *hashes++ = XXH3_64bits_withSeed(src->data + i * src->stride, src->width, seed);
        break;
    }
}

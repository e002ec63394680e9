/* SPDX-License-Identifier: MIT */
/*
 * floors.c - the two hardware floors the filters are compared with, built so that the
 * comparison is like for like:
 *  - floor_xxh3: XXH3-64 alone over the same keys, in their order, in chunks of 256 into a
 *    stack buffer (xxhash.h inlined here as in src/hash.c, same flags): what a caller's own
 *    hashing loop costs, and what every peer's bulk mode pays. It is the floor of the targets.
 *  - floor_xxh3_grouped: the library's own batch hashing (src/xxh3_group.h, the same code),
 *    keys grouped by XXH3 length class, which mispredicts far less than the in-order loop and
 *    so costs less than floor_xxh3 on keys of mixed lengths. Reported beside it, so that the
 *    string batch's cost over its own hashing stays visible.
 *  - floor_lines: one 64-byte line read per key from an array of the filter's size. It is
 *    the kernels' own batch loop (src/kernels/blocked_loops.h, included here) with a block "test"
 *    that reads one word of the line, so the line choice (mulhi64 of the hash), the
 *    batching and the prefetch distance are those of the filter by construction, and stay so
 *    when blocked_loops.h changes. The array comes from the library's own allocator (src/alloc.c,
 *    compiled into the benchmark), so it gets the same alignment and huge-page advice.
 */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "bench.h"
#include "internal.h"
#include "xxh3_group.h"

#include <string.h>

/* Keys per chunk. src/batch.c hashes 1024 at a time; 256 is kept here because both hashing
 * loops are as fast or faster in 256-key calls (grouped: 4.4 against 4.6-4.7 ns/key over 10^6
 * npm names, Zen 4, 2026-12-01), and a floor must not be slowed to flatter the library. */
#define FLOOR_CHUNK 256

uint64_t floor_xxh3(const void *const *keys, const size_t *lens, size_t n, uint64_t seed) {
    uint64_t h[FLOOR_CHUNK], acc = 0;
    for (size_t i = 0; i < n; i += FLOOR_CHUNK) {
        size_t c = n - i < FLOOR_CHUNK ? n - i : FLOOR_CHUNK;
        for (size_t j = 0; j < c; j++)
            h[j] = XXH3_64bits_withSeed(lens[i + j] ? keys[i + j] : NULL, lens[i + j], seed);
        BENCH_KEEP(h); /* the hashes must exist in memory, as the batch path stores them */
        acc += h[c - 1];
    }
    return acc;
}

uint64_t floor_xxh3_grouped(const void *const *keys, const size_t *lens, size_t n,
                           uint64_t seed) {
    bb_keysrc src = {.shape = BB_SRC_PTRS, .keys = keys, .lens = lens};
    uint64_t h[FLOOR_CHUNK], acc = 0;
    for (size_t i = 0; i < n; i += FLOOR_CHUNK) {
        size_t c = n - i < FLOOR_CHUNK ? n - i : FLOOR_CHUNK;
        xxh3_grouped(&src, seed, i, c, h);
        BENCH_KEEP(h);
        acc += h[c - 1];
    }
    return acc;
}

/* The "test" of the line floor: one load from the line, nothing else. */
static inline bool floor_touch(const uint8_t *block, uint32_t lo, unsigned k) {
    (void)lo, (void)k;
    uint64_t w;
    memcpy(&w, block, sizeof w);
    return w & 1;
}

#define KERNEL_NAME floorline
#define KERNEL_ISA BB_ISA_SCALAR
#define KERNEL_TEST floor_touch
#include "kernels/blocked_loops.h"

size_t floor_lines(const uint8_t *data, uint64_t lines, const uint64_t *hashes, size_t n,
                   uint8_t *out) {
    return bb_kernel_floorline.contains_hashes(data, lines, 1, hashes, n, out);
}

static inline uint64_t line_word(const uint8_t *data, uint64_t lines, uint64_t h) {
    uint64_t w;
    memcpy(&w, bb_block_of(data, lines, h), sizeof w);
    return w;
}

size_t floor_line_loop(const uint8_t *data, uint64_t lines, const uint64_t *hashes, size_t n) {
    size_t acc = 0;
    for (size_t i = 0; i < n; i++) acc += line_word(data, lines, hashes[i]) & 1;
    return acc;
}

/* The same step as the blocked chain (series.c): next = i + 1 + bit, wrapping at n. The
 * array holds 0x5a bytes, so the bit is 0, but the core cannot know that before the read. */
size_t floor_line_chain(const uint8_t *data, uint64_t lines, const uint64_t *hashes, size_t n,
                        size_t steps) {
    size_t i = 0, acc = 0;
    for (size_t step = 0; step < steps; step++) {
        size_t bit = (size_t)(line_word(data, lines, hashes[i]) & 1);
        acc += bit;
        i += 1 + bit;
        if (i >= n) i -= n;
    }
    return acc;
}

/* Written once after allocation: untouched anonymous pages all map the one shared zero
 * page, and reading them would be a cache hit, not a line of the array. */
uint8_t *floor_alloc(uint64_t bytes, void **base, size_t *len) {
    uint8_t *p = bb_mem_alloc(bytes, base, len);
    if (p) memset(p, 0x5a, (size_t)bytes);
    return p;
}

void floor_free(void *base, size_t len) { bb_mem_free(base, len); }

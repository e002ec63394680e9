/* SPDX-License-Identifier: MIT */
/*
 * split_vectors.h - expected values for the split-block kind that do not come from this
 * library, shared by test_split.c and the cross-architecture check (tests/cross/): XXH64
 * published test vectors, and for those keys the bit positions of Apache Parquet's
 * split-block layout worked out from BloomFilter.md by hand-checkable integer arithmetic.
 * Header-only constant tables.
 */
#ifndef BB_SPLIT_VECTORS_H
#define BB_SPLIT_VECTORS_H

#include <stdint.h>

/* XXH64 for seed 0 (and one for seed 1), as published by xxHash's reference implementation
 * and repeated in its ports' test suites; the 39-byte string takes the 32-byte stripe loop. */
static const struct { const char *key; uint64_t seed, h; } xxh64_vectors[] = {
    {"", 0, UINT64_C(0xEF46DB3751D8E999)},
    {"", 1, UINT64_C(0xD5AFBA1336A3BE4B)},
    {"a", 0, UINT64_C(0xD24EC4F1A98C6E5B)},
    {"abc", 0, UINT64_C(0x44BC2CF5AD770999)},
    {"asdf", 0, UINT64_C(0x415872F599CEA71E)},
    {"Call me Ishmael.", 0, UINT64_C(0x6D04390FC9D61A90)},
    {"Nobody inspects the spammish repetition", 0, UINT64_C(0xFBCEA83C8A378BF1)},
};
#define N_XXH64_VECTORS (sizeof xxh64_vectors / sizeof *xxh64_vectors)

/* z = 5 blocks, seed 0. For each key: the block ((h >> 32) * 5) >> 32 of its published XXH64
 * h and the bit (lo32(h) * salt[i] mod 2^32) >> 27 of word i, with the spec's salts. Word i
 * of block b is bytes 32b + 4i .. +3, little-endian, so its bit j is bit j & 7 of byte
 * 32b + 4i + j / 8. */
#define SPEC_BLOCKS 5u
static const struct { const char *key; unsigned block, bit[8]; } spec_bits[] = {
    {"", 4, {29, 0, 25, 28, 14, 22, 29, 30}},
    {"a", 4, {18, 17, 1, 12, 17, 24, 27, 31}},
    {"abc", 1, {13, 11, 23, 21, 6, 14, 29, 29}},
    {"Nobody inspects the spammish repetition", 4, {27, 17, 12, 31, 4, 29, 21, 0}},
    {"asdf", 1, {11, 26, 24, 2, 25, 29, 19, 21}},
    {"Call me Ishmael.", 2, {22, 20, 21, 11, 7, 20, 1, 13}},
};
#define N_SPEC (sizeof spec_bits / sizeof *spec_bits)

/* The payload those keys give: the table's bits set, all others zero. */
static inline void spec_payload(uint8_t want[SPEC_BLOCKS * 32]) {
    for (unsigned i = 0; i < SPEC_BLOCKS * 32; i++) want[i] = 0;
    for (unsigned i = 0; i < N_SPEC; i++)
        for (unsigned w = 0; w < 8; w++) {
            unsigned j = spec_bits[i].bit[w];
            want[32 * spec_bits[i].block + 4 * w + j / 8] |= (uint8_t)(1u << (j % 8));
        }
}

#endif /* BB_SPLIT_VECTORS_H */

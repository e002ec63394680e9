/* SPDX-License-Identifier: MIT */
/*
 * split_scalar.c - the reference split-block kernel (Apache Parquet BloomFilter.md): bit
 * (lo * salt[i]) >> 27 of little-endian word i of the 32-byte block, written on bytes (word
 * i is bytes 4i .. 4i+3, so bit b of it is bit b & 7 of byte 4i + b / 8), so it is
 * endian-neutral. Every SIMD split kernel must give the same bits and answers
 * (tests/test_split.c). The salts are the spec's published constants.
 */
#include "../internal.h"

const uint32_t bb_split_salts[8] = {0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du,
                                    0x705495c7u, 0x2df1424bu, 0x9efc4947u, 0x5c6bfb31u};

/* Branch-free over the 8 words, so batches of absent keys do not mispredict. */
static inline bool scalar_split_test(const uint8_t *block, uint32_t lo) {
    unsigned all = 1;
    for (unsigned i = 0; i < 8; i++) {
        uint32_t b = (lo * bb_split_salts[i]) >> 27;
        all &= (unsigned)(block[4 * i + (b >> 3)] >> (b & 7));
    }
    return all & 1;
}

#define SPLIT_NAME scalar
#define SPLIT_ISA BB_ISA_SCALAR
#define SPLIT_TEST scalar_split_test
#define SPLIT_SET bb_split_block_set
#include "split_loops.h"

/* SPDX-License-Identifier: MIT */
/*
 * sectorized.c - the sectorized blocked Bloom filter (Lang, Neumann, Kemper, Boncz,
 * "Performance-Optimal Filtering: Bloom Overtakes Cuckoo at High Throughput", VLDB 2019:
 * "sectorized" blocking; Boost.Bloom's fast_multiblock64<8> is the k = 8 layout) and its row
 * of the kinds table.
 *
 *   payload: B lines x 64 bytes, each line 8 little-endian 64-bit words
 *   line:    | w0 | w1 | w2 | w3 | w4 | w5 | w6 | w7 |      (bit b of word i = line bit 64 i + b)
 *   key:     h = XXH3-64(key, seed), line floor(h B / 2^64), lo = lo32(h)
 *   k = 8:   bit (lo * salt[j]) >> 26 of word j, j = 0 .. 7           one bit in every word
 *   k = 16:  as k = 8, and bit (lo * salt[8 + j]) >> 26 of word j       two bits in every word
 *   k = 4:   | w0 w1 w2 w3 | w4 w5 w6 w7 |   one bit in each word of one half
 *   k = 2:   | w0 w1 | w2 w3 | w4 w5 | w6 w7 |   k = 1: one bit of one word
 *            the run: first word ((lo * salt[16]) >> 29) & (8 - k), probe j in word first + j
 *
 * Why fixed words: in the blocked kind each probe may land anywhere in the 512 bits, which
 * is the lowest FPR of the one-line layouts but makes an add's mask a cross-lane job (about 9
 * cycles of AVX-512 shuffles and GFNI products, kernels/blocked_avx512gfni.c). Here probe j
 * belongs to word j, so the mask is one multiply, shift and variable shift (or rotate) per
 * 64-bit lane and a test needs no cross-lane work. It pays in memory: 10.10 bits per key for 1% and
 * 15.73 for 0.1% against the blocked kind's 9.92 and 15.55 (sizing.c has the exact model).
 *
 * Which k: k = 8r puts r bits in every word; with BB_MAX_K = 16, r is 1 or 2 (k = 16 wins
 * below about 2 * 10^-4: 22.88 bits per key at 0.01% against 23.61 at k = 8). At high FPR
 * eight probes are too many for the memory, and fewer words per key do better (10%: 4.93 bits
 * per key at k = 4, 5.88 at k = 8), so k = 1, 2, 4 use an aligned run of k words: the line is
 * then 8 / k independent units, and the model stays exact. Runs are chosen by lo only and
 * the line by multiply-shift, so bb_fold's halving (line pairs ORed) is exact for every k.
 * Other k (3, 5-7, 9-15) are refused: their runs would not tile a line or their words
 * would carry unequal loads, and sizing never needs them.
 *
 * Invariants: bits = 512 B; k in {1, 2, 4, 8, 16} (row k_set, checked on create and load);
 * the scalar kernel (bb_sect_line_set / bb_sect_line_test, internal.h) is the reference and
 * every SIMD kernel (src/kernels/sectorized_*.c) sets the same bits (tests/test_sectorized.c
 * pins bytes computed by an independent reference). dispatch.c picks the kernel: the widest
 * one the CPU has for both operations, or the one BB_ISA / bb_set_isa names.
 */
#include "../internal.h"
#include "../kernels/prefetch.h"
#include "atomic_bits.h"

#include <math.h>

/* Odd 32-bit constants: the SHA-256 initial values (fractional bits of the square roots of
 * the first 8 primes), then its first 9 round constants (cube roots), low bit set. 64-bit
 * lanes and aligned, so the x86 kernels load 4 or 8 as vpmuludq operands. */
const uint64_t bb_sect_salts[17] __attribute__((aligned(64))) = {
    0x6a09e667u, 0xbb67ae85u, 0x3c6ef373u, 0xa54ff53bu, 0x510e527fu, 0x9b05688du, 0x1f83d9abu,
    0x5be0cd19u, 0x428a2f99u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u,
    0x923f82a5u, 0xab1c5ed5u, 0xd807aa99u};

static inline const bb_kernel *kernel(void) { return bb_dispatch_active()->sect; }

static bb_status sect_add(bb_filter *f, uint64_t h) {
    bb_sect_line_set(bb_block_of(f->data, f->blocks, h), (uint32_t)h, f->k);
    f->keys_added = bb_sat_add(f->keys_added, 1);
    return BB_OK;
}

static bool sect_contains(const bb_filter *f, uint64_t h) {
    return kernel()->contains_one(f->data, f->blocks, f->k, h);
}

static bb_status sect_add_hashes(bb_filter *f, const uint64_t *h, size_t n) {
    return bb_kernel_add(kernel(), f, h, n);
}

static size_t sect_contains_hashes(const bb_filter *f, const uint64_t *h, size_t n,
                                   uint8_t *out) {
    return kernel()->contains_hashes(f->data, f->blocks, f->k, h, n, out);
}

/* Batches of keys: a CPU row may run them on another kernel in large filters (dispatch.c). */
static bb_status sect_add_hashes_warm(bb_filter *f, const uint64_t *h, size_t n) {
    return bb_kernel_add(bb_kernel_keys_sect(f->payload_bytes), f, h, n);
}

static size_t sect_contains_hashes_warm(const bb_filter *f, const uint64_t *h, size_t n,
                                        uint8_t *out) {
    return bb_kernel_keys_sect(f->payload_bytes)
        ->contains_hashes(f->data, f->blocks, f->k, h, n, out);
}

static const uint8_t *sect_line_of(const bb_filter *f, uint64_t h) {
    return bb_block_of(f->data, f->blocks, h);
}

/* Into L2, as the blocked kind's (batch.c says why). */
static void sect_prefetch_lines(const bb_filter *f, const uint64_t *h, size_t n) {
    for (size_t i = 0; i < n; i++) __builtin_prefetch(bb_block_of(f->data, f->blocks, h[i]), 0, 2);
}

/* Concurrent: probe j is payload bit 64 (first + j % w) + bit of the line, set with an atomic
 * OR on the word that holds it (atomic_bits.h). */
static bool sect_add_concurrent(bb_filter *f, uint64_t h) {
    uint8_t *line = bb_block_of(f->data, f->blocks, h);
    uint32_t lo = (uint32_t)h;
    unsigned w = bb_sect_width(f->k), first = bb_sect_first(lo, f->k);
    bool fresh = false;
    for (unsigned j = 0; j < f->k; j++)
        fresh |= bb_or_bit(line, 64 * (first + j % w) + bb_sect_bit(lo, j));
    return fresh;
}

static bool sect_contains_concurrent(const bb_filter *f, uint64_t h) {
    uint8_t *line = bb_block_of(f->data, f->blocks, h);
    uint32_t lo = (uint32_t)h;
    unsigned w = bb_sect_width(f->k), first = bb_sect_first(lo, f->k);
    for (unsigned j = 0; j < f->k; j++)
        if (!bb_test_bit(line, 64 * (first + j % w) + bb_sect_bit(lo, j))) return false;
    return true;
}

/* Per unit (w words), from the fill x_i of its words: an absent key sent there hits word i's
 * set bits with its r = k / w probes with probability (x_i / 64)^r, independently per word,
 * so the unit's FPR is prod_i (x_i / 64)^r; each word holds r bits per key, so it estimates
 * -(64 / r) ln(1 - x_i / 64) keys (Swamidass-Baldi), and the unit the mean of its words. */
static bb_status sect_info(const bb_filter *f, bb_info *out) {
    bb_fill acc = {0};
    unsigned w = bb_sect_width(f->k), r = f->k / w;
    bb_info_fields(f, out);
    for (uint64_t b = 0; b < f->blocks; b++) {
        const uint8_t *line = f->data + b * BB_BLOCK_BYTES;
        for (unsigned u = 0; u < BB_SECT_WORDS; u += w) {
            double fpr = 1.0, keys = 0.0;
            for (unsigned i = u; i < u + w; i++) {
                uint64_t x = bb_popcount_bytes(line + 8 * i, 8);
                acc.bits_set += x;
                fpr *= pow((double)x / 64.0, r);
                keys += bb_cardinality(64.0, (double)x, r);
            }
            acc.blocks++;
            acc.fpr_sum += fpr;
            acc.cardinality += keys / w;
        }
    }
    bb_fill_store(&acc, f->bits, out);
    return BB_OK;
}

const bb_kind_ops bb_kind_sectorized = {
    .kind = BB_SECTORIZED,
    .name = "sectorized",
    .layout = BB_LAYOUT_SECTORIZED,
    .block_bits = BB_BLOCK_BITS,
    .cell_bits = 1,
    .k_set = BB_SECT_KS,
    .flags = BB_POW2_BYTES,
    .foldable = true,
    .size = bb_sect_size,
    .size_for_k = bb_sect_size_for_k,
    .best_k = bb_sect_best_k,
    .fpr_model = bb_sect_fpr,
    .add = sect_add,
    .contains = sect_contains,
    .add_hashes = sect_add_hashes,
    .add_hashes_warm = sect_add_hashes_warm,
    .contains_hashes = sect_contains_hashes,
    .contains_hashes_warm = sect_contains_hashes_warm,
    .line_of = sect_line_of,
    .prefetch_lines = sect_prefetch_lines,
    .block_lines = true,
    .add_concurrent = sect_add_concurrent,
    .contains_concurrent = sect_contains_concurrent,
    .info = sect_info,
    .merge = bb_merge_or,
};

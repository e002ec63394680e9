/* SPDX-License-Identifier: MIT */
/*
 * counting.c - the counting Bloom filter (Fan, Cao, Almeida, Broder, "Summary Cache", 2000):
 * the blocked filter with a 4-bit counter in place of each bit, so that keys can be removed.
 * It uses the blocked filter's block index and probe positions unchanged (internal.h), so the
 * set of non-zero counters is exactly the blocked filter of the same keys and
 * bb_counting_to_blocked can export it bit for bit. Block b is the 256 bytes at b * 256 (four
 * adjacent cache lines); position p is the nibble p & 1 of byte p >> 1 (see internal.h).
 *
 * Invariants: a key adds 1 to each of its *distinct* positions (bb_block_positions), and
 * remove subtracts the same, so add and remove are exact inverses. A counter that reaches 15
 * saturates and never changes again (neither up nor down): its true count is unknown, and
 * decrementing it could reach 0 while keys still map to it, a false negative. For a classic
 * layout at k <= (m/n) ln 2, Fan et al. (section 5.2) bound the chance that any counter
 * reaches 16 by 1.37e-15 * m; the blocked layout's uneven block loads raise this by orders of
 * magnitude and it is still negligible, so saturation marks repeated adds of one key rather
 * than chance. Info reports how many counters saturated.
 *
 *   payload: blocks x 256 bytes; block b of the blocked layout, a nibble per position:
 *   byte q of a block = counter 2q (low nibble) | counter 2q + 1 (high nibble)
 *
 * Defined on bytes, so endian-neutral like the bit layout. Sized as the blocked kind (same
 * positions, same FPR). This file holds the kind's row of the kinds table.
 */
#include "../internal.h"

#include <string.h>

#define BB_COUNTING_BLOCK_BYTES 256u
#define BB_COUNTER_MAX 15u

static inline uint8_t *counting_block(const bb_filter *f, uint64_t h) {
    return f->data + bb_block_index(h, f->blocks) * BB_COUNTING_BLOCK_BYTES;
}

static inline unsigned counter_get(const uint8_t *block, unsigned p) {
    return (block[p >> 1] >> ((p & 1) * 4)) & 0xFu;
}

/* Counter p += 1 or -= 1; the caller has checked it is below 15, or above 0, so the nibble
 * never carries or borrows into its neighbour. */
static inline void counter_inc(uint8_t *block, unsigned p) {
    block[p >> 1] = (uint8_t)(block[p >> 1] + (1u << ((p & 1) * 4)));
}
static inline void counter_dec(uint8_t *block, unsigned p) {
    block[p >> 1] = (uint8_t)(block[p >> 1] - (1u << ((p & 1) * 4)));
}

static bb_status counting_add(bb_filter *f, uint64_t h) {
    uint8_t *block = counting_block(f, h);
    uint16_t pos[BB_MAX_K];
    unsigned n = bb_block_positions((uint32_t)h, f->k, pos);
    for (unsigned i = 0; i < n; i++)
        if (counter_get(block, pos[i]) != BB_COUNTER_MAX) counter_inc(block, pos[i]);
    f->keys_added = bb_sat_add(f->keys_added, 1);
    return BB_OK;
}

static bool counting_contains(const bb_filter *f, uint64_t h) {
    const uint8_t *block = counting_block(f, h);
    uint32_t x = (uint32_t)h;
    for (unsigned j = 0; j < f->k; j++)
        if (counter_get(block, bb_probe_next(&x)) == 0) return false;
    return true;
}

static bb_status counting_remove(bb_filter *f, uint64_t h) {
    uint8_t *block = counting_block(f, h);
    uint16_t pos[BB_MAX_K];
    unsigned n = bb_block_positions((uint32_t)h, f->k, pos);
    for (unsigned i = 0; i < n; i++) /* check all before changing any */
        if (counter_get(block, pos[i]) == 0) return BB_E_ABSENT;
    for (unsigned i = 0; i < n; i++)
        if (counter_get(block, pos[i]) != BB_COUNTER_MAX) counter_dec(block, pos[i]);
    if (f->keys_added) f->keys_added--;
    return BB_OK;
}

/* ---- Whole-payload passes ------------------------------------------------------------------
 * Eight bytes hold 16 counters, one per nibble; masks with bit 0 of every nibble (0x1111...)
 * count them with one popcount. Nibbles never straddle bytes, so this works in either byte
 * order. */
#define NIBBLE_LOW_BITS UINT64_C(0x1111111111111111)

/* Counters of one block that are non-zero (*nonzero) and saturated at 15 (*saturated). */
static void block_counts(const uint8_t *block, uint64_t *nonzero, uint64_t *saturated) {
    uint64_t nz = 0, sat = 0;
    for (unsigned i = 0; i < BB_COUNTING_BLOCK_BYTES; i += 8) {
        uint64_t w;
        memcpy(&w, block + i, 8);
        nz += (uint64_t)__builtin_popcountll((w | w >> 1 | w >> 2 | w >> 3) & NIBBLE_LOW_BITS);
        sat += (uint64_t)__builtin_popcountll(w & w >> 1 & w >> 2 & w >> 3 & NIBBLE_LOW_BITS);
    }
    *nonzero = nz;
    *saturated = sat;
}

static inline uint8_t add_nibbles(uint8_t a, uint8_t b) {
    unsigned lo = (a & 0xFu) + (b & 0xFu), hi = (unsigned)(a >> 4) + (b >> 4);
    if (lo > BB_COUNTER_MAX) lo = BB_COUNTER_MAX;
    if (hi > BB_COUNTER_MAX) hi = BB_COUNTER_MAX;
    return (uint8_t)(hi << 4 | lo);
}

/* Position p is "set" when its counter is non-zero; the saturated ones are counted too. */
static bb_status counting_info(const bb_filter *f, bb_info *out) {
    bb_fill acc = {0};
    bb_info_fields(f, out);
    for (uint64_t b = 0; b < f->blocks; b++) {
        uint64_t x, saturated;
        block_counts(f->data + b * BB_COUNTING_BLOCK_BYTES, &x, &saturated);
        acc.saturated += saturated;
        bb_fill_block(&acc, x, BB_BLOCK_BITS, f->k);
    }
    bb_fill_store(&acc, f->bits, out);
    return BB_OK;
}

/* Union: counters add, saturating at 15, so a saturated side keeps the sum saturated and no
 * count is ever under-reported. */
static void counting_merge(bb_filter *dst, const bb_filter *src) {
    for (uint64_t i = 0; i < dst->payload_bytes; i++)
        dst->data[i] = add_nibbles(dst->data[i], src->data[i]);
    dst->keys_added = bb_sat_add(dst->keys_added, src->keys_added);
}

/* Bit p of the blocked block is set iff counter p is non-zero: counter byte q holds positions
 * 2q and 2q + 1, which are bits (2q) & 7 and (2q + 1) & 7 of output byte q >> 2. */
static void export_block(const uint8_t *counters, uint8_t *bits) {
    for (unsigned q = 0; q < BB_COUNTING_BLOCK_BYTES; q++) {
        unsigned lo = (counters[q] & 0x0Fu) != 0, hi = (counters[q] & 0xF0u) != 0;
        bits[q >> 2] |= (uint8_t)((lo | hi << 1) << ((2 * q) & 7));
    }
}

bb_status bb_counting_to_blocked(const bb_filter *counting, bb_filter **out) {
    if (!out) return BB_E_INVAL;
    *out = NULL;
    if (!counting) return BB_E_INVAL;
    if (counting->kind != BB_COUNTING) return BB_E_UNSUPPORTED;
    bb_filter *b;
    bb_status s = bb_filter_alloc(&b, BB_BLOCKED, counting->bits, counting->k, counting->seed);
    if (s != BB_OK) return s;
    for (uint64_t i = 0; i < counting->blocks; i++)
        export_block(counting->data + i * BB_COUNTING_BLOCK_BYTES, b->data + i * BB_BLOCK_BYTES);
    b->capacity = counting->capacity;
    b->fpr_target = counting->fpr_target;
    b->keys_added = counting->keys_added;
    *out = b;
    return BB_OK;
}

const bb_kind_ops bb_kind_counting = {
    .kind = BB_COUNTING,
    .name = "counting",
    .block_bits = BB_BLOCK_BITS,
    .cell_bits = 4,
    .size = bb_blocked_size,
    .size_for_k = bb_blocked_size_for_k,
    .best_k = bb_blocked_best_k,
    .fpr_model = bb_blocked_fpr,
    .add = counting_add,
    .contains = counting_contains,
    .remove = counting_remove,
    .info = counting_info,
    .merge = counting_merge,
};

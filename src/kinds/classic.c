/* SPDX-License-Identifier: MIT */
/*
 * classic.c - the classic Bloom filter (Bloom 1970), the baseline the blocked filter is
 * measured against. k probe positions over all m bits come from one 64-bit XXH3 hash by
 * enhanced double hashing (Dillinger and Manolios 2004; Kirsch and Mitzenmacher 2006):
 *     x_0 = h1, y_0 = h2;  position_i = floor(x_i * m / 2^64);  x_{i+1} = x_i + y_i,
 *     y_{i+1} = y_i + i   (all mod 2^64)
 * with h1 = h and h2 = a 64-bit finaliser of h (the MurmurHash3 fmix64 constants), so the
 * pre-hashed and byte-key paths agree. Mapping with the multiply-shift (Lemire 2016) instead of
 * "mod m" keeps everything in 64-bit arithmetic with no modulo bias, and the cubic term of the
 * enhanced scheme stops the k positions collapsing onto one when h2 is a multiple of a small m.
 *
 *   payload: ceil(m / 8) bytes, bit i = bit (i & 7) of byte i >> 3; the bits past m in the
 *   last byte are always zero (a loaded file must have them zero: classic_payload_valid)
 *
 * Sizing is the classic model of sizing.c. This file holds the kind's row of the kinds table.
 */
#include "../internal.h"
#include "atomic_bits.h"

static inline uint64_t second_hash(uint64_t h) {
    h ^= h >> 33;
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    h *= UINT64_C(0xc4ceb9fe1a85ec53);
    h ^= h >> 33;
    return h;
}

/* The probe sequence, written once: state (x, y) starts at (h, second_hash(h)); probe i is
 * floor(x * m / 2^64), then x += y, y += i. */
typedef struct probe_seq { uint64_t x, y; } probe_seq;

static inline probe_seq probe_start(uint64_t h) { return (probe_seq){h, second_hash(h)}; }

static inline uint64_t probe_next(probe_seq *s, unsigned i, uint64_t m) {
    uint64_t p = bb_fastrange64(s->x, m);
    s->x += s->y;
    s->y += i;
    return p;
}

static bb_status classic_add(bb_filter *f, uint64_t h) {
    probe_seq s = probe_start(h);
    for (unsigned i = 0; i < f->k; i++) {
        uint64_t p = probe_next(&s, i, f->bits);
        f->data[p >> 3] |= (uint8_t)(1u << (p & 7));
    }
    f->keys_added = bb_sat_add(f->keys_added, 1);
    return BB_OK;
}

static bool classic_contains(const bb_filter *f, uint64_t h) {
    probe_seq s = probe_start(h);
    for (unsigned i = 0; i < f->k; i++) {
        uint64_t p = probe_next(&s, i, f->bits);
        if (!((f->data[p >> 3] >> (p & 7)) & 1)) return false;
    }
    return true;
}

/* Concurrent: one atomic word per probe (atomic_bits.h). */
static bool classic_add_concurrent(bb_filter *f, uint64_t h) {
    probe_seq s = probe_start(h);
    bool fresh = false;
    for (unsigned i = 0; i < f->k; i++) fresh |= bb_or_bit(f->data, probe_next(&s, i, f->bits));
    return fresh;
}

static bool classic_contains_concurrent(const bb_filter *f, uint64_t h) {
    probe_seq s = probe_start(h);
    for (unsigned i = 0; i < f->k; i++)
        if (!bb_test_bit(f->data, probe_next(&s, i, f->bits))) return false;
    return true;
}

static bb_status classic_info(const bb_filter *f, bb_info *out) {
    bb_fill acc = {0};
    bb_info_fields(f, out);
    bb_fill_block(&acc, bb_popcount_bytes(f->data, f->payload_bytes), f->bits, f->k);
    bb_fill_store(&acc, f->bits, out);
    return BB_OK;
}

/* The unused high bits of the last byte must be zero (see the layout above), or bits_set and
 * the FPR estimate would count them. */
static bool classic_payload_valid(const bb_filter *h, const uint8_t *payload) {
    unsigned used = (unsigned)(h->bits % 8);
    return !used || !(payload[h->payload_bytes - 1] >> used);
}

const bb_kind_ops bb_kind_classic = {
    .kind = BB_CLASSIC,
    .name = "classic",
    .block_bits = 0,
    .cell_bits = 1,
    .size = bb_classic_size,
    .size_for_k = bb_classic_size_for_k,
    .best_k = bb_classic_best_k,
    .fpr_model = bb_classic_fpr,
    .add = classic_add,
    .contains = classic_contains,
    .add_concurrent = classic_add_concurrent,
    .contains_concurrent = classic_contains_concurrent,
    .info = classic_info,
    .merge = bb_merge_or,
    .payload_valid = classic_payload_valid,
};

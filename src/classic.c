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
 */
#include "internal.h"

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
    uint64_t p = bb_mulhi64(s->x, m);
    s->x += s->y;
    s->y += i;
    return p;
}

void bb_classic_add(bb_filter *f, uint64_t h) {
    probe_seq s = probe_start(h);
    for (unsigned i = 0; i < f->k; i++) {
        uint64_t p = probe_next(&s, i, f->bits);
        f->data[p >> 3] |= (uint8_t)(1u << (p & 7));
    }
}

bool bb_classic_contains(const bb_filter *f, uint64_t h) {
    probe_seq s = probe_start(h);
    for (unsigned i = 0; i < f->k; i++) {
        uint64_t p = probe_next(&s, i, f->bits);
        if (!((f->data[p >> 3] >> (p & 7)) & 1)) return false;
    }
    return true;
}

void bb_classic_positions(const bb_filter *f, uint64_t h, uint64_t pos[BB_MAX_K]) {
    probe_seq s = probe_start(h);
    for (unsigned i = 0; i < f->k; i++) pos[i] = probe_next(&s, i, f->bits);
}

size_t bb_classic_contains_hashes(const bb_filter *f, const uint64_t *h, size_t n, uint8_t *out) {
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        bool r = bb_classic_contains(f, h[i]);
        out[i] = r;
        hits += r;
    }
    return hits;
}

void bb_classic_add_hashes(bb_filter *f, const uint64_t *h, size_t n) {
    for (size_t i = 0; i < n; i++) bb_classic_add(f, h[i]);
}

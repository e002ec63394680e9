/*
 * concurrent.c - adds from many threads into one blocked or classic filter, and the reads
 * that may run beside them (the contract is in blockbloom.h, "Concurrent build").
 *
 * Each probe bit is set with an atomic fetch-or on the aligned 64-bit word that holds it (a
 * blocked key's words all lie in its one 64-byte block). OR is commutative and idempotent, so
 * the final bytes do not depend on the interleaving: they equal a single-thread build. Each
 * word is first read with a relaxed load and the fetch-or skipped when the bit is already
 * set: as the filter fills that is the common case (about half the probes at the optimal
 * fill), it costs an L1 hit instead of a locked RMW (~5 ns each on the development machine),
 * and a read leaves the cache line shared where an RMW would pull it exclusive.
 *
 * Probes are not grouped by word: grouping saves a fetch-or only when two probes of a key
 * share a word and both bits are new (about 0.8 per key at k = 6), and every grouping tried
 * cost more than that: a mask array built with narrow ORs and read back (store-forwarding
 * stalls: 40-140 ns per key instead of 8 ns, measured on an AMD EPYC), a quadratic grouping
 * with data-dependent branches (32 ns, mispredictions) and branch-free masks in registers
 * (47 ns), against 8 ns per key per probe (in-cache filter, bits already set; 30 ns when all
 * bits are new).
 *
 * Relaxed order is enough: no other memory is published through these bits, and coherence
 * alone makes a read that happens after an add see its bits (C11 7.17.3, write-read and
 * read-read coherence; the bits are never cleared while concurrent adds run).
 *
 * Byte layout: payload bit i is bit (i & 7) of byte i >> 3, so on a little-endian machine it
 * is bit i & 63 of the 64-bit word at byte 8 * (i >> 6); on a big-endian one the mask is
 * byte-swapped to land on the same bytes.
 *
 * The payload is 64-byte aligned and its allocation rounded up to 64 bytes (alloc.c), so the
 * word holding a classic filter's last bits is inside the allocation; bits past `bits` are
 * never in a mask and so stay zero.
 */
#include "internal.h"
#include "kernels/prefetch.h"

#include <stdatomic.h>

_Static_assert(sizeof(_Atomic uint64_t) == sizeof(uint64_t),
               "atomic words must overlay the payload");


static inline _Atomic uint64_t *word_at(uint8_t *data, uint64_t w) {
    return (_Atomic uint64_t *)(void *)(data + 8 * w);
}

/* Mask for bits (i & 63) of word i >> 6, in the payload's byte order (see above). */
static inline uint64_t payload_mask(uint64_t little_endian_mask) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return __builtin_bswap64(little_endian_mask);
#else
    return little_endian_mask;
#endif
}

/* Set `mask` in *w; true if some bit of it was clear (this call set it). */
static inline bool or_word(_Atomic uint64_t *w, uint64_t mask) {
    if ((atomic_load_explicit(w, memory_order_relaxed) & mask) == mask) return false;
    return (atomic_fetch_or_explicit(w, mask, memory_order_relaxed) & mask) != mask;
}

static inline bool test_word(_Atomic uint64_t *w, uint64_t mask) {
    return (atomic_load_explicit(w, memory_order_relaxed) & mask) == mask;
}

/* ---- Blocked ------------------------------------------------------------------------------- */

static inline uint8_t *block_of(const bb_filter *f, uint64_t h) {
    return f->data + bb_block_index(h, f->blocks) * BB_BLOCK_BYTES;
}

/* The word of `block` holding probe p, and p's mask in it. */
static inline _Atomic uint64_t *probe_word(uint8_t *block, uint32_t p, uint64_t *mask) {
    *mask = payload_mask(UINT64_C(1) << (p & 63));
    return word_at(block, p >> 6);
}

static bool blocked_add(const bb_filter *f, uint64_t h) {
    uint8_t *block = block_of(f, h);
    uint32_t x = (uint32_t)h;
    bool fresh = false;
    for (unsigned j = 0; j < f->k; j++) {
        uint64_t mask;
        _Atomic uint64_t *w = probe_word(block, bb_probe_next(&x), &mask);
        fresh |= or_word(w, mask);
    }
    return fresh;
}

static bool blocked_contains(const bb_filter *f, uint64_t h) {
    uint8_t *block = block_of(f, h);
    uint32_t x = (uint32_t)h;
    for (unsigned j = 0; j < f->k; j++) {
        uint64_t mask;
        _Atomic uint64_t *w = probe_word(block, bb_probe_next(&x), &mask);
        if (!test_word(w, mask)) return false;
    }
    return true;
}

/* ---- Classic: one word per probe -------------------------------------------------------- */

static bool classic_add(const bb_filter *f, uint64_t h) {
    uint64_t pos[BB_MAX_K];
    bb_classic_positions(f, h, pos);
    bool fresh = false;
    for (unsigned i = 0; i < f->k; i++)
        fresh |= or_word(word_at(f->data, pos[i] >> 6), payload_mask(UINT64_C(1) << (pos[i] & 63)));
    return fresh;
}

static bool classic_contains(const bb_filter *f, uint64_t h) {
    uint64_t pos[BB_MAX_K];
    bb_classic_positions(f, h, pos);
    for (unsigned i = 0; i < f->k; i++)
        if (!test_word(word_at(f->data, pos[i] >> 6), payload_mask(UINT64_C(1) << (pos[i] & 63))))
            return false;
    return true;
}

/* ---- Entry points ----------------------------------------------------------------------- */

static bb_status check_add(const bb_filter *f) {
    if (!f) return BB_E_INVAL;
    if (f->kind != BB_BLOCKED && f->kind != BB_CLASSIC) return BB_E_UNSUPPORTED;
    return f->storage == BB_STORE_FILE ? BB_E_READONLY : BB_OK;
}

static inline bool add_one(const bb_filter *f, uint64_t h) {
    return f->kind == BB_BLOCKED ? blocked_add(f, h) : classic_add(f, h);
}

static void count_keys(bb_filter *f, uint64_t n) {
    atomic_fetch_add_explicit((_Atomic uint64_t *)(void *)&f->keys_added, n, memory_order_relaxed);
}

/* Adds h[0 .. n) and returns how many were new. A blocked filter beyond L2 is prefetched
 * ahead (for writing) by the kernels' rules (kernels/prefetch.h): each locked RMW waits for
 * its line and stops the core from running ahead, so without prefetch the misses would not
 * overlap at all. */
static size_t add_many(bb_filter *f, const uint64_t *h, size_t n) {
    size_t fresh = 0;
    bool ahead = f->kind == BB_BLOCKED && bb_prefetch_worth(f->blocks);
    for (size_t i = 0; ahead && i < n && i < BB_PREFETCH_AHEAD; i++)
        __builtin_prefetch(block_of(f, h[i]), 1);
    for (size_t i = 0; i < n; i++) {
        if (ahead && i + BB_PREFETCH_AHEAD < n)
            __builtin_prefetch(block_of(f, h[i + BB_PREFETCH_AHEAD]), 1);
        fresh += add_one(f, h[i]);
    }
    count_keys(f, n);
    return fresh;
}

bb_status bb_add_hash_concurrent(bb_filter *f, uint64_t hash, bool *was_new) {
    bb_status s = check_add(f);
    if (s != BB_OK) return s;
    bool fresh = add_one(f, hash);
    count_keys(f, 1);
    if (was_new) *was_new = fresh;
    return BB_OK;
}

bb_status bb_add_concurrent(bb_filter *f, const void *key, size_t len, bool *was_new) {
    if (!f || (!key && len)) return BB_E_INVAL;
    return bb_add_hash_concurrent(f, bb_xxh3(key, len, f->seed), was_new);
}

bb_status bb_add_hashes_concurrent(bb_filter *f, const uint64_t *hashes, size_t n,
                                   size_t *n_new) {
    bb_status s = check_add(f);
    if (s == BB_OK && n && !hashes) s = BB_E_INVAL;
    if (s != BB_OK) return s;
    size_t fresh = n ? add_many(f, hashes, n) : 0;
    if (n_new) *n_new = fresh;
    return BB_OK;
}

bb_status bb_add_batch_concurrent(bb_filter *f, const void *const *keys, const size_t *lens,
                                  size_t n, size_t *n_new) {
    bb_keysrc src = {.shape = BB_SRC_PTRS, .keys = keys, .lens = lens};
    bb_status s = check_add(f);
    if (s == BB_OK) s = bb_keysrc_validate(&src, n);
    if (s != BB_OK) return s;
    uint64_t h[256]; /* hashed in chunks, as batch.c does */
    size_t fresh = 0;
    for (size_t i = 0; i < n; i += 256) {
        size_t c = n - i < 256 ? n - i : 256;
        bb_hash_keys(&src, f->seed, i, c, h);
        fresh += add_many(f, h, c);
    }
    if (n_new) *n_new = fresh;
    return BB_OK;
}

bool bb_contains_hash_concurrent(const bb_filter *f, uint64_t hash) {
    if (!f) return false;
    if (f->kind == BB_BLOCKED) return blocked_contains(f, hash);
    if (f->kind == BB_CLASSIC) return classic_contains(f, hash);
    return bb_contains_hash(f, hash); /* no concurrent writers exist for other kinds */
}

bool bb_contains_concurrent(const bb_filter *f, const void *key, size_t len) {
    if (!f || (!key && len)) return false;
    return bb_contains_hash_concurrent(f, bb_xxh3(key, len, f->seed));
}

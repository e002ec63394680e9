/*
 * concurrent.c - adds from many threads into one blocked, classic or split filter, and the
 * reads that may run beside them (the contract is in blockbloom.h, "Concurrent build").
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
 * The word operations are in kinds/atomic_bits.h and each kind's concurrent add and read in
 * its row (add_concurrent, contains_concurrent); kinds without them refuse concurrent adds.
 */
#include "internal.h"
#include "kernels/prefetch.h"

#include <stdatomic.h>
#include <stdlib.h>

static bb_status check_add(const bb_filter *f) {
    if (!f) return BB_E_INVAL;
    const bb_kind_ops *row = bb_row(f);
    if (!row->add_concurrent && !row->add_striped) return BB_E_UNSUPPORTED;
    return f->storage == BB_STORE_FILE ? BB_E_READONLY : BB_OK;
}

static void count_keys(bb_filter *f, uint64_t n) {
    atomic_fetch_add_explicit((_Atomic uint64_t *)(void *)&f->keys_added, n, memory_order_relaxed);
}

/* f's stripe locks, made by the first caller that needs them (a losing racer frees its
 * copy); NULL when out of memory. */
static bb_stripes *stripes_of(bb_filter *f) {
    bb_stripes *st = atomic_load_explicit(&f->stripes, memory_order_acquire);
    if (st) return st;
    bb_stripes *made = aligned_alloc(_Alignof(bb_stripes), sizeof *made);
    if (!made) return NULL;
    for (unsigned s = 0; s < BB_STRIPES; s++) atomic_init(&made->lock[s].held, 0);
    atomic_init(&made->writers, 0);
    if (atomic_compare_exchange_strong_explicit(&f->stripes, &st, made, memory_order_acq_rel,
                                                memory_order_acquire))
        return made;
    free(made);
    return st;
}

/* Adds h[0 .. n) into f (check_add passed) and sets *fresh to how many were new. A filter
 * with one line per key (blocked) beyond L2 is prefetched ahead (for writing) by the
 * kernels' rules (kernels/prefetch.h): each locked RMW waits for its line and stops the core
 * from running ahead, so without prefetch the misses would not overlap at all. */
static bb_status add_many(bb_filter *f, const uint64_t *h, size_t n, size_t *fresh) {
    const bb_kind_ops *row = bb_row(f);
    *fresh = 0;
    if (row->add_striped) {
        bb_stripes *st = stripes_of(f);
        if (!st) return BB_E_NOMEM;
        *fresh = row->add_striped(f, st, h, n);
        count_keys(f, n);
        return BB_OK;
    }
    bool ahead = row->line_of && bb_prefetch_worth(f->payload_bytes / BB_BLOCK_BYTES);
    for (size_t i = 0; ahead && i < n && i < BB_PREFETCH_AHEAD; i++)
        __builtin_prefetch(row->line_of(f, h[i]), 1);
    for (size_t i = 0; i < n; i++) {
        if (ahead && i + BB_PREFETCH_AHEAD < n)
            __builtin_prefetch(row->line_of(f, h[i + BB_PREFETCH_AHEAD]), 1);
        *fresh += row->add_concurrent(f, h[i]);
    }
    count_keys(f, n);
    return BB_OK;
}

bb_status bb_add_hash_concurrent(bb_filter *f, uint64_t hash, bool *was_new) {
    bb_status s = check_add(f);
    size_t fresh = 0;
    if (s == BB_OK) s = add_many(f, &hash, 1, &fresh);
    if (s == BB_OK && was_new) *was_new = fresh;
    return s;
}

bb_status bb_add_concurrent(bb_filter *f, const void *key, size_t len, bool *was_new) {
    if (!f || (!key && len)) return BB_E_INVAL;
    return bb_add_hash_concurrent(f, bb_hash(f, key, len), was_new);
}

bb_status bb_add_hashes_concurrent(bb_filter *f, const uint64_t *hashes, size_t n,
                                   size_t *n_new) {
    bb_status s = check_add(f);
    if (s == BB_OK && n && !hashes) s = BB_E_INVAL;
    size_t fresh = 0;
    if (s == BB_OK && n) s = add_many(f, hashes, n, &fresh);
    if (s == BB_OK && n_new) *n_new = fresh;
    return s;
}

/* Hashed in chunks of BATCH_CHUNK keys, as batch.c does; a multiple of the striped kernels'
 * chunk (kernels/conc_loops.h) so that each of their chunks is full. */
#define BATCH_CHUNK 1024

bb_status bb_add_batch_concurrent(bb_filter *f, const void *const *keys, const size_t *lens,
                                  size_t n, size_t *n_new) {
    bb_keysrc src = {.shape = BB_SRC_PTRS, .keys = keys, .lens = lens};
    bb_status s = check_add(f);
    if (s == BB_OK) s = bb_keysrc_validate(&src, n);
    if (s != BB_OK) return s;
    uint64_t h[BATCH_CHUNK];
    size_t fresh = 0;
    for (size_t i = 0; i < n && s == BB_OK; i += BATCH_CHUNK) {
        size_t c = n - i < BATCH_CHUNK ? n - i : BATCH_CHUNK, got;
        bb_hash_keys(&src, bb_row(f)->hash, f->seed, i, c, h);
        s = add_many(f, h, c, &got);
        fresh += got;
    }
    if (s == BB_OK && n_new) *n_new = fresh;
    return s;
}

bool bb_contains_hash_concurrent(const bb_filter *f, uint64_t hash) {
    if (!f) return false;
    const bb_kind_ops *row = bb_row(f);
    if (row->contains_concurrent) return row->contains_concurrent(f, hash);
    return row->contains(f, hash); /* no concurrent writers exist for this kind */
}

bool bb_contains_concurrent(const bb_filter *f, const void *key, size_t len) {
    if (!f || (!key && len)) return false;
    return bb_contains_hash_concurrent(f, bb_hash(f, key, len));
}

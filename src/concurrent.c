/* SPDX-License-Identifier: MIT */
/*
 * concurrent.c - adds from many threads into one blocked, classic or split filter, and the
 * reads that may run beside them (the contract is in blockbloom.h, "Concurrent build").
 *
 * Blocked filters: stripe locks. The blocks are split into BB_STRIPES (16) runs of
 * consecutive blocks, each with a spin lock on its own cache line (internal.h, made on the
 * first concurrent add). The kernel (kernels/conc_loops.h, one file per ISA, on the plain
 * add's ISA) takes a batch in chunks of 1024 keys:
 *  - fast path: a batch that is the only writer in (a count of batches and waiting writers
 *    says so) takes all the stripes and sets the chunk in its own order, exactly as the
 *    plain SIMD add does: mask in a register, one load, OR and store of the block. 16 locked
 *    exchanges per 1024 keys.
 *  - a single key, or a chunk of fewer than 32 keys that cannot take the fast path, takes
 *    each key's stripe lock in turn.
 *  - otherwise the chunk is grouped by stripe (a stable counting sort, ~2 ns/key) and each
 *    stripe's keys are set under that stripe's lock, taken with a try-lock in an order that
 *    starts at a random stripe and skips held ones: two writers rarely wait for each other,
 *    and one locked exchange covers ~64 keys.
 *  - a batch of at least 1 key per block into a filter of at most 2 MiB, while another
 *    writer is in and nobody asked for its "new" count, is set in a private copy and ORed
 *    in stripe by stripe: each line then moves between the cores once per batch, not once
 *    per stripe visit (conc_loops.h, "the private path", has the measurements).
 * Writers hold the lock of every block they change, so a block's update needs no atomic
 * read-modify-write; readers run beside it with relaxed 64-bit loads, and the SIMD kernels'
 * one wide store per block gives them a state between the old and the new bits, never fewer
 * than the adds that completed (kernels/conc_or512.h). OR is commutative and idempotent and the
 * lock serialises the writers of a block, so the bytes equal a single-thread build; the
 * grouping is stable, so a batch's "new" count equals a one-by-one loop's on one thread.
 * The cost is that of a lock: a writer that holds a stripe and loses its vCPU makes others
 * that need that stripe wait (they spin, then yield, conc_loops.h).
 *
 * Measured on Zen 4 (AMD EPYC family 25 model 17, 2 vCPUs shared with other agents), the
 * plain and the concurrent add of the same 2^20 random hashes into same-size filters (1%)
 * in one process, alternating calls, thread CPU time, medians of 21 (of 61 at 10^4-10^5):
 * concurrent / plain add, 1 thread, avx512gfni (the dispatched add): 10^4 keys 1.11-1.14,
 * 10^6 1.17-1.23, 10^7 1.02-1.19; avx512: 10^5 1.06, 10^6 1.10-1.13, 10^7 1.13 (before,
 * per-bit fetch-or: 2.7-6.8 in `blockbloom bench`); AVX2 10^4 1.23, 10^6 1.04; scalar
 * 1.08-1.12 uncounted, 1.33-1.62 counted (conc_scalar.c). Calls of B keys, single-key
 * calls: kernels/conc_loops.h. Two threads, each
 * adding half of 10^6 keys, against one adding all, medians of per-pair ratios of 21: by the
 * slowest thread's CPU time 1.25-1.64 (the grouped path costs ~6.5 ns/key against ~4.7 for
 * the fast path, so 1.4 is the most two writers gain on this CPU); by wall time 0.8-1.25,
 * which depends on whether the other vCPU is free (load average 1-4 during these runs).
 * Steps measured on the way, 1 thread, 10^6 keys, ratio to plain:
 *  - grouped path for every chunk, with 8 relaxed atomic word stores per key: 3.0;
 *  - the grouping as one loop storing the stripe and counting it: 6.95 ns/key for the
 *    grouping alone, against 1.95 as three passes (kernels/conc_loops.h);
 *  - prefetching every line of the chunk while grouping (1024 prefetches at once) instead
 *    of a rolling 64 keys ahead in the sorted keys: no gain (3.07 against 2.97 with it);
 *  - the block written with one wide store instead of 8 atomic word stores: 2.21 -> 1.74;
 *  - the take-all fast path on top: 1.74 -> 1.10.
 * A per-word scheme cannot reach 1.5x here: the earlier per-bit fetch-or needed ~5 locked
 * RMWs per key (~5 ns each), and grouping a key's probes per word still leaves ~3.5 per key
 * (4.4 distinct words of 8 at k = 7, most with a new bit while the filter fills), so it was
 * not built; a 16-byte cmpxchg16b per touched quarter needs ~3.3 per key.
 *
 * Classic and split filters: each probe bit is set with an atomic fetch-or on the aligned
 * 64-bit word that holds it (kinds/atomic_bits.h), after a relaxed load that skips it when
 * the bit is already set. Relaxed order is enough for every kind: no other memory is
 * published through these bits, and coherence alone makes a read that happens after an add
 * see its bits (C11 7.17.3, write-read and read-read coherence; the bits are never cleared
 * while concurrent adds run).
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

/* Adds h[0 .. n) into f (check_add passed) and, with `count`, sets *fresh to how many were
 * new (else to any number: kernels/conc_loops.h's private path cannot tell): under the
 * stripe locks for kinds with add_striped, else key by key. Per key, a filter with one line
 * per key beyond L2 is prefetched ahead (for writing) by the kernels' rules
 * (kernels/prefetch.h): each locked RMW waits for its line and stops the core from running
 * ahead, so without prefetch the misses would not overlap at all. */
static bb_status add_many(bb_filter *f, const uint64_t *h, size_t n, bool count,
                          size_t *fresh) {
    const bb_kind_ops *row = bb_row(f);
    *fresh = 0;
    if (row->add_striped) {
        bb_stripes *st = stripes_of(f);
        if (!st) return BB_E_NOMEM;
        *fresh = row->add_striped(f, st, h, n, count);
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
    if (s == BB_OK) s = add_many(f, &hash, 1, was_new != NULL, &fresh);
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
    if (s == BB_OK && n) s = add_many(f, hashes, n, n_new != NULL, &fresh);
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
        s = add_many(f, h, c, n_new != NULL, &got);
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

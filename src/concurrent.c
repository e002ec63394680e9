/* SPDX-License-Identifier: MIT */
/*
 * concurrent.c - adds from many threads into one blocked, classic or split filter, and the
 * reads that may run beside them (the contract is in blockbloom.h, "Concurrent build").
 *
 * Blocked filters: stripe locks. The blocks are split into BB_STRIPES (16) runs of
 * consecutive blocks, each with a spin lock on its own cache line (internal.h, made on the
 * first concurrent add). The kernel (kernels/conc_loops.h, one file per ISA, on the plain
 * add's ISA) takes a batch in chunks of 4096 keys:
 *  - fast path: a batch that is the only writer in (a count of batches and waiting writers
 *    says so) takes all the stripes and sets the chunk in its own order, exactly as the
 *    plain SIMD add does: mask in a register, one load, OR and store of the block. 16 locked
 *    exchanges per 4096 keys.
 *  - a single key, or a chunk of fewer than 32 keys that cannot take the fast path, takes
 *    each key's stripe lock in turn.
 *  - otherwise, with one other writer in, the chunk is split once into the keys of the lower
 *    and of the upper half of the stripes (a compare of each hash with the first hash of the
 *    upper half) and each half is set under all its stripes' locks: the two writers mostly
 *    work in different halves, and swap.
 *  - with more writers, the chunk is grouped by stripe (a stable counting sort) and each
 *    stripe's keys are set under that stripe's lock, taken with a try-lock in an order that
 *    starts at a random stripe and skips held ones: writers rarely wait for each other,
 *    and one locked exchange covers ~256 keys. The sort costs 3 times the split (12-16 TSC
 *    ticks per key against 4.3-4.8 on Zen 3), so two writers take the split.
 *  - a batch of at least 1 key per block into a filter of at most 2 MiB, while another
 *    writer is in and nobody asked for its "new" count, is set in a private copy and ORed
 *    in stripe by stripe: each line then moves between the cores once per batch, not once
 *    per stripe visit (conc_loops.h, "the private path", has the measurements).
 * Writers hold the lock of every block they change, so a block's update needs no atomic
 * read-modify-write; readers run beside it with relaxed 64-bit loads, and the SIMD kernels'
 * one wide store per block gives them a state between the old and the new bits, never fewer
 * than the adds that completed (kernels/conc_or512.h). OR is commutative and idempotent and the
 * lock serialises the writers of a block, so the bytes equal a single-thread build; the
 * split and the grouping are stable, so a batch's "new" count equals a one-by-one loop's on
 * one thread.
 * The cost is that of a lock: a writer that holds a stripe and loses its vCPU makes others
 * that need that stripe wait (they spin, then yield, conc_loops.h).
 *
 * The price, on Zen 4 (EPYC family 25 model 17), 1 thread: a concurrent batch add costs
 * 1.02-1.23 times the plain add on the avx512gfni kernel from 10^4 to 10^7 keys (a per-bit
 * fetch-or costs 2.7-6.8). The measurements and the per-word scheme weighed against this:
 * docs/PERFORMANCE.md, "Kernel notes".
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

/* Hashed in chunks of BATCH_CHUNK keys, as batch.c does; each goes to the striped kernels as
 * one call, a part of one of their chunks (kernels/conc_loops.h), to keep this frame small. */
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

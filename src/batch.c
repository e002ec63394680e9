/* SPDX-License-Identifier: MIT */
/*
 * batch.c - the public batch entry points. Every batch shape (pointer arrays, Arrow columns,
 * fixed-width keys) is validated first, then hashed in chunks of BB_CHUNK keys into a
 * stack buffer and handed to the batch calls of the kind's row.
 *
 * For filters with one line per key (blocked) beyond L2 the chunks are software-pipelined:
 * chunk c+1 is hashed and its blocks prefetched into L2, and only then is chunk c tested or
 * added. So a chunk's lines travel while the CPU hashes, instead of the kernel's rolling
 * prefetch starting cold at every chunk with the memory system idle during hashing. The early
 * prefetch goes to L2 (_MM_HINT_T1, locality 2): two chunks of lines (32 KiB) brought into
 * L1 would evict each other before use; the kernel's own prefetch moves them on to L1. It
 * took string batch contains on a 132 MiB filter from 20.4 to 12.8 ns/key (Zen 4, EPYC family
 * 25 model 17) and costs ~1 ns/key on a 1.2 MiB filter, mostly in L2 already, hence the size
 * threshold (prefetch.h; the figures in docs/PERFORMANCE.md, "Kernel notes").
 *
 * A filter given threads (bb_set_threads) hands large batches to threads.c: contains by key
 * range (each part runs the loop below), adds partitioned by line.
 */
#include "internal.h"
#include "kernels/prefetch.h"

/* Keys per chunk (two chunks of hashes live on the stack: 16 KiB). Each chunk switches once
 * from hashing to the kernel and back, which the core cannot overlap, and below 2 MiB starts
 * the kernel's rolling prefetch cold: 1024 keys against 256 took string contains of 10^6 keys
 * to 0.875-0.91x (Zen 4, EPYC family 25 model 17); 4096 would need 64 KiB of stack, too much
 * for small thread stacks. Other sizes, and a fused hash-and-add loop for small filters,
 * measured: docs/PERFORMANCE.md, "Kernel notes". */
#define BB_CHUNK 1024

/* Keys per chunk where each key's line is prefetched as it is hashed (bb_dispatch's
 * inline_pf_bytes): string batches of 10^8 keys on Intel model CFh, against the same scheme
 * in chunks of 1024, took 0.88x the time on lookups and 0.80x on adds at 256 keys, 0.93x and
 * 0.89x at 128 (sectorized, medians of 7 alternating pairs). */
#define BB_CHUNK_INLINE 256

/* The row's batch calls, or its one-hash calls key by key (for kinds without a batch path). */
static size_t contains_hashes(const bb_filter *f, const uint64_t *h, size_t n, uint8_t *out) {
    const bb_kind_ops *row = bb_row(f);
    if (row->contains_hashes) return row->contains_hashes(f, h, n, out);
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        out[i] = row->contains(f, h[i]);
        hits += out[i];
    }
    return hits;
}

static bb_status add_hashes(bb_filter *f, const uint64_t *h, size_t n) {
    const bb_kind_ops *row = bb_row(f);
    if (row->add_hashes) return row->add_hashes(f, h, n); /* the row counts the keys */
    for (size_t i = 0; i < n; i++) {
        bb_status s = row->add(f, h[i]); /* a scalable filter may be full or out of memory */
        if (s != BB_OK) return s;
    }
    return BB_OK;
}

static bool pipelined(const bb_filter *f) { return bb_pipelined(bb_row(f), f->payload_bytes); }

/* Whether a batch of src's keys into f (an add, or lookups) prefetches each line as its key
 * is hashed. */
static bool inline_pf(const bb_filter *f, const bb_keysrc *src, bool add) {
    const bb_kind_ops *row = bb_row(f);
    const bb_dispatch *d = bb_dispatch_active();
    return row->block_lines && pipelined(f) &&
           f->payload_bytes > (add ? d->inline_pf_add_bytes : d->inline_pf_bytes) &&
           bb_hash_grouped(src, row->hash);
}

/* A chunk of add_src or contains_part, whose lines hash_chunk may have prefetched. */
static bb_status add_chunk(bb_filter *f, const uint64_t *h, size_t n) {
    const bb_kind_ops *row = bb_row(f);
    if (row->add_hashes_warm && pipelined(f)) return row->add_hashes_warm(f, h, n);
    return add_hashes(f, h, n);
}

static size_t contains_chunk(const bb_filter *f, const uint64_t *h, size_t n, uint8_t *out) {
    const bb_kind_ops *row = bb_row(f);
    if (row->contains_hashes_warm && pipelined(f)) return row->contains_hashes_warm(f, h, n, out);
    return contains_hashes(f, h, n, out);
}

static bb_status check_add(const bb_filter *f) {
    if (!f) return BB_E_INVAL;
    return f->storage == BB_STORE_FILE ? BB_E_READONLY : BB_OK;
}

bb_status bb_add_hashes(bb_filter *f, const uint64_t *hashes, size_t n) {
    bb_status s = check_add(f);
    if (s != BB_OK) return s;
    if (n == 0) return BB_OK;
    if (!hashes) return BB_E_INVAL;
    unsigned t = bb_threads_for(f, NULL, n, true);
    if (t > 1 && bb_threads_add(f, t, NULL, hashes, n)) return BB_OK;
    return add_hashes(f, hashes, n);
}

/* A validated contains batch: pre-computed hashes h, or the keys of src (contains_part). */
typedef struct part_job {
    const bb_filter *f;
    const uint64_t *h;
    const bb_keysrc *src;
    uint8_t *out;
} part_job;

static size_t contains_part(void *ctx, size_t first, size_t count);

/* The whole batch on this thread, or split among the filter's threads. */
static size_t contains_all(const part_job *j, size_t n) {
    unsigned t = bb_threads_for(j->f, j->h ? NULL : j->src, n, false);
    if (t > 1) return bb_threads_contains(t, n, contains_part, (void *)j);
    return n ? contains_part((void *)j, 0, n) : 0;
}

bb_status bb_contains_hashes(const bb_filter *f, const uint64_t *hashes, size_t n, uint8_t *out,
                             size_t *n_present) {
    if (!f || (n && (!hashes || !out))) return BB_E_INVAL;
    part_job j = {.f = f, .h = hashes, .out = out};
    size_t hits = contains_all(&j, n);
    if (n_present) *n_present = hits;
    return BB_OK;
}

/* ---- Keys that need hashing ------------------------------------------------------------------ */

bb_status bb_keysrc_validate(const bb_keysrc *src, size_t n) {
    if (n == 0) return BB_OK;
    if (n == SIZE_MAX) return BB_E_INVAL; /* Arrow offsets would need n + 1 entries */
    switch (src->shape) {
    case BB_SRC_PTRS:
        if (!src->keys || !src->lens) return BB_E_INVAL;
        for (size_t i = 0; i < n; i++)
            if (!src->keys[i] && src->lens[i]) return BB_E_INVAL;
        return BB_OK;
    case BB_SRC_ARROW32:
        if (!src->off32 || src->off32[0] < 0 || (!src->data && src->off32[n] != src->off32[0]))
            return BB_E_INVAL;
        for (size_t i = 0; i < n; i++)
            if (src->off32[i + 1] < src->off32[i]) return BB_E_INVAL;
        return BB_OK;
    case BB_SRC_ARROW64:
        if (!src->off64 || src->off64[0] < 0 || (!src->data && src->off64[n] != src->off64[0]))
            return BB_E_INVAL;
        for (size_t i = 0; i < n; i++)
            if (src->off64[i + 1] < src->off64[i]) return BB_E_INVAL;
        return BB_OK;
    case BB_SRC_FIXED:
        if (src->stride < src->width || (!src->data && src->width)) return BB_E_INVAL;
        if (src->stride && n - 1 > (SIZE_MAX - src->width) / src->stride) return BB_E_INVAL;
        return BB_OK;
    }
    return BB_E_INVAL;
}

/* hashes[0 .. count) = hashes of keys first .. first+count-1; for a filter with one line per
 * key (a row with line_of) beyond L2 the chunk's lines are then prefetched into L2, all at
 * once: hash.c hashes a chunk grouped by key length, out of order, so there are no earlier
 * hashes to prefetch. The lines have the whole next chunk's hashing to arrive: against
 * prefetching every 16 keys, string contains of 10^7 keys took 0.91-0.92x the time (Zen 4,
 * EPYC family 25 model 17; docs/PERFORMANCE.md, "Kernel notes"). Where the CPU's row says
 * so (inl), the grouped hashing prefetches each line itself as soon as its hash is known
 * instead: on Intel model CFh the burst of a chunk's prefetches waits on the core's few
 * outstanding misses while nothing else runs (7.5 ns per line at 10^8 keys, about the time
 * a pre-hashed batch takes), so a string batch cost its hashing plus the whole memory time. */
static void hash_chunk(const bb_filter *f, const bb_keysrc *src, size_t first, size_t count,
                       uint64_t *hashes, bool inl) {
    const bb_kind_ops *row = bb_row(f);
    if (inl) {
        bb_hash_keys_prefetch(src, f->seed, first, count, hashes, f->data, f->blocks);
        return;
    }
    bb_hash_keys(src, row->hash, f->seed, first, count, hashes);
    if (!pipelined(f)) return;
    if (row->prefetch_lines) {
        row->prefetch_lines(f, hashes, count);
        return;
    }
    for (size_t q = 0; q < count; q++) __builtin_prefetch(row->line_of(f, hashes[q]), 0, 2);
}

static size_t chunk_len(size_t n, size_t i, size_t step) { return n - i < step ? n - i : step; }

static bb_status add_src(bb_filter *f, const bb_keysrc *src, size_t n) {
    bb_status s = check_add(f);
    if (s == BB_OK) s = bb_keysrc_validate(src, n);
    if (s != BB_OK || n == 0) return s;
    unsigned t = bb_threads_for(f, src, n, true);
    if (t > 1 && bb_threads_add(f, t, src, NULL, n)) return BB_OK;
    uint64_t h[2][BB_CHUNK];
    bool inl = inline_pf(f, src, true);
    size_t step = inl ? BB_CHUNK_INLINE : BB_CHUNK;
    hash_chunk(f, src, 0, chunk_len(n, 0, step), h[0], inl);
    for (size_t i = 0, cur = 0; s == BB_OK && i < n; i += step, cur ^= 1) {
        if (i + step < n)
            hash_chunk(f, src, i + step, chunk_len(n, i + step, step), h[cur ^ 1], inl);
        s = add_chunk(f, h[cur], chunk_len(n, i, step));
    }
    return s;
}

/* Keys [first, first + count) of a validated contains batch (the whole batch, or one library
 * thread's part of it), hashed and tested chunk by chunk. */
static size_t contains_part(void *ctx, size_t first, size_t count) {
    const part_job *j = ctx;
    if (j->h) return contains_hashes(j->f, j->h + first, count, j->out + first);
    uint64_t h[2][BB_CHUNK];
    size_t hits = 0;
    bool inl = inline_pf(j->f, j->src, false);
    size_t step = inl ? BB_CHUNK_INLINE : BB_CHUNK;
    if (count) hash_chunk(j->f, j->src, first, chunk_len(count, 0, step), h[0], inl);
    for (size_t i = 0, cur = 0; i < count; i += step, cur ^= 1) {
        if (i + step < count)
            hash_chunk(j->f, j->src, first + i + step, chunk_len(count, i + step, step),
                       h[cur ^ 1], inl);
        hits += contains_chunk(j->f, h[cur], chunk_len(count, i, step), j->out + first + i);
    }
    return hits;
}

static bb_status contains_src(const bb_filter *f, const bb_keysrc *src, size_t n, uint8_t *out,
                              size_t *n_present) {
    if (!f || (n && !out)) return BB_E_INVAL;
    bb_status s = bb_keysrc_validate(src, n);
    if (s != BB_OK) return s;
    part_job j = {.f = f, .src = src, .out = out};
    size_t hits = contains_all(&j, n);
    if (n_present) *n_present = hits;
    return BB_OK;
}

static bb_keysrc ptrs(const void *const *keys, const size_t *lens) {
    return (bb_keysrc){.shape = BB_SRC_PTRS, .keys = keys, .lens = lens};
}
static bb_keysrc arrow32(const void *data, const int32_t *off) {
    return (bb_keysrc){.shape = BB_SRC_ARROW32, .data = data, .off32 = off};
}
static bb_keysrc arrow64(const void *data, const int64_t *off) {
    return (bb_keysrc){.shape = BB_SRC_ARROW64, .data = data, .off64 = off};
}
static bb_keysrc fixed(const void *base, size_t width, size_t stride) {
    return (bb_keysrc){.shape = BB_SRC_FIXED, .data = base, .width = width,
                       .stride = stride ? stride : width};
}

bb_status bb_add_batch(bb_filter *f, const void *const *keys, const size_t *lens, size_t n) {
    bb_keysrc s = ptrs(keys, lens);
    return add_src(f, &s, n);
}
bb_status bb_contains_batch(const bb_filter *f, const void *const *keys, const size_t *lens,
                            size_t n, uint8_t *out, size_t *n_present) {
    bb_keysrc s = ptrs(keys, lens);
    return contains_src(f, &s, n, out, n_present);
}
bb_status bb_add_arrow32(bb_filter *f, const void *data, const int32_t *offsets, size_t n) {
    bb_keysrc s = arrow32(data, offsets);
    return add_src(f, &s, n);
}
bb_status bb_contains_arrow32(const bb_filter *f, const void *data, const int32_t *offsets,
                              size_t n, uint8_t *out, size_t *n_present) {
    bb_keysrc s = arrow32(data, offsets);
    return contains_src(f, &s, n, out, n_present);
}
bb_status bb_add_arrow64(bb_filter *f, const void *data, const int64_t *offsets, size_t n) {
    bb_keysrc s = arrow64(data, offsets);
    return add_src(f, &s, n);
}
bb_status bb_contains_arrow64(const bb_filter *f, const void *data, const int64_t *offsets,
                              size_t n, uint8_t *out, size_t *n_present) {
    bb_keysrc s = arrow64(data, offsets);
    return contains_src(f, &s, n, out, n_present);
}
bb_status bb_add_fixed(bb_filter *f, const void *base, size_t width, size_t stride, size_t n) {
    bb_keysrc s = fixed(base, width, stride);
    return add_src(f, &s, n);
}
bb_status bb_contains_fixed(const bb_filter *f, const void *base, size_t width, size_t stride,
                            size_t n, uint8_t *out, size_t *n_present) {
    bb_keysrc s = fixed(base, width, stride);
    return contains_src(f, &s, n, out, n_present);
}

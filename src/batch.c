/*
 * batch.c - the public batch entry points. Every batch shape (pointer arrays, Arrow columns,
 * fixed-width keys) is validated first, then hashed in chunks of BB_CHUNK keys into a small
 * stack buffer and handed to the kind's hash-batch routine: the blocked kernels prefetch
 * ahead inside each chunk, and hashing one chunk while the previous chunk's lines are still
 * in flight keeps both the ALUs and the memory system busy.
 */
#include "internal.h"

#define BB_CHUNK 256

/* Counting and scalable filters go key by key through the single-hash calls (filter.c). */
static size_t contains_hashes(const bb_filter *f, const uint64_t *h, size_t n, uint8_t *out) {
    if (f->kind == BB_BLOCKED)
        return bb_kernel_active()->contains_hashes(f->data, f->blocks, f->k, h, n, out);
    if (f->kind == BB_CLASSIC) return bb_classic_contains_hashes(f, h, n, out);
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        out[i] = bb_contains_hash(f, h[i]);
        hits += out[i];
    }
    return hits;
}

static bb_status add_hashes(bb_filter *f, const uint64_t *h, size_t n) {
    if (f->kind == BB_BLOCKED)
        bb_kernel_active()->add_hashes(f->data, f->blocks, f->k, h, n);
    else if (f->kind == BB_CLASSIC)
        bb_classic_add_hashes(f, h, n);
    else {
        for (size_t i = 0; i < n; i++) {
            bb_status s = bb_add_hash(f, h[i]); /* scalable may be full or out of memory */
            if (s != BB_OK) return s;
        }
        return BB_OK; /* bb_add_hash counted the keys */
    }
    f->keys_added += n;
    return BB_OK;
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
    return add_hashes(f, hashes, n);
}

bb_status bb_contains_hashes(const bb_filter *f, const uint64_t *hashes, size_t n, uint8_t *out,
                             size_t *n_present) {
    if (!f || (n && (!hashes || !out))) return BB_E_INVAL;
    size_t hits = n ? contains_hashes(f, hashes, n, out) : 0;
    if (n_present) *n_present = hits;
    return BB_OK;
}

/* ---- Keys that need hashing ------------------------------------------------------------------ */

bb_status bb_keysrc_validate(const bb_keysrc *src, size_t n) {
    if (n == 0) return BB_OK;
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

static bb_status add_src(bb_filter *f, const bb_keysrc *src, size_t n) {
    bb_status s = check_add(f);
    if (s == BB_OK) s = bb_keysrc_validate(src, n);
    uint64_t h[BB_CHUNK];
    for (size_t i = 0; s == BB_OK && i < n; i += BB_CHUNK) {
        size_t c = n - i < BB_CHUNK ? n - i : BB_CHUNK;
        bb_hash_keys(src, f->seed, i, c, h);
        s = add_hashes(f, h, c);
    }
    return s;
}

static bb_status contains_src(const bb_filter *f, const bb_keysrc *src, size_t n, uint8_t *out,
                              size_t *n_present) {
    if (!f || (n && !out)) return BB_E_INVAL;
    bb_status s = bb_keysrc_validate(src, n);
    if (s != BB_OK) return s;
    uint64_t h[BB_CHUNK];
    size_t hits = 0;
    for (size_t i = 0; i < n; i += BB_CHUNK) {
        size_t c = n - i < BB_CHUNK ? n - i : BB_CHUNK;
        bb_hash_keys(src, f->seed, i, c, h);
        hits += contains_hashes(f, h, c, out + i);
    }
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

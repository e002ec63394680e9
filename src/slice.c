/* SPDX-License-Identifier: MIT */
/*
 * slice.c - a blocked filter built in parts (bb_slice, see "Slices" in blockbloom.h). A slice
 * holds blocks [first, first + n) of a filter of `blocks` blocks; a key's block is chosen
 * among all `blocks` (fastrange, internal.h) exactly as in the whole filter and the key is
 * dropped when its block lies outside the range. The bits are set with the reference
 * bb_block_set, which every kernel matches bit for bit (tests/test_kernels.c), so slice i's
 * bytes are bytes [64 first, 64 (first + n)) of the whole filter's payload. bb_blocks_test
 * is the reading side of the same idea: the kernel's block test on blocks fetched elsewhere.
 */
#include "abi.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

struct bb_slice {
    bb_slice_info info;
    uint8_t *data;
    void *map_base;
    size_t map_len;
};

bb_status bb_slice_split(uint64_t blocks, uint64_t n_slices, uint64_t *per_out) {
    if (!per_out || blocks == 0 || n_slices == 0 || n_slices > blocks) return BB_E_INVAL;
    uint64_t per = blocks / n_slices + (blocks % n_slices != 0);
    if ((blocks + per - 1) / per != n_slices) return BB_E_INVAL;
    *per_out = per;
    return BB_OK;
}

bb_status bb_slice_create(bb_slice **out, const bb_config *user_cfg, uint64_t index,
                          uint64_t n_slices) {
    if (!out) return BB_E_INVAL;
    *out = NULL;
    if (!user_cfg) return BB_E_INVAL;
    bb_config c;
    bb_status s = bb_config_read(user_cfg, &c);
    if (s != BB_OK) return s;
    const bb_config *cfg = &c;
    if (cfg->kind != BB_BLOCKED || index >= n_slices) return BB_E_INVAL;
    if (cfg->growth != 0.0 || cfg->tightening != 0.0) return BB_E_INVAL;
    uint64_t bits, per; /* flags (BB_POW2_BYTES) are checked by the geometry, as in bb_create */
    unsigned k;
    s = bb_config_geometry(cfg, &bits, &k);
    if (s == BB_OK) s = bb_slice_split(bits / BB_BLOCK_BITS, n_slices, &per);
    if (s != BB_OK) return s;
    bb_slice *sl = calloc(1, sizeof *sl);
    if (!sl) return BB_E_NOMEM;
    bb_slice_info *in = &sl->info;
    in->size = sizeof *in;
    in->index = index;
    in->n_slices = n_slices;
    in->blocks = bits / BB_BLOCK_BITS;
    in->bits = bits;
    in->blocks_per_slice = per;
    in->first_block = index * per;
    in->n_blocks = in->blocks - in->first_block < per ? in->blocks - in->first_block : per;
    in->k = k;
    in->seed = cfg->seed;
    in->capacity = cfg->capacity;
    in->fpr_target = cfg->fpr;
    sl->data = bb_mem_alloc(in->n_blocks * BB_BLOCK_BYTES, &sl->map_base, &sl->map_len);
    if (!sl->data) {
        free(sl);
        return BB_E_NOMEM;
    }
    *out = sl;
    return BB_OK;
}

/* Unsigned wrap-around makes one compare test first <= b < first + n. */
static void add_hashes(bb_slice *s, const uint64_t *h, size_t n) {
    const bb_slice_info *in = &s->info;
    for (size_t i = 0; i < n; i++) {
        uint64_t b = bb_block_index(h[i], in->blocks) - in->first_block;
        if (b < in->n_blocks) bb_block_set(s->data + b * BB_BLOCK_BYTES, (uint32_t)h[i], in->k);
    }
    s->info.keys_added = bb_sat_add(s->info.keys_added, n);
}

bb_status bb_slice_add_hashes(bb_slice *s, const uint64_t *hashes, size_t n) {
    if (!s || (n && !hashes)) return BB_E_INVAL;
    add_hashes(s, hashes, n);
    return BB_OK;
}

bb_status bb_slice_add_arrow64(bb_slice *s, const void *data, const int64_t *offsets,
                               size_t n) {
    if (!s) return BB_E_INVAL;
    bb_keysrc src = {.shape = BB_SRC_ARROW64, .data = data, .off64 = offsets};
    bb_status st = bb_keysrc_validate(&src, n);
    if (st != BB_OK) return st;
    uint64_t h[256];
    for (size_t i = 0; i < n; i += 256) {
        size_t c = n - i < 256 ? n - i : 256;
        bb_hash_keys(&src, bb_kind_blocked.hash, s->info.seed, i, c, h);
        add_hashes(s, h, c);
    }
    return BB_OK;
}

/* bb_slice_info is unchanged since 0.1.0, so every field up to keys_added is required. */
bb_status bb_slice_get_info(const bb_slice *s, bb_slice_info *out) {
    if (!s || !out) return BB_E_INVAL;
    bb_status st = bb_abi_check(out->size, BB_END_OF(bb_slice_info, keys_added), "bb_slice_info",
                                "BB_SLICE_INFO_INIT");
    if (st == BB_OK) bb_abi_write(out, out->size, &s->info, sizeof s->info);
    return st;
}

const void *bb_slice_data(const bb_slice *s, uint64_t *len_bytes) {
    if (len_bytes) *len_bytes = s ? s->info.n_blocks * BB_BLOCK_BYTES : 0;
    return s ? s->data : NULL;
}

void bb_slice_free(bb_slice *s) {
    if (!s) return;
    bb_mem_free(s->map_base, s->map_len);
    free(s);
}

bb_status bb_blocks_test(const void *blocks, const uint64_t *hashes, size_t n, unsigned k,
                         uint8_t *out, size_t *n_present) {
    if ((n && (!blocks || !hashes || !out)) || k == 0 || k > BB_MAX_K) return BB_E_INVAL;
    bool (*test)(const uint8_t *, uint32_t, unsigned) = bb_kernel_active()->block_test;
    _Alignas(64) uint8_t line[BB_BLOCK_BYTES];
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *b = (const uint8_t *)blocks + i * BB_BLOCK_BYTES;
        if ((uintptr_t)b % BB_BLOCK_BYTES) { /* kernels load whole aligned lines */
            memcpy(line, b, BB_BLOCK_BYTES);
            b = line;
        }
        out[i] = test(b, (uint32_t)hashes[i], k);
        hits += out[i];
    }
    if (n_present) *n_present = hits;
    return BB_OK;
}

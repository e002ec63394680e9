/* SPDX-License-Identifier: MIT */
/*
 * filter.c - the generic bb_filter calls: create from a bb_config, clone, clear, free, info,
 * the single-key add/contains/remove, and the public sizing functions, each dispatched
 * through the kind's row (internal.h, "The kinds table"); no kind is named here. The
 * bit-level work is in the rows (src/kinds/) and their kernels.
 */
#include "abi.h"
#include "internal.h"

#include <math.h>
#include <stdlib.h>

/* ---- Sizing -------------------------------------------------------------------------------- */

static bool valid_p(double p) { return p > 0.0 && p < 1.0; } /* false for NaN */

bb_status bb_size(bb_kind kind, uint64_t capacity, double fpr, uint64_t *bits_out,
                  unsigned *k_out) {
    const bb_kind_ops *row = bb_kind_row(kind);
    if (!bits_out || !k_out || capacity == 0 || !valid_p(fpr)) return BB_E_INVAL;
    if (!row || !row->size) return BB_E_INVAL;
    return row->size(capacity, fpr, bits_out, k_out);
}

bb_status bb_best_k(bb_kind kind, uint64_t capacity, uint64_t bits, unsigned *k_out) {
    const bb_kind_ops *row = bb_kind_row(kind);
    if (!k_out || capacity == 0 || bits == 0) return BB_E_INVAL;
    if (!row || !row->best_k) return BB_E_INVAL;
    *k_out = row->best_k(capacity, bits);
    return BB_OK;
}

bb_status bb_fpr_model(bb_kind kind, uint64_t n_keys, uint64_t bits, unsigned k,
                       double *fpr_out) {
    const bb_kind_ops *row = bb_kind_row(kind);
    if (!fpr_out || bits == 0 || k == 0 || k > BB_MAX_K) return BB_E_INVAL;
    if (!row || !row->fpr_model || (row->block_bits && bits % row->block_bits)) return BB_E_INVAL;
    if (!bb_row_has_k(row, k) || (row->max_bits && bits > row->max_bits))
        return BB_E_INVAL;
    *fpr_out = row->fpr_model((double)n_keys, bits, k);
    return BB_OK;
}

/* ---- Creating ------------------------------------------------------------------------------ */

/* BB_POW2_BYTES: bits rounded up to a power-of-two payload of at least 32 bytes and one
 * block, and at most BB_POW2_MAX_BYTES (Parquet writers' convention, see bb_config). */
static uint64_t pow2_bits(const bb_kind_ops *row, uint64_t bits) {
    uint64_t want = bb_payload_bytes(row, bits), bytes = row->block_bits / 8;
    if (bytes < 32) bytes = 32;
    while (bytes < want && bytes < BB_POW2_MAX_BYTES) bytes *= 2;
    return bytes * 8 / row->cell_bits;
}

/* Geometry (bits, k) of a flat kind from a config, before BB_POW2_BYTES; see bb_config for
 * the accepted combinations. */
static bb_status base_geometry(const bb_kind_ops *row, const bb_config *c, uint64_t *bits,
                               unsigned *k) {
    bool has_p = c->fpr != 0.0, has_bpk = c->bits_per_key != 0.0;
    if (has_p && !valid_p(c->fpr)) return BB_E_INVAL;
    if (has_bpk && !(c->bits_per_key > 0.0 && c->bits_per_key <= (double)BB_MAX_BITS))
        return BB_E_INVAL;
    if (c->k > BB_MAX_K || (has_p && has_bpk) || ((has_p || has_bpk) && c->bits)) return BB_E_INVAL;
    if ((has_p || has_bpk) && c->capacity == 0) return BB_E_INVAL;
    *bits = c->bits;
    *k = c->k;
    if (has_p) {
        if (c->k) /* explicit k: the fewest bits that meet p with that k */
            return row->size_for_k(c->capacity, c->fpr, c->k, bits);
        return row->size(c->capacity, c->fpr, bits, k);
    }
    if (has_bpk) {
        double m = ceil((double)c->capacity * c->bits_per_key);
        if (!(m <= (double)BB_MAX_BITS)) return BB_E_TOO_LARGE;
        *bits = (uint64_t)m;
    }
    if (*bits == 0) return BB_E_INVAL;
    if (*bits > BB_MAX_BITS) return BB_E_TOO_LARGE;
    if (row->block_bits) *bits = (*bits + row->block_bits - 1) / row->block_bits * row->block_bits;
    if (*k == 0) {
        if (c->capacity == 0) return BB_E_INVAL;
        *k = row->best_k(c->capacity, *bits);
    }
    return BB_OK;
}

static bb_status config_geometry(const bb_kind_ops *row, const bb_config *c, uint64_t *bits,
                                 unsigned *k) {
    if (c->flags & ~row->flags) return BB_E_INVAL;
    if (c->k && c->k <= BB_MAX_K && !bb_row_has_k(row, c->k)) return BB_E_INVAL;
    bb_status s = base_geometry(row, c, bits, k);
    if (s != BB_OK || !(c->flags & BB_POW2_BYTES)) return s;
    *bits = pow2_bits(row, *bits);
    /* The size changed: the best k for it (a k the caller gave stays). */
    if (!c->k && c->capacity) *k = row->best_k(c->capacity, *bits);
    return BB_OK;
}

bb_status bb_config_geometry(const bb_config *cfg, uint64_t *bits, unsigned *k) {
    const bb_kind_ops *row = bb_kind_row(cfg->kind);
    if (!row || row->create) return BB_E_INVAL; /* nested kinds have no single geometry */
    return config_geometry(row, cfg, bits, k);
}

bb_status bb_config_read(const bb_config *cfg, bb_config *c) {
    return BB_ABI_READ(c, cfg, bb_config, seed, "BB_CONFIG_INIT");
}

bb_status bb_create(bb_filter **out, const bb_config *user_cfg) {
    if (!out) return BB_E_INVAL;
    *out = NULL;
    if (!user_cfg) return BB_E_INVAL;
    bb_config c;
    bb_status s = bb_config_read(user_cfg, &c);
    if (s != BB_OK) return s;
    const bb_config *cfg = &c;
    const bb_kind_ops *row = bb_kind_row(cfg->kind);
    if (!row) return BB_E_INVAL;
    if (row->create) return row->create(out, cfg);
    if (cfg->growth != 0.0 || cfg->tightening != 0.0) return BB_E_INVAL;
    uint64_t bits;
    unsigned k;
    s = config_geometry(row, cfg, &bits, &k);
    if (s != BB_OK) return s;
    s = bb_filter_alloc(out, cfg->kind, bits, k, cfg->seed);
    if (s != BB_OK) return s;
    (*out)->capacity = cfg->capacity;
    (*out)->fpr_target = cfg->fpr;
    return BB_OK;
}

bb_status bb_create_for(bb_filter **out, bb_kind kind, uint64_t capacity, double fpr,
                        uint64_t seed) {
    bb_config c = {.size = sizeof c, .kind = kind, .capacity = capacity, .fpr = fpr, .seed = seed};
    if (!(fpr > 0.0)) { /* 0 or NaN must not read as "not given" */
        if (out) *out = NULL;
        return BB_E_INVAL;
    }
    return bb_create(out, &c);
}

bb_status bb_clone(bb_filter **out, const bb_filter *f) {
    if (!out) return BB_E_INVAL;
    *out = NULL;
    if (!f) return BB_E_INVAL;
    const bb_kind_ops *row = bb_row(f);
    bb_status s = row->clone ? row->clone(out, f) : bb_flat_clone(out, f);
    if (s == BB_OK) (*out)->scheme = f->scheme;
    return s;
}

void bb_free(bb_filter *f) {
    if (!f) return;
    const bb_kind_ops *row = bb_row(f);
    if (row->release) row->release(f);
    bb_filter_destroy(f);
}

bb_status bb_clear(bb_filter *f) {
    if (!f) return BB_E_INVAL;
    if (f->storage == BB_STORE_FILE) return BB_E_READONLY;
    const bb_kind_ops *row = bb_row(f);
    if (row->clear) row->clear(f);
    else bb_flat_clear(f);
    return BB_OK;
}

const char *bb_kind_name(bb_kind kind) {
    const bb_kind_ops *row = bb_kind_row(kind);
    return row ? row->name : "unknown";
}

/* ---- Single keys --------------------------------------------------------------------------- */

bb_status bb_add_hash(bb_filter *f, uint64_t h) {
    if (!f) return BB_E_INVAL;
    if (f->storage == BB_STORE_FILE) return BB_E_READONLY;
    return bb_row(f)->add(f, h);
}

bool bb_contains_hash(const bb_filter *f, uint64_t h) {
    if (!f) return false;
    return bb_row(f)->contains(f, h);
}

bb_status bb_add(bb_filter *f, const void *key, size_t len) {
    if (!f || (!key && len)) return BB_E_INVAL;
    return bb_add_hash(f, bb_hash(f, key, len));
}

bool bb_contains(const bb_filter *f, const void *key, size_t len) {
    if (!f || (!key && len)) return false;
    return bb_contains_hash(f, bb_hash(f, key, len));
}

bb_status bb_remove_hash(bb_filter *f, uint64_t h) {
    if (!f) return BB_E_INVAL;
    const bb_kind_ops *row = bb_row(f);
    if (!row->remove) return BB_E_UNSUPPORTED;
    if (f->storage == BB_STORE_FILE) return BB_E_READONLY;
    return row->remove(f, h);
}

bb_status bb_remove(bb_filter *f, const void *key, size_t len) {
    if (!f || (!key && len)) return BB_E_INVAL;
    return bb_remove_hash(f, bb_hash(f, key, len));
}

/* ---- Info ---------------------------------------------------------------------------------- */

/* The 0.1.0 fields end at format_version: the smallest bb_info a caller may pass. */
static bb_status info_out(const bb_filter *f, bb_info *out) {
    bb_status s =
        bb_abi_check(out->size, BB_END_OF(bb_info, format_version), "bb_info", "BB_INFO_INIT");
    bb_info full;
    if (s == BB_OK) s = bb_row(f)->info(f, &full);
    if (s == BB_OK) bb_abi_write(out, out->size, &full, sizeof full);
    return s;
}

bb_status bb_get_info(const bb_filter *f, bb_info *out) {
    if (!f || !out) return BB_E_INVAL;
    return info_out(f, out);
}

bb_status bb_subfilter_info(const bb_filter *f, size_t i, bb_info *out) {
    if (!f || !out) return BB_E_INVAL;
    const bb_kind_ops *row = bb_row(f);
    bb_filter *const *subs = NULL;
    size_t n = row->subs ? row->subs(f, &subs) : 1;
    if (i >= n) return BB_E_INVAL;
    return info_out(subs ? subs[i] : f, out);
}

/* ---- Payload ------------------------------------------------------------------------------- */

bb_status bb_payload(const bb_filter *f, const void **data, size_t *len_bytes) {
    if (!f || !data || !len_bytes) return BB_E_INVAL;
    if (!bb_row(f)->cell_bits) return BB_E_UNSUPPORTED; /* nested: no payload of its own */
    if (f->payload_bytes > SIZE_MAX) return BB_E_TOO_LARGE;
    *data = f->data;
    *len_bytes = (size_t)f->payload_bytes;
    return BB_OK;
}

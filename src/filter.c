/*
 * filter.c - the bb_filter object: creation from a bb_config, clone, clear, free, info, and
 * the single-key and per-kind dispatch of the public add/contains calls. The bit-level work
 * is in the SIMD kernel table (blocked), classic.c, counting.c and scalable.c (which owns
 * its sub-filters and so its own create, clone, clear and info).
 */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

uint64_t bb_payload_bytes(bb_kind kind, uint64_t bits) {
    if (kind == BB_COUNTING) return bits / 2;
    return kind == BB_BLOCKED ? bits / 8 : (bits + 7) / 8;
}

/* Blocked and counting share the block geometry and the sizing. */
static bool is_blocked_layout(bb_kind kind) { return kind == BB_BLOCKED || kind == BB_COUNTING; }

bb_status bb_filter_alloc(bb_filter **out, bb_kind kind, uint64_t bits, unsigned k,
                          uint64_t seed) {
    *out = NULL;
    if (bits == 0 || k == 0 || k > BB_MAX_K) return BB_E_INVAL;
    if (bits > BB_MAX_BITS) return BB_E_TOO_LARGE;
    if (kind == BB_SCALABLE || (is_blocked_layout(kind) && bits % BB_BLOCK_BITS)) return BB_E_INVAL;
    bb_filter *f = calloc(1, sizeof *f);
    if (!f) return BB_E_NOMEM;
    f->kind = kind;
    f->k = k;
    f->bits = bits;
    f->blocks = is_blocked_layout(kind) ? bits / BB_BLOCK_BITS : 0;
    f->seed = seed;
    f->payload_bytes = bb_payload_bytes(kind, bits);
    f->data = bb_mem_alloc(f->payload_bytes, &f->map_base, &f->map_len);
    if (!f->data) { free(f); return BB_E_NOMEM; }
    *out = f;
    return BB_OK;
}

static bool valid_kind(bb_kind kind) {
    return kind == BB_BLOCKED || kind == BB_CLASSIC || kind == BB_COUNTING || kind == BB_SCALABLE;
}

/* Geometry (bits, k) from a config; see bb_config for the accepted combinations. */
bb_status bb_config_geometry(const bb_config *c, uint64_t *bits, unsigned *k) {
    bool has_p = c->fpr != 0.0, has_bpk = c->bits_per_key != 0.0;
    if (has_p && !(c->fpr > 0.0 && c->fpr < 1.0)) return BB_E_INVAL;
    if (has_bpk && !(c->bits_per_key > 0.0 && c->bits_per_key <= (double)BB_MAX_BITS))
        return BB_E_INVAL;
    if (c->k > BB_MAX_K || (has_p && has_bpk) || ((has_p || has_bpk) && c->bits)) return BB_E_INVAL;
    if ((has_p || has_bpk) && c->capacity == 0) return BB_E_INVAL;
    *bits = c->bits;
    *k = c->k;
    if (has_p) {
        bb_kind sized = c->kind == BB_CLASSIC ? BB_CLASSIC : BB_BLOCKED;
        if (c->k) /* explicit k: the fewest bits that meet p with that k */
            return bb_size_for_k(sized, c->capacity, c->fpr, c->k, bits);
        return bb_size(sized, c->capacity, c->fpr, bits, k);
    }
    if (has_bpk) {
        double m = ceil((double)c->capacity * c->bits_per_key);
        if (!(m <= (double)BB_MAX_BITS)) return BB_E_TOO_LARGE;
        *bits = (uint64_t)m;
    }
    if (*bits == 0) return BB_E_INVAL;
    if (*bits > BB_MAX_BITS) return BB_E_TOO_LARGE;
    if (is_blocked_layout(c->kind))
        *bits = (*bits + BB_BLOCK_BITS - 1) / BB_BLOCK_BITS * BB_BLOCK_BITS;
    if (*k == 0) {
        if (c->capacity == 0) return BB_E_INVAL;
        return bb_best_k(c->kind, c->capacity, *bits, k);
    }
    return BB_OK;
}

bb_status bb_create(bb_filter **out, const bb_config *cfg) {
    if (!out) return BB_E_INVAL;
    *out = NULL;
    if (!cfg || !valid_kind(cfg->kind)) return BB_E_INVAL;
    if (cfg->kind == BB_SCALABLE) return bb_scalable_create(out, cfg);
    if (cfg->growth != 0.0 || cfg->tightening != 0.0 || cfg->flags) return BB_E_INVAL;
    uint64_t bits;
    unsigned k;
    bb_status s = bb_config_geometry(cfg, &bits, &k);
    if (s != BB_OK) return s;
    s = bb_filter_alloc(out, cfg->kind, bits, k, cfg->seed);
    if (s != BB_OK) return s;
    (*out)->capacity = cfg->capacity;
    (*out)->fpr_target = cfg->fpr;
    return BB_OK;
}

bb_status bb_create_for(bb_filter **out, bb_kind kind, uint64_t capacity, double fpr,
                        uint64_t seed) {
    bb_config c = {.kind = kind, .capacity = capacity, .fpr = fpr, .seed = seed};
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
    if (f->kind == BB_SCALABLE) return bb_scalable_clone(out, f);
    bb_filter *c;
    bb_status s = bb_filter_alloc(&c, f->kind, f->bits, f->k, f->seed);
    if (s != BB_OK) return s;
    memcpy(c->data, f->data, f->payload_bytes);
    c->capacity = f->capacity;
    c->fpr_target = f->fpr_target;
    c->keys_added = f->keys_added;
    *out = c;
    return BB_OK;
}

void bb_free(bb_filter *f) {
    if (!f) return;
    if (f->kind == BB_SCALABLE) bb_scalable_free_subs(f);
    bb_mem_free(f->map_base, f->map_len);
    free(f);
}

bb_status bb_clear(bb_filter *f) {
    if (!f) return BB_E_INVAL;
    if (f->storage == BB_STORE_FILE) return BB_E_READONLY;
    if (f->kind == BB_SCALABLE) {
        bb_scalable_clear(f);
        return BB_OK;
    }
    memset(f->data, 0, f->payload_bytes);
    f->keys_added = 0;
    return BB_OK;
}

const char *bb_kind_name(bb_kind kind) {
    switch (kind) {
    case BB_BLOCKED: return "blocked";
    case BB_CLASSIC: return "classic";
    case BB_COUNTING: return "counting";
    case BB_SCALABLE: return "scalable";
    }
    return "unknown";
}

/* ---- Single keys --------------------------------------------------------------------------- */

bb_status bb_add_hash(bb_filter *f, uint64_t h) {
    if (!f) return BB_E_INVAL;
    if (f->storage == BB_STORE_FILE) return BB_E_READONLY;
    switch (f->kind) {
    case BB_BLOCKED:
        bb_block_set(f->data + bb_block_index(h, f->blocks) * BB_BLOCK_BYTES, (uint32_t)h, f->k);
        break;
    case BB_CLASSIC: bb_classic_add(f, h); break;
    case BB_COUNTING: bb_counting_add(f, h); break;
    case BB_SCALABLE: return bb_scalable_add(f, h); /* counts only keys it adds */
    }
    f->keys_added = bb_sat_add(f->keys_added, 1);
    return BB_OK;
}

bool bb_contains_hash(const bb_filter *f, uint64_t h) {
    if (!f) return false;
    switch (f->kind) {
    case BB_BLOCKED:
        return bb_kernel_active()->block_test(
            f->data + bb_block_index(h, f->blocks) * BB_BLOCK_BYTES, (uint32_t)h, f->k);
    case BB_CLASSIC: return bb_classic_contains(f, h);
    case BB_COUNTING: return bb_counting_contains(f, h);
    case BB_SCALABLE: return bb_scalable_contains(f, h);
    }
    return false;
}

bb_status bb_add(bb_filter *f, const void *key, size_t len) {
    if (!f || (!key && len)) return BB_E_INVAL;
    return bb_add_hash(f, bb_xxh3(key, len, f->seed));
}

bool bb_contains(const bb_filter *f, const void *key, size_t len) {
    if (!f || (!key && len)) return false;
    return bb_contains_hash(f, bb_xxh3(key, len, f->seed));
}

/* ---- Info ---------------------------------------------------------------------------------- */

static uint64_t popcount_bytes(const uint8_t *p, uint64_t n) {
    uint64_t c = 0, i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        c += (uint64_t)__builtin_popcountll(w);
    }
    for (; i < n; i++) c += (uint64_t)__builtin_popcount(p[i]);
    return c;
}

/* -(m/k) ln(1 - X/m), Swamidass and Baldi 2007; infinite when saturated. */
static double cardinality(double m, double x, unsigned k) {
    if (x >= m) return INFINITY;
    return -(m / k) * log1p(-x / m);
}

void bb_info_fields(const bb_filter *f, bb_info *out) {
    memset(out, 0, sizeof *out);
    out->kind = f->kind;
    out->bits = f->bits;
    out->bytes = f->payload_bytes;
    out->k = f->k;
    out->blocks = f->blocks;
    out->capacity = f->capacity;
    out->fpr_target = f->fpr_target;
    out->seed = f->seed;
    out->keys_added = f->keys_added;
    out->read_only = f->storage == BB_STORE_FILE;
    out->format_version = BB_FORMAT_VERSION;
    out->bits_per_key = f->capacity ? (double)f->bits / (double)f->capacity : 0.0;
    out->subfilters = 1;
}

bb_status bb_get_info(const bb_filter *f, bb_info *out) {
    if (!f || !out) return BB_E_INVAL;
    if (f->kind == BB_SCALABLE) return bb_scalable_info(f, out);
    bb_info_fields(f, out);
    if (f->kind == BB_CLASSIC) {
        uint64_t x = popcount_bytes(f->data, f->payload_bytes);
        out->bits_set = x;
        out->fill_ratio = (double)x / (double)f->bits;
        out->fpr_estimate = pow(out->fill_ratio, f->k);
        out->cardinality_estimate = cardinality((double)f->bits, (double)x, f->k);
        return BB_OK;
    }
    double fpr_sum = 0.0, card = 0.0;
    uint64_t total = 0;
    for (uint64_t b = 0; b < f->blocks; b++) {
        uint64_t x, saturated = 0;
        if (f->kind == BB_COUNTING) /* a position is "set" when its counter is non-zero */
            bb_counting_block_counts(f->data + b * BB_COUNTING_BLOCK_BYTES, &x, &saturated);
        else
            x = popcount_bytes(f->data + b * BB_BLOCK_BYTES, BB_BLOCK_BYTES);
        out->saturated_counters += saturated;
        total += x;
        fpr_sum += pow((double)x / BB_BLOCK_BITS, f->k);
        card += cardinality(BB_BLOCK_BITS, (double)x, f->k);
    }
    out->bits_set = total;
    out->fill_ratio = (double)total / (double)f->bits;
    out->fpr_estimate = fpr_sum / (double)f->blocks;
    out->cardinality_estimate = card;
    return BB_OK;
}

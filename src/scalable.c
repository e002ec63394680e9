/*
 * scalable.c - the scalable Bloom filter (Almeida, Baquero, Preguica, Hutchison, "Scalable
 * Bloom Filters", Information Processing Letters 101(6), 2007), as RedisBloom implements it:
 * a stack of blocked sub-filters. Sub-filter i holds c_i = ceil(c_{i-1} * growth) keys
 * (c_0 = the configured capacity) at FPR p_i = p_{i-1} * r, p_0 = p (1 - r) (r = tightening),
 * each sized by bb_size. A key absent from all of them is a false positive of the whole with
 * probability at most sum_i p_i = p (1 - r^n) < p (union bound, paper section 4), so the
 * target holds however far the filter grows; the price is k growing by about log2(1/r) per
 * sub-filter and a contains that may visit every sub-filter.
 *
 * Invariants: at least one sub-filter once created; all are BB_BLOCKED with the parent's
 * seed (one hash serves every level) and their own capacity, fpr_target and keys_added; only
 * the newest receives keys, and only keys no sub-filter already answers "possibly present"
 * for (so no key is stored twice and keys_added counts distinct added keys); the parent's
 * bits, blocks, capacity and keys_added are the sums over its sub-filters (bb_scalable_recount)
 * and its k is the newest one's.
 */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Largest growth accepted: beyond it the second sub-filter alone would exceed any memory. */
#define MAX_GROWTH 1048576.0

bool bb_scalable_params_valid(double fpr, double growth, double tightening, unsigned flags) {
    return fpr > 0.0 && fpr < 1.0 && growth >= 1.0 && growth <= MAX_GROWTH &&
           tightening > 0.0 && tightening < 1.0 && !(flags & ~BB_NO_SCALE); /* NaN fails */
}

bb_status bb_scalable_shell(bb_filter **out, double fpr, double growth, double tightening,
                            unsigned flags, uint64_t seed) {
    *out = NULL;
    if (!bb_scalable_params_valid(fpr, growth, tightening, flags)) return BB_E_INVAL;
    bb_filter *f = calloc(1, sizeof *f);
    if (!f) return BB_E_NOMEM;
    f->kind = BB_SCALABLE;
    f->fpr_target = fpr;
    f->growth = growth;
    f->tightening = tightening;
    f->flags = flags;
    f->seed = seed;
    *out = f;
    return BB_OK;
}

void bb_scalable_recount(bb_filter *f) {
    f->bits = f->blocks = f->capacity = f->keys_added = 0;
    for (size_t i = 0; i < f->n_subs; i++) {
        const bb_filter *s = f->subs[i];
        f->bits += s->bits;
        f->blocks += s->blocks;
        f->capacity += s->capacity;
        f->keys_added = bb_sat_add(f->keys_added, s->keys_added);
    }
    f->k = f->n_subs ? f->subs[f->n_subs - 1]->k : 0;
}

bb_status bb_scalable_push(bb_filter *f, bb_filter *sub) {
    if (sub->kind != BB_BLOCKED || sub->seed != f->seed || sub->capacity == 0)
        return BB_E_INCONSISTENT;
    if (f->n_subs == f->subs_cap) {
        size_t cap = f->subs_cap ? 2 * f->subs_cap : 8;
        bb_filter **grown = realloc(f->subs, cap * sizeof *grown);
        if (!grown) return BB_E_NOMEM;
        f->subs = grown;
        f->subs_cap = cap;
    }
    f->subs[f->n_subs++] = sub;
    bb_scalable_recount(f);
    return BB_OK;
}

/* Capacity and FPR of the next sub-filter (see the file comment). */
static bb_status next_params(const bb_filter *f, uint64_t first_capacity, uint64_t *cap,
                             double *fpr) {
    if (f->n_subs == 0) {
        *cap = first_capacity;
        *fpr = f->fpr_target * (1.0 - f->tightening);
        return BB_OK;
    }
    const bb_filter *top = f->subs[f->n_subs - 1];
    double c = ceil((double)top->capacity * f->growth);
    *fpr = top->fpr_target * f->tightening;
    if (!(c < 0x1p63) || !(*fpr > 0.0)) return BB_E_TOO_LARGE; /* bb_size would refuse */
    *cap = (uint64_t)c;
    return BB_OK;
}

static bb_status grow(bb_filter *f, uint64_t first_capacity) {
    uint64_t cap, bits;
    double fpr;
    unsigned k;
    bb_status s = next_params(f, first_capacity, &cap, &fpr);
    if (s == BB_OK) s = bb_size(BB_BLOCKED, cap, fpr, &bits, &k);
    if (s != BB_OK) return s;
    bb_filter *sub;
    s = bb_filter_alloc(&sub, BB_BLOCKED, bits, k, f->seed);
    if (s != BB_OK) return s;
    sub->capacity = cap;
    sub->fpr_target = fpr;
    s = bb_scalable_push(f, sub);
    if (s != BB_OK) bb_free(sub);
    return s;
}

bb_status bb_scalable_create(bb_filter **out, const bb_config *cfg) {
    if (cfg->capacity == 0 || cfg->bits || cfg->k || cfg->bits_per_key != 0.0) return BB_E_INVAL;
    double growth = cfg->growth != 0.0 ? cfg->growth : BB_DEFAULT_GROWTH;
    double tightening = cfg->tightening != 0.0 ? cfg->tightening : BB_DEFAULT_TIGHTENING;
    bb_status s = bb_scalable_shell(out, cfg->fpr, growth, tightening, cfg->flags, cfg->seed);
    if (s != BB_OK) return s;
    s = grow(*out, cfg->capacity);
    if (s != BB_OK) {
        bb_free(*out);
        *out = NULL;
    }
    return s;
}

/* Newest first: it is the largest and, as the filter keeps growing, holds about half of the
 * keys, so a present key is usually found at the first try. */
bool bb_scalable_contains(const bb_filter *f, uint64_t h) {
    for (size_t i = f->n_subs; i-- > 0;)
        if (bb_contains_hash(f->subs[i], h)) return true;
    return false;
}

bb_status bb_scalable_add(bb_filter *f, uint64_t h) {
    if (f->n_subs == 0) return BB_E_INCONSISTENT; /* never after create or a valid load */
    if (bb_scalable_contains(f, h)) return BB_OK;
    bb_filter *top = f->subs[f->n_subs - 1];
    if (top->keys_added >= top->capacity) {
        if (f->flags & BB_NO_SCALE) return BB_E_FULL;
        bb_status s = grow(f, 0);
        if (s != BB_OK) return s;
        top = f->subs[f->n_subs - 1];
    }
    bb_status s = bb_add_hash(top, h);
    if (s == BB_OK) f->keys_added = bb_sat_add(f->keys_added, 1);
    return s;
}

bb_status bb_scalable_clone(bb_filter **out, const bb_filter *f) {
    bb_status s = bb_scalable_shell(out, f->fpr_target, f->growth, f->tightening, f->flags,
                                    f->seed);
    for (size_t i = 0; s == BB_OK && i < f->n_subs; i++) {
        bb_filter *sub;
        s = bb_clone(&sub, f->subs[i]);
        if (s != BB_OK) break;
        s = bb_scalable_push(*out, sub);
        if (s != BB_OK) bb_free(sub);
    }
    if (s != BB_OK) {
        bb_free(*out);
        *out = NULL;
    }
    return s;
}

void bb_scalable_clear(bb_filter *f) {
    for (size_t i = 1; i < f->n_subs; i++) bb_free(f->subs[i]);
    f->n_subs = f->n_subs ? 1 : 0;
    if (f->n_subs) bb_clear(f->subs[0]);
    bb_scalable_recount(f);
}

void bb_scalable_free_subs(bb_filter *f) {
    for (size_t i = 0; i < f->n_subs; i++) bb_free(f->subs[i]);
    free(f->subs);
    f->subs = NULL;
    f->n_subs = f->subs_cap = 0;
}

/* Sums over the sub-filters; the FPR estimate is that of "some sub-filter answers yes" with
 * the sub-filters independent: 1 - prod (1 - f_i). */
bb_status bb_scalable_info(const bb_filter *f, bb_info *out) {
    bb_info_fields(f, out); /* bits, blocks, capacity, keys_added: the sums; k: the newest's */
    double all_clear = 1.0;
    for (size_t i = 0; i < f->n_subs; i++) {
        bb_info si;
        bb_status s = bb_get_info(f->subs[i], &si);
        if (s != BB_OK) return s;
        out->bytes += si.bytes;
        out->bits_set += si.bits_set;
        out->cardinality_estimate += si.cardinality_estimate;
        all_clear *= 1.0 - si.fpr_estimate;
    }
    out->fill_ratio = f->bits ? (double)out->bits_set / (double)f->bits : 0.0;
    out->fpr_estimate = 1.0 - all_clear;
    out->subfilters = f->n_subs;
    out->growth = f->growth;
    out->tightening = f->tightening;
    out->flags = f->flags;
    return BB_OK;
}

bb_status bb_subfilter_info(const bb_filter *f, size_t i, bb_info *out) {
    if (!f || !out) return BB_E_INVAL;
    if (f->kind != BB_SCALABLE) return i == 0 ? bb_get_info(f, out) : BB_E_INVAL;
    return i < f->n_subs ? bb_get_info(f->subs[i], out) : BB_E_INVAL;
}

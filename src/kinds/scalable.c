/* SPDX-License-Identifier: MIT */
/*
 * scalable.c - the scalable Bloom filter (Almeida, Baquero, Preguica, Hutchison, "Scalable
 * Bloom Filters", Information Processing Letters 101(6), 2007), as RedisBloom implements it:
 * a stack of blocked sub-filters. Sub-filter i holds c_i = ceil(c_{i-1} * growth) keys
 * (c_0 = the configured capacity) at FPR p_i = p_{i-1} * r, p_0 = p (1 - r) (r = tightening),
 * each sized by bb_blocked_size_sure (model plus a margin for its scatter, see below). A key
 * absent from all of them is a false positive of the whole with
 * probability at most sum_i p_i = p (1 - r^n) < p (union bound, paper section 4), so the
 * target holds however far the filter grows; the price is k growing by about log2(1/r) per
 * sub-filter and a contains that may visit every sub-filter.
 *
 * Invariants: at least one sub-filter once created; all are BB_BLOCKED with the parent's
 * seed (one hash serves every level) and their own capacity, fpr_target and keys_added; only
 * the newest receives keys, and only keys no sub-filter already answers "possibly present"
 * for (so no key is stored twice and keys_added counts distinct added keys); the parent's
 * bits, blocks, capacity and keys_added are the sums over its sub-filters (recount)
 * and its k is the newest one's.
 *
 *   object: no payload of its own; subs[0 .. n_subs) = blocked filters, oldest first
 *   file:   header (with growth, tightening, flags, n_subs in the kind's own header bytes)
 *           + one complete blocked record per sub-filter (docs/FORMAT.md, "Kind 3")
 *
 * It builds on the blocked row (bb_kind_blocked) and the object helpers, and calls nothing
 * above them. This file holds the kind's row of the kinds table.
 */
#include "../format.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Largest growth accepted: beyond it the second sub-filter alone would exceed any memory. */
#define MAX_GROWTH 1048576.0

/* Each sub-filter is sized (bb_blocked_size_sure) so that its model FPR plus BB_SURE_Z = 3.3
 * standard deviations of one filter's FPR (bb_blocked_fpr_sd) is <= p_i, not merely its
 * model. Why: the bound
 * sum_i p_i = p (1 - r^n) leaves a slack of only p r^n, which vanishes as the stack grows
 * (0.4% of p after 8 sub-filters at r = 0.5), while a small sub-filter's real FPR scatters
 * around its model by several per cent (the first of `-n 10000 -p 0.01`: 226 blocks, +-5%
 * of its p_0 = 0.5%). Sized on the model alone, that scatter went straight into the total:
 * 1.02-1.03% measured for -p 0.01 with 3.5M npm names. With 3.3 sigma (two-sided 99.9%)
 * every sub-filter meets its p_i with probability 99.95%, so the sum stays below p; large
 * sub-filters, whose scatter is tiny, pay almost nothing. */

/* At most this many sub-filters: a lookup visits each of them, and loading costs one record
 * each, so more only comes from a hostile file or growth 1 (flat capacity) run far past any
 * use; the add that would need one more fails with BB_E_TOO_LARGE. */
#define MAX_SUBS 1024u

static bool params_valid(double fpr, double growth, double tightening, unsigned flags) {
    return fpr > 0.0 && fpr < 1.0 && growth >= 1.0 && growth <= MAX_GROWTH &&
           tightening > 0.0 && tightening < 1.0 && !(flags & ~BB_NO_SCALE); /* NaN fails */
}

static bb_status shell(bb_filter **out, double fpr, double growth, double tightening,
                       unsigned flags, uint64_t seed) {
    *out = NULL;
    if (!params_valid(fpr, growth, tightening, flags)) return BB_E_INVAL;
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

/* Add sub's share to the parent's sums (bits, blocks, capacity, keys_added; capacity and
 * keys_added saturate at UINT64_MAX, a loaded file's capacities may sum past 2^64) and make
 * its k the parent's. */
static void count_in(bb_filter *f, const bb_filter *sub) {
    f->bits += sub->bits;
    f->blocks += sub->blocks;
    f->capacity = bb_sat_add(f->capacity, sub->capacity);
    f->keys_added = bb_sat_add(f->keys_added, sub->keys_added);
    f->k = sub->k;
}

/* The parent's sums and k from all its subs (after a merge or a clear). */
static void recount(bb_filter *f) {
    f->bits = f->blocks = f->capacity = f->keys_added = 0;
    f->k = 0;
    for (size_t i = 0; i < f->n_subs; i++) count_in(f, f->subs[i]);
}

/* Append `sub` (a blocked filter with capacity and fpr_target set) as the newest sub-filter;
 * f takes ownership on BB_OK only. Constant time (amortised): a load pushes every record. */
static bb_status push(bb_filter *f, bb_filter *sub) {
    if (sub->kind != BB_BLOCKED || sub->seed != f->seed || sub->capacity == 0 ||
        sub->fpr_target == 0.0)
        return BB_E_INCONSISTENT;
    if (f->n_subs >= MAX_SUBS) return BB_E_TOO_LARGE;
    if (f->n_subs == f->subs_cap) {
        size_t cap = f->subs_cap ? 2 * f->subs_cap : 8;
        bb_filter **grown = realloc(f->subs, cap * sizeof *grown);
        if (!grown) return BB_E_NOMEM;
        f->subs = grown;
        f->subs_cap = cap;
    }
    f->subs[f->n_subs++] = sub;
    count_in(f, sub);
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
    if (s == BB_OK) s = bb_blocked_size_sure(cap, fpr, &bits, &k);
    if (s != BB_OK) return s;
    bb_filter *sub;
    s = bb_filter_alloc(&sub, BB_BLOCKED, bits, k, f->seed);
    if (s != BB_OK) return s;
    sub->capacity = cap;
    sub->fpr_target = fpr;
    s = push(f, sub);
    if (s != BB_OK) bb_filter_destroy(sub);
    return s;
}

static void scalable_release(bb_filter *f) {
    for (size_t i = 0; i < f->n_subs; i++) bb_filter_destroy(f->subs[i]);
    free(f->subs);
    f->subs = NULL;
    f->n_subs = f->subs_cap = 0;
}

static void scalable_free(bb_filter *f) {
    scalable_release(f);
    bb_filter_destroy(f);
}

static bb_status scalable_create(bb_filter **out, const bb_config *cfg) {
    if (cfg->capacity == 0 || cfg->bits || cfg->k || cfg->bits_per_key != 0.0) return BB_E_INVAL;
    double growth = cfg->growth != 0.0 ? cfg->growth : BB_DEFAULT_GROWTH;
    double tightening = cfg->tightening != 0.0 ? cfg->tightening : BB_DEFAULT_TIGHTENING;
    bb_status s = shell(out, cfg->fpr, growth, tightening, cfg->flags, cfg->seed);
    if (s != BB_OK) return s;
    s = grow(*out, cfg->capacity);
    if (s != BB_OK) {
        scalable_free(*out);
        *out = NULL;
    }
    return s;
}

/* Newest first: it is the largest and, as the filter keeps growing, holds about half of the
 * keys, so a present key is usually found at the first try. */
static bool scalable_contains(const bb_filter *f, uint64_t h) {
    for (size_t i = f->n_subs; i-- > 0;)
        if (bb_kind_blocked.contains(f->subs[i], h)) return true;
    return false;
}

static bb_status scalable_add(bb_filter *f, uint64_t h) {
    if (f->n_subs == 0) return BB_E_INCONSISTENT; /* never after create or a valid load */
    if (scalable_contains(f, h)) return BB_OK;
    bb_filter *top = f->subs[f->n_subs - 1];
    if (top->keys_added >= top->capacity) {
        if (f->flags & BB_NO_SCALE) return BB_E_FULL;
        bb_status s = grow(f, 0);
        if (s != BB_OK) return s;
        top = f->subs[f->n_subs - 1];
    }
    bb_status s = bb_kind_blocked.add(top, h);
    if (s == BB_OK) f->keys_added = bb_sat_add(f->keys_added, 1);
    return s;
}

static bb_status scalable_clone(bb_filter **out, const bb_filter *f) {
    bb_status s = shell(out, f->fpr_target, f->growth, f->tightening, f->flags, f->seed);
    for (size_t i = 0; s == BB_OK && i < f->n_subs; i++) {
        bb_filter *sub;
        s = bb_flat_clone(&sub, f->subs[i]);
        if (s != BB_OK) break;
        s = push(*out, sub);
        if (s != BB_OK) bb_filter_destroy(sub);
    }
    if (s != BB_OK) {
        scalable_free(*out);
        *out = NULL;
    }
    return s;
}

static void scalable_clear(bb_filter *f) {
    for (size_t i = 1; i < f->n_subs; i++) bb_filter_destroy(f->subs[i]);
    f->n_subs = f->n_subs ? 1 : 0;
    if (f->n_subs) bb_flat_clear(f->subs[0]);
    recount(f);
}

/* Sums over the sub-filters; the FPR estimate is that of "some sub-filter answers yes" with
 * the sub-filters independent: 1 - prod (1 - f_i). */
static bb_status scalable_info(const bb_filter *f, bb_info *out) {
    bb_info_fields(f, out); /* bits, blocks, capacity, keys_added: the sums; k: the newest's */
    double all_clear = 1.0;
    for (size_t i = 0; i < f->n_subs; i++) {
        bb_info si;
        bb_status s = bb_kind_blocked.info(f->subs[i], &si);
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

/* ---- Union: sub-filter by sub-filter, only when both stacks have the same shape -------- */

/* bits and k of the parents are sums and the newest's k, so compare the stacks. */
static bb_mismatch scalable_union_check(const bb_filter *a, const bb_filter *b) {
    if (a->kind != b->kind) return BB_MISMATCH_KIND;
    if (a->seed != b->seed) return BB_MISMATCH_SEED;
    if (a->n_subs != b->n_subs) return BB_MISMATCH_LAYOUT;
    for (size_t i = 0; i < a->n_subs; i++)
        if (bb_geometry_mismatch(a->subs[i], b->subs[i]) != BB_MATCH) return BB_MISMATCH_LAYOUT;
    return BB_MATCH;
}

static void scalable_merge(bb_filter *dst, const bb_filter *src) {
    for (size_t i = 0; i < dst->n_subs; i++) bb_kind_blocked.merge(dst->subs[i], src->subs[i]);
    recount(dst);
}

/* ---- File format (docs/FORMAT.md, "Kind 3: scalable") --------------------------------------
 * The header's kind bytes hold growth, tightening, flags and n_subs (88 .. 111; 112 .. 119
 * stay zero), its capacity is c_0 (the first sub-filter's), and the payload is the n_subs
 * blocked records, which format.c reads and hands to scalable_adopt. */
enum { OFF_GROWTH = 88, OFF_TIGHTENING = 96, OFF_FLAGS = 104, OFF_N_SUBS = 108, OWN_BYTES = 24 };

static void scalable_hdr_put(const bb_filter *f, uint8_t *h) {
    bb_put64(h + BB_OFF_CAPACITY, f->subs[0]->capacity); /* the parent's is the sum */
    bb_put_f64(h + OFF_GROWTH, f->growth);
    bb_put_f64(h + OFF_TIGHTENING, f->tightening);
    bb_put32(h + OFF_FLAGS, f->flags);
    bb_put32(h + OFF_N_SUBS, (uint32_t)f->n_subs);
}

/* Parameters a scalable filter could be created with (p required), at least one sub-filter,
 * and the payload length that many records of these bits take. */
static bb_status scalable_hdr_get(const uint8_t *p, bb_filter *h) {
    h->growth = bb_get_f64(p + OFF_GROWTH);
    h->tightening = bb_get_f64(p + OFF_TIGHTENING);
    h->flags = bb_get32(p + OFF_FLAGS);
    h->n_subs = bb_get32(p + OFF_N_SUBS);
    if (!params_valid(h->fpr_target, h->growth, h->tightening, h->flags))
        return BB_E_INCONSISTENT;
    if (h->n_subs == 0 || h->n_subs > MAX_SUBS || h->capacity == 0) return BB_E_INCONSISTENT;
    if (h->payload_bytes != h->n_subs * BB_HDR_SIZE + h->bits / 8) return BB_E_INCONSISTENT;
    return BB_OK;
}

/* A loaded sub-filter must be the one this parent would have grown next: capacity c_i and
 * p_i exactly as next_params computes them (the same IEEE operations give the same doubles),
 * and a geometry whose model at c_i keys meets p_i. Otherwise the union bound, and so the
 * promise that the filter stays below p, does not hold for the file: BB_E_INCONSISTENT.
 * (Files written before sub-filters got their spread margin pass: their model meets p_i.) */
static bb_status scalable_adopt(bb_filter *f, bb_filter *sub) {
    uint64_t cap;
    double fpr, model;
    if (f->n_subs >= MAX_SUBS) return BB_E_INCONSISTENT;
    bb_status s = next_params(f, f->n_subs ? 0 : sub->capacity, &cap, &fpr);
    if (s != BB_OK || sub->capacity != cap || sub->fpr_target != fpr) return BB_E_INCONSISTENT;
    model = bb_blocked_fpr(sub->capacity, sub->bits, sub->k);
    if (!(model <= fpr)) return BB_E_INCONSISTENT;
    return push(f, sub);
}

static size_t scalable_subs(const bb_filter *f, bb_filter *const **subs) {
    *subs = f->subs;
    return f->n_subs;
}

static bb_status scalable_shell(bb_filter **out, const bb_filter *h) {
    return shell(out, h->fpr_target, h->growth, h->tightening, h->flags, h->seed);
}

/* The stack agrees with the header: bits, the newest's k, c_0 and keys_added. */
static bool scalable_agrees(const bb_filter *f, const bb_filter *h) {
    return f->n_subs == h->n_subs && f->bits == h->bits && f->k == h->k &&
           f->keys_added == h->keys_added &&
           f->subs[0]->capacity == h->capacity;
}

const bb_kind_ops bb_kind_scalable = {
    .kind = BB_SCALABLE,
    .name = "scalable",
    .layout = BB_LAYOUT_BLOCKED, /* its sub-filters are blocked */
    .block_bits = BB_BLOCK_BITS,
    .cell_bits = 0,
    /* bb_size(BB_SCALABLE, c_i, p_i): one sub-filter's geometry, margin included, so that a
     * writer elsewhere (the Redis chains of src/redis/) grows exactly the sub-filters
     * grow() would. */
    .size = bb_blocked_size_sure,
    .create = scalable_create,
    .clone = scalable_clone,
    .clear = scalable_clear,
    .release = scalable_release,
    .add = scalable_add,
    .contains = scalable_contains,
    .info = scalable_info,
    .union_check = scalable_union_check,
    .merge = scalable_merge,
    .hdr_own_bytes = OWN_BYTES,
    .hdr_put = scalable_hdr_put,
    .hdr_get = scalable_hdr_get,
    .subs = scalable_subs,
    .shell = scalable_shell,
    .adopt = scalable_adopt,
    .agrees = scalable_agrees,
};

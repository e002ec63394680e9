/* SPDX-License-Identifier: MIT */
/*
 * meta.c - the meta key of a Redis filter, the geometry of its sub-filters and the key names
 * (docs/REDIS.md). The meta key holds 192 bytes: a 128-byte file header (docs/FORMAT.md;
 * header_checksum valid), then a 64-byte Redis record:
 *     0  8  magic "BBREDIS\n"      8  u32 layout version      12  u32 zero
 *    16  u64 shards               24  u64 blocks_per_shard     32  24 zero bytes
 *    56  u64 XXH3-64 (seed 0) of meta bytes 0 .. 183
 * Layout 1 (fixed: push, slices) is one blocked filter: the header is that filter's
 * (keys_added and payload_checksum 0, since concurrent writers cannot keep them current),
 * shards and blocks_per_shard its split. Layout 2 (a chain: reserve, insert, auto-create)
 * is a scalable filter's header (kind 3: c_0, p, seed, growth, tightening 0.5, flags) with
 * every field that changes as the chain grows (k, bits, blocks, n_subs, ...) zero; its
 * shards field is the shards per sub-filter asked for (0 = at most 4 MiB each) and
 * blocks_per_shard zero. Sub-filter i of a chain is what the local scalable kind grows:
 * c_i = ceil(c_{i-1} growth), p_0 = p / 2, p_i = p_{i-1} / 2, sized by
 * bb_size(BB_SCALABLE, c_i, p_i); a NONSCALING chain has one sub-filter sized
 * bb_size(BB_BLOCKED, c_0, p), RedisBloom's first link without tightening.
 * All little-endian. This file encodes and checks those bytes independently of the core's
 * format.c, as a client in another language would from the two documents.
 */
#include "redis_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t file_magic[8] = {0x89, 'B', 'B', 'F', '\r', '\n', 0x1a, '\n'};
static const uint8_t record_magic[8] = {'B', 'B', 'R', 'E', 'D', 'I', 'S', '\n'};

static void put_u32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put_u64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get_u32(const uint8_t *p) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
static uint64_t get_u64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

uint64_t bbr_checksum(const bb_redis *r, const void *p, size_t len) {
    return bb_hash(r->zero, p, len); /* r->zero has seed 0: XXH3-64 seed 0 */
}

void bbr_meta_encode(const bb_redis *r, uint8_t out[BBR_META_BYTES], uint64_t bits, unsigned k,
                     uint64_t seed, uint64_t capacity, double fpr, uint64_t shards,
                     uint64_t per_shard) {
    memset(out, 0, BBR_META_BYTES);
    uint64_t fpr_bits;
    memcpy(&fpr_bits, &fpr, 8);
    memcpy(out, file_magic, 8);
    put_u32(out + 8, BB_FORMAT_VERSION);
    put_u32(out + 12, BBR_HEADER_BYTES);
    put_u32(out + 16, BB_BLOCKED);
    put_u32(out + 20, k);
    put_u64(out + 24, bits);
    put_u64(out + 32, bits / BB_BLOCK_BITS);
    put_u64(out + 40, capacity);
    put_u64(out + 48, fpr_bits);
    put_u64(out + 56, seed);
    put_u64(out + 72, bits / 8);
    put_u64(out + 120, bbr_checksum(r, out, 120));
    uint8_t *rec = out + BBR_HEADER_BYTES;
    memcpy(rec, record_magic, 8);
    put_u32(rec + 8, BBR_LAYOUT_FIXED);
    put_u64(rec + 16, shards);
    put_u64(rec + 24, per_shard);
    put_u64(rec + 56, bbr_checksum(r, out, BBR_META_BYTES - 8));
}

/* Scalable-kind header fields (docs/FORMAT.md, "Kind 3"). */
enum { OFF_GROWTH = 88, OFF_TIGHTENING = 96, OFF_FLAGS = 104 };
#define CHAIN_TIGHTENING 0.5 /* RedisBloom's ERROR_TIGHTENING_RATIO, the local default too */

void bbr_meta_encode_chain(const bb_redis *r, uint8_t out[BBR_META_BYTES], uint64_t capacity,
                           double fpr, uint64_t growth, bool nonscaling, uint64_t shards) {
    memset(out, 0, BBR_META_BYTES);
    uint64_t fpr_bits, g_bits, t_bits;
    double g = (double)growth, t = CHAIN_TIGHTENING;
    memcpy(&fpr_bits, &fpr, 8);
    memcpy(&g_bits, &g, 8);
    memcpy(&t_bits, &t, 8);
    memcpy(out, file_magic, 8);
    put_u32(out + 8, BB_FORMAT_VERSION);
    put_u32(out + 12, BBR_HEADER_BYTES);
    put_u32(out + 16, BB_SCALABLE);
    put_u64(out + 40, capacity);
    put_u64(out + 48, fpr_bits);
    put_u64(out + OFF_GROWTH, g_bits);
    put_u64(out + OFF_TIGHTENING, t_bits);
    put_u32(out + OFF_FLAGS, nonscaling ? BB_NO_SCALE : 0);
    put_u64(out + 120, bbr_checksum(r, out, 120));
    uint8_t *rec = out + BBR_HEADER_BYTES;
    memcpy(rec, record_magic, 8);
    put_u32(rec + 8, BBR_LAYOUT_CHAIN);
    put_u64(rec + 16, shards);
    put_u64(rec + 56, bbr_checksum(r, out, BBR_META_BYTES - 8));
}

void bbr_header_finish(const bb_redis *r, uint8_t header[BBR_HEADER_BYTES], uint64_t keys_added,
                       uint64_t payload_checksum) {
    put_u64(header + 64, keys_added);
    put_u64(header + 80, payload_checksum);
    put_u64(header + 120, bbr_checksum(r, header, 120));
}

void bbr_chain_header(const bb_redis *r, const bbr_filter *f, uint8_t *buf, uint64_t keys_added,
                      uint64_t total) {
    uint64_t bits = 0;
    for (size_t i = 0; i < f->n_subs; i++) bits += f->subs[i].bits;
    memcpy(buf, f->meta, BBR_HEADER_BYTES);
    put_u32(buf + 20, f->subs[f->n_subs - 1].k);
    put_u64(buf + 24, bits);
    put_u64(buf + 32, bits / BB_BLOCK_BITS);
    put_u64(buf + 64, keys_added);
    put_u64(buf + 72, total - BBR_HEADER_BYTES);
    put_u64(buf + 80, bbr_checksum(r, buf + BBR_HEADER_BYTES, (size_t)(total - BBR_HEADER_BYTES)));
    put_u32(buf + 108, (uint32_t)f->n_subs);
    put_u64(buf + 120, bbr_checksum(r, buf, 120));
}

static bool all_zero(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i]) return false;
    return true;
}

/* The reason a layout-2 (chain) meta is not valid, or NULL. */
static const char *chain_problem(const uint8_t *m) {
    const uint8_t *rec = m + BBR_HEADER_BYTES;
    double fpr, g, t;
    uint64_t fb = get_u64(m + 48), gb = get_u64(m + OFF_GROWTH), tb = get_u64(m + OFF_TIGHTENING);
    memcpy(&fpr, &fb, 8);
    memcpy(&g, &gb, 8);
    memcpy(&t, &tb, 8);
    uint32_t flags = get_u32(m + OFF_FLAGS);
    if (get_u32(m + 16) != BB_SCALABLE) return "a chain whose header is not of a scalable filter";
    if (get_u32(m + 12) != BBR_HEADER_BYTES || get_u32(m + 20) != 0 || !all_zero(m + 24, 16) ||
        get_u64(m + 40) == 0 || !(fpr > 0.0 && fpr < 1.0) || !all_zero(m + 64, 24) ||
        !(g >= 1.0 && g <= BBR_MAX_EXPANSION && g == floor(g)) || t != CHAIN_TIGHTENING ||
        (flags & ~(uint32_t)BB_NO_SCALE) || !all_zero(m + 108, 12) || get_u32(rec + 12) != 0 ||
        get_u64(rec + 24) != 0 || !all_zero(rec + 32, 24))
        return "inconsistent header fields";
    return NULL;
}

static const char oversize[] = "beyond the bound of a filter";

/* The reason meta bytes are not a valid filter, or NULL. Versions are checked before
 * checksums, so that a newer writer's meta reads as "version", not "damaged". */
static const char *meta_problem(const bb_redis *r, const uint8_t *m, size_t len) {
    const uint8_t *rec = m + BBR_HEADER_BYTES;
    if (len < 12 || memcmp(m, file_magic, 8) != 0) return "not a blockbloom meta key";
    if (get_u32(m + 8) != BB_FORMAT_VERSION) return "file format version not supported";
    if (len != BBR_META_BYTES) return "meta key of the wrong length";
    if (memcmp(rec, record_magic, 8) != 0) return "no Redis layout record";
    uint32_t layout = get_u32(rec + 8);
    if (layout != BBR_LAYOUT_FIXED && layout != BBR_LAYOUT_CHAIN) return "Redis layout version not supported";
    if (get_u64(m + 120) != bbr_checksum(r, m, 120)) return "header checksum mismatch";
    if (get_u64(rec + 56) != bbr_checksum(r, m, BBR_META_BYTES - 8)) return "meta checksum mismatch";
    if (layout == BBR_LAYOUT_CHAIN) return chain_problem(m);
    if (get_u32(m + 16) != BB_BLOCKED) return "not a blocked filter";
    uint32_t k = get_u32(m + 20);
    uint64_t bits = get_u64(m + 24), shards = get_u64(rec + 16), per;
    double fpr;
    uint64_t fb = get_u64(m + 48);
    memcpy(&fpr, &fb, 8);
    if (get_u32(m + 12) != BBR_HEADER_BYTES || k < 1 || k > BB_MAX_K || bits == 0 ||
        bits > BB_MAX_BITS || bits % BB_BLOCK_BITS || get_u64(m + 32) != bits / BB_BLOCK_BITS ||
        get_u64(m + 72) != bits / 8 || !(fb == 0 || (fpr > 0.0 && fpr < 1.0)) ||
        !all_zero(m + 88, 32) || get_u32(rec + 12) != 0 || !all_zero(rec + 32, 24))
        return "inconsistent header fields";
    if (bb_slice_split(bits / BB_BLOCK_BITS, shards, &per) != BB_OK || per != get_u64(rec + 24))
        return "inconsistent shard count";
    if (shards > BBR_MAX_SHARDS || bits / 8 > BBR_MAX_BYTES) return oversize;
    return NULL;
}

bb_status bbr_meta_decode(bb_redis *r, const char *name, const void *buf, size_t len,
                          bbr_filter *f) {
    const uint8_t *m = buf;
    const char *why = meta_problem(r, m, len);
    if (why && why != oversize)
        return bbr_fail(r, BB_E_CORRUPT, "redis: '%s' is not a usable filter: %s", name, why);
    memcpy(f->meta, m, BBR_META_BYTES);
    const uint8_t *rec = m + BBR_HEADER_BYTES;
    f->layout = get_u32(rec + 8);
    f->capacity = get_u64(m + 40);
    uint64_t fb = get_u64(m + 48);
    memcpy(&f->fpr, &fb, 8);
    f->seed = get_u64(m + 56);
    if (f->layout == BBR_LAYOUT_CHAIN) {
        double g;
        uint64_t gb = get_u64(m + OFF_GROWTH);
        memcpy(&g, &gb, 8);
        f->growth = (uint64_t)g;
        f->nonscaling = get_u32(m + OFF_FLAGS) & BB_NO_SCALE;
        f->shard_opt = get_u64(rec + 16);
        return BB_OK;
    }
    bbr_sub sub = {.k = get_u32(m + 20), .bits = get_u64(m + 24), .capacity = f->capacity,
                   .fpr = f->fpr, .shards = get_u64(rec + 16), .per_shard = get_u64(rec + 24)};
    sub.blocks = sub.bits / BB_BLOCK_BITS;
    bb_status s = bbr_sub_append(r, f, &sub);
    if (s != BB_OK || !why) return s;
    f->oversize = true; /* the geometry stays, for del; every other call stops here */
    return bbr_fail(r, BB_E_CORRUPT, "redis: '%s' is refused as damaged: its meta claims %llu "
                    "shards of %llu bytes in all, beyond the bound of a filter (%u shards, "
                    "%llu bytes; docs/REDIS.md)", name, (unsigned long long)sub.shards,
                    (unsigned long long)(sub.bits / 8), BBR_MAX_SHARDS,
                    (unsigned long long)BBR_MAX_BYTES);
}

/* ---- Sub-filters ------------------------------------------------------------------------------ */

bb_status bbr_split(bb_redis *r, uint64_t blocks, uint64_t shards, uint64_t *n_out,
                    uint64_t *per_out) {
    const uint64_t dflt = BB_REDIS_SHARD_BYTES / BBR_BLOCK_BYTES;
    if (shards > blocks)
        return bbr_fail(r, BB_E_INVAL, "ERR %llu shards for a filter of %llu blocks",
                        (unsigned long long)shards, (unsigned long long)blocks);
    uint64_t n = shards ? shards : blocks / dflt + (blocks % dflt != 0);
    uint64_t per = blocks / n + (blocks % n != 0);
    *per_out = per;
    *n_out = blocks / per + (blocks % per != 0);
    return BB_OK;
}

bb_status bbr_sub_append(bb_redis *r, bbr_filter *f, const bbr_sub *sub) {
    bbr_sub *grown = realloc(f->subs, (f->n_subs + 1) * sizeof *grown);
    if (!grown) return bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
    f->subs = grown;
    f->subs[f->n_subs++] = *sub;
    return BB_OK;
}

/* c_i and p_i of the chain's sub-filter i (as next_params of src/kinds/scalable.c, the same
 * binary64 operations in the same order, so a pulled chain loads as that kind). */
bb_status bbr_chain_sub(bb_redis *r, const bbr_filter *f, size_t i, bbr_sub *out) {
    memset(out, 0, sizeof *out);
    if (i >= BBR_MAX_SUBS)
        return bbr_fail(r, BB_E_TOO_LARGE, "ERR '%s' has %u sub-filters, the most a chain may "
                        "have", f->name ? f->name : "", BBR_MAX_SUBS);
    uint64_t cap = f->capacity;
    double fpr = f->nonscaling ? f->fpr : f->fpr * (1.0 - CHAIN_TIGHTENING);
    for (size_t j = 1; j <= i; j++) {
        double c = ceil((double)cap * (double)f->growth);
        fpr *= CHAIN_TIGHTENING;
        if (!(c < 0x1p63) || !(fpr > 0.0))
            return bbr_fail(r, BB_E_TOO_LARGE, "ERR '%s' cannot grow further (sub-filter %zu "
                            "would exceed 2^63 keys)", f->name ? f->name : "", i);
        cap = (uint64_t)c;
    }
    bb_status bs = bb_size(f->nonscaling ? BB_BLOCKED : BB_SCALABLE, cap, fpr, &out->bits, &out->k);
    if (bs != BB_OK)
        return bbr_fail(r, bs, "ERR cannot size %s%zu of %llu keys at %g: %s",
                        i ? "sub-filter " : "the filter", i ? i : (size_t)0,
                        (unsigned long long)cap, fpr, bb_strerror(bs));
    out->capacity = cap;
    out->fpr = fpr;
    out->blocks = out->bits / BB_BLOCK_BITS;
    uint64_t shards = f->shard_opt < out->blocks ? f->shard_opt : out->blocks;
    return bbr_split(r, out->blocks, shards, &out->shards, &out->per_shard);
}

size_t bbr_chain_fit(bb_redis *r, const bbr_filter *f, size_t n) {
    uint64_t shards = 0, bytes = 0;
    for (size_t i = 0; i < n; i++) {
        bbr_sub sub;
        if (bbr_chain_sub(r, f, i, &sub) != BB_OK) return i;
        shards += sub.shards;
        bytes += sub.bits / 8; /* <= 2^53 each, n <= 1024: no overflow */
        if (shards > BBR_MAX_SHARDS || bytes > BBR_MAX_BYTES) return i;
    }
    return n;
}

bool bbr_name_reserved(const char *name) { return strncmp(name, "bb:{", 4) == 0; }

static char *key_printf(const char *prefix, const char *name) {
    size_t len = strlen(prefix) + strlen(name) + 2;
    char *k = malloc(len);
    if (k) snprintf(k, len, "%s%s}", prefix, name);
    return k;
}

char *bbr_shard_key(const char *name, uint64_t sub, uint64_t s) {
    char prefix[48];
    if (sub == 0) snprintf(prefix, sizeof prefix, "bb:{%llu:", (unsigned long long)s);
    else snprintf(prefix, sizeof prefix, "bb:{%llu.%llu:", (unsigned long long)sub, (unsigned long long)s);
    return key_printf(prefix, name);
}

char *bbr_aux_key(const char *name, char tag) {
    char prefix[8] = {'b', 'b', ':', '{', tag, ':', '\0'};
    return key_printf(prefix, name);
}

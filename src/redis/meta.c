/* SPDX-License-Identifier: MIT */
/*
 * meta.c - the meta key of a Redis filter and the key names (docs/REDIS.md). The meta key
 * holds 192 bytes: the 128-byte file header of the whole filter (docs/FORMAT.md; keys_added
 * and payload_checksum 0, since neither can be kept current by concurrent BITFIELD writers;
 * header_checksum valid), then a 64-byte Redis record:
 *     0  8  magic "BBREDIS\n"      8  u32 layout version (1)   12  u32 zero
 *    16  u64 shards               24  u64 blocks_per_shard     32  24 zero bytes
 *    56  u64 XXH3-64 (seed 0) of meta bytes 0 .. 183
 * All little-endian. This file encodes and checks those bytes independently of the core's
 * format.c, as a client in another language would from the two documents.
 */
#include "redis_internal.h"

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
    put_u32(rec + 8, BBR_LAYOUT_VERSION);
    put_u64(rec + 16, shards);
    put_u64(rec + 24, per_shard);
    put_u64(rec + 56, bbr_checksum(r, out, BBR_META_BYTES - 8));
}

void bbr_header_finish(const bb_redis *r, uint8_t header[BBR_HEADER_BYTES], uint64_t keys_added,
                       uint64_t payload_checksum) {
    put_u64(header + 64, keys_added);
    put_u64(header + 80, payload_checksum);
    put_u64(header + 120, bbr_checksum(r, header, 120));
}

static bool all_zero(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i]) return false;
    return true;
}

/* The reason meta bytes are not a valid filter, or NULL. Versions are checked before
 * checksums, so that a newer writer's meta reads as "version", not "damaged". */
static const char *meta_problem(const bb_redis *r, const uint8_t *m, size_t len) {
    const uint8_t *rec = m + BBR_HEADER_BYTES;
    if (len < 12 || memcmp(m, file_magic, 8) != 0) return "not a blockbloom meta key";
    if (get_u32(m + 8) != BB_FORMAT_VERSION) return "file format version not supported";
    if (len != BBR_META_BYTES) return "meta key of the wrong length";
    if (memcmp(rec, record_magic, 8) != 0) return "no Redis layout record";
    if (get_u32(rec + 8) != BBR_LAYOUT_VERSION) return "Redis layout version not supported";
    if (get_u64(m + 120) != bbr_checksum(r, m, 120)) return "header checksum mismatch";
    if (get_u64(rec + 56) != bbr_checksum(r, m, BBR_META_BYTES - 8)) return "meta checksum mismatch";
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
    return NULL;
}

bb_redis_status bbr_meta_decode(bb_redis *r, const char *name, const void *buf, size_t len,
                                bbr_filter *f) {
    const uint8_t *m = buf;
    const char *why = meta_problem(r, m, len);
    if (why) return bbr_fail(r, BB_REDIS_E_BAD_META, "redis: '%s' is not a usable filter: %s", name, why);
    memcpy(f->meta, m, BBR_META_BYTES);
    f->k = get_u32(m + 20);
    f->bits = get_u64(m + 24);
    f->blocks = f->bits / BB_BLOCK_BITS;
    f->capacity = get_u64(m + 40);
    uint64_t fb = get_u64(m + 48);
    memcpy(&f->fpr, &fb, 8);
    f->seed = get_u64(m + 56);
    f->shards = get_u64(m + BBR_HEADER_BYTES + 16);
    f->per_shard = get_u64(m + BBR_HEADER_BYTES + 24);
    return BB_REDIS_OK;
}

bool bbr_name_reserved(const char *name) { return strncmp(name, "bb:{", 4) == 0; }

static char *key_printf(const char *prefix, const char *name) {
    size_t len = strlen(prefix) + strlen(name) + 2;
    char *k = malloc(len);
    if (k) snprintf(k, len, "%s%s}", prefix, name);
    return k;
}

char *bbr_shard_key(const char *name, uint64_t s) {
    char prefix[32];
    snprintf(prefix, sizeof prefix, "bb:{%llu:", (unsigned long long)s);
    return key_printf(prefix, name);
}

char *bbr_aux_key(const char *name, char tag) {
    char prefix[8] = {'b', 'b', ':', '{', tag, ':', '\0'};
    return key_printf(prefix, name);
}

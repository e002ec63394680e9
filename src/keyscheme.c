/* SPDX-License-Identifier: MIT */
/*
 * keyscheme.c - a filter's key scheme (what its keys are: plain, URL expressions, domains,
 * CIDR ranges with the prefix lengths present, 5-tuples), its getters and setters, and its
 * 64-byte record of format version 2 (docs/FORMAT.md, "Version 2: the key-scheme record"):
 *
 *   0  u32 record type, 1 = key scheme     8  u32 scheme (bb_keys, 1..4)
 *   4  u32 record bytes, 64               12  u32 zero
 *  16  3 x u64 IPv6 prefix lengths (bit l of word l / 64 = length l; only for cidr)
 *  40  u64 IPv4 prefix lengths (bit n = /n, n <= 32; only for cidr)
 *  48  8 bytes zero                       56  u64 XXH3-64 (seed 0) of bytes 0 .. 55
 *
 * The record is generic (a type and a length) so a later record type can follow the same
 * rules; this library knows type 1 only.
 */
#include "format.h"

enum { REC_TYPE = 0, REC_BYTES = 4, REC_SCHEME = 8, REC_PREFIXES = 16, REC_IPV4 = 40, REC_SUM = 56 };
#define REC_TYPE_SCHEME 1u

bool bb_scheme_valid(const bb_key_scheme *ks) {
    if ((unsigned)ks->keys > BB_KEYS_5TUPLE) return false;
    if (ks->prefixes.words[2] >> 1 || ks->prefixes.ipv4 >> 33) return false; /* > 128, > 32 */
    bool any = ks->prefixes.words[0] | ks->prefixes.words[1] | ks->prefixes.words[2] |
               ks->prefixes.ipv4;
    return !any || ks->keys == BB_KEYS_CIDR;
}

bb_status bb_set_key_scheme(bb_filter *f, const bb_key_scheme *ks) {
    if (!f || !ks || !bb_scheme_valid(ks)) return BB_E_INVAL;
    if (f->storage == BB_STORE_FILE) return BB_E_READONLY;
    f->scheme = *ks;
    return BB_OK;
}

bb_status bb_get_key_scheme(const bb_filter *f, bb_key_scheme *out) {
    if (!f || !out) return BB_E_INVAL;
    *out = f->scheme;
    return BB_OK;
}

const char *bb_keys_name(bb_keys keys) {
    static const char *const names[] = {"plain", "url", "domain", "cidr", "5tuple"};
    return (unsigned)keys <= BB_KEYS_5TUPLE ? names[keys] : "unknown";
}

void bb_scheme_encode(const bb_filter *f, uint8_t rec[BB_SCHEME_RECORD_BYTES]) {
    memset(rec, 0, BB_SCHEME_RECORD_BYTES);
    bb_put32(rec + REC_TYPE, REC_TYPE_SCHEME);
    bb_put32(rec + REC_BYTES, BB_SCHEME_RECORD_BYTES);
    bb_put32(rec + REC_SCHEME, (uint32_t)f->scheme.keys);
    for (int i = 0; i < 3; i++) bb_put64(rec + REC_PREFIXES + 8 * i, f->scheme.prefixes.words[i]);
    bb_put64(rec + REC_IPV4, f->scheme.prefixes.ipv4);
    bb_put64(rec + REC_SUM, bb_xxh3(rec, REC_SUM, 0));
}

bb_status bb_scheme_decode(const uint8_t rec[BB_SCHEME_RECORD_BYTES], bb_key_scheme *out) {
    if (bb_xxh3(rec, REC_SUM, 0) != bb_get64(rec + REC_SUM)) return BB_E_CORRUPT;
    uint32_t scheme = bb_get32(rec + REC_SCHEME);
    if (bb_get32(rec + REC_TYPE) != REC_TYPE_SCHEME || scheme > BB_KEYS_5TUPLE)
        return BB_E_UNSUPPORTED; /* intact, but from a newer writer */
    if (bb_get32(rec + REC_BYTES) != BB_SCHEME_RECORD_BYTES || scheme == BB_KEYS_PLAIN)
        return BB_E_INCONSISTENT;
    for (unsigned i = 12; i < REC_SUM; i++)
        if ((i < REC_PREFIXES || i >= REC_IPV4 + 8) && rec[i]) return BB_E_INCONSISTENT;
    bb_key_scheme ks = {.keys = (bb_keys)scheme};
    for (int i = 0; i < 3; i++) ks.prefixes.words[i] = bb_get64(rec + REC_PREFIXES + 8 * i);
    ks.prefixes.ipv4 = bb_get64(rec + REC_IPV4);
    if (!bb_scheme_valid(&ks)) return BB_E_INCONSISTENT;
    *out = ks;
    return BB_OK;
}

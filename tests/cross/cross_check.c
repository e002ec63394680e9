/* SPDX-License-Identifier: MIT */
/*
 * cross_check.c - the cross-architecture check, a plain C program on the public API only
 * (Criterion is not packaged for the cross targets). scripts/cross-arch.sh builds it for
 * x86-64, AArch64 and s390x (big-endian) and runs it natively or under qemu-user.
 *
 *     cross_check OUTDIR [INDIR...]
 *
 * It checks, on the machine it runs on:
 *  1. golden hashes: bb_hash of fixed keys (every XXH3 length class, bytes >= 0x80) equals
 *     literals pinned below, which come from builds of the reference implementation apart
 *     from blockbloom's: seed 0 from Debian's `xxhsum -H3` (xxHash 0.8.1), the seeded ones
 *     from XXH3_64bits_withSeed of Debian's shared libxxhash0.
 *  2. kernel equivalence: for every kernel of the library's ISA table this build can run
 *     (x86: scalar, avx2, avx512, avx512gfni, neon through SIMDe; AArch64: scalar, native
 *     neon; s390x: scalar, neon through SIMDe's portable code), filters of every kind
 *     (blocked; classic; classic whose size is not a multiple of 8 bits; counting; scalable
 *     with three sub-filters)
 *     built from the same keys by single, pointer-batch, Arrow and concurrent adds have the
 *     same serialized bytes as with the scalar kernel, every added key answers 1 (no false
 *     negative) on single, batch and hash queries, and all answers equal the scalar ones.
 *  3. golden filters: a digest of each filter's serialized bytes equals a pinned literal
 *     (recorded on x86-64), so a change of layout, probe scheme or format shows everywhere.
 *  4. files: it saves each filter as OUTDIR/<name>.bbf; for each INDIR (files saved by a run
 *     on another machine) it loads <name>.bbf with bb_load and bb_open_mmap and requires the
 *     same serialized bytes as its own filter and the same answers on every kernel.
 *  5. split-block (Parquet) values that do not come from blockbloom (tests/split_vectors.h):
 *     XXH64 published vectors, and the filter bytes of those keys worked out from the spec,
 *     under every kernel; split filters (plain and BB_POW2_BYTES) also go through 2 to 4.
 *     Likewise the sectorized bytes of tests/sectorized_vectors.h (an independent reference
 *     of its layout) for every k under every kernel; sectorized filters also go through 2-4.
 *  6. Arrow integers: native-endian Arrow int16/int32/int64 columns (src/arrow.c) give the
 *     filter of the values' little-endian bytes, written out literally, on every machine,
 *     for the blocked kind (XXH3) and the split kind (XXH64, so Parquet's PLAIN bytes).
 *  7. concurrent "new" counts: on every kernel and every k, blocked filters built by batches
 *     of bb_add_hashes_concurrent report, batch by batch, as many new keys as one-by-one
 *     bb_contains_hash / bb_add_hash on a second filter, and end with its bytes.
 * It ends with "N passed, N failed" and exits 1 if any check failed, 2 on a usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blockbloom.h"

#include "../sectorized_vectors.h"
#include "../split_vectors.h"

static int n_pass, n_fail;

static void check(int ok, const char *what, const char *detail) {
    if (ok) {
        n_pass++;
        return;
    }
    n_fail++;
    printf("FAIL: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
}

static const char *arch_name(void) {
#if defined(__x86_64__)
    return "x86_64";
#elif defined(__aarch64__)
    return "aarch64";
#elif defined(__s390x__)
    return "s390x";
#else
    return "other";
#endif
}

/* ============================================================================================
 * 1. Golden hashes
 * ========================================================================================== */

/* Generated key of length len: byte i = i * 0x9D + len * 7 + 0x31 (mod 256), so every key of
 * 2 bytes or more has bytes >= 0x80. The lengths cover XXH3's code paths: 0, 1-3, 4-8, 9-16,
 * 17-128, 129-240, > 240 bytes (xxHash spec, "XXH3 algorithm"). */
static void gen_key(unsigned char *buf, size_t len) {
    for (size_t i = 0; i < len; i++) buf[i] = (unsigned char)(i * 0x9D + len * 7 + 0x31);
}

typedef struct golden {
    const char *lit; /* key bytes, or NULL for gen_key(len) */
    size_t len;
    uint64_t seed0;  /* xxhsum -H3 of the same bytes */
    uint64_t seeded; /* XXH3_64bits_withSeed(GOLDEN_SEED) of libxxhash.so */
} golden;

#define GOLDEN_SEED UINT64_C(0x0123456789ABCDEF)

static const golden goldens[] = {
    {NULL, 0, 0x2d06800538d394c2, 0xcc1ca35a1b089c5c},
    {NULL, 1, 0x664f427c6b2c4bea, 0xe90000a4cf6f088e},
    {NULL, 2, 0xec10d50e4121f024, 0xf7b0f11a2126f99d},
    {NULL, 3, 0xfb3204efa4b0cf3b, 0x68f8ed3e08a26115},
    {NULL, 4, 0x80aa1ee0b00624b0, 0x8be69bfa806a9619},
    {NULL, 7, 0xd4d692d529d28c15, 0x7e83c45b20ff9a64},
    {NULL, 8, 0xf73cab74c4574d3a, 0xd5d551fcd165daa9},
    {NULL, 9, 0x80303928a727808e, 0xee23d34ee71e36ae},
    {NULL, 15, 0x989f7f6b303547f9, 0xdcfd169111b3a9ab},
    {NULL, 16, 0x350ab829decc6c66, 0xc3c3cb9edcf2588e},
    {NULL, 17, 0xe1aec959da75ed11, 0x97f3a8e978e58b43},
    {NULL, 64, 0x060b8b7d2433cb34, 0x721ebbf474697615},
    {NULL, 127, 0x43ce30c4c60b987e, 0x408159db9e003442},
    {NULL, 128, 0x6571c382141990b2, 0x9d447850dfbbee46},
    {NULL, 129, 0xb9036b6e07427fab, 0xc0045f64f0ccaff4},
    {NULL, 200, 0x9b77f87fc16d9705, 0xeaa8d46c8870c509},
    {NULL, 239, 0x7f59fe653b553f91, 0x049ff25dba5d16ec},
    {NULL, 240, 0xa86c2703f7ba960d, 0x44982279d9fb512e},
    {NULL, 241, 0x4d8fe4a1a70281ad, 0xced0e656fa4edfa2},
    {NULL, 500, 0xc2927e5b8766d63c, 0x6026b9d0e4ff4ff2},
    {NULL, 1024, 0x6b542a13fc439e3d, 0xa22a7b26c40e654c},
    {"abc", 3, 0x78af5f94892f3950, 0x4a2ec311f0e180a4},
    {"blockbloom", 10, 0x9433b033568d12b6, 0x3d4f539b7556a4b2},
    {"caf\xc3\xa9", 5, 0x4c83dbd5f29d367f, 0x0951f9efe13eb2de},       /* UTF-8 "cafe" with e-acute */
    {"\xff\xfe\x80\x7f", 4, 0x80488fce1ec366c0, 0xa5ce990a0cec80be},  /* high bytes in a char literal */
};
#define N_GOLDEN (sizeof goldens / sizeof *goldens)

static void check_golden_hashes(void) {
    bb_filter *f0 = NULL, *fs = NULL;
    check(bb_create_for(&f0, BB_BLOCKED, 1, 0.5, 0) == BB_OK &&
          bb_create_for(&fs, BB_BLOCKED, 1, 0.5, GOLDEN_SEED) == BB_OK, "create", NULL);
    unsigned char buf[1024];
    for (size_t i = 0; f0 && fs && i < N_GOLDEN; i++) {
        const golden *g = &goldens[i];
        const void *key = g->lit ? (const void *)g->lit : buf;
        if (!g->lit) gen_key(buf, g->len);
        uint64_t h0 = bb_hash(f0, key, g->len), hs = bb_hash(fs, key, g->len);
        char d[160];
        snprintf(d, sizeof d, "key %zu (len %zu): seed 0 got %016llx want %016llx", i, g->len,
                 (unsigned long long)h0, (unsigned long long)g->seed0);
        check(h0 == g->seed0, "golden hash, seed 0", d);
        snprintf(d, sizeof d, "key %zu (len %zu): seeded got 0x%016llx want 0x%016llx", i,
                 g->len, (unsigned long long)hs, (unsigned long long)g->seeded);
        check(hs == g->seeded, "golden hash, seeded", d);
    }
    bb_free(f0);
    bb_free(fs);
}

/* ============================================================================================
 * 2-3. Filters built on every kernel
 * ========================================================================================== */

#define N_ADD 2000
#define N_QUERY 4000 /* keys 0..N_ADD-1 are added, the rest are absent */
#define MAX_KEY 40

/* Query key j: length j % MAX_KEY, bytes from a 32-bit LCG (Numerical Recipes constants)
 * seeded by j, so they differ between keys and include bytes >= 0x80. */
typedef struct keyset {
    unsigned char bytes[N_QUERY][MAX_KEY];
    const void *ptrs[N_QUERY];
    size_t lens[N_QUERY];
    unsigned char packed[N_QUERY * MAX_KEY]; /* Arrow data */
    int32_t offsets[N_QUERY + 1];
} keyset;

static void make_keys(keyset *ks) {
    int32_t at = 0;
    for (uint32_t j = 0; j < N_QUERY; j++) {
        uint32_t x = j * 2654435761u + 1;
        ks->lens[j] = j % MAX_KEY;
        for (size_t i = 0; i < ks->lens[j]; i++) {
            x = x * 1664525u + 1013904223u;
            ks->bytes[j][i] = (unsigned char)(x >> 24);
        }
        ks->ptrs[j] = ks->bytes[j];
        ks->offsets[j] = at;
        memcpy(ks->packed + at, ks->bytes[j], ks->lens[j]);
        at += (int32_t)ks->lens[j];
    }
    ks->offsets[N_QUERY] = at;
}

typedef struct spec {
    const char *name;
    bb_config cfg;
    uint64_t digest; /* bb_hash (seed 0) of the serialized filter, recorded on x86-64 */
} spec;

static const spec specs[] = {
    {"blocked", {.kind = BB_BLOCKED, .capacity = N_ADD, .fpr = 0.01, .seed = 0x5EED}, 0x8adc2f5a9c5e303e},
    {"classic", {.kind = BB_CLASSIC, .capacity = N_ADD, .fpr = 0.01, .seed = 0x5EED}, 0x079e9862a82a9832},
    {"classic_odd", {.kind = BB_CLASSIC, .capacity = N_ADD, .bits = 20011, .k = 7, .seed = 3},
     0x2899d368637ff9be},
    {"counting", {.kind = BB_COUNTING, .capacity = N_ADD, .fpr = 0.01, .seed = 0x5EED}, 0x05ecf1079c1bdebd},
    /* Sized for a quarter of the keys, so it grows to three sub-filters. */
    {"scalable", {.kind = BB_SCALABLE, .capacity = N_ADD / 4, .fpr = 0.01, .seed = 9},
     0x013d0b60b747d169},
    {"split", {.kind = BB_SPLIT, .capacity = N_ADD, .fpr = 0.01}, 0x440e9113d449be67},
    {"split_pow2", {.kind = BB_SPLIT, .capacity = N_ADD, .fpr = 0.001, .seed = 0x5EED,
                    .flags = BB_POW2_BYTES}, 0xffb47085b1d5d583},
    /* One of each sectorized shape: k = 8 (1%), 4 (10%), 16 (0.01%). */
    {"sectorized", {.kind = BB_SECTORIZED, .capacity = N_ADD, .fpr = 0.01, .seed = 0x5EED}, 0xbcd96e606e82ed66},
    {"sectorized_k4", {.kind = BB_SECTORIZED, .capacity = N_ADD, .fpr = 0.1, .seed = 4}, 0x05b5af00bb959dc7},
    {"sectorized_k16", {.kind = BB_SECTORIZED, .capacity = N_ADD, .fpr = 1e-4, .seed = 16}, 0xd6deeadaa7bbae97},
};
#define N_SPECS (sizeof specs / sizeof *specs)

/* Keys 0..N_ADD-1 added in quarters: single calls, a pointer batch, an Arrow column, and the
 * concurrent batch add (blocked: byte or SIMD stores; classic and split: atomic 64-bit word
 * ORs whose masks are byte-swapped on big-endian machines; kinds without it get a plain
 * batch). */
static bb_filter *build(const spec *sp, const keyset *ks) {
    bb_filter *f = NULL;
    bb_config cfg = sp->cfg; /* the table leaves size out, for short rows */
    cfg.size = sizeof cfg;
    if (bb_create(&f, &cfg) != BB_OK) return NULL;
    const size_t q = N_ADD / 4;
    int ok = 1;
    for (size_t j = 0; j < q; j++) ok &= bb_add(f, ks->ptrs[j], ks->lens[j]) == BB_OK;
    ok &= bb_add_batch(f, ks->ptrs + q, ks->lens + q, q) == BB_OK;
    ok &= bb_add_arrow32(f, ks->packed, ks->offsets + 2 * q, q) == BB_OK;
    bb_status s = bb_add_batch_concurrent(f, ks->ptrs + 3 * q, ks->lens + 3 * q, N_ADD - 3 * q, NULL);
    if (s == BB_E_UNSUPPORTED && (sp->cfg.kind == BB_COUNTING || sp->cfg.kind == BB_SCALABLE))
        s = bb_add_batch(f, ks->ptrs + 3 * q, ks->lens + 3 * q, N_ADD - 3 * q);
    ok &= s == BB_OK;
    if (!ok) {
        bb_free(f);
        return NULL;
    }
    return f;
}

/* Serialized bytes of f in a new buffer (*len set), or NULL with *st saying why. */
static unsigned char *serialize(const bb_filter *f, size_t *len, bb_status *st) {
    uint64_t size = 0;
    *st = bb_serialized_size(f, &size);
    if (*st != BB_OK) return NULL;
    unsigned char *buf = size <= SIZE_MAX ? malloc((size_t)size) : NULL;
    *st = buf ? bb_serialize(f, buf, (size_t)size, len) : BB_E_NOMEM;
    if (*st != BB_OK) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Answers of f on all query keys through the batch call, checked against the single-key and
 * hash calls; returns 0 if those disagree or an added key is missing. */
static int answers(const bb_filter *f, const keyset *ks, unsigned char *out) {
    size_t present = 0;
    if (bb_contains_batch(f, ks->ptrs, ks->lens, N_QUERY, out, &present) != BB_OK) return 0;
    int ok = 1;
    for (size_t j = 0; j < N_QUERY; j++) {
        ok &= out[j] == bb_contains(f, ks->ptrs[j], ks->lens[j]);
        ok &= out[j] == bb_contains_hash(f, bb_hash(f, ks->ptrs[j], ks->lens[j]));
        if (j < N_ADD) ok &= out[j] == 1;
    }
    return ok;
}

/* The kernels: the library's ISA table, walked; bb_isa_at(0) is scalar, the reference. */
#define N_ISAS bb_isa_count()

/* The reference of one spec: built, serialized and answered with the scalar kernel. */
typedef struct reference {
    bb_filter *f;
    unsigned char *bytes; /* NULL if this kind cannot be serialized (BB_E_UNSUPPORTED) */
    size_t len;
    unsigned char answers[N_QUERY];
} reference;

static void check_kernels(const spec *sp, const keyset *ks, reference *ref) {
    char d[160];
    for (size_t i = 0; i < N_ISAS; i++) {
        if (!bb_isa_available(bb_isa_at(i))) continue;
        bb_set_isa(bb_isa_at(i));
        bb_filter *f = build(sp, ks);
        size_t len = 0;
        bb_status st = BB_E_INVAL;
        unsigned char *bytes = f ? serialize(f, &len, &st) : NULL;
        unsigned char out[N_QUERY];
        snprintf(d, sizeof d, "%s on %s: %s", sp->name, bb_isa_name(), bb_strerror(st));
        check(f && (bytes || st == BB_E_UNSUPPORTED), "build and serialize", d);
        if (!f) continue;
        check(answers(f, ks, out), "no false negative, single = batch = hash", d);
        if (bb_isa_at(i) == BB_ISA_SCALAR) {
            *ref = (reference){.f = f, .bytes = bytes, .len = len};
            memcpy(ref->answers, out, N_QUERY);
            continue;
        }
        check(!ref->bytes == !bytes && (!bytes || (len == ref->len &&
                                                   memcmp(bytes, ref->bytes, len) == 0)),
              "same filter bytes as scalar", d);
        check(memcmp(out, ref->answers, N_QUERY) == 0, "same answers as scalar", d);
        free(bytes);
        bb_free(f);
    }
    bb_set_isa(BB_ISA_SCALAR);
}

/* Check 7 (see the top): 4000 hashes, every fifth repeating an earlier one, in batches of
 * 1, 7, 300 and 1100 keys, into a 64-block filter (it fills past half, so both answers
 * occur). */
static void check_concurrent_counts(void) {
    enum { N = 4000 };
    static uint64_t h[N];
    uint64_t z = 11;
    for (size_t i = 0; i < N; i++) {
        z += UINT64_C(0x9E3779B97F4A7C15); /* splitmix64 (Steele, Lea, Flood 2014) */
        uint64_t x = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
        x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
        h[i] = i % 5 == 4 ? h[i / 2] : x ^ (x >> 31);
    }
    const size_t lens[] = {1, 7, 300, 1100};
    char d[160];
    for (size_t i = 0; i < N_ISAS; i++) {
        if (!bb_isa_available(bb_isa_at(i))) continue;
        bb_set_isa(bb_isa_at(i));
        int ok = 1;
        for (unsigned k = 1; k <= BB_MAX_K; k++) {
            bb_filter *f = NULL, *one = NULL;
            bb_config cfg = {
                .size = sizeof(bb_config), .kind = BB_BLOCKED, .bits = 64 * 512, .k = k};
            if (bb_create(&f, &cfg) != BB_OK || bb_create(&one, &cfg) != BB_OK) ok = 0;
            for (size_t at = 0, r = 0; ok && at < N; at += lens[r++ % 4]) {
                size_t len = lens[r % 4] < N - at ? lens[r % 4] : N - at, want = 0, got = 0;
                for (size_t j = at; j < at + len; j++) {
                    want += !bb_contains_hash(one, h[j]);
                    ok &= bb_add_hash(one, h[j]) == BB_OK;
                }
                ok &= bb_add_hashes_concurrent(f, h + at, len, &got) == BB_OK && got == want;
            }
            size_t la = 0, lb = 0;
            bb_status sa = BB_E_INVAL, sb = BB_E_INVAL;
            unsigned char *a = ok ? serialize(f, &la, &sa) : NULL, *b = a ? serialize(one, &lb, &sb) : NULL;
            ok &= a && b && la == lb && memcmp(a, b, la) == 0;
            free(a);
            free(b);
            bb_free(f);
            bb_free(one);
            snprintf(d, sizeof d, "%s, k = %u", bb_isa_name(), k);
            check(ok, "concurrent new counts and bytes = one by one", d);
            if (!ok) break;
        }
    }
    bb_set_isa(BB_ISA_SCALAR);
}

static void check_digest(const spec *sp, const reference *ref) {
    bb_filter *h = NULL;
    if (bb_create_for(&h, BB_BLOCKED, 1, 0.5, 0) != BB_OK) {
        check(0, "create", NULL);
        return;
    }
    uint64_t got = bb_hash(h, ref->bytes, ref->len);
    char d[160];
    snprintf(d, sizeof d, "%s: got 0x%016llx want 0x%016llx (%zu bytes)", sp->name,
             (unsigned long long)got, (unsigned long long)sp->digest, ref->len);
    check(got == sp->digest, "golden filter digest", d);
    bb_free(h);
}

/* ============================================================================================
 * 4. Files from other machines
 * ========================================================================================== */

static void check_foreign(const spec *sp, const keyset *ks, const reference *ref,
                          const char *dir) {
    char path[4096], d[4200];
    snprintf(path, sizeof path, "%s/%s.bbf", dir, sp->name);
    for (int mapped = 0; mapped < 2; mapped++) {
        bb_filter *f = NULL;
        bb_status s = mapped ? bb_open_mmap(&f, path) : bb_load(&f, path);
        snprintf(d, sizeof d, "%s via %s: %s", path, mapped ? "bb_open_mmap" : "bb_load",
                 bb_strerror(s));
        check(s == BB_OK, "load foreign file", d);
        if (s != BB_OK) continue;
        size_t len = 0;
        unsigned char *bytes = serialize(f, &len, &s);
        check(bytes && len == ref->len && memcmp(bytes, ref->bytes, len) == 0,
              "foreign file has the same bytes as the local filter", d);
        free(bytes);
        for (size_t i = 0; i < N_ISAS; i++) {
            if (!bb_isa_available(bb_isa_at(i))) continue;
            bb_set_isa(bb_isa_at(i));
            unsigned char out[N_QUERY];
            char di[4300];
            snprintf(di, sizeof di, "%s, kernel %s", d, bb_isa_name());
            check(answers(f, ks, out) && memcmp(out, ref->answers, N_QUERY) == 0,
                  "foreign file answers as the local filter", di);
        }
        bb_set_isa(BB_ISA_SCALAR);
        bb_free(f);
    }
}

/* The sectorized filter bytes of the reference positions (sectorized_vectors.h), every k,
 * every kernel: on a big-endian machine this is where a word stored in native order shows. */
static void check_sectorized_vectors(void) {
    static const unsigned ks[5] = {1, 2, 4, 8, 16};
    char d[200];
    for (size_t i = 0; i < N_ISAS; i++) {
        if (!bb_isa_available(bb_isa_at(i))) continue;
        bb_set_isa(bb_isa_at(i));
        for (unsigned ki = 0; ki < 5; ki++) {
            uint8_t want[SECT_REF_LINES * 64] = {0};
            for (size_t j = 0; j < SECT_REF_N; j++)
                for (unsigned t = 0; t < ks[ki]; t++) {
                    unsigned bit = 512u * sect_ref[ki][j].line + 64u * sect_ref[ki][j].wb[t][0] +
                                   sect_ref[ki][j].wb[t][1];
                    want[bit / 8] |= (uint8_t)(1u << (bit % 8));
                }
            bb_filter *f = NULL;
            bb_config c = {
                .size = sizeof c, .kind = BB_SECTORIZED, .bits = SECT_REF_LINES * 512, .k = ks[ki]};
            const void *data = NULL;
            size_t len = 0, hits = 0;
            uint8_t out[SECT_REF_N];
            int ok = bb_create(&f, &c) == BB_OK;
            ok = ok && bb_add_hash(f, sect_ref_hashes[0]) == BB_OK;
            ok = ok && bb_add_hashes(f, sect_ref_hashes + 1, SECT_REF_N - 1) == BB_OK;
            ok = ok && bb_payload(f, &data, &len) == BB_OK;
            ok = ok && bb_contains_hashes(f, sect_ref_hashes, SECT_REF_N, out, &hits) == BB_OK;
            snprintf(d, sizeof d, "%s kernel, k = %u", bb_isa_name(), ks[ki]);
            check(ok && len == sizeof want && memcmp(data, want, len) == 0 && hits == SECT_REF_N,
                  "sectorized filter bytes as the reference gives them", d);
            bb_free(f);
        }
    }
    bb_set_isa(BB_ISA_AUTO);
}

/* ============================================================================================
 * 5. Split-block values from outside blockbloom
 * ========================================================================================== */

static void check_split_vectors(void) {
    char d[200];
    for (size_t i = 0; i < N_XXH64_VECTORS; i++) {
        bb_filter *f = NULL;
        bb_config c = {
            .size = sizeof c, .kind = BB_SPLIT, .bits = 256, .k = 8, .seed = xxh64_vectors[i].seed};
        check(bb_create(&f, &c) == BB_OK, "create split", NULL);
        if (!f) continue;
        uint64_t h = bb_hash(f, xxh64_vectors[i].key, strlen(xxh64_vectors[i].key));
        snprintf(d, sizeof d, "\"%s\": got 0x%016llx want 0x%016llx", xxh64_vectors[i].key,
                 (unsigned long long)h, (unsigned long long)xxh64_vectors[i].h);
        check(h == xxh64_vectors[i].h, "XXH64 published vector", d);
        bb_free(f);
    }
    uint8_t want[SPEC_BLOCKS * 32];
    spec_payload(want);
    for (size_t i = 0; i < N_ISAS; i++) {
        if (!bb_isa_available(bb_isa_at(i))) continue;
        bb_set_isa(bb_isa_at(i));
        bb_filter *f = NULL;
        bb_config c = {
            .size = sizeof(bb_config), .kind = BB_SPLIT, .bits = SPEC_BLOCKS * 256, .k = 8};
        const void *keys[N_SPEC], *data = NULL;
        size_t lens[N_SPEC], len = 0;
        for (size_t j = 0; j < N_SPEC; j++) {
            keys[j] = spec_bits[j].key;
            lens[j] = strlen(spec_bits[j].key);
        }
        int ok = bb_create(&f, &c) == BB_OK;
        for (size_t j = 0; ok && j < N_SPEC / 2; j++) ok &= bb_add(f, keys[j], lens[j]) == BB_OK;
        ok = ok && bb_add_batch(f, keys + N_SPEC / 2, lens + N_SPEC / 2, N_SPEC - N_SPEC / 2) == BB_OK;
        ok = ok && bb_payload(f, &data, &len) == BB_OK;
        snprintf(d, sizeof d, "%s kernel", bb_isa_name());
        check(ok && len == sizeof want && memcmp(data, want, len) == 0,
              "split filter bytes as the Parquet spec gives them", d);
        bb_free(f);
    }
    bb_set_isa(BB_ISA_SCALAR);
}

/* ============================================================================================
 * 6. Arrow integer columns hash as little-endian bytes on every machine
 * ========================================================================================== */
static void arrow_noop_schema(struct ArrowSchema *sc) { sc->release = NULL; }
static void arrow_noop_array(struct ArrowArray *a) { a->release = NULL; }

static void check_arrow_integers(void) {
    /* the values 1, -2 and 300 of each width, then their little-endian bytes */
    int16_t v16[3] = {1, -2, 300};
    int32_t v32[3] = {1, -2, 300};
    int64_t v64[3] = {1, -2, 300};
    static const unsigned char le[3][8] = {{1, 0, 0, 0, 0, 0, 0, 0},
                                           {0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF},
                                           {0x2C, 0x01, 0, 0, 0, 0, 0, 0}};
    const void *data[3] = {v16, v32, v64};
    const char *formats[3] = {"s", "i", "l"};
    const bb_kind kinds[2] = {BB_BLOCKED, BB_SPLIT};
    for (int t = 0; t < 6; t++) {
        size_t width = (size_t)2 << (t % 3);
        bb_kind kind = kinds[t / 3];
        const void *bufs[2] = {NULL, data[t % 3]};
        struct ArrowSchema sc = {.format = formats[t % 3], .release = arrow_noop_schema};
        struct ArrowArray a = {.length = 3, .n_buffers = 2, .buffers = bufs,
                               .release = arrow_noop_array};
        bb_filter *f = NULL, *g = NULL;
        check(bb_create_for(&f, kind, 100, 0.01, 1) == BB_OK &&
                  bb_create_for(&g, kind, 100, 0.01, 1) == BB_OK, "arrow: create", NULL);
        if (!f || !g) return;
        char what[40];
        snprintf(what, sizeof what, "%s, %s", formats[t % 3], bb_kind_name(kind));
        check(bb_add_arrow_array(f, &a, &sc) == BB_OK, "arrow: add", what);
        for (int i = 0; i < 3; i++) bb_add(g, le[i], width);
        size_t lf = 0, lg = 0;
        static unsigned char bf[4096], bg[4096];
        check(bb_serialize(f, bf, sizeof bf, &lf) == BB_OK &&
                  bb_serialize(g, bg, sizeof bg, &lg) == BB_OK && lf == lg &&
                  memcmp(bf, bg, lf) == 0,
              "arrow: integer column is the filter of its little-endian bytes", what);
        bb_free(f);
        bb_free(g);
    }
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: cross_check OUTDIR [INDIR...]\n");
        return 2;
    }
    printf("cross_check on %s (%s-endian, char is %s), kernels:", arch_name(),
           __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? "little" : "big",
           (char)-1 < 0 ? "signed" : "unsigned");
    for (size_t i = 0; i < N_ISAS; i++)
        if (bb_isa_available(bb_isa_at(i))) printf(" %s", bb_isa_to_string(bb_isa_at(i)));
    printf("\n");

    check_golden_hashes();
    check_split_vectors();
    check_sectorized_vectors();
    check_arrow_integers();
    check_concurrent_counts();
    keyset *ks = malloc(sizeof *ks);
    if (!ks) return 2;
    make_keys(ks);
    for (size_t s = 0; s < N_SPECS; s++) {
        reference ref = {0};
        check_kernels(&specs[s], ks, &ref);
        if (!ref.f) continue;
        if (!ref.bytes) { /* said so, so that a skipped check is never mistaken for a pass */
            printf("note: %s filters cannot be serialized by this build: file checks skipped\n",
                   specs[s].name);
            bb_free(ref.f);
            continue;
        }
        check_digest(&specs[s], &ref);
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.bbf", argv[1], specs[s].name);
        check(bb_save(ref.f, path) == BB_OK, "save", path);
        for (int d = 2; d < argc; d++) check_foreign(&specs[s], ks, &ref, argv[d]);
        free(ref.bytes);
        bb_free(ref.f);
    }
    free(ks);
    printf("cross_check on %s: %d passed, %d failed\n", arch_name(), n_pass, n_fail);
    return n_fail ? 1 : 0;
}

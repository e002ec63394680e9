/* SPDX-License-Identifier: MIT */
/*
 * testutil.h - helpers shared by the core library's Criterion tests (test_sizing, test_fpr,
 * test_kernels, test_api, test_large): deterministic key sets that are distinct by
 * construction, the selection of each SIMD kernel in turn, the two-sided binomial interval of
 * every statistical assertion, an independent re-implementation of the documented probe
 * schemes, so tests can derive expected bits without asking the code under test, and a
 * byte-for-byte comparison of two filters through their serialization.
 * Header-only (static functions), so every test file still builds as its own executable.
 */
#ifndef BB_TESTUTIL_H
#define BB_TESTUTIL_H

#include <blockbloom.h>

#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Two-sided 99.9% quantile of the standard normal distribution (Phi(3.2905) = 0.9995). */
#define TU_Z999 3.29

/* ---- Keys ----------------------------------------------------------------------------------
 * Key i of set `tag` is 16 bytes: tag then i, both little-endian. Sets with different tags
 * share no key, so "absent" probes are absent by construction, not by luck. */
#define TU_KEY_BYTES 16u

/* A pointer to a bb_config literal of the given fields with its size set (BB_CONFIG_INIT's
 * rule), e.g. bb_create(&f, TU_CFG(.bits = 512, .k = 1)). */
#define TU_CFG(...) (&(bb_config){.size = sizeof(bb_config), __VA_ARGS__})

static inline void tu_key(uint8_t *out, uint64_t tag, uint64_t i) {
    for (unsigned b = 0; b < 8; b++) {
        out[b] = (uint8_t)(tag >> (8 * b));
        out[8 + b] = (uint8_t)(i >> (8 * b));
    }
}

/** n keys of set `tag`, packed back to back (TU_KEY_BYTES each); the caller frees. */
static inline uint8_t *tu_keys(uint64_t tag, size_t n) {
    uint8_t *k = malloc(n * TU_KEY_BYTES + 1);
    cr_assert_not_null(k, "out of memory for %zu test keys", n);
    for (size_t i = 0; i < n; i++) tu_key(k + i * TU_KEY_BYTES, tag, i);
    return k;
}

/* SplitMix64 (Steele, Lea, Flood, OOPSLA 2014): a fixed-seed source of test values. */
static inline uint64_t tu_splitmix64(uint64_t *state) {
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* ---- Kernels ---------------------------------------------------------------------------------
 * Tests walk the library's own ISA table (bb_isa_at, scalar first), so a new ISA is tested
 * with no list to edit here; test_api.c checks the walk itself against the pinned values. */

/** Say on stderr that some checks did not run. Not cr_log_warn: Criterion turns any warning
 *  into a non-zero exit status (unless --ignore-warnings), and a machine without AVX-512
 *  must not fail the suite, only say what it skipped. */
#define tu_skip(...) (fprintf(stderr, "[SKIP] " __VA_ARGS__), fputc('\n', stderr))

/** Select `isa` for the process; if this CPU or build lacks it, say so (never pass silently)
 *  and return false. */
static inline bool tu_use_isa(bb_isa isa) {
    if (!bb_isa_available(isa)) {
        tu_skip("kernel %s not available here: its checks are skipped", bb_isa_to_string(isa));
        return false;
    }
    cr_assert_eq(bb_set_isa(isa), BB_OK, "bb_set_isa(%s) failed", bb_isa_to_string(isa));
    cr_assert_str_eq(bb_isa_name(), bb_isa_to_string(isa), "active kernel is %s, not %s",
                     bb_isa_name(), bb_isa_to_string(isa));
    return true;
}

/* ---- Statistics ------------------------------------------------------------------------------
 * A count of hits among `trials` independent probes with rate p is Binomial(trials, p); by the
 * normal approximation it lies within p*trials +- z sqrt(trials p (1-p)) with probability 99.9%
 * for z = TU_Z999. Tests use fixed seeds, so a pass or a failure is reproducible. */
static inline double tu_sigma(double p, double trials) { return sqrt(p * (1.0 - p) / trials); }

/** Assert the measured rate hits/trials lies in model +- z sigma(model). */
static inline void tu_assert_rate_near(const char *what, size_t hits, size_t trials, double model) {
    double rate = (double)hits / (double)trials, s = tu_sigma(model, (double)trials);
    cr_assert(fabs(rate - model) <= TU_Z999 * s,
              "%s: measured FPR %.6f (%zu / %zu) outside model %.6f +- %.2f sigma (%.6f)", what,
              rate, hits, trials, model, TU_Z999, TU_Z999 * s);
}

/* ---- The documented probe schemes, re-implemented from their specification ------------------
 * Blocked (include/blockbloom_view.h, src/internal.h): block b = floor(h * blocks / 2^64); with
 * x = low 32 bits of h, repeat k times: x = x * 0x9E3779B9 mod 2^32, set bit x >> 23 of the
 * block. Payload bit i is bit (i & 7) of byte (i >> 3).
 * Classic (docs/FORMAT.md, "Kinds and payloads"): x = h, y = fmix64(h) (MurmurHash3's
 * 64-bit finaliser, Appleby);
 * for i = 0 .. k-1: position floor(x * m / 2^64); x += y; y += i (mod 2^64).
 * Split (Apache Parquet BloomFilter.md): z = bits / 256 blocks of 8 little-endian 32-bit
 * words; block ((h >> 32) * z) >> 32; in word i bit (lo32(h) * salt[i]) >> 27, which is
 * payload bit 256 * block + 32 * i + that. k is 8.
 * Sectorized (src/kinds/sectorized.c): line floor(h * lines / 2^64) of 512 bits, words of 64;
 * w = min(k, 8), run start ((lo * salt[16]) >> 29) & (8 - w), probe j at bit
 * (lo * salt[j]) >> 26 of word start + j % w; salts: SHA-256's initial values, then its round
 * constants, low bit set. */
static const uint32_t tu_parquet_salts[8] = {0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du,
                                             0x705495c7u, 0x2df1424bu, 0x9efc4947u, 0x5c6bfb31u};

static const uint32_t tu_sect_salts[17] = {
    0x6a09e667u | 1, 0xbb67ae85u | 1, 0x3c6ef372u | 1, 0xa54ff53au | 1, 0x510e527fu | 1,
    0x9b05688cu | 1, 0x1f83d9abu | 1, 0x5be0cd19u | 1, 0x428a2f98u | 1, 0x71374491u | 1,
    0xb5c0fbcfu | 1, 0xe9b5dba5u | 1, 0x3956c25bu | 1, 0x59f111f1u | 1, 0x923f82a4u | 1,
    0xab1c5ed5u | 1, 0xd807aa98u | 1};

static inline uint64_t tu_mulhi(uint64_t a, uint64_t b) {
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
}

static inline uint64_t tu_fmix64(uint64_t h) {
    h ^= h >> 33;
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    h *= UINT64_C(0xc4ceb9fe1a85ec53);
    h ^= h >> 33;
    return h;
}

/** The k bit positions (absolute, in the whole payload) of hash h; returns k. */
static inline unsigned tu_positions(bb_kind kind, uint64_t bits, unsigned k, uint64_t h,
                                    uint64_t *pos) {
    if (kind == BB_SPLIT) {
        uint64_t base = (((h >> 32) * (bits / 256)) >> 32) * 256;
        for (unsigned i = 0; i < 8; i++)
            pos[i] = base + 32 * i + (((uint32_t)h * tu_parquet_salts[i]) >> 27);
        return 8;
    }
    if (kind == BB_SECTORIZED) {
        uint64_t base = tu_mulhi(h, bits / 512) * 512;
        uint32_t lo = (uint32_t)h;
        unsigned w = k < 8 ? k : 8, first = ((lo * tu_sect_salts[16]) >> 29) & (8 - w);
        for (unsigned j = 0; j < k; j++)
            pos[j] = base + 64 * (first + j % w) + ((lo * tu_sect_salts[j]) >> 26);
        return k;
    }
    if (kind == BB_BLOCKED) {
        uint64_t base = tu_mulhi(h, bits / 512) * 512;
        uint32_t x = (uint32_t)h;
        for (unsigned j = 0; j < k; j++) {
            x *= UINT32_C(0x9E3779B9);
            pos[j] = base + (x >> 23);
        }
        return k;
    }
    uint64_t x = h, y = tu_fmix64(h);
    for (unsigned i = 0; i < k; i++) {
        pos[i] = tu_mulhi(x, bits);
        x += y;
        y += i;
    }
    return k;
}

static inline void tu_bit_set(uint8_t *bytes, uint64_t i) {
    bytes[i >> 3] |= (uint8_t)(1u << (i & 7));
}
static inline bool tu_bit_get(const uint8_t *bytes, uint64_t i) {
    return (bytes[i >> 3] >> (i & 7)) & 1;
}

/** Reference add/contains on a caller-owned bit array (the payload the spec says to expect). */
static inline void tu_ref_add(uint8_t *bytes, bb_kind kind, uint64_t bits, unsigned k, uint64_t h) {
    uint64_t pos[BB_MAX_K];
    for (unsigned j = 0; j < tu_positions(kind, bits, k, h, pos); j++) tu_bit_set(bytes, pos[j]);
}
static inline bool tu_ref_contains(const uint8_t *bytes, bb_kind kind, uint64_t bits, unsigned k,
                                   uint64_t h) {
    uint64_t pos[BB_MAX_K];
    unsigned n = tu_positions(kind, bits, k, h, pos);
    for (unsigned j = 0; j < n; j++)
        if (!tu_bit_get(bytes, pos[j])) return false;
    return true;
}

/* ---- Whole-filter comparison --------------------------------------------------------------
 * Two filters are "byte-identical" when their serializations (docs/FORMAT.md: header with
 * geometry, seed and keys_added, then the payload) are equal. */

/** bb_serialize into a new buffer (the caller frees); *len gets its size. */
static inline uint8_t *tu_serialize(const bb_filter *f, size_t *len) {
    uint64_t size = 0;
    cr_assert_eq(bb_serialized_size(f, &size), BB_OK);
    uint8_t *buf = malloc(size);
    cr_assert_not_null(buf);
    cr_assert_eq(bb_serialize(f, buf, size, len), BB_OK);
    cr_assert_eq(*len, size);
    return buf;
}

static inline void tu_assert_same_bytes(const bb_filter *a, const bb_filter *b, const char *what) {
    size_t la, lb;
    uint8_t *ba = tu_serialize(a, &la), *bb = tu_serialize(b, &lb);
    cr_assert_eq(la, lb, "%s: serialized sizes differ (%zu vs %zu)", what, la, lb);
    cr_assert(memcmp(ba, bb, la) == 0, "%s: serialized bytes differ", what);
    free(ba);
    free(bb);
}

/** bb_size(kind, n, p) over the sizing sweeps' grid (n from 1, where whole units and the
 *  all-bits-set bound decide, to past 10^7; p from 0.9 to 1e-8): each result must be whole
 *  units of unit_bits, then check(n, p, bits, k) makes the kind's own assertions. */
static inline void tu_sizing_sweep(bb_kind kind, uint64_t unit_bits,
                                   void (*check)(uint64_t n, double p, uint64_t bits, unsigned k)) {
    static const uint64_t ns[] = {1, 2, 37, 1000, 100000, 1000000, 12345677};
    static const double ps[] = {0.9, 0.5, 0.25, 0.1, 0.05, 0.01, 0.003, 0.001, 1e-4, 1e-5, 1e-6,
                                1e-8};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
        for (size_t j = 0; j < sizeof ps / sizeof *ps; j++) {
            uint64_t bits = 0;
            unsigned k = 0;
            cr_assert_eq(bb_size(kind, ns[i], ps[j], &bits, &k), BB_OK);
            cr_assert_eq(bits % unit_bits, 0);
            check(ns[i], ps[j], bits, k);
        }
}

/** The fields two copies of one filter (or sub-filter) must agree on: geometry, sizing
 *  targets and counts. */
static inline void tu_assert_same_counts(const bb_info *a, const bb_info *b) {
    cr_assert_eq(a->bits, b->bits);
    cr_assert_eq(a->k, b->k);
    cr_assert_eq(a->capacity, b->capacity);
    cr_assert_eq(a->fpr_target, b->fpr_target);
    cr_assert_eq(a->keys_added, b->keys_added);
    cr_assert_eq(a->bits_set, b->bits_set);
}

/** Save f to a new temporary file; path (a buffer of at least 32 bytes) gets its name. The
 *  caller unlinks it. */
static inline void tu_save_temp(const bb_filter *f, char *path) {
    strcpy(path, "/tmp/bb_test_XXXXXX");
    int fd = mkstemp(path);
    cr_assert(fd >= 0, "mkstemp failed");
    close(fd);
    cr_assert_eq(bb_save(f, path), BB_OK);
}

#endif /* BB_TESTUTIL_H */

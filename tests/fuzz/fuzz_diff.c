/* SPDX-License-Identifier: MIT */
/*
 * fuzz_diff.c - differential libFuzzer target: the input is a filter configuration and then
 * a program of operations (add keys through any entry point, query, remove, switch kernel,
 * round trip through a buffer or a file, clear). Every operation runs on the filter under
 * test and, with the plainest calls (bb_add, bb_remove on the scalar kernel), on a reference
 * filter; an exact multiset of the keys added is kept beside them. Invariants:
 *  - no false negative: every key in the multiset answers 1, through single, batch and hash
 *    queries, on every kernel;
 *  - identical answers on every kernel, equal to the reference filter's;
 *  - the filter under test is byte-identical to the reference (whatever entry points and
 *    kernels built it), checked at every round trip and at the end;
 *  - save -> load (buffer, file, mapped file) gives identical serialized bytes.
 * Kinds: blocked, classic (also with a size that is not a multiple of 8 bits), counting
 * (with removes of keys added), scalable and split (Parquet; bit 6 of the first byte, also
 * with explicit sizes of any whole number of 256-bit blocks). Build and run: scripts/fuzz.sh.
 */
#ifndef _GNU_SOURCE /* memfd_create; scripts/fuzz.sh also defines it, for the CLI files */
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blockbloom.h"
#include "fuzz_cursor.h"

#define MAX_KEYS 256
#define MAX_LEN 48
#define MAX_BATCH 16

#define CHECK(c)                                                                         \
    do {                                                                                 \
        if (!(c)) {                                                                      \
            fprintf(stderr, "fuzz_diff: %s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
            abort();                                                                     \
        }                                                                                \
    } while (0)


/* A key: a length byte, then that many bytes (fewer if the input ends). */
typedef struct key {
    uint8_t bytes[MAX_LEN];
    size_t len;
} key;

static key next_key(cursor *c) {
    key k = {.len = next_byte(c) % MAX_LEN};
    for (size_t i = 0; i < k.len; i++) k.bytes[i] = next_byte(c);
    return k;
}

/* ---- State ------------------------------------------------------------------------------- */
typedef struct state {
    bb_filter *f;   /* under test */
    bb_filter *ref; /* reference: bb_add / bb_remove only */
    bb_kind kind;
    key keys[MAX_KEYS]; /* multiset of keys added and not removed */
    size_t n_keys;
} state;

/* The kernels are the library's ISA table, walked (scalar first), so a new one is fuzzed
 * with no edit here. */
#define N_ISAS bb_isa_count()
static bb_isa current_isa = BB_ISA_SCALAR;

static unsigned char *serialize(const bb_filter *f, size_t *len) {
    uint64_t size = 0;
    CHECK(bb_serialized_size(f, &size) == BB_OK);
    unsigned char *buf = malloc((size_t)size);
    CHECK(buf != NULL);
    CHECK(bb_serialize(f, buf, (size_t)size, len) == BB_OK && *len == size);
    return buf;
}

/* Scalable filters cannot be serialized yet (FORMAT.md, "Planned: kind 3"): the library
 * must say so, and they are then compared by their info (and by answers elsewhere). */
static bool serializable(const bb_filter *f) {
    uint64_t size;
    bb_status s = bb_serialized_size(f, &size);
    CHECK(s == BB_OK || s == BB_E_UNSUPPORTED);
    return s == BB_OK;
}

static void check_same_bytes(const bb_filter *a, const bb_filter *b) {
    if (!serializable(a) || !serializable(b)) {
        bb_info x = BB_INFO_INIT, y = BB_INFO_INIT;
        CHECK(!serializable(a) && !serializable(b));
        CHECK(bb_get_info(a, &x) == BB_OK && bb_get_info(b, &y) == BB_OK);
        CHECK(x.bits == y.bits && x.bits_set == y.bits_set && x.keys_added == y.keys_added &&
              x.subfilters == y.subfilters && x.k == y.k);
        return;
    }
    size_t la, lb;
    unsigned char *x = serialize(a, &la), *y = serialize(b, &lb);
    CHECK(la == lb && memcmp(x, y, la) == 0);
    free(x);
    free(y);
}

/* The answer for one key on every kernel and every query path; all must agree with the
 * reference filter, and be 1 if the key is in the multiset. */
static void check_query(const state *s, const key *k, bool must) {
    bool want = bb_contains(s->ref, k->bytes, k->len);
    CHECK(want || !must);
    const void *ptr = k->bytes;
    int32_t off32[2] = {0, (int32_t)k->len};
    int64_t off64[2] = {0, (int64_t)k->len};
    uint64_t h = bb_hash(s->f, k->bytes, k->len);
    for (size_t i = 0; i < N_ISAS; i++) {
        if (bb_set_isa(bb_isa_at(i)) != BB_OK) continue;
        uint8_t out[5] = {0};
        CHECK(bb_contains(s->f, k->bytes, k->len) == want);
        CHECK(bb_contains_hash(s->f, h) == want);
        CHECK(bb_contains_concurrent(s->f, k->bytes, k->len) == want);
        CHECK(bb_contains_batch(s->f, &ptr, &k->len, 1, &out[0], NULL) == BB_OK);
        CHECK(bb_contains_arrow32(s->f, k->bytes, off32, 1, &out[1], NULL) == BB_OK);
        CHECK(bb_contains_arrow64(s->f, k->bytes, off64, 1, &out[2], NULL) == BB_OK);
        CHECK(bb_contains_fixed(s->f, k->bytes, k->len, 0, 1, &out[3], NULL) == BB_OK);
        CHECK(bb_contains_hashes(s->f, &h, 1, &out[4], NULL) == BB_OK);
        for (int j = 0; j < 5; j++) CHECK(out[j] == want);
    }
    CHECK(bb_set_isa(current_isa) == BB_OK);
}

/* Every key of the multiset, as one batch on every kernel. */
static void check_all(const state *s) {
    const void *ptrs[MAX_KEYS];
    size_t lens[MAX_KEYS], present = 0;
    uint8_t out[MAX_KEYS];
    for (size_t i = 0; i < s->n_keys; i++) {
        ptrs[i] = s->keys[i].bytes;
        lens[i] = s->keys[i].len;
    }
    for (size_t i = 0; i < N_ISAS; i++) {
        if (bb_set_isa(bb_isa_at(i)) != BB_OK) continue;
        CHECK(bb_contains_batch(s->f, ptrs, lens, s->n_keys, out, &present) == BB_OK);
        CHECK(present == s->n_keys);
    }
    CHECK(bb_set_isa(current_isa) == BB_OK);
}

static void remember(state *s, const key *k) {
    if (s->n_keys < MAX_KEYS) s->keys[s->n_keys++] = *k;
}

/* Add keys ks[0..n) to the filter under test through entry point `api`, and to the
 * reference with bb_add. Returns false when the multiset is full (the program stops). */
static bool add_keys(state *s, const key *ks, size_t n, uint8_t api) {
    if (s->n_keys + n > MAX_KEYS) return false;
    const void *ptrs[MAX_BATCH];
    size_t lens[MAX_BATCH];
    uint8_t packed[MAX_BATCH * MAX_LEN], fixed[MAX_BATCH * MAX_LEN];
    int32_t off32[MAX_BATCH + 1] = {0};
    int64_t off64[MAX_BATCH + 1] = {0};
    uint64_t hashes[MAX_BATCH];
    size_t width = n ? ks[0].len : 0;
    bool same_width = true;
    for (size_t i = 0; i < n; i++) {
        ptrs[i] = ks[i].bytes;
        lens[i] = ks[i].len;
        memcpy(packed + off64[i], ks[i].bytes, ks[i].len);
        off64[i + 1] = off64[i] + (int64_t)ks[i].len;
        off32[i + 1] = (int32_t)off64[i + 1];
        hashes[i] = bb_hash(s->f, ks[i].bytes, ks[i].len);
        same_width &= ks[i].len == width;
        if (ks[i].len == width) memcpy(fixed + i * width, ks[i].bytes, width);
    }
    bool concurrent_ok = s->kind == BB_BLOCKED || s->kind == BB_CLASSIC || s->kind == BB_SPLIT;
    bb_status st = BB_OK;
    switch (api % 8) {
    case 0:
        for (size_t i = 0; i < n; i++) CHECK(bb_add(s->f, ks[i].bytes, ks[i].len) == BB_OK);
        break;
    case 1:
        for (size_t i = 0; i < n; i++) CHECK(bb_add_hash(s->f, hashes[i]) == BB_OK);
        break;
    case 2: st = bb_add_batch(s->f, ptrs, lens, n); break;
    case 3: st = bb_add_arrow32(s->f, packed, off32, n); break;
    case 4: st = bb_add_arrow64(s->f, packed, off64, n); break;
    case 5:
        if (!same_width) return add_keys(s, ks, n, 2);
        st = bb_add_fixed(s->f, fixed, width, 0, n);
        break;
    case 6:
        st = bb_add_hashes(s->f, hashes, n);
        break;
    case 7: {
        size_t n_new = 0;
        st = bb_add_batch_concurrent(s->f, ptrs, lens, n, &n_new);
        if (!concurrent_ok) {
            CHECK(st == BB_E_UNSUPPORTED);
            return add_keys(s, ks, n, 0);
        }
        CHECK(n_new <= n);
        break;
    }
    }
    CHECK(st == BB_OK);
    for (size_t i = 0; i < n; i++) {
        CHECK(bb_add(s->ref, ks[i].bytes, ks[i].len) == BB_OK);
        remember(s, &ks[i]);
    }
    return true;
}

/* Remove the key at index i of the multiset (counting only; others must refuse). */
static void remove_key(state *s, size_t i) {
    const key *k = &s->keys[i];
    if (s->kind != BB_COUNTING) {
        CHECK(bb_remove(s->f, k->bytes, k->len) == BB_E_UNSUPPORTED);
        return;
    }
    CHECK(bb_remove(s->f, k->bytes, k->len) == BB_OK);
    CHECK(bb_remove(s->ref, k->bytes, k->len) == BB_OK);
    s->keys[i] = s->keys[--s->n_keys];
}

/* Buffer or file round trip: the loaded filter replaces the one under test. */
static void round_trip(state *s, bool via_file) {
    if (!serializable(s->f)) {
        CHECK(bb_save(s->f, "/dev/shm/fuzz_diff.never") == BB_E_UNSUPPORTED);
        return;
    }
    size_t len;
    unsigned char *bytes = serialize(s->f, &len);
    bb_filter *g = NULL;
    if (!via_file) {
        CHECK(bb_deserialize(&g, bytes, len) == BB_OK);
    } else {
        char path[64];
        snprintf(path, sizeof path, "/dev/shm/fuzz_diff.%d.bbf", (int)getpid());
        CHECK(bb_save(s->f, path) == BB_OK);
        bb_filter *m = NULL;
        CHECK(bb_open_mmap(&m, path) == BB_OK);
        check_same_bytes(m, s->f);
        bb_free(m);
        CHECK(bb_load(&g, path) == BB_OK);
        unlink(path);
    }
    size_t len2;
    unsigned char *again = serialize(g, &len2);
    CHECK(len2 == len && memcmp(again, bytes, len) == 0);
    free(again);
    free(bytes);
    bb_free(s->f);
    s->f = g;
    check_same_bytes(s->f, s->ref);
}

/* The configuration from the first three bytes. */
static bool create(state *s, cursor *c) {
    static const double fprs[] = {0.5, 0.1, 0.01, 0.001};
    uint8_t b0 = next_byte(c), b1 = next_byte(c), b2 = next_byte(c);
    bb_config cfg = {.size = sizeof cfg,
                     .kind = (bb_kind)(b0 & 0x40 ? BB_SPLIT : b0 % 4),
                     .capacity = 1 + b1,
                     .seed = b2};
    if ((b0 & 4) && (cfg.kind == BB_BLOCKED || cfg.kind == BB_CLASSIC || cfg.kind == BB_SPLIT)) {
        cfg.bits = 1 + (uint64_t)b1 * 37; /* classic: any size, not only whole bytes */
        cfg.k = cfg.kind == BB_SPLIT ? 8 : 1 + b2 % BB_MAX_K;
    } else {
        cfg.fpr = fprs[(b0 >> 3) & 3];
    }
    s->kind = cfg.kind;
    if (bb_create(&s->f, &cfg) != BB_OK) return false;
    CHECK(bb_create(&s->ref, &cfg) == BB_OK);
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cursor c = {data, size};
    state *s = calloc(1, sizeof *s);
    CHECK(s != NULL);
    current_isa = BB_ISA_SCALAR;
    CHECK(bb_set_isa(current_isa) == BB_OK);
    if (!create(s, &c)) {
        free(s);
        return 0;
    }
    bool go = true;
    while (go && c.n) {
        uint8_t op = next_byte(&c);
        switch (op % 9) {
        case 0: { /* add one key */
            key k = next_key(&c);
            go = add_keys(s, &k, 1, op >> 4);
            break;
        }
        case 1: { /* add a batch */
            key ks[MAX_BATCH];
            size_t n = 1 + next_byte(&c) % MAX_BATCH;
            for (size_t i = 0; i < n; i++) ks[i] = next_key(&c);
            go = add_keys(s, ks, n, op >> 4);
            break;
        }
        case 2: { /* query a new key, or one of the multiset */
            if ((op & 0x10) && s->n_keys) {
                check_query(s, &s->keys[next_byte(&c) % s->n_keys], true);
            } else {
                key k = next_key(&c);
                check_query(s, &k, false);
            }
            break;
        }
        case 3: /* switch kernel (unavailable ones are skipped) */
            if (bb_set_isa(bb_isa_at((op >> 4) % N_ISAS)) == BB_OK)
                current_isa = bb_isa_at((op >> 4) % N_ISAS);
            CHECK(bb_set_isa(current_isa) == BB_OK);
            break;
        case 4: round_trip(s, false); break;
        case 5: round_trip(s, true); break;
        case 6:
            if (s->n_keys) remove_key(s, next_byte(&c) % s->n_keys);
            break;
        case 7: check_all(s); break;
        case 8:
            if (op & 0x10) { /* clear, rarely: it empties the multiset */
                CHECK(bb_clear(s->f) == BB_OK && bb_clear(s->ref) == BB_OK);
                s->n_keys = 0;
            }
            break;
        }
    }
    check_all(s);
    check_same_bytes(s->f, s->ref);
    bb_free(s->f);
    bb_free(s->ref);
    free(s);
    return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * test_counting.c - the counting Bloom filter (BB_COUNTING): the blocked filter's geometry and
 * positions with 4-bit counters. Expected values come from the specification, not from the
 * code under test: positions from testutil.h's re-implementation of the probe scheme, the
 * counter layout (position p of block b = nibble p & 1 of byte b * 256 + p / 2) from
 * src/internal.h, and "the plain blocked filter of the current keys" from a BB_BLOCKED filter
 * built independently from those keys. Covers: same geometry and answers as blocked, adds and
 * removes as exact inverses, saturation at 15 (add 20x, remove 19x: still present), refused
 * removes that change nothing, a random add/remove workload that never yields a false
 * negative, and the byte-identical export.
 */
#include "testutil.h"

#define N_KEYS 4000

static bb_filter *make(bb_kind kind, uint64_t capacity, double fpr) {
    bb_filter *f = NULL;
    cr_assert_eq(bb_create_for(&f, kind, capacity, fpr, 99), BB_OK);
    return f;
}

static void add_keys(bb_filter *f, uint64_t tag, size_t n) {
    uint8_t *k = tu_keys(tag, n);
    cr_assert_eq(bb_add_fixed(f, k, TU_KEY_BYTES, 0, n), BB_OK);
    free(k);
}

/* Distinct absolute positions of key (tag, i) in a blocked geometry of `bits`, k. */
static unsigned distinct_positions(const bb_filter *f, uint64_t bits, unsigned k, uint64_t tag,
                                   uint64_t i, uint64_t *pos) {
    uint8_t key[TU_KEY_BYTES];
    tu_key(key, tag, i);
    uint64_t all[BB_MAX_K];
    tu_positions(BB_BLOCKED, bits, k, bb_hash(f, key, sizeof key), all);
    unsigned n = 0;
    for (unsigned j = 0; j < k; j++) {
        unsigned d = 0;
        while (d < n && pos[d] != all[j]) d++;
        if (d == n) pos[n++] = all[j];
    }
    return n;
}

Test(counting, geometry_is_the_blocked_filters) {
    const uint64_t caps[] = {1, 1000, 123457};
    const double fprs[] = {0.1, 0.01, 0.0001};
    for (size_t i = 0; i < 3; i++) {
        bb_filter *c = make(BB_COUNTING, caps[i], fprs[i]), *b = make(BB_BLOCKED, caps[i], fprs[i]);
        bb_info ci = BB_INFO_INIT, bi = BB_INFO_INIT;
        cr_assert_eq(bb_get_info(c, &ci), BB_OK);
        cr_assert_eq(bb_get_info(b, &bi), BB_OK);
        cr_assert_eq(ci.kind, BB_COUNTING);
        cr_assert_eq(ci.bits, bi.bits);
        cr_assert_eq(ci.k, bi.k);
        cr_assert_eq(ci.blocks, bi.blocks);
        cr_assert_eq(ci.bytes, 4 * bi.bytes, "4 bits per position: %llu vs %llu bytes",
                     (unsigned long long)ci.bytes, (unsigned long long)bi.bytes);
        cr_assert_eq(ci.subfilters, 1);
        double mc, mb;
        cr_assert_eq(bb_fpr_model(BB_COUNTING, caps[i], ci.bits, ci.k, &mc), BB_OK);
        cr_assert_eq(bb_fpr_model(BB_BLOCKED, caps[i], bi.bits, bi.k, &mb), BB_OK);
        cr_assert_eq(mc, mb);
        bb_free(c);
        bb_free(b);
    }
    cr_assert_str_eq(bb_kind_name(BB_COUNTING), "counting");
}

/* Same positions, so the same answers on every key, present or absent (false positives
 * included), through the single-key and the batch paths. */
Test(counting, answers_equal_blocked) {
    bb_filter *c = make(BB_COUNTING, N_KEYS, 0.02), *b = make(BB_BLOCKED, N_KEYS, 0.02);
    add_keys(c, 1, N_KEYS);
    add_keys(b, 1, N_KEYS);
    size_t n = 40000, hits_c, hits_b;
    uint8_t *probe = tu_keys(2, n), *out_c = malloc(n), *out_b = malloc(n);
    cr_assert_eq(bb_contains_fixed(c, probe, TU_KEY_BYTES, 0, n, out_c, &hits_c), BB_OK);
    cr_assert_eq(bb_contains_fixed(b, probe, TU_KEY_BYTES, 0, n, out_b, &hits_b), BB_OK);
    cr_assert_eq(hits_c, hits_b);
    cr_assert_arr_eq(out_c, out_b, n);
    cr_assert(hits_c > 0 && hits_c < n / 10, "%zu false positives of %zu", hits_c, n);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(bb_contains(c, probe + i * TU_KEY_BYTES, TU_KEY_BYTES), out_b[i]);
    uint8_t *present = tu_keys(1, N_KEYS);
    cr_assert_eq(bb_contains_fixed(c, present, TU_KEY_BYTES, 0, N_KEYS, out_c, &hits_c), BB_OK);
    cr_assert_eq(hits_c, N_KEYS, "false negatives: %zu of %u found", hits_c, N_KEYS);
    free(present);
    free(probe);
    free(out_c);
    free(out_b);
    bb_free(c);
    bb_free(b);
}

/* One key in an empty filter: exactly its distinct positions hold 1, counted once even when
 * two probes coincide; everything else is 0. Read from the serialized payload (its last
 * info.bytes bytes, FORMAT.md). */
Test(counting, counter_layout_is_pinned) {
    bb_config cfg = {
        .size = sizeof(bb_config), .kind = BB_COUNTING, .bits = 4 * 512, .k = 16, .seed = 5};
    bb_filter *f = NULL;
    cr_assert_eq(bb_create(&f, &cfg), BB_OK);
    bool saw_duplicate = false;
    for (uint64_t i = 0; i < 64; i++) {
        cr_assert_eq(bb_clear(f), BB_OK);
        uint8_t key[TU_KEY_BYTES];
        tu_key(key, 3, i);
        cr_assert_eq(bb_add(f, key, sizeof key), BB_OK);
        uint64_t pos[BB_MAX_K];
        unsigned n = distinct_positions(f, cfg.bits, cfg.k, 3, i, pos);
        saw_duplicate |= n < cfg.k;
        uint8_t expect[4 * 256] = {0};
        for (unsigned j = 0; j < n; j++) {
            uint64_t block = pos[j] / 512, p = pos[j] % 512;
            expect[block * 256 + p / 2] += (uint8_t)(1u << (4 * (p & 1)));
        }
        size_t len;
        uint8_t *buf = tu_serialize(f, &len);
        cr_assert(len >= sizeof expect);
        cr_assert_arr_eq(buf + len - sizeof expect, expect, sizeof expect, "key %llu",
                         (unsigned long long)i);
        free(buf);
    }
    /* With k = 16 over 512 positions a coincidence has probability ~21% per key. */
    cr_assert(saw_duplicate, "no key with coinciding probes among 64: dedupe untested");
    bb_free(f);
}

Test(counting, add_then_remove_restores_empty) {
    bb_filter *f = make(BB_COUNTING, 1000, 0.01), *empty = make(BB_COUNTING, 1000, 0.01);
    uint8_t key[TU_KEY_BYTES];
    tu_key(key, 4, 7);
    for (int i = 0; i < 3; i++) cr_assert_eq(bb_add(f, key, sizeof key), BB_OK);
    for (int i = 0; i < 3; i++) {
        cr_assert(bb_contains(f, key, sizeof key));
        cr_assert_eq(bb_remove(f, key, sizeof key), BB_OK);
    }
    cr_assert_not(bb_contains(f, key, sizeof key));
    tu_assert_same_bytes(f, empty, "3 adds and 3 removes");
    cr_assert_eq(bb_remove(f, key, sizeof key), BB_E_ABSENT);
    bb_info in = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(f, &in), BB_OK);
    cr_assert_eq(in.keys_added, 0);
    cr_assert_eq(in.bits_set, 0);
    bb_free(f);
    bb_free(empty);
}

/* Add 20 times, remove 19 times: the counters saturated at 15 and stayed there, so the key is
 * still present, and further removes keep it so (a saturated counter is never decremented). */
Test(counting, saturation_is_sticky) {
    bb_filter *f = make(BB_COUNTING, 1000, 0.01);
    uint8_t key[TU_KEY_BYTES];
    tu_key(key, 5, 1);
    for (int i = 0; i < 20; i++) cr_assert_eq(bb_add(f, key, sizeof key), BB_OK);
    bb_info in = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(f, &in), BB_OK);
    uint64_t pos[BB_MAX_K];
    unsigned n = distinct_positions(f, in.bits, in.k, 5, 1, pos);
    cr_assert_eq(in.saturated_counters, n, "saturated %llu, expected the key's %u positions",
                 (unsigned long long)in.saturated_counters, n);
    cr_assert_eq(in.bits_set, n);
    for (int i = 0; i < 19; i++) cr_assert_eq(bb_remove(f, key, sizeof key), BB_OK);
    cr_assert(bb_contains(f, key, sizeof key), "false negative after 20 adds, 19 removes");
    for (int i = 0; i < 30; i++) cr_assert_eq(bb_remove(f, key, sizeof key), BB_OK);
    cr_assert(bb_contains(f, key, sizeof key));
    cr_assert_eq(bb_get_info(f, &in), BB_OK);
    cr_assert_eq(in.saturated_counters, n);
    bb_free(f);
}

/* A definitely absent key is refused and nothing changes, bytes and counts alike. */
Test(counting, remove_of_absent_key_changes_nothing) {
    bb_filter *f = make(BB_COUNTING, 2000, 0.01);
    add_keys(f, 6, 2000);
    bb_filter *before = NULL;
    cr_assert_eq(bb_clone(&before, f), BB_OK);
    size_t refused = 0;
    for (uint64_t i = 0; i < 500; i++) {
        uint8_t key[TU_KEY_BYTES];
        tu_key(key, 7, i);
        if (bb_contains(f, key, sizeof key)) continue; /* a false positive: not definitely absent */
        cr_assert_eq(bb_remove(f, key, sizeof key), BB_E_ABSENT);
        refused++;
    }
    cr_assert(refused > 450, "only %zu of 500 keys were definitely absent", refused);
    tu_assert_same_bytes(f, before, "after refused removes");
    bb_info a = BB_INFO_INIT, b = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(f, &a), BB_OK);
    cr_assert_eq(bb_get_info(before, &b), BB_OK);
    cr_assert_eq(a.keys_added, 2000);
    cr_assert_eq(a.keys_added, b.keys_added);
    bb_free(before);
    bb_free(f);
}

/* A random workload on a deliberately tiny filter (two blocks, so counters saturate): keys are
 * added, some many times, and only keys held are removed. Every key held must stay present. */
Test(counting, random_workload_has_no_false_negative) {
    enum { POOL = 300, OPS = 20000 };
    bb_config cfg = {
        .size = sizeof(bb_config), .kind = BB_COUNTING, .bits = 2 * 512, .k = 4, .seed = 11};
    bb_filter *f = NULL;
    cr_assert_eq(bb_create(&f, &cfg), BB_OK);
    unsigned held[POOL] = {0};
    uint64_t rng = 2024, live = 0;
    for (int op = 0; op < OPS; op++) {
        uint64_t r = tu_splitmix64(&rng);
        unsigned i = (unsigned)(r % POOL);
        uint8_t key[TU_KEY_BYTES];
        tu_key(key, 8, i);
        if (held[i] && (r >> 32) % 100 < 45) {
            cr_assert_eq(bb_remove(f, key, sizeof key), BB_OK, "op %d: remove of held key", op);
            held[i]--;
            live--;
        } else {
            cr_assert_eq(bb_add(f, key, sizeof key), BB_OK);
            held[i]++;
            live++;
        }
        if (op % 1000 == 999)
            for (unsigned j = 0; j < POOL; j++) {
                tu_key(key, 8, j);
                cr_assert(!held[j] || bb_contains(f, key, sizeof key),
                          "op %d: key %u held %u times is missing", op, j, held[j]);
            }
    }
    bb_info in = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(f, &in), BB_OK);
    cr_assert(in.saturated_counters > 0, "workload meant to saturate did not");
    cr_assert_eq(in.keys_added, live, "keys_added = adds - removes");
    bb_free(f);
}

/* The export equals, byte for byte (serialized, header included), the blocked filter built
 * from the keys the counting filter holds now: set A added, set B added and removed again. */
Test(counting, export_is_the_blocked_filter_of_current_keys) {
    bb_filter *c = make(BB_COUNTING, N_KEYS, 0.01), *b = make(BB_BLOCKED, N_KEYS, 0.01);
    add_keys(c, 9, N_KEYS);
    add_keys(c, 10, 1000);
    add_keys(b, 9, N_KEYS);
    for (uint64_t i = 0; i < 1000; i++) {
        uint8_t key[TU_KEY_BYTES];
        tu_key(key, 10, i);
        cr_assert_eq(bb_remove(c, key, sizeof key), BB_OK);
    }
    bb_info ci = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(c, &ci), BB_OK);
    cr_assert_eq(ci.saturated_counters, 0);
    bb_filter *e = NULL;
    cr_assert_eq(bb_counting_to_blocked(c, &e), BB_OK);
    bb_info ei = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(e, &ei), BB_OK);
    cr_assert_eq(ei.kind, BB_BLOCKED);
    cr_assert_eq(ei.bits_set, ci.bits_set, "a bit per non-zero counter");
    tu_assert_same_bytes(e, b, "export vs blocked of the current keys");
    bb_free(e);
    bb_free(c);
    bb_free(b);
}

/* With saturated counters the export is a superset of the blocked filter of the current keys:
 * every bit of that filter is set in it, and the saturated key stays present. */
Test(counting, export_with_saturation_is_a_superset) {
    bb_filter *c = make(BB_COUNTING, 500, 0.01), *b = make(BB_BLOCKED, 500, 0.01);
    add_keys(c, 12, 500);
    add_keys(b, 12, 500);
    uint8_t key[TU_KEY_BYTES];
    tu_key(key, 13, 0);
    for (int i = 0; i < 16; i++) cr_assert_eq(bb_add(c, key, sizeof key), BB_OK);
    for (int i = 0; i < 16; i++) cr_assert_eq(bb_remove(c, key, sizeof key), BB_OK);
    bb_filter *e = NULL;
    cr_assert_eq(bb_counting_to_blocked(c, &e), BB_OK);
    cr_assert(bb_contains(e, key, sizeof key), "saturated counters must export as set bits");
    size_t le, lb;
    uint8_t *be = tu_serialize(e, &le), *bbytes = tu_serialize(b, &lb);
    bb_info bi = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(b, &bi), BB_OK);
    cr_assert_eq(le, lb);
    for (size_t i = le - bi.bytes; i < le; i++)
        cr_assert_eq(be[i] & bbytes[i], bbytes[i], "payload byte %zu lost a bit", i);
    free(be);
    free(bbytes);
    bb_free(e);
    bb_free(c);
    bb_free(b);
}

Test(counting, errors) {
    bb_filter *b = make(BB_BLOCKED, 100, 0.01), *c = make(BB_COUNTING, 100, 0.01), *out = b;
    cr_assert_eq(bb_remove(b, "x", 1), BB_E_UNSUPPORTED);
    cr_assert_eq(bb_remove_hash(b, 1), BB_E_UNSUPPORTED);
    cr_assert_eq(bb_remove(NULL, "x", 1), BB_E_INVAL);
    cr_assert_eq(bb_remove(c, NULL, 1), BB_E_INVAL);
    cr_assert_eq(bb_remove(c, NULL, 0), BB_E_ABSENT); /* the empty key, never added */
    cr_assert_eq(bb_counting_to_blocked(b, &out), BB_E_UNSUPPORTED);
    cr_assert_null(out);
    cr_assert_eq(bb_counting_to_blocked(NULL, &out), BB_E_INVAL);
    cr_assert_eq(bb_counting_to_blocked(c, NULL), BB_E_INVAL);
    bb_config bad = {
        .size = sizeof(bb_config), .kind = BB_COUNTING, .capacity = 10, .fpr = 0.01, .growth = 2};
    cr_assert_eq(bb_create(&out, &bad), BB_E_INVAL, "growth is for scalable filters only");
    bb_free(b);
    bb_free(c);
}

/* Clone and clear keep the kind and geometry. */
Test(counting, clone_and_clear) {
    bb_filter *c = make(BB_COUNTING, 1000, 0.01), *copy = NULL;
    add_keys(c, 14, 1000);
    cr_assert_eq(bb_clone(&copy, c), BB_OK);
    tu_assert_same_bytes(c, copy, "clone");
    cr_assert_eq(bb_clear(copy), BB_OK);
    bb_filter *empty = make(BB_COUNTING, 1000, 0.01);
    tu_assert_same_bytes(copy, empty, "cleared");
    bb_free(copy);
    bb_free(empty);
    bb_free(c);
}

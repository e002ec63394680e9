/* SPDX-License-Identifier: MIT */
/*
 * test_scalable.c - the scalable Bloom filter (BB_SCALABLE, Almeida et al. 2007): a stack of
 * blocked sub-filters. The expected sub-filter parameters come from the formulas of
 * blockbloom.h (c_i = ceil(c_{i-1} * growth), p_i = p (1 - r) r^i), computed here; the main
 * test is the issue's: initial capacity 100, p = 1%, expansion 2, 100,000 distinct keys, no
 * false negative, FPR on a million absent keys at most 1%, keys_added rising across every
 * growth step. Also: adds skip possibly-present keys, BB_NO_SCALE returns BB_E_FULL, batches
 * match single adds, clone/clear, bad configurations, save/load of every sub-filter, and the
 * file format of kind 3 (docs/FORMAT.md): its header fields and sub-records read against the
 * spec, memory mapping, and damaged inputs.
 */
#include "testutil.h"

#include <unistd.h>

/* The checksums of FORMAT.md are XXH3-64 with seed 0: recomputed here independently of the
 * library, to re-seal deliberately damaged files. */
#define XXH_INLINE_ALL
#include <xxhash.h>

static bb_filter *make_scalable(uint64_t capacity, double fpr, double growth, double r,
                                unsigned flags) {
    bb_config cfg = {.size = sizeof cfg,
                     .kind = BB_SCALABLE,
                     .capacity = capacity,
                     .fpr = fpr,
                     .growth = growth,
                     .tightening = r,
                     .flags = flags,
                     .seed = 77};
    bb_filter *f = NULL;
    cr_assert_eq(bb_create(&f, &cfg), BB_OK);
    return f;
}

static bb_info info_of(const bb_filter *f) {
    bb_info in = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(f, &in), BB_OK);
    return in;
}

static bool add_key(bb_filter *f, uint64_t tag, uint64_t i, bb_status expect) {
    uint8_t key[TU_KEY_BYTES];
    tu_key(key, tag, i);
    bb_status s = bb_add(f, key, sizeof key);
    cr_assert_eq(s, expect, "add of key %llu: %s", (unsigned long long)i, bb_strerror(s));
    return s == BB_OK;
}

/* The issue's test. Growth is watched at every key while the sub-filters are small and every
 * 100 keys after that (info costs a pass over the filter). */
Test(scalable, issue_scenario_100_keys_to_100000) {
    enum { N = 100000, ABSENT = 1000000 };
    bb_filter *f = make_scalable(100, 0.01, 2, 0, 0);
    uint64_t subs = 1, last_keys = 0, growths = 0;
    uint8_t *keys = tu_keys(20, N);
    for (size_t i = 0; i < N; i++) {
        cr_assert_eq(bb_add(f, keys + i * TU_KEY_BYTES, TU_KEY_BYTES), BB_OK);
        if (i >= 2000 && i % 100 != 99) continue;
        bb_info in = info_of(f);
        cr_assert(in.keys_added >= last_keys, "keys_added fell from %llu to %llu",
                  (unsigned long long)last_keys, (unsigned long long)in.keys_added);
        if (in.subfilters != subs) {
            cr_assert_eq(in.subfilters, subs + 1, "more than one growth step per check");
            cr_assert(in.keys_added > last_keys, "keys_added did not rise across growth %llu",
                      (unsigned long long)subs);
            growths++;
            subs = in.subfilters;
        }
        last_keys = in.keys_added;
    }
    size_t hits;
    uint8_t *out = malloc(ABSENT);
    cr_assert_eq(bb_contains_fixed(f, keys, TU_KEY_BYTES, 0, N, out, &hits), BB_OK);
    cr_assert_eq(hits, N, "false negatives: %zu of %d found", hits, N);
    free(keys);

    bb_info in = info_of(f);
    /* Adds of false positives are skipped, so keys_added is below N by about N * FPR. */
    cr_assert(in.keys_added <= N && in.keys_added >= N - N / 100, "keys_added %llu",
              (unsigned long long)in.keys_added);
    /* Full sub-filters hold exactly their capacity 100 * 2^i; the newest holds the rest. */
    uint64_t expect_subs = 1, held = 100;
    while (held < in.keys_added) held += 100ull << expect_subs++;
    cr_assert_eq(in.subfilters, expect_subs, "%llu sub-filters for %llu keys",
                 (unsigned long long)in.subfilters, (unsigned long long)in.keys_added);
    cr_assert_eq(growths, expect_subs - 1);
    uint64_t sum = 0;
    for (size_t i = 0; i < in.subfilters; i++) {
        bb_info si = BB_INFO_INIT;
        cr_assert_eq(bb_subfilter_info(f, i, &si), BB_OK);
        if (i + 1 < in.subfilters) cr_assert_eq(si.keys_added, si.capacity, "sub-filter %zu", i);
        sum += si.keys_added;
    }
    cr_assert_eq(sum, in.keys_added);

    uint8_t *absent = tu_keys(21, ABSENT);
    cr_assert_eq(bb_contains_fixed(f, absent, TU_KEY_BYTES, 0, ABSENT, out, &hits), BB_OK);
    double fpr = (double)hits / ABSENT;
    cr_log_info("scalable: %llu sub-filters, measured FPR %.5f",
                (unsigned long long)in.subfilters, fpr);
    cr_assert(fpr <= 0.01, "FPR %.5f above the 1%% target", fpr);
    /* Not far below either: the sub-filters are sized with a margin for the scatter of
     * their FPR (large for the first ones here, of 100 and 200 keys in 2 to 4 blocks), but
     * not oversized tenfold. */
    cr_assert(fpr >= 0.001, "FPR %.5f implausibly low: is the filter sized at all?", fpr);
    free(absent);
    free(out);
    bb_free(f);
}

/* c_i and p_i from the formulas, for the defaults and for other growth and tightening. */
Test(scalable, sub_filter_parameters_follow_almeida) {
    const double growth[] = {0, 3, 1.5}, r[] = {0, 0.8, 0.25};
    for (int t = 0; t < 3; t++) {
        bb_filter *f = make_scalable(50, 0.02, growth[t], r[t], 0);
        for (uint64_t i = 0; i < 3000; i++) add_key(f, 22, i, BB_OK);
        bb_info in = info_of(f);
        double g = growth[t] ? growth[t] : 2.0, rr = r[t] ? r[t] : 0.5;
        cr_assert_eq(in.growth, g);
        cr_assert_eq(in.tightening, rr);
        cr_assert(in.subfilters >= 3, "only %llu sub-filters", (unsigned long long)in.subfilters);
        double cap = 50, p = 0.02 * (1 - rr), p_sum = 0;
        uint64_t bits_sum = 0, cap_sum = 0;
        for (size_t i = 0; i < in.subfilters; i++) {
            bb_info si = BB_INFO_INIT;
            cr_assert_eq(bb_subfilter_info(f, i, &si), BB_OK);
            cr_assert_eq(si.kind, BB_BLOCKED);
            cr_assert_eq(si.capacity, (uint64_t)cap, "case %d sub %zu: capacity %llu, not %.0f", t,
                         i, (unsigned long long)si.capacity, cap);
            cr_assert(fabs(si.fpr_target - p) <= 1e-15, "case %d sub %zu: p %.3g, not %.3g", t,
                      i, si.fpr_target, p);
            /* At least the blocked size for (c_i, p_i), and its model there within p_i (it is
             * sized with a margin for the scatter of one filter's FPR: src/kinds/scalable.c). */
            uint64_t bits;
            unsigned k;
            double model;
            cr_assert_eq(bb_size(BB_BLOCKED, si.capacity, si.fpr_target, &bits, &k), BB_OK);
            cr_assert(si.bits >= bits, "case %d sub %zu: %llu bits, below bb_size's %llu", t, i,
                      (unsigned long long)si.bits, (unsigned long long)bits);
            cr_assert_eq(bb_fpr_model(BB_BLOCKED, si.capacity, si.bits, si.k, &model), BB_OK);
            cr_assert(model <= si.fpr_target, "case %d sub %zu: model %.3g above p_i", t, i, model);
            /* bb_size(BB_SCALABLE) is that sub-filter's geometry (the Redis chains rely on it). */
            cr_assert_eq(bb_size(BB_SCALABLE, si.capacity, si.fpr_target, &bits, &k), BB_OK);
            cr_assert(bits == si.bits && k == si.k, "case %d sub %zu: bb_size(BB_SCALABLE) gives "
                      "%llu bits k %u, the filter grew %llu k %u", t, i, (unsigned long long)bits, k,
                      (unsigned long long)si.bits, si.k);
            p_sum += p;
            bits_sum += si.bits;
            cap_sum += si.capacity;
            cap = ceil(cap * g);
            p *= rr;
        }
        cr_assert(p_sum < 0.02, "union bound %.5f not below p", p_sum);
        cr_assert_eq(in.bits, bits_sum);
        cr_assert_eq(in.capacity, cap_sum);
        cr_assert_eq(in.fpr_target, 0.02);
        cr_assert_eq(bb_subfilter_info(f, in.subfilters, &in), BB_E_INVAL);
        bb_free(f);
    }
}

/* An add of a possibly-present key changes nothing: neither the count nor any bit. */
Test(scalable, add_skips_possibly_present_keys) {
    bb_filter *f = make_scalable(1000, 0.01, 0, 0, 0);
    for (uint64_t i = 0; i < 500; i++) add_key(f, 23, i, BB_OK);
    bb_info a = info_of(f);
    for (uint64_t i = 0; i < 500; i++) add_key(f, 23, i, BB_OK);
    bb_info b = info_of(f);
    cr_assert_eq(a.keys_added, b.keys_added);
    cr_assert_eq(a.bits_set, b.bits_set);
    cr_assert(a.keys_added <= 500 && a.keys_added >= 490, "%llu", (unsigned long long)a.keys_added);
    bb_free(f);
}

/* Non-scaling: exactly `capacity` distinct keys fit, then BB_E_FULL; present keys still
 * return BB_OK; a batch stops at the first refused key with the keys before it added. */
Test(scalable, no_scale_returns_full) {
    bb_filter *f = make_scalable(100, 0.01, 0, 0, BB_NO_SCALE);
    uint64_t i = 0;
    for (; info_of(f).keys_added < 100; i++) {
        uint8_t key[TU_KEY_BYTES];
        tu_key(key, 24, i);
        cr_assert_eq(bb_add(f, key, sizeof key), BB_OK);
    }
    add_key(f, 24, 0, BB_OK); /* present: nothing to add, not an error */
    uint8_t key[TU_KEY_BYTES];
    uint64_t j = 1000;
    do tu_key(key, 25, j++); while (bb_contains(f, key, sizeof key));
    cr_assert_eq(bb_add(f, key, sizeof key), BB_E_FULL);
    bb_info in = info_of(f);
    cr_assert_eq(in.keys_added, 100);
    cr_assert_eq(in.subfilters, 1);
    cr_assert_eq(in.flags, BB_NO_SCALE);
    cr_assert_not(bb_contains(f, key, sizeof key), "a refused key must not be added");
    uint8_t *batch = tu_keys(26, 10);
    cr_assert_eq(bb_add_fixed(f, batch, TU_KEY_BYTES, 0, 10), BB_E_FULL);
    free(batch);
    bb_free(f);
}

/* Every batch shape adds and answers as the single-key calls do. */
Test(scalable, batches_match_single_keys) {
    enum { N = 3000 };
    bb_filter *a = make_scalable(200, 0.01, 0, 0, 0), *b = make_scalable(200, 0.01, 0, 0, 0);
    uint8_t *keys = tu_keys(27, N);
    cr_assert_eq(bb_add_fixed(a, keys, TU_KEY_BYTES, 0, N), BB_OK);
    for (size_t i = 0; i < N; i++)
        cr_assert_eq(bb_add(b, keys + i * TU_KEY_BYTES, TU_KEY_BYTES), BB_OK);
    bb_info ia = info_of(a), ib = info_of(b);
    cr_assert_eq(ia.keys_added, ib.keys_added);
    cr_assert_eq(ia.subfilters, ib.subfilters);
    cr_assert_eq(ia.bits_set, ib.bits_set);
    uint8_t *probe = tu_keys(28, 20000), *out = malloc(20000);
    size_t hits;
    cr_assert_eq(bb_contains_fixed(a, probe, TU_KEY_BYTES, 0, 20000, out, &hits), BB_OK);
    for (size_t i = 0; i < 20000; i++)
        cr_assert_eq(out[i], bb_contains(b, probe + i * TU_KEY_BYTES, TU_KEY_BYTES));
    uint64_t h[64];
    for (size_t i = 0; i < 64; i++) h[i] = bb_hash(a, keys + i * TU_KEY_BYTES, TU_KEY_BYTES);
    cr_assert_eq(bb_contains_hashes(a, h, 64, out, &hits), BB_OK);
    cr_assert_eq(hits, 64);
    free(probe);
    free(out);
    free(keys);
    bb_free(a);
    bb_free(b);
}

Test(scalable, clone_and_clear) {
    bb_filter *f = make_scalable(100, 0.01, 0, 0, 0), *c = NULL;
    for (uint64_t i = 0; i < 1000; i++) add_key(f, 29, i, BB_OK);
    cr_assert_eq(bb_clone(&c, f), BB_OK);
    bb_info a = info_of(f), b = info_of(c);
    cr_assert_eq(a.subfilters, b.subfilters);
    cr_assert_eq(a.keys_added, b.keys_added);
    cr_assert_eq(a.bits_set, b.bits_set);
    cr_assert_eq(bb_clear(c), BB_OK);
    b = info_of(c);
    cr_assert_eq(b.subfilters, 1);
    cr_assert_eq(b.keys_added, 0);
    cr_assert_eq(b.bits_set, 0);
    cr_assert_eq(b.capacity, 100);
    for (uint64_t i = 0; i < 1000; i++) add_key(c, 29, i, BB_OK);
    b = info_of(c);
    cr_assert_eq(a.bits_set, b.bits_set, "refilled after clear: same bits as the original");
    cr_assert_str_eq(bb_kind_name(BB_SCALABLE), "scalable");
    bb_free(c);
    bb_free(f);
}

Test(scalable, bad_configurations) {
    bb_filter *f = (bb_filter *)&f;
    const bb_config bad[] = {
        {.kind = BB_SCALABLE, .capacity = 100},                          /* no fpr */
        {.kind = BB_SCALABLE, .fpr = 0.01},                              /* no capacity */
        {.kind = BB_SCALABLE, .capacity = 100, .fpr = 0.01, .bits = 4096},
        {.kind = BB_SCALABLE, .capacity = 100, .fpr = 0.01, .k = 3},
        {.kind = BB_SCALABLE, .capacity = 100, .fpr = 0.01, .growth = 0.5},
        {.kind = BB_SCALABLE, .capacity = 100, .fpr = 0.01, .growth = NAN},
        {.kind = BB_SCALABLE, .capacity = 100, .fpr = 0.01, .tightening = 1.0},
        {.kind = BB_SCALABLE, .capacity = 100, .fpr = 0.01, .tightening = -0.5},
        {.kind = BB_SCALABLE, .capacity = 100, .fpr = 0.01, .flags = 2},
        {.kind = BB_BLOCKED, .capacity = 100, .fpr = 0.01, .flags = BB_NO_SCALE},
        {.kind = BB_CLASSIC, .capacity = 100, .fpr = 0.01, .tightening = 0.5},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        bb_config c = bad[i]; /* the table leaves size out, for short rows */
        c.size = sizeof c;
        cr_assert_eq(bb_create(&f, &c), BB_E_INVAL, "config %zu accepted", i);
        cr_assert_null(f);
    }
    double m;
    cr_assert_eq(bb_fpr_model(BB_SCALABLE, 10, 512, 3, &m), BB_E_INVAL);
}

/* Save and load keep every sub-filter: parameters, bits, counts and answers. */
Test(scalable, save_load_keeps_every_sub_filter) {
    bb_filter *f = make_scalable(100, 0.01, 0, 0, 0), *g = NULL;
    for (uint64_t i = 0; i < 5000; i++) add_key(f, 30, i, BB_OK);
    char path[32];
    tu_save_temp(f, path);
    cr_assert_eq(bb_load(&g, path), BB_OK);
    unlink(path);
    bb_info a = info_of(f), b = info_of(g);
    cr_assert_eq(b.kind, BB_SCALABLE);
    cr_assert_eq(a.subfilters, b.subfilters);
    cr_assert(a.subfilters >= 5);
    cr_assert_eq(a.keys_added, b.keys_added);
    cr_assert_eq(a.growth, b.growth);
    cr_assert_eq(a.tightening, b.tightening);
    cr_assert_eq(a.fpr_target, b.fpr_target);
    for (size_t i = 0; i < a.subfilters; i++) {
        bb_info sa = BB_INFO_INIT, sb = BB_INFO_INIT;
        cr_assert_eq(bb_subfilter_info(f, i, &sa), BB_OK);
        cr_assert_eq(bb_subfilter_info(g, i, &sb), BB_OK);
        tu_assert_same_counts(&sa, &sb);
    }
    tu_assert_same_bytes(f, g, "re-serialized scalable filter");
    /* The loaded filter keeps growing from where it was. */
    for (uint64_t i = 5000; i < 20000; i++) {
        add_key(f, 30, i, BB_OK);
        add_key(g, 30, i, BB_OK);
    }
    a = info_of(f);
    b = info_of(g);
    cr_assert_eq(a.subfilters, b.subfilters);
    cr_assert_eq(a.bits_set, b.bits_set);
    bb_free(f);
    bb_free(g);
}

/* ---- File format (docs/FORMAT.md, "Kind 3: scalable") ------------------------------------ */

static uint64_t le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
static uint32_t le32(const uint8_t *p) { return (uint32_t)le64(p) & 0xffffffffu; }
static double lef64(const uint8_t *p) {
    uint64_t b = le64(p);
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}
static void set_le64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
/* Recompute a record's payload and header checksums (offsets 80 and 120). */
static void reseal(uint8_t *rec, uint64_t payload_len) {
    set_le64(rec + 80, XXH3_64bits(rec + 128, (size_t)payload_len));
    set_le64(rec + 120, XXH3_64bits(rec, 120));
}

static bb_filter *grown_filter(void) {
    bb_filter *f = make_scalable(100, 0.01, 3, 0.25, 0);
    for (uint64_t i = 0; i < 3000; i++) add_key(f, 31, i, BB_OK);
    return f;
}

/* The header and each sub-record, field by field, against the spec and bb_subfilter_info;
 * each sub-record is itself a valid kind-0 input. */
Test(scalable, format_layout_matches_spec) {
    bb_filter *f = grown_filter();
    bb_info in = info_of(f);
    size_t len;
    uint8_t *b = tu_serialize(f, &len);
    cr_assert_eq(le32(b + 16), 3, "kind");
    cr_assert_eq(le32(b + 20), in.k, "k of the newest");
    cr_assert_eq(le64(b + 24), in.bits);
    cr_assert_eq(le64(b + 32), in.bits / 512);
    cr_assert_eq(le64(b + 40), 100, "capacity is c_0");
    cr_assert_eq(lef64(b + 48), 0.01);
    cr_assert_eq(le64(b + 56), 77, "seed");
    cr_assert_eq(le64(b + 64), in.keys_added);
    cr_assert_eq(lef64(b + 88), 3.0, "growth");
    cr_assert_eq(lef64(b + 96), 0.25, "tightening");
    cr_assert_eq(le32(b + 104), 0, "flags");
    cr_assert_eq(le32(b + 108), in.subfilters);
    cr_assert_eq(le64(b + 72), len - 128, "payload_bytes");
    cr_assert_eq(le64(b + 72), in.subfilters * 128 + in.bits / 8);
    cr_assert_eq(le64(b + 80), XXH3_64bits(b + 128, len - 128), "payload checksum");
    cr_assert_eq(le64(b + 120), XXH3_64bits(b, 120), "header checksum");
    for (int i = 112; i < 120; i++) cr_assert_eq(b[i], 0, "reserved byte %d", i);
    size_t off = 128;
    for (size_t i = 0; i < in.subfilters; i++) {
        bb_info si = BB_INFO_INIT, ri = BB_INFO_INIT;
        cr_assert_eq(bb_subfilter_info(f, i, &si), BB_OK);
        const uint8_t *rec = b + off;
        cr_assert_eq(le32(rec + 16), 0, "sub-record %zu is kind 0", i);
        cr_assert_eq(off % 64, 0, "sub-record %zu blocks stay 64-byte aligned", i);
        size_t rec_len = 128 + (size_t)le64(rec + 72);
        bb_filter *r = NULL;
        cr_assert_eq(bb_deserialize(&r, rec, rec_len), BB_OK, "sub-record %zu alone", i);
        cr_assert_eq(bb_get_info(r, &ri), BB_OK);
        cr_assert_eq(ri.kind, BB_BLOCKED);
        tu_assert_same_counts(&ri, &si);
        bb_free(r);
        off += rec_len;
    }
    cr_assert_eq(off, len, "the records fill the payload exactly");
    free(b);
    bb_free(f);
}

/* A mapped scalable filter answers like the original, is read-only, and its clone grows. */
Test(scalable, mmap_and_deserialize) {
    bb_filter *f = grown_filter(), *m = NULL, *d = NULL, *c = NULL;
    char path[32];
    tu_save_temp(f, path);
    cr_assert_eq(bb_open_mmap(&m, path), BB_OK);
    unlink(path);
    size_t len;
    uint8_t *b = tu_serialize(f, &len);
    cr_assert_eq(bb_deserialize(&d, b, len), BB_OK);
    tu_assert_same_bytes(m, f, "mapped");
    tu_assert_same_bytes(d, f, "deserialized");
    bb_info mi = info_of(m);
    cr_assert(mi.read_only);
    cr_assert_eq(mi.subfilters, info_of(f).subfilters);
    uint8_t *probe = tu_keys(32, 5000), *out_f = malloc(5000), *out_m = malloc(5000);
    size_t hf, hm;
    cr_assert_eq(bb_contains_fixed(f, probe, TU_KEY_BYTES, 0, 5000, out_f, &hf), BB_OK);
    cr_assert_eq(bb_contains_fixed(m, probe, TU_KEY_BYTES, 0, 5000, out_m, &hm), BB_OK);
    cr_assert_arr_eq(out_f, out_m, 5000);
    add_key(m, 33, 0, BB_E_READONLY);
    cr_assert_eq(bb_clear(m), BB_E_READONLY);
    cr_assert_eq(bb_clone(&c, m), BB_OK);
    for (uint64_t i = 0; i < 20000; i++) add_key(c, 33, i, BB_OK);
    cr_assert(info_of(c).subfilters > mi.subfilters, "the clone of a mapped filter grows");
    free(probe);
    free(out_f);
    free(out_m);
    free(b);
    bb_free(c);
    bb_free(d);
    bb_free(m);
    bb_free(f);
}

/* Damage: every prefix is truncated, a flipped payload bit is corrupt, and sub-records that
 * are wrong although the parent's checksums were recomputed (a faulty writer) are
 * inconsistent. */
Test(scalable, damaged_inputs_are_refused) {
    bb_filter *f = grown_filter(), *g = (bb_filter *)&f;
    size_t len;
    uint8_t *b = tu_serialize(f, &len), *w = malloc(len);
    for (size_t cut = 0; cut < len; cut += cut < 300 ? 1 : 97) {
        cr_assert_eq(bb_deserialize(&g, b, cut), BB_E_TRUNCATED, "prefix %zu", cut);
        cr_assert_null(g);
    }
    memcpy(w, b, len);
    w[len - 1] ^= 0x10;
    cr_assert_eq(bb_deserialize(&g, w, len), BB_E_CORRUPT);
    /* Edits of the first sub-record (at 128), each re-sealed, then the parent re-sealed. */
    const struct { size_t off; uint64_t value; const char *what; } edits[] = {
        {16, 1, "sub-record kind classic"},
        {16, 3, "sub-record kind scalable"},
        {56, 78, "sub-record seed differs from the parent's"},
        {40, 0, "sub-record capacity 0"},
        {48, 0, "sub-record without fpr_target"},
        {64, 1000, "sub-record keys_added no longer sums to the parent's"},
    };
    uint64_t sub_payload = le64(b + 128 + 72);
    for (size_t i = 0; i < sizeof edits / sizeof *edits; i++) {
        memcpy(w, b, len);
        uint8_t *rec = w + 128;
        if (edits[i].off == 16)
            rec[16] = (uint8_t)edits[i].value; /* kind is a u32: its low byte */
        else
            set_le64(rec + edits[i].off, edits[i].value);
        reseal(rec, sub_payload);
        reseal(w, len - 128);
        cr_assert_eq(bb_deserialize(&g, w, len), BB_E_INCONSISTENT, "%s", edits[i].what);
    }
    /* Parent fields: growth below 1, zero sub-filters, one sub-filter too many. */
    const struct { size_t off; unsigned width; uint64_t value; const char *what; } pedits[] = {
        {88, 8, 0x3fe0000000000000u, "growth 0.5"},
        {108, 4, 0, "no sub-filter"},
        {108, 4, 0, "one sub-filter more"}, /* value set below */
        {40, 8, 101, "capacity differs from c_0"},
        {112, 1, 1, "reserved byte 112"},
    };
    for (size_t i = 0; i < sizeof pedits / sizeof *pedits; i++) {
        memcpy(w, b, len);
        uint64_t v = i == 2 ? le32(b + 108) + 1 : pedits[i].value;
        for (unsigned j = 0; j < pedits[i].width; j++)
            w[pedits[i].off + j] = (uint8_t)(v >> (8 * j));
        reseal(w, len - 128);
        cr_assert_eq(bb_deserialize(&g, w, len), BB_E_INCONSISTENT, "%s", pedits[i].what);
    }
    free(w);
    free(b);
    bb_free(f);
}

/* SPDX-License-Identifier: MIT */
/*
 * test_sectorized.c - the sectorized kind (BB_SECTORIZED): filter bytes against the positions
 * of an independent reference of the layout (tests/scripts/sectorized_ref.py, generated into
 * sectorized_vectors.h) under every kernel and for every k, a bit missing makes a key absent,
 * every SIMD kernel against the scalar one on random keys (filters in and beyond L2), the k
 * and size rules, the model against an independent evaluation (the occupancy distribution of
 * one word, not the closed form sizing.c uses), pinned sizes, sizing over a sweep of (n, p),
 * measured FPR inside a binomial 99.9% interval of the model (fixed seeds), fold, union, the
 * file format and concurrent adds. Expected values never come from the library.
 */
#include "testutil.h"

#include "sectorized_vectors.h"

static const unsigned ks[5] = {1, 2, 4, 8, 16};

static bb_filter *sect_filter(uint64_t bits, unsigned k) {
    bb_filter *f = NULL;
    cr_assert_eq(bb_create(&f, TU_CFG(.kind = BB_SECTORIZED, .bits = bits, .k = k)), BB_OK,
                 "create sectorized bits %llu k %u", (unsigned long long)bits, k);
    return f;
}

static const uint8_t *payload_of(const bb_filter *f, size_t *len) {
    const void *data = NULL;
    cr_assert_eq(bb_payload(f, &data, len), BB_OK);
    return data;
}

/* The reference payload of the first `n` hashes of the table for k index ki. */
static void ref_payload(uint8_t *want, unsigned ki, size_t n) {
    memset(want, 0, SECT_REF_LINES * 64);
    for (size_t i = 0; i < n; i++)
        for (unsigned j = 0; j < ks[ki]; j++) {
            unsigned word = sect_ref[ki][i].wb[j][0], bit = sect_ref[ki][i].wb[j][1];
            tu_bit_set(want, 512u * sect_ref[ki][i].line + 64u * word + bit);
        }
}

Test(sectorized, name_and_hash) {
    cr_assert_str_eq(bb_kind_name(BB_SECTORIZED), "sectorized");
    bb_filter *f = sect_filter(512, 8);
    cr_assert_eq(bb_hash(f, "", 0), UINT64_C(0x2D06800538D394C2)); /* XXH3("", 0), published */
    bb_free(f);
}

Test(sectorized, reference_bytes_every_kernel) {
    uint8_t want[SECT_REF_LINES * 64];
    unsigned ran = 0;
    for (size_t isa = 0; isa < bb_isa_count(); isa++) {
        if (!tu_use_isa(bb_isa_at(isa))) continue;
        for (unsigned ki = 0; ki < 5; ki++) {
            ref_payload(want, ki, SECT_REF_N);
            for (int mode = 0; mode < 2; mode++) { /* single adds, a hash batch */
                bb_filter *f = sect_filter(SECT_REF_LINES * 512, ks[ki]);
                if (mode == 0)
                    for (size_t i = 0; i < SECT_REF_N; i++)
                        cr_assert_eq(bb_add_hash(f, sect_ref_hashes[i]), BB_OK);
                else
                    cr_assert_eq(bb_add_hashes(f, sect_ref_hashes, SECT_REF_N), BB_OK);
                size_t len = 0;
                const uint8_t *got = payload_of(f, &len);
                cr_assert_eq(len, sizeof want);
                for (size_t b = 0; b < len; b++)
                    cr_assert_eq(
                        got[b], want[b], "%s k=%u mode %d: byte %zu is 0x%02x, reference 0x%02x",
                        bb_isa_to_string(bb_isa_at(isa)), ks[ki], mode, b, got[b], want[b]);
                uint8_t out[SECT_REF_N];
                size_t hits = 0;
                cr_assert_eq(bb_contains_hashes(f, sect_ref_hashes, SECT_REF_N, out, &hits), BB_OK);
                cr_assert_eq(hits, SECT_REF_N);
                for (size_t i = 0; i < SECT_REF_N; i++) cr_assert(bb_contains_hash(f, sect_ref_hashes[i]));
                bb_free(f);
            }
        }
        ran++;
    }
    cr_assert(ran >= 2, "only %u kernels ran", ran);
}

/* With only the first key added, each of its probe bits cleared in turn makes it absent
 * under every kernel, single and batch (no probe is skipped by any kernel's test). */
Test(sectorized, one_missing_bit_means_absent) {
    for (size_t isa = 0; isa < bb_isa_count(); isa++) {
        if (!tu_use_isa(bb_isa_at(isa))) continue;
        for (unsigned ki = 0; ki < 5; ki++)
            for (size_t key = 4; key < 8; key++)
                for (unsigned j = 0; j < ks[ki]; j++) {
                    uint8_t want[SECT_REF_LINES * 64] = {0};
                    for (unsigned t = 0; t < ks[ki]; t++)
                        tu_bit_set(want, 512u * sect_ref[ki][key].line + 64u * sect_ref[ki][key].wb[t][0] +
                                             sect_ref[ki][key].wb[t][1]);
                    uint64_t bit = 512u * sect_ref[ki][key].line + 64u * sect_ref[ki][key].wb[j][0] +
                                   sect_ref[ki][key].wb[j][1];
                    want[bit / 8] &= (uint8_t)~(1u << (bit % 8));
                    bb_filter *f = sect_filter(SECT_REF_LINES * 512, ks[ki]);
                    size_t len;
                    memcpy((void *)(uintptr_t)payload_of(f, &len), want, sizeof want);
                    uint8_t out = 9;
                    cr_assert(!bb_contains_hash(f, sect_ref_hashes[key]), "%s k=%u probe %u",
                              bb_isa_to_string(bb_isa_at(isa)), ks[ki], j);
                    cr_assert_eq(bb_contains_hashes(f, &sect_ref_hashes[key], 1, &out, NULL), BB_OK);
                    cr_assert_eq(out, 0);
                    bb_free(f);
                }
    }
}

/* Every kernel against scalar: the same bytes after a batch add (and after single adds), the
 * same answers for present and random absent hashes; a small filter and one beyond the
 * kernels' prefetch threshold (prefetch.h: 256 KiB). */
Test(sectorized, kernels_match_scalar) {
    static const uint64_t sizes[] = {64 * 512, 8192 * 512}; /* 4 KiB, 512 KiB */
    const size_t n = 40000;
    uint64_t *h = malloc(2 * n * sizeof *h), st = 42;
    uint8_t *out = malloc(2 * n), *ref_out = malloc(2 * n);
    for (size_t i = 0; i < 2 * n; i++) h[i] = tu_splitmix64(&st);
    for (unsigned ki = 0; ki < 5; ki++)
        for (size_t s = 0; s < 2; s++) {
            cr_assert_eq(bb_set_isa(BB_ISA_SCALAR), BB_OK);
            bb_filter *ref = sect_filter(sizes[s], ks[ki]);
            cr_assert_eq(bb_add_hashes(ref, h, n), BB_OK);
            size_t ref_hits = 0;
            cr_assert_eq(bb_contains_hashes(ref, h, 2 * n, ref_out, &ref_hits), BB_OK);
            /* And against the test's own reference of the layout. */
            size_t len;
            const uint8_t *rp = payload_of(ref, &len);
            uint8_t *mine = calloc(1, len);
            for (size_t i = 0; i < n; i++) tu_ref_add(mine, BB_SECTORIZED, sizes[s], ks[ki], h[i]);
            cr_assert(memcmp(mine, rp, len) == 0, "scalar k=%u differs from the reference", ks[ki]);
            free(mine);
            for (size_t isa = 1; isa < bb_isa_count(); isa++) {
                if (!tu_use_isa(bb_isa_at(isa))) continue;
                const char *name = bb_isa_to_string(bb_isa_at(isa));
                bb_filter *f = sect_filter(sizes[s], ks[ki]), *g = sect_filter(sizes[s], ks[ki]);
                cr_assert_eq(bb_add_hashes(f, h, n), BB_OK);
                for (size_t i = 0; i < n; i += 7) cr_assert_eq(bb_add_hash(g, h[i]), BB_OK);
                tu_assert_same_bytes(f, ref, name);
                size_t hits = 0;
                cr_assert_eq(bb_contains_hashes(f, h, 2 * n, out, &hits), BB_OK);
                cr_assert_eq(hits, ref_hits, "%s k=%u: %zu hits, scalar %zu", name, ks[ki], hits, ref_hits);
                cr_assert(memcmp(out, ref_out, 2 * n) == 0, "%s k=%u: answers differ", name, ks[ki]);
                for (size_t i = 0; i < n; i++) cr_assert_eq(out[i], 1, "%s: false negative", name);
                for (size_t i = 0; i < 2 * n; i += 97)
                    cr_assert_eq(bb_contains_hash(f, h[i]), (bool)ref_out[i], "%s single", name);
                bb_free(f);
                bb_free(g);
            }
            bb_free(ref);
        }
    cr_assert_eq(bb_set_isa(BB_ISA_AUTO), BB_OK);
    free(h);
    free(out);
    free(ref_out);
}

Test(sectorized, k_and_size_rules) {
    bb_filter *f = NULL;
    for (unsigned k = 1; k <= 17; k++) {
        bool ok = k == 1 || k == 2 || k == 4 || k == 8 || k == 16;
        bb_status s = bb_create(&f, TU_CFG(.kind = BB_SECTORIZED, .bits = 1024, .k = k));
        cr_assert_eq(s, ok ? BB_OK : BB_E_INVAL, "k=%u: %s", k, bb_strerror(s));
        bb_free(f);
        f = NULL;
        double m;
        cr_assert_eq(bb_fpr_model(BB_SECTORIZED, 10, 1024, k, &m), ok ? BB_OK : BB_E_INVAL, "k=%u", k);
        s = bb_create(&f, TU_CFG(.kind = BB_SECTORIZED, .capacity = 1000, .fpr = 0.01, .k = k));
        cr_assert_eq(s, ok ? BB_OK : BB_E_INVAL, "k=%u with p: %s", k, bb_strerror(s));
        bb_free(f);
        f = NULL;
    }
    /* Bits round up to whole lines; the best k for 1,000 keys in 10,112 bits is 8. */
    cr_assert_eq(bb_create(&f, TU_CFG(.kind = BB_SECTORIZED, .capacity = 1000, .bits = 10000)),
                 BB_OK);
    bb_info in = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(f, &in), BB_OK);
    cr_assert_eq(in.bits, 10240);
    cr_assert_eq(in.blocks, 20);
    cr_assert_eq(in.k, 8);
    bb_free(f);
}

/* ---- The model ------------------------------------------------------------------------------
 * Evaluated here another way: t_r(i) = E[(X / 64)^r] from the occupancy distribution of X
 * after r i throws into 64 bins, stepped throw by throw (sizing.c uses the closed forms of the
 * first two moments), with each Poisson weight from lgamma on its own. */
static double independent_model(double n, double lines, unsigned k) {
    unsigned w = k < 8 ? k : 8, r = k / w;
    double units = lines * 8 / w, l = n / units, s = 0.0;
    double p[65] = {1.0}, next[65];
    for (unsigned i = 0; i < 4000; i++) {
        double t = 0.0;
        for (unsigned x = 0; x <= 64; x++) t += p[x] * pow(x / 64.0, r);
        s += exp(-l + i * log(l) - lgamma(i + 1.0)) * pow(t, w);
        for (unsigned step = 0; step < r; step++) {
            for (unsigned x = 0; x <= 64; x++)
                next[x] = p[x] * x / 64.0 + (x ? p[x - 1] * (65.0 - x) / 64.0 : 0.0);
            memcpy(p, next, sizeof p);
        }
    }
    return s;
}

Test(sectorized, model_matches_independent_evaluation) {
    static const double loads[] = {0.5, 5, 20, 50, 120};
    for (unsigned ki = 0; ki < 5; ki++)
        for (size_t i = 0; i < sizeof loads / sizeof *loads; i++) {
            double m = -1.0, want = independent_model(loads[i] * 1000, 1000, ks[ki]);
            cr_assert_eq(bb_fpr_model(BB_SECTORIZED, (uint64_t)(loads[i] * 1000), 1000 * 512, ks[ki], &m), BB_OK);
            cr_assert(fabs(m - want) <= 1e-9 * want, "k=%u load %g: model %.12g, independent %.12g",
                      ks[ki], loads[i], m, want);
        }
    /* Pinned, 10^6 keys: the fewest lines over k = 1, 2, 4, 8, 16 with model <= p, by
     * bisection outside this library (the sizing model of docs/DESIGN.md). */
    static const struct { double p; uint64_t lines; unsigned k; } pinned[] = {
        {0.1, 9630, 4}, {0.01, 19726, 8}, {0.001, 30713, 8}, {1e-4, 44697, 16}};
    for (size_t i = 0; i < 4; i++) {
        uint64_t bits = 0;
        unsigned k = 0;
        cr_assert_eq(bb_size(BB_SECTORIZED, 1000000, pinned[i].p, &bits, &k), BB_OK);
        cr_assert_eq(bits, pinned[i].lines * 512, "p=%g: %llu lines, expected %llu", pinned[i].p,
                     (unsigned long long)(bits / 512), (unsigned long long)pinned[i].lines);
        cr_assert_eq(k, pinned[i].k, "p=%g: k %u, expected %u", pinned[i].p, k, pinned[i].k);
    }
}

/* Every (n, p): whole lines, the model of the k chosen <= p, and no k meets p with one line
 * fewer (except where the all-bits-set bound, not p, decided: tiny n at high p). */
static void sweep_check(uint64_t n, double p, uint64_t bits, unsigned k) {
    cr_assert(k == 1 || k == 2 || k == 4 || k == 8 || k == 16, "k %u", k);
    double lines = (double)(bits / 512), at = independent_model((double)n, lines, k);
    cr_assert(at <= p * (1 + 1e-9), "n=%llu p=%g: %llu lines k=%u give %g",
              (unsigned long long)n, p, (unsigned long long)(bits / 512), k, at);
    if (bits > 512 && n >= 1000)
        for (unsigned ki = 0; ki < 5; ki++) {
            double less = independent_model((double)n, lines - 1, ks[ki]);
            cr_assert(less > p * (1 - 1e-9), "n=%llu p=%g: %g lines fewer with k=%u give %g",
                      (unsigned long long)n, p, lines - 1, ks[ki], less);
        }
}

Test(sectorized, sizing_sweep_meets_p_minimally) {
    tu_sizing_sweep(BB_SECTORIZED, 512, sweep_check);
}

/* Measured FPR (fixed keys, absent keys from another set) within the binomial 99.9% interval
 * of the model, for one k of each shape. */
Test(sectorized, measured_fpr_matches_model) {
    static const struct { double p; unsigned k; } cases[] = {{0.1, 4}, {0.01, 8}, {1e-3, 8}, {1e-4, 16}};
    const size_t n = 200000, trials = 2000000;
    uint8_t *keys = tu_keys(1, n), *absent = tu_keys(2, trials), *out = malloc(trials);
    const void **ptr = malloc(trials * sizeof *ptr);
    size_t *lens = malloc(trials * sizeof *lens);
    for (size_t c = 0; c < 4; c++) {
        bb_filter *f = NULL;
        cr_assert_eq(bb_create_for(&f, BB_SECTORIZED, n, cases[c].p, 7), BB_OK);
        bb_info in = BB_INFO_INIT;
        cr_assert_eq(bb_get_info(f, &in), BB_OK);
        cr_assert_eq(in.k, cases[c].k, "p=%g: k %u", cases[c].p, in.k);
        for (size_t i = 0; i < n; i++) ptr[i] = keys + i * TU_KEY_BYTES, lens[i] = TU_KEY_BYTES;
        cr_assert_eq(bb_add_batch(f, ptr, lens, n), BB_OK);
        for (size_t i = 0; i < trials; i++) ptr[i] = absent + i * TU_KEY_BYTES, lens[i] = TU_KEY_BYTES;
        size_t hits = 0;
        cr_assert_eq(bb_contains_batch(f, ptr, lens, trials, out, &hits), BB_OK);
        double model;
        cr_assert_eq(bb_fpr_model(BB_SECTORIZED, n, in.bits, in.k, &model), BB_OK);
        cr_assert(model <= cases[c].p);
        char what[64];
        snprintf(what, sizeof what, "sectorized p=%g k=%u", cases[c].p, in.k);
        tu_assert_rate_near(what, hits, trials, model);
        bb_free(f);
    }
    free(keys), free(absent), free(out), free(ptr), free(lens);
}

/* ---- Fold, union, format, concurrent ------------------------------------------------------ */
Test(sectorized, fold_is_the_smaller_filter) {
    uint64_t st = 9, h[3000];
    for (size_t i = 0; i < 3000; i++) h[i] = tu_splitmix64(&st);
    for (unsigned ki = 0; ki < 5; ki++) {
        bb_filter *big = sect_filter(400 * 512, ks[ki]), *small = sect_filter(100 * 512, ks[ki]);
        cr_assert_eq(bb_add_hashes(big, h, 3000), BB_OK);
        cr_assert_eq(bb_add_hashes(small, h, 3000), BB_OK);
        cr_assert_eq(bb_fold(big), BB_OK);
        cr_assert_eq(bb_fold(big), BB_OK);
        size_t la, lb;
        const uint8_t *a = payload_of(big, &la), *b = payload_of(small, &lb);
        cr_assert_eq(la, lb);
        cr_assert(memcmp(a, b, la) == 0, "k=%u: folded twice differs from 100 lines", ks[ki]);
        bb_free(big);
        bb_free(small);
    }
}

Test(sectorized, union_of_halves_is_the_whole) {
    uint64_t st = 5, h[2000];
    for (size_t i = 0; i < 2000; i++) h[i] = tu_splitmix64(&st);
    bb_filter *a = sect_filter(64 * 512, 8), *b = sect_filter(64 * 512, 8), *w = sect_filter(64 * 512, 8);
    cr_assert_eq(bb_add_hashes(a, h, 1000), BB_OK);
    cr_assert_eq(bb_add_hashes(b, h + 1000, 1000), BB_OK);
    cr_assert_eq(bb_add_hashes(w, h, 2000), BB_OK);
    cr_assert_eq(bb_union(a, b), BB_OK);
    tu_assert_same_bytes(a, w, "union");
    bb_filter *k4 = sect_filter(64 * 512, 4);
    cr_assert_eq(bb_union(a, k4), BB_E_MISMATCH);
    bb_free(a), bb_free(b), bb_free(w), bb_free(k4);
}

Test(sectorized, format_round_trip_and_k_check) {
    bb_filter *f = sect_filter(7 * 512, 16);
    cr_assert_eq(bb_add_hashes(f, sect_ref_hashes, SECT_REF_N), BB_OK);
    size_t len;
    uint8_t *buf = tu_serialize(f, &len);
    bb_filter *g = NULL;
    cr_assert_eq(bb_deserialize(&g, buf, len), BB_OK);
    tu_assert_same_bytes(f, g, "round trip");
    bb_info in = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(g, &in), BB_OK);
    cr_assert_eq(in.kind, BB_SECTORIZED);
    cr_assert_eq(in.k, 16);
    bb_free(g);
    free(buf);
    bb_free(f);
}

Test(sectorized, concurrent_adds_match_plain_adds) {
    uint64_t st = 3, h[5000];
    for (size_t i = 0; i < 5000; i++) h[i] = tu_splitmix64(&st);
    for (unsigned ki = 0; ki < 5; ki++) {
        bb_filter *a = sect_filter(300 * 512, ks[ki]), *b = sect_filter(300 * 512, ks[ki]);
        cr_assert_eq(bb_add_hashes(a, h, 5000), BB_OK);
        cr_assert_eq(bb_add_hashes_concurrent(b, h, 5000, NULL), BB_OK);
        size_t la, lb;
        const uint8_t *pa = payload_of(a, &la), *pb = payload_of(b, &lb);
        cr_assert(memcmp(pa, pb, la) == 0, "k=%u", ks[ki]);
        for (size_t i = 0; i < 5000; i++) cr_assert(bb_contains_hash_concurrent(b, h[i]));
        bb_free(a), bb_free(b);
    }
}

/* info: an empty filter estimates 0; after n keys the cardinality estimate is within 3% and
 * the FPR estimate within 10% of the model. */
Test(sectorized, info_estimates) {
    uint64_t st = 11;
    const size_t n = 20000;
    uint64_t *h = malloc(n * sizeof *h);
    for (size_t i = 0; i < n; i++) h[i] = tu_splitmix64(&st);
    for (unsigned ki = 0; ki < 5; ki++) {
        bb_filter *f = NULL;
        cr_assert_eq(
            bb_create(&f, TU_CFG(.kind = BB_SECTORIZED, .capacity = n, .fpr = 0.01, .k = ks[ki])),
            BB_OK);
        bb_info in = BB_INFO_INIT;
        cr_assert_eq(bb_get_info(f, &in), BB_OK);
        cr_assert_eq(in.bits_set, 0);
        cr_assert_eq(in.cardinality_estimate, 0.0);
        cr_assert_eq(bb_add_hashes(f, h, n), BB_OK);
        cr_assert_eq(bb_get_info(f, &in), BB_OK);
        cr_assert(fabs(in.cardinality_estimate - n) < 0.03 * n, "k=%u: %g", ks[ki], in.cardinality_estimate);
        double model;
        cr_assert_eq(bb_fpr_model(BB_SECTORIZED, n, in.bits, in.k, &model), BB_OK);
        cr_assert(fabs(in.fpr_estimate - model) < 0.1 * model, "k=%u: %g vs %g", ks[ki], in.fpr_estimate, model);
        bb_free(f);
    }
    free(h);
}

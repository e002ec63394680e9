/* SPDX-License-Identifier: MIT */
/*
 * test_dispatch.c - the per-operation kernel choice (src/dispatch.c): with BB_ISA_AUTO each
 * operation's kernel must be the one the CPU table names for this CPU, read here
 * independently from /proc/cpuinfo (vendor, family, model, flags); bb_set_isa(isa) puts
 * every operation on that kernel; bb_isa_name_for refuses unknown operations; the kernel of
 * adds into large filters (bb_isa_kernel_for) follows the table's size rule; and filters
 * built and queried under the automatic choice, small and large, are byte-identical to the
 * scalar ones.
 */
#include "cpuinfo.h"
#include "testutil.h"

Test(dispatch, automatic_choice_follows_the_cpu_table) {
#if !defined(__x86_64__)
    tu_skip("the CPU table is for x86; on this machine the automatic kernel is compile-time");
    return;
#endif
    cpuinfo c = read_cpuinfo();
    if (!c.found) {
        tu_skip("no readable /proc/cpuinfo: the automatic choice is not checked");
        return;
    }
    cr_assert_eq(bb_set_isa(BB_ISA_AUTO), BB_OK);
    const char *widest = c.avx512gfni ? "avx512gfni" : c.avx512f ? "avx512" : c.avx2 ? "avx2" : "scalar";
    /* A CPU without a row: the widest kernel for contains, scalar adds. */
    const char *want_contains = widest, *want_add = "scalar";
    bool amd = strcmp(c.vendor, "AuthenticAMD") == 0, intel = strcmp(c.vendor, "GenuineIntel") == 0;
    /* Zen and Zen+ (AMD family 17h, models 00h-2Fh): contains on AVX2, adds scalar. */
    if (amd && c.family == 0x17 && c.model <= 0x2f && c.avx2)
        want_contains = "avx2", want_add = "scalar";
    /* Zen 3 (AMD family 19h, models 00h-0Fh): contains on AVX2, adds scalar. */
    if (amd && c.family == 0x19 && c.model <= 0x0f && c.avx2)
        want_contains = "avx2", want_add = "scalar";
    /* Zen 4 (AMD family 19h, models 10h-1Fh): everything on avx512gfni. */
    if (amd && c.family == 0x19 && c.model >= 0x10 && c.model <= 0x1f && c.avx512gfni)
        want_contains = want_add = "avx512gfni";
    /* The AVX-512 Xeon guests (Intel family 6): contains avx512gfni, adds scalar on model
     * A7h and avx512 on model CFh. */
    if (intel && c.family == 6 && (c.model == 0xa7 || c.model == 0xcf) && c.avx512gfni)
        want_contains = "avx512gfni", want_add = c.model == 0xcf ? "avx512" : "scalar";
    cr_assert_str_eq(bb_isa_name_for(BB_OP_CONTAINS), want_contains, "%s family %d model %d",
                     c.vendor, c.family, c.model);
    cr_assert_str_eq(bb_isa_name_for(BB_OP_ADD), want_add, "%s family %d model %d", c.vendor,
                     c.family, c.model);
    cr_assert_str_eq(bb_isa_name(), want_contains);
}

/* A filter of n keys at 1% (its payload, not its adds, decides the kernel). */
static bb_filter *filter_for(bb_kind kind, uint64_t n) {
    bb_filter *f;
    cr_assert_eq(bb_create_for(&f, kind, n, 0.01, 5), BB_OK);
    return f;
}

static bb_isa kernel_for(bb_isa isa, const bb_filter *f, bb_op op) {
    bb_isa out = (bb_isa)99;
    bb_status st = bb_isa_kernel_for(isa, f, op, &out);
    cr_assert_eq(st, BB_OK, "bb_isa_kernel_for: %s", bb_strerror(st));
    return out;
}

/* Whether this is the AVX-512 Xeon guest of Intel family 6 and this model. */
static bool is_intel_6(unsigned model) {
#if defined(__x86_64__)
    cpuinfo c = read_cpuinfo();
    return c.found && strcmp(c.vendor, "GenuineIntel") == 0 && c.family == 6 &&
           (unsigned)c.model == model && c.avx512gfni;
#else
    (void)model;
    return false;
#endif
}

/* On Intel family 6 models A7h and CFh, in filters above 6 MiB: adds of hashes into blocked
 * filters run avx512, plain and concurrent (below: scalar on A7h, avx512 on CFh). On A7h
 * batches of keys run blocked contains and both sectorized operations on avx2 (avx512gfni
 * and avx512 below), and blocked adds of keys stay scalar; on CFh blocked adds of keys run
 * avx512 too, and the other batches of keys keep their kernels. Single lookups and batches of hashes keep the
 * small filters' kernels. Other CPUs of the table: the same kernel at every size. Written
 * out from the table's facts, with the CPU read from /proc/cpuinfo. A 4-million-key blocked
 * filter is 4.7 MiB, an 8-million-key one 9.4; sectorized ones a little larger. */
Test(dispatch, large_filters_may_take_other_kernels) {
    cr_assert_eq(bb_set_isa(BB_ISA_AUTO), BB_OK);
    bb_filter *small = filter_for(BB_BLOCKED, 4000000), *large = filter_for(BB_BLOCKED, 8000000);
    bb_filter *s_small = filter_for(BB_SECTORIZED, 4000000);
    bb_filter *s_large = filter_for(BB_SECTORIZED, 8000000);
    const bb_filter *smalls[2] = {small, s_small}, *larges[2] = {large, s_large};
    for (int i = 0; i < 2; i++) {
        bb_info in = BB_INFO_INIT;
        cr_assert_eq(bb_get_info(smalls[i], &in), BB_OK);
        cr_assert_leq(in.bytes, UINT64_C(6) << 20);
        cr_assert_eq(bb_get_info(larges[i], &in), BB_OK);
        cr_assert_gt(in.bytes, UINT64_C(6) << 20);
    }
    bb_isa add, contains, sect;
    cr_assert_eq(bb_isa_from_string(bb_isa_name_for(BB_OP_ADD), &add), BB_OK);
    cr_assert_eq(bb_isa_from_string(bb_isa_name(), &contains), BB_OK);
    cr_assert_eq(bb_isa_kernel(BB_ISA_AUTO, BB_SECTORIZED, BB_OP_CONTAINS, &sect), BB_OK);
    bb_isa add_large = add, keys_large = contains, sect_keys_large = sect, keys_add_large = add;
    if (is_intel_6(0xa7) || is_intel_6(0xcf)) {
        cr_assert_eq(add, is_intel_6(0xcf) ? BB_ISA_AVX512 : BB_ISA_SCALAR);
        cr_assert_eq(contains, BB_ISA_AVX512GFNI);
        cr_assert_eq(sect, BB_ISA_AVX512);
        add_large = BB_ISA_AVX512;
    }
    if (is_intel_6(0xa7)) keys_large = sect_keys_large = BB_ISA_AVX2;
    if (is_intel_6(0xcf)) keys_add_large = BB_ISA_AVX512;
    static const struct {
        bb_op op;
        bool sectorized, large;
    } cases[] = {{BB_OP_ADD, false, false},          {BB_OP_ADD, false, true},
                 {BB_OP_ADD_CONCURRENT, false, true}, {BB_OP_ADD_KEYS, false, false},
                 {BB_OP_ADD_KEYS, false, true},       {BB_OP_CONTAINS, false, true},
                 {BB_OP_CONTAINS_KEYS, false, false}, {BB_OP_CONTAINS_KEYS, false, true},
                 {BB_OP_ADD, true, true},             {BB_OP_CONTAINS, true, true},
                 {BB_OP_ADD_KEYS, true, false},       {BB_OP_ADD_KEYS, true, true},
                 {BB_OP_CONTAINS_KEYS, true, false},  {BB_OP_CONTAINS_KEYS, true, true}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        bb_op op = cases[i].op;
        bool keys = op == BB_OP_ADD_KEYS || op == BB_OP_CONTAINS_KEYS, big = cases[i].large;
        bb_isa want = cases[i].sectorized ? (keys && big ? sect_keys_large : sect)
                      : op == BB_OP_CONTAINS      ? contains
                      : op == BB_OP_CONTAINS_KEYS ? (big ? keys_large : contains)
                      : op == BB_OP_ADD_KEYS      ? (big ? keys_add_large : add)
                                                  : (big ? add_large : add);
        if (op == BB_OP_ADD_CONCURRENT && want == BB_ISA_NEON) want = BB_ISA_SCALAR;
        const bb_filter *f = (cases[i].sectorized ? (big ? s_large : s_small)
                                                  : (big ? large : small));
        bb_isa got = kernel_for(BB_ISA_AUTO, f, op);
        cr_assert_eq(got, want, "case %zu: %s, want %s", i, bb_isa_to_string(got),
                     bb_isa_to_string(want));
    }
    /* bb_isa_kernel and bb_isa_name_for answer for small filters. */
    bb_isa k;
    cr_assert_eq(bb_isa_kernel(BB_ISA_AUTO, BB_BLOCKED, BB_OP_CONTAINS_KEYS, &k), BB_OK);
    cr_assert_eq(k, contains);
    /* One ISA selected: that one (or the kernel it borrows) at every size. */
    for (size_t i = 0; i < bb_isa_count(); i++) {
        bb_isa isa = bb_isa_at(i);
        if (!bb_isa_available(isa)) continue;
        for (int op = BB_OP_CONTAINS; op <= BB_OP_CONTAINS_KEYS; op++) {
            if (op == BB_OP_ADD_CONCURRENT) continue;
            cr_assert_eq(kernel_for(isa, large, (bb_op)op), isa);
            cr_assert_eq(kernel_for(isa, small, (bb_op)op), isa);
            bb_isa s_isa;
            cr_assert_eq(bb_isa_kernel(isa, BB_SECTORIZED, BB_OP_CONTAINS, &s_isa), BB_OK);
            cr_assert_eq(kernel_for(isa, s_large, (bb_op)op), s_isa);
        }
    }
    cr_assert_eq(bb_isa_kernel_for(BB_ISA_AUTO, NULL, BB_OP_ADD, &k), BB_E_INVAL);
    cr_assert_eq(bb_isa_kernel_for(BB_ISA_AUTO, large, BB_OP_ADD, NULL), BB_E_INVAL);
    cr_assert_eq(bb_isa_kernel_for(BB_ISA_AUTO, large, (bb_op)7, &k), BB_E_INVAL);
    cr_assert_eq(bb_isa_kernel_for(BB_ISA_AUTO, large, (bb_op)-1, &k), BB_E_INVAL);
    cr_assert_eq(bb_isa_kernel_for((bb_isa)99, large, BB_OP_ADD, &k), BB_E_INVAL);
    bb_free(small);
    bb_free(large);
    bb_free(s_small);
    bb_free(s_large);
}

/* A scalable filter adds key by key through portable code, whatever its size and the
 * selection, and looks up on the blocked contains kernel (its batches are not pipelined). */
Test(dispatch, scalable_filters_add_in_portable_code) {
    bb_config cfg = BB_CONFIG_INIT;
    cfg.kind = BB_SCALABLE;
    cfg.capacity = 2000000; /* one 2.4 MiB sub-filter, then a 9 MiB one */
    cfg.fpr = 0.01;
    bb_filter *f;
    cr_assert_eq(bb_create(&f, &cfg), BB_OK);
    uint64_t st = 3, h[4096];
    for (int round = 0; round < 2; round++) {
        for (size_t i = 0; i < bb_isa_count(); i++) {
            bb_isa isa = bb_isa_at(i), contains;
            if (!bb_isa_available(isa)) continue;
            cr_assert_eq(kernel_for(isa, f, BB_OP_ADD), BB_ISA_SCALAR);
            cr_assert_eq(kernel_for(isa, f, BB_OP_ADD_KEYS), BB_ISA_SCALAR);
            cr_assert_eq(bb_isa_kernel(isa, BB_BLOCKED, BB_OP_CONTAINS, &contains), BB_OK);
            cr_assert_eq(kernel_for(isa, f, BB_OP_CONTAINS_KEYS), contains);
        }
        cr_assert_eq(kernel_for(BB_ISA_AUTO, f, BB_OP_ADD), BB_ISA_SCALAR);
        for (size_t done = 0; round == 0 && done < 2100000; done += 4096) {
            for (size_t j = 0; j < 4096; j++) h[j] = tu_splitmix64(&st);
            cr_assert_eq(bb_add_hashes(f, h, 4096), BB_OK);
        }
    }
    bb_info in = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(f, &in), BB_OK);
    cr_assert_geq(in.subfilters, 2, "the filter did not grow");
    bb_free(f);
}

/* The library's threads add batches of keys as batches of hashes; one thread adds them as
 * the pipelined batches of keys, which on model CFh run avx512 in a filter of this size. */
Test(dispatch, threaded_adds_of_keys_report_the_hashes_kernel) {
    cr_assert_eq(bb_set_isa(BB_ISA_AUTO), BB_OK);
    bb_filter *f = filter_for(BB_BLOCKED, 8000000);
    bb_isa add;
    cr_assert_eq(bb_isa_kernel_for(BB_ISA_AUTO, f, BB_OP_ADD, &add), BB_OK);
    cr_assert_eq(bb_set_threads(f, 2), BB_OK);
    cr_assert_eq(kernel_for(BB_ISA_AUTO, f, BB_OP_ADD_KEYS), add);
    cr_assert_eq(bb_set_threads(f, 1), BB_OK);
    bb_isa keys;
    cr_assert_eq(bb_isa_kernel(BB_ISA_AUTO, BB_BLOCKED, BB_OP_ADD_KEYS, &keys), BB_OK);
    if (is_intel_6(0xcf)) keys = BB_ISA_AVX512;
    cr_assert_eq(kernel_for(BB_ISA_AUTO, f, BB_OP_ADD_KEYS), keys);
    bb_free(f);
}

Test(dispatch, one_kernel_runs_every_operation_when_set) {
    for (size_t i = 0; i < bb_isa_count(); i++) {
        if (!tu_use_isa(bb_isa_at(i))) continue;
        cr_assert_str_eq(bb_isa_name_for(BB_OP_CONTAINS), bb_isa_to_string(bb_isa_at(i)));
        cr_assert_str_eq(bb_isa_name_for(BB_OP_ADD), bb_isa_to_string(bb_isa_at(i)));
    }
    cr_assert_null(bb_isa_name_for((bb_op)7));
    cr_assert_eq(bb_set_isa(BB_ISA_AUTO), BB_OK);
}

/* The automatic mix of kernels builds the scalar kernel's bytes and gives its answers, in a
 * small filter and in one large enough (9.4 MiB) for a CPU row's large-filter add kernel. */
static void same_as_scalar(bb_kind kind, uint64_t capacity, size_t N) {
    uint64_t *h = malloc(N * sizeof *h), st = 11;
    uint8_t *out_auto = malloc(2 * N), *out_scalar = malloc(2 * N);
    bool concurrent = kind == BB_BLOCKED;
    cr_assert(h && out_auto && out_scalar);
    for (size_t i = 0; i < N; i++) h[i] = tu_splitmix64(&st);
    bb_filter *f[2];
    uint8_t *out[2] = {out_auto, out_scalar};
    bb_isa isa[2] = {BB_ISA_AUTO, BB_ISA_SCALAR};
    for (int j = 0; j < 2; j++) {
        cr_assert_eq(bb_set_isa(isa[j]), BB_OK);
        cr_assert_eq(bb_create_for(&f[j], kind, capacity, 0.01, 3), BB_OK);
        cr_assert_eq(bb_add_hashes(f[j], h, N / 4), BB_OK);
        if (concurrent)
            cr_assert_eq(bb_add_hashes_concurrent(f[j], h + N / 4, N / 4, NULL), BB_OK);
        else cr_assert_eq(bb_add_hashes(f[j], h + N / 4, N / 4), BB_OK);
        /* the hashes' bytes as 8-byte keys: batches of keys, batch.c's pipeline */
        cr_assert_eq(bb_add_fixed(f[j], h + N / 2, 8, 8, N / 4), BB_OK);
        cr_assert_eq(bb_contains_hashes(f[j], h, N, out[j], NULL), BB_OK);
        cr_assert_eq(bb_contains_fixed(f[j], h, 8, 8, N, out[j] + N, NULL), BB_OK);
    }
    tu_assert_same_bytes(f[0], f[1], "automatic vs scalar kernels");
    cr_assert_eq(memcmp(out_auto, out_scalar, 2 * N), 0, "automatic and scalar answers differ");
    bb_free(f[0]);
    bb_free(f[1]);
    free(h);
    free(out_auto);
    free(out_scalar);
    cr_assert_eq(bb_set_isa(BB_ISA_AUTO), BB_OK);
}

Test(dispatch, automatic_mix_is_bit_identical_to_scalar) {
    same_as_scalar(BB_BLOCKED, 50000, 50000);
    same_as_scalar(BB_SECTORIZED, 50000, 50000);
}

Test(dispatch, automatic_mix_is_bit_identical_to_scalar_in_large_filters) {
    same_as_scalar(BB_BLOCKED, 8000000, 400000);
    same_as_scalar(BB_SECTORIZED, 8000000, 400000);
}

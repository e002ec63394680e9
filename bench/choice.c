/* SPDX-License-Identifier: MIT */
/*
 * choice.c - the "dispatch is right per operation" check, as data: for every operation
 * of the two kinds that have kernels (blocked, split), which kernel the library's dispatch
 * runs it on in this process and which kernel series measured fastest for it in this run.
 * report.c prints the list per size, writes it to the JSON and turns it into the 8.1 targets,
 * so the three cannot disagree. The operations are the metrics a kernel runs: batch adds
 * (string keys, pre-hashed, and for blocked the concurrent add), batch contains of each query
 * set, bb_contains_hash in a loop and the single bb_contains call (lat_p50). The inline view
 * loops are left out: a caller's compiler builds them, no dispatch chooses them.
 *
 * The chosen kernel: blocked adds run on the add dispatch (bb_isa_name_for(BB_OP_ADD)),
 * everything else on the contains dispatch; the split kind picks its kernel from the contains
 * dispatch for adds and lookups alike (kinds/split.c), and has no AVX-512 kernel, so either
 * AVX-512 kernel (avx512, avx512gfni) there means its AVX2 kernel.
 */
#include "bench.h"

#include <math.h>

static const metric blocked_ops[] = {M_ADD,       M_ADD_HASH,   M_ADD_CONC, M_PRESENT, M_ABSENT,
                                     M_BATCH_STR, M_BATCH_HASH, M_LOOP,     M_LAT_P50};
static const metric split_ops[] = {M_ADD,       M_ADD_HASH,   M_PRESENT, M_ABSENT,
                                   M_BATCH_STR, M_BATCH_HASH, M_LOOP,    M_LAT_P50};

const char *op_kind_name(series_type kind) { return kind == S_SPLIT ? "split" : "blocked"; }

static bb_isa chosen_isa(series_type kind, metric m, const bench_opts *o) {
    bool add = m == M_ADD || m == M_ADD_HASH || m == M_ADD_CONC;
    if (kind == S_BLOCKED) return add ? o->add_isa : o->best_isa;
    bool avx512 = o->best_isa == BB_ISA_AVX512 || o->best_isa == BB_ISA_AVX512GFNI;
    return avx512 ? BB_ISA_AVX2 : o->best_isa;
}

static void fill(const size_run *r, series_type kind, metric m, const bench_opts *o,
                 op_choice *c) {
    *c = (op_choice){.kind = kind, .m = m, .chosen_isa = chosen_isa(kind, m, o)};
    for (size_t i = 0; i < r->nseries; i++) {
        const series *s = &r->series[i];
        if (s->type != kind || s->skip || !isfinite(s->value[m])) continue;
        if (s->isa == c->chosen_isa) c->chosen = s;
        if (!c->fastest || s->value[m] < c->fastest->value[m]) c->fastest = s;
    }
    /* A tie (the TSC's steps make latency ties common) goes to the chosen kernel. */
    if (c->chosen && c->chosen->value[m] <= c->fastest->value[m]) c->fastest = c->chosen;
}

size_t op_choices(const size_run *r, const bench_opts *o, op_choice *out) {
    size_t n = 0;
    for (size_t i = 0; i < sizeof blocked_ops / sizeof *blocked_ops; i++)
        fill(r, S_BLOCKED, blocked_ops[i], o, &out[n++]);
    for (size_t i = 0; i < sizeof split_ops / sizeof *split_ops; i++)
        fill(r, S_SPLIT, split_ops[i], o, &out[n++]);
    return n;
}

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
 * The chosen kernel is the library's answer for the automatic choice (bb_isa_kernel): per
 * kind and operation, so a kind whose layout borrows another ISA's kernel (the AVX-512 rows'
 * split-block filters run the AVX2 one) is compared with the series of the kernel that runs.
 */
#include "bench.h"

#include <math.h>

static const metric blocked_ops[] = {M_ADD,       M_ADD_HASH,   M_ADD_CONC, M_PRESENT, M_ABSENT,
                                     M_BATCH_STR, M_BATCH_HASH, M_LOOP,     M_LAT_P50};
static const metric split_ops[] = {M_ADD,       M_ADD_HASH,   M_PRESENT, M_ABSENT,
                                   M_BATCH_STR, M_BATCH_HASH, M_LOOP,    M_LAT_P50};

const char *op_kind_name(series_type kind) { return kind == S_SPLIT ? "split" : "blocked"; }

/* The main() of the benchmark selects the automatic choice before any series is made. */
static bb_isa chosen_isa(series_type kind, metric m) {
    bb_op op = m == M_ADD_CONC                 ? BB_OP_ADD_CONCURRENT
               : m == M_ADD || m == M_ADD_HASH ? BB_OP_ADD
                                               : BB_OP_CONTAINS;
    bb_isa isa = BB_ISA_SCALAR;
    bb_isa_kernel(BB_ISA_AUTO, kind == S_SPLIT ? BB_SPLIT : BB_BLOCKED, op, &isa);
    return isa;
}

static void fill(const size_run *r, series_type kind, metric m, op_choice *c) {
    *c = (op_choice){.kind = kind, .m = m, .chosen_isa = chosen_isa(kind, m)};
    for (size_t i = 0; i < r->nseries; i++) {
        const series *s = &r->series[i];
        if (s->type != kind || s->skip || !isfinite(s->value[m])) continue;
        if (s->isa == c->chosen_isa) c->chosen = s;
        if (!c->fastest || s->value[m] < c->fastest->value[m]) c->fastest = s;
    }
    /* A tie (the TSC's steps make latency ties common) goes to the chosen kernel. */
    if (c->chosen && c->chosen->value[m] <= c->fastest->value[m]) c->fastest = c->chosen;
}

size_t op_choices(const size_run *r, op_choice *out) {
    size_t n = 0;
    for (size_t i = 0; i < sizeof blocked_ops / sizeof *blocked_ops; i++)
        fill(r, S_BLOCKED, blocked_ops[i], &out[n++]);
    for (size_t i = 0; i < sizeof split_ops / sizeof *split_ops; i++)
        fill(r, S_SPLIT, split_ops[i], &out[n++]);
    return n;
}

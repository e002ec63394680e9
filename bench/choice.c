/* SPDX-License-Identifier: MIT */
/*
 * choice.c - the "dispatch is right per operation" check, as data: for every operation of
 * the three kinds that have kernels (blocked, split, sectorized), which kernel the library's
 * dispatch runs it on in this process and which kernel series measured fastest for it in
 * this run.
 * report.c prints the list per size, writes it to the JSON and turns it into the 8.1 targets,
 * so the three cannot disagree. The operations are the metrics a kernel runs: batch adds
 * (string keys, pre-hashed, and for blocked the concurrent add), batch contains of each query
 * set, bb_contains_hash in a loop and the single bb_contains call (lat_p50). The inline view
 * loops are left out: a caller's compiler builds them, no dispatch chooses them.
 *
 * The chosen kernel is the library's answer for the automatic choice (bb_isa_kernel_for, on
 * the size's own filter of the kind): per kind, operation and filter size, so a kind whose
 * layout borrows another ISA's kernel (the AVX-512 rows' split-block filters run the AVX2
 * one) is compared with the series of the kernel that runs, and a CPU row that moves adds
 * into large filters to another kernel is checked at each size against that kernel.
 */
#include "bench.h"

#include <math.h>

static const metric blocked_ops[] = {M_ADD,       M_ADD_HASH,   M_ADD_CONC, M_PRESENT, M_ABSENT,
                                     M_BATCH_STR, M_BATCH_HASH, M_LOOP,     M_LAT_P50};
static const metric other_ops[] = {M_ADD,       M_ADD_HASH,   M_PRESENT, M_ABSENT,
                                   M_BATCH_STR, M_BATCH_HASH, M_LOOP,    M_LAT_P50};
static const series_type choice_kinds[3] = {S_BLOCKED, S_SPLIT, S_SECTORIZED};
static const bb_kind lib_kinds[3] = {BB_BLOCKED, BB_SPLIT, BB_SECTORIZED};

const char *op_kind_name(series_type kind) {
    return kind == S_SPLIT ? "split" : kind == S_SECTORIZED ? "sectorized" : "blocked";
}

static size_t kind_slot(series_type kind) {
    for (size_t i = 0; i < 3; i++)
        if (choice_kinds[i] == kind) return i;
    return 0;
}

/* The main() of the benchmark selects the automatic choice before any series is made; every
 * series of a kind has the same size at one n, so any of them answers for all. */
void op_choices_note(size_run *r) {
    for (size_t k = 0; k < 3; k++) {
        const bb_filter *f = NULL;
        for (size_t i = 0; i < r->nseries && !f; i++)
            if (r->series[i].type == choice_kinds[k] && !r->series[i].skip) f = r->series[i].f;
        for (int op = BB_OP_CONTAINS; op <= BB_OP_CONTAINS_KEYS; op++) {
            bb_isa isa = BB_ISA_SCALAR;
            if (f) bb_isa_kernel_for(BB_ISA_AUTO, f, (bb_op)op, &isa);
            else bb_isa_kernel(BB_ISA_AUTO, lib_kinds[k], (bb_op)op, &isa);
            r->chosen[k][op] = isa;
        }
    }
}

bb_isa chosen_kernel(const size_run *r, series_type kind, bb_op op) {
    return r->chosen[kind_slot(kind)][op];
}

static bb_isa chosen_isa(const size_run *r, series_type kind, metric m) {
    bb_op op = m == M_ADD_CONC                                         ? BB_OP_ADD_CONCURRENT
               : m == M_ADD                                            ? BB_OP_ADD_KEYS
               : m == M_ADD_HASH                                       ? BB_OP_ADD
               : m == M_PRESENT || m == M_ABSENT || m == M_BATCH_STR ? BB_OP_CONTAINS_KEYS
                                                                       : BB_OP_CONTAINS;
    return chosen_kernel(r, kind, op);
}

static void fill(const size_run *r, series_type kind, metric m, op_choice *c) {
    *c = (op_choice){.kind = kind, .m = m, .chosen_isa = chosen_isa(r, kind, m)};
    for (size_t i = 0; i < r->nseries; i++) {
        const series *s = &r->series[i];
        if (s->type != kind || s->skip || !isfinite(s->value[m])) continue;
        if (s->isa == c->chosen_isa) c->chosen = s;
        if (!c->fastest || s->value[m] < c->fastest->value[m]) c->fastest = s;
    }
    /* A tie (the TSC's steps make latency ties common) goes to the chosen kernel. */
    if (c->chosen && c->chosen->value[m] <= c->fastest->value[m]) c->fastest = c->chosen;
    c->paired = NAN;
    for (size_t i = 0; c->chosen && i < r->nseries; i++) {
        const series *s = &r->series[i];
        if (s->type != kind || s->skip || s == c->chosen) continue;
        double q = paired_ratio(c->chosen->reps[m], c->chosen->nreps[m], s->reps[m], s->nreps[m]);
        if (isfinite(q) && (!isfinite(c->paired) || q > c->paired)) c->paired = q, c->paired_vs = s;
    }
}

double paired_ratio(const double *a, int na, const double *b, int nb) {
    double q[64];
    int n = na < nb ? na : nb, m = 0;
    for (int i = 0; i < n && i < 64; i++)
        if (isfinite(a[i]) && isfinite(b[i]) && a[i] > 0 && b[i] > 0) q[m++] = a[i] / b[i];
    return m ? median(q, (size_t)m) : NAN;
}

size_t op_choices(const size_run *r, op_choice *out) {
    size_t n = 0;
    for (size_t i = 0; i < sizeof blocked_ops / sizeof *blocked_ops; i++)
        fill(r, S_BLOCKED, blocked_ops[i], &out[n++]);
    for (size_t k = 1; k < 3; k++)
        for (size_t i = 0; i < sizeof other_ops / sizeof *other_ops; i++)
            fill(r, choice_kinds[k], other_ops[i], &out[n++]);
    return n;
}

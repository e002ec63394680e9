/* SPDX-License-Identifier: MIT */
/*
 * report.c - the benchmark's output: a text table per filter size (with the clock of each
 * column and, per operation, the kernel dispatch chose against the fastest one measured),
 * with --targets the developers' performance targets as ratios of numbers from this one run
 * (each with its limit and whether it is met), and the same data as JSON for
 * scripts/plot-bench.sh and docs/bench/. Ratios are computed here, once, so the table and the
 * JSON cannot disagree.
 */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- Targets --------------------------------------------------------------------------------- */

typedef struct target {
    char id[8];
    char what[120];
    char size[16];
    double value, limit;
    bool at_most; /* met when value <= limit (else value >= limit) */
} target;

#define MAX_TARGETS 192

static const series *find_type(const size_run *r, series_type t, bb_isa isa) {
    for (size_t i = 0; i < r->nseries; i++) {
        const series *s = &r->series[i];
        bool per_kernel = t == S_BLOCKED || t == S_SPLIT || t == S_SECTORIZED;
        if (s->type == t && !s->skip && (!per_kernel || isa == BB_ISA_AUTO || s->isa == isa))
            return s;
    }
    return NULL;
}

static double val(const series *s, metric m) { return s ? s->value[m] : NAN; }

/* The S_JOBS series with `threads` threads (1: the wall-clock reference), or with more than
 * one (threads 0). */
static const series *find_jobs(const size_run *r, int threads) {
    for (size_t i = 0; i < r->nseries; i++) {
        const series *s = &r->series[i];
        if (s->type == S_JOBS && !s->skip && (threads ? s->threads == threads : s->threads > 1))
            return s;
    }
    return NULL;
}

static void add_target(target *t, size_t *nt, const char *id, const char *size, double value,
                       double limit, bool at_most, const char *what) {
    if (*nt >= MAX_TARGETS || !isfinite(value)) return;
    target *x = &t[(*nt)++];
    snprintf(x->id, sizeof x->id, "%s", id);
    snprintf(x->size, sizeof x->size, "%s", size);
    snprintf(x->what, sizeof x->what, "%s", what);
    x->value = value;
    x->limit = limit;
    x->at_most = at_most;
}

static bool met(const target *t) { return t->at_most ? t->value <= t->limit : t->value >= t->limit; }

/* The blocked series of the kernel the library picks by itself. */
static const series *best_blocked(const size_run *r, bb_isa best) {
    const series *s = find_type(r, S_BLOCKED, best);
    return s ? s : find_type(r, S_BLOCKED, BB_ISA_AUTO);
}

/* The split series of the kernel that serves split-block lookups when `best` is selected
 * (the library's answer: a layout may borrow another ISA's kernel). */
static const series *best_split(const size_run *r, bb_isa best) {
    bb_isa isa = best;
    bb_isa_kernel(best, BB_SPLIT, BB_OP_CONTAINS, &isa);
    const series *s = find_type(r, S_SPLIT, isa);
    return s ? s : find_type(r, S_SPLIT, BB_ISA_AUTO);
}

/* The split-block targets ("S"): pre-hashed batch contains against the line floor at
 * 10^6 keys and on DRAM-sized filters, and adds against contains. */
static void split_targets(const size_run *r, bb_isa best, target *t, size_t *nt) {
    const series *sp = best_split(r, best), *fl = find_type(r, S_FLOOR_LINE, 0);
    char sz[16];
    snprintf(sz, sizeof sz, "n=%llu", (unsigned long long)r->n);
    if (r->n == 1000000)
        add_target(t, nt, "S", sz, val(sp, M_BATCH_HASH) / val(fl, M_BATCH_HASH), 1.2, true,
                   "split pre-hashed batch contains / line-read floor");
    if (strcmp(r->label, "DRAM") == 0)
        add_target(t, nt, "S", sz, val(sp, M_BATCH_HASH) / val(fl, M_BATCH_HASH), 1.05, true,
                   "split pre-hashed batch contains / line-read floor");
    add_target(t, nt, "S", sz, val(sp, M_ADD_HASH) / val(sp, M_BATCH_HASH), 1.2, true,
               "split pre-hashed batch add / pre-hashed batch contains");
}

/* best: the kernel of lookups; the concurrent adds' targets compare with each size's
 * dispatched add kernel. */
static size_t targets(const size_run *runs, size_t nruns, bb_isa best, target *t) {
    size_t nt = 0;
    const size_run *lib_largest = NULL;
    for (size_t i = 0; i < nruns; i++)
        if (find_type(&runs[i], S_LIBBLOOM, 0)) lib_largest = &runs[i];
    for (size_t i = 0; i < nruns; i++) {
        const size_run *r = &runs[i];
        const series *b = best_blocked(r, best), *c = find_type(r, S_CLASSIC, 0),
                     *lb = find_type(r, S_LIBBLOOM, 0), *fx = find_type(r, S_FLOOR_XXH3, 0),
                     *fl = find_type(r, S_FLOOR_LINE, 0), *th = find_type(r, S_THREADS, 0);
        bool l2 = strcmp(r->label, "L1/L2") == 0, dram = strcmp(r->label, "DRAM") == 0;
        char sz[16];
        snprintf(sz, sizeof sz, "n=%llu", (unsigned long long)r->n);
        if (l2 || dram)
            add_target(t, &nt, "1", sz, val(b, M_BATCH_HASH) / val(fl, M_BATCH_HASH), l2 ? 1.5 : 1.25,
                       true, "pre-hashed batch contains / line-read floor");
        add_target(t, &nt, "2", sz,
                   val(b, M_BATCH_STR) / (val(fx, M_BATCH_STR) + val(b, M_BATCH_HASH)), 1.25, true,
                   "string batch contains / (XXH3 floor + pre-hashed batch contains)");
        if (r->n == 1000000 || r == lib_largest) {
            double lim = r->n == 1000000 ? 8.0 : 5.0;
            add_target(t, &nt, "3", sz, val(lb, M_ADD) / val(b, M_ADD), lim, false,
                       "libbloom add / blocked batch add");
            add_target(t, &nt, "3", sz, val(lb, M_PRESENT) / val(b, M_PRESENT), lim, false,
                       "libbloom contains / blocked batch contains, present keys");
            add_target(t, &nt, "3", sz, val(lb, M_ABSENT) / val(b, M_ABSENT), lim, false,
                       "libbloom contains / blocked batch contains, absent keys");
        }
        if (dram) {
            add_target(t, &nt, "4", sz, val(c, M_ABSENT) / val(b, M_ABSENT), 3.0, false,
                       "classic / blocked batch contains, absent keys");
            add_target(t, &nt, "4", sz, val(c, M_PRESENT) / val(b, M_PRESENT),
                       val(c, M_ABSENT) / val(b, M_ABSENT), false,
                       "classic / blocked, present keys (limit: the absent-key ratio)");
        }
        add_target(t, &nt, "5", sz, val(b, M_ADD) / val(b, M_BATCH_STR), 1.5, true,
                   "blocked batch add / blocked batch contains (string keys)");
        add_target(t, &nt, "6", sz, val(b, M_BATCH_HASH) / val(th, M_BATCH_HASH), 1.8, false,
                   "2-thread / 1-thread throughput, pre-hashed batch contains");
        add_target(t, &nt, "6", sz, val(b, M_BATCH_STR) / val(th, M_BATCH_STR), 1.8, false,
                   "2-thread / 1-thread throughput, string batch contains");
        if (th) {
            add_target(t, &nt, "6", sz, val(b, M_BATCH_HASH) / th->cpu_value[M_BATCH_HASH], 1.8,
                       false, "same, pre-hashed, by the threads' CPU time (cores not shared)");
            add_target(t, &nt, "6", sz, val(b, M_BATCH_STR) / th->cpu_value[M_BATCH_STR], 1.8,
                       false, "same, string keys, by the threads' CPU time (cores not shared)");
        }
        /* both adds on the dispatched add kernel of this size */
        const series *bc = best_blocked(r, chosen_kernel(r, S_BLOCKED, BB_OP_ADD));
        add_target(t, &nt, "C", sz, val(bc, M_ADD_CONC) / val(bc, M_ADD_HASH), 1.5, true,
                   "concurrent add 1 thread / plain add <= 1.5 (pre-hashed batch)");
        add_target(t, &nt, "C", sz, val(bc, M_ADD_CONC) / val(th, M_ADD_CONC), 1.0, false,
                   "2-thread / 1-thread concurrent add throughput > 1 (pre-hashed)");
        if (th)
            add_target(t, &nt, "C", sz, val(bc, M_ADD_CONC) / th->cpu_value[M_ADD_CONC], 1.0,
                       false, "same, by the threads' CPU time (cores not shared)");
        /* The library's own threads (bb_set_threads) against one thread, both by wall time
         * (-j1), and against the same kernel's one thread by its CPU time. */
        const series *j = find_jobs(r, 0), *j1 = find_jobs(r, 1),
                     *bj = j ? best_blocked(r, j->isa) : NULL;
        static const metric jm[] = {M_ADD, M_ADD_HASH, M_BATCH_STR, M_BATCH_HASH};
        static const char *const jwhat[] = {"string batch add", "pre-hashed batch add",
                                            "string batch contains", "pre-hashed batch contains"};
        for (size_t q = 0; q < sizeof jm / sizeof *jm; q++) {
            char what[120];
            snprintf(what, sizeof what, "-jN / -j1 throughput (wall), %s (>= 1)", jwhat[q]);
            add_target(t, &nt, "J", sz, val(j1, jm[q]) / val(j, jm[q]), 1.0, false, what);
            snprintf(what, sizeof what, "-jN wall / 1-thread cpu, %s", jwhat[q]);
            add_target(t, &nt, "J", sz, val(bj, jm[q]) / val(j, jm[q]), 1.0, false, what);
            /* Not a target: the work the threads add (1.0 = none), which load leaves be. */
            snprintf(what, sizeof what, "-j1 / -jN CPU of all threads, %s (reference)", jwhat[q]);
            add_target(t, &nt, "J*", sz, j1 && j ? j1->cpu_value[jm[q]] / j->cpu_value[jm[q]] : NAN,
                       1.0, false, what);
        }
        split_targets(r, best, t, &nt);
    }
    return nt;
}

/* ---- The per-operation targets ------------------------------------------------------------
 * 8.1: for each operation the kernel dispatch chose against every other kernel series of this
 * run, as the median of per-repetition ratios (choice.c; the ratio of the medians when a
 * series has no repetitions to pair); up to 1.05 is within the spread of repeated runs.
 * Medians of separate series were not enough on a shared 2-vCPU Zen 4 guest: two kernels
 * with the same contains loop (avx512, avx512gfni) differed by up to 1.29x in one run, where
 * their paired ratios stayed within 0.92-1.03. 8.2-8.6 as the developers' targets state
 * them; 8.7 (the CLI) is measured outside the benchmark (README). */

static void dispatch_targets(const size_run *r, const char *sz, target *t, size_t *nt) {
    op_choice c[MAX_OP_CHOICES];
    size_t n = op_choices(r, c);
    for (size_t i = 0; i < n; i++) {
        if (!c[i].chosen || !c[i].fastest) continue;
        char what[120];
        if (isfinite(c[i].paired)) {
            snprintf(what, sizeof what, "%s %s: dispatched %s / %s, paired",
                     op_kind_name(c[i].kind), metric_names[c[i].m],
                     bb_isa_to_string(c[i].chosen->isa), bb_isa_to_string(c[i].paired_vs->isa));
            add_target(t, nt, "8.1", sz, c[i].paired, 1.05, true, what);
            continue;
        }
        snprintf(what, sizeof what, "%s %s: dispatched %s / fastest (%s)",
                 op_kind_name(c[i].kind), metric_names[c[i].m], bb_isa_to_string(c[i].chosen->isa),
                 bb_isa_to_string(c[i].fastest->isa));
        add_target(t, nt, "8.1", sz, c[i].chosen->value[c[i].m] / c[i].fastest->value[c[i].m],
                   1.05, true, what);
    }
}

static size_t targets8(const size_run *runs, size_t nruns, const bench_opts *o, target *t,
                       size_t nt) {
    for (size_t i = 0; i < nruns; i++) {
        const size_run *r = &runs[i];
        const series *b = best_blocked(r, o->best_isa),
                     *ba = best_blocked(r, chosen_kernel(r, S_BLOCKED, BB_OP_ADD)),
                     *bk = best_blocked(r, chosen_kernel(r, S_BLOCKED, BB_OP_ADD_KEYS)),
                     *fx = find_type(r, S_FLOOR_XXH3, 0), *fl = find_type(r, S_FLOOR_LINE, 0),
                     *th = find_type(r, S_THREADS, 0);
        char sz[16];
        snprintf(sz, sizeof sz, "n=%llu", (unsigned long long)r->n);
        dispatch_targets(r, sz, t, &nt);
        add_target(t, &nt, "8.2", sz, val(bk, M_ADD) / val(b, M_BATCH_STR), 1.2, true,
                   "batch add / batch contains, string keys (50/50 mix)");
        add_target(t, &nt, "8.2", sz, val(ba, M_ADD_HASH) / val(b, M_BATCH_HASH), 1.2, true,
                   "batch add / batch contains, pre-hashed");
        if (r->n == 1000000 || strcmp(r->label, "DRAM") == 0)
            add_target(t, &nt, "8.3", sz, val(b, M_BATCH_HASH) / val(fl, M_BATCH_HASH),
                       r->n == 1000000 ? 1.3 : 1.05, true,
                       "pre-hashed batch contains / line-read floor");
        add_target(t, &nt, "8.4", sz,
                   val(b, M_BATCH_STR) / (val(fx, M_BATCH_STR) + val(fl, M_BATCH_HASH)), 1.10, true,
                   "string batch contains / (XXH3 floor + line-read floor)");
        /* Not a target: the same against the library's own (grouped) hashing, to show what
         * the batch costs beyond it (floors.c). */
        const series *fg = find_type(r, S_FLOOR_XXH3_GROUPED, 0);
        add_target(t, &nt, "8.4*", sz,
                   val(b, M_BATCH_STR) / (val(fg, M_BATCH_STR) + val(fl, M_BATCH_HASH)), 1.10, true,
                   "same / (grouped XXH3 (the library's) + line floor), reference");
        if (r->n >= 10000000) {
            add_target(t, &nt, "8.5", sz, val(b, M_LOOP) / val(fl, M_LOOP), 1.5, true,
                       "loop of bb_contains_hash / loop of independent line reads");
            add_target(t, &nt, "8.5", sz, val(b, M_VLOOP) / val(fl, M_LOOP), 1.5, true,
                       "loop of inline bb_view_contains_hash / independent line reads");
            add_target(t, &nt, "8.5", sz, val(b, M_CHAIN) / val(fl, M_CHAIN), 1.1, true,
                       "dependent chain of inline lookups / dependent line-read chain");
        }
        /* Both adds on the dispatched add kernel (ba), the same keys into same-size filters. */
        add_target(t, &nt, "8.6", sz, val(ba, M_ADD_CONC) / val(ba, M_ADD_HASH), 1.5, true,
                   "concurrent add, 1 thread / plain add (pre-hashed batch)");
        add_target(t, &nt, "8.6", sz, val(ba, M_ADD_CONC) / val(th, M_ADD_CONC), 1.0, false,
                   "concurrent add, 2 threads / 1 thread throughput");
        if (th)
            add_target(t, &nt, "8.6", sz, val(ba, M_ADD_CONC) / th->cpu_value[M_ADD_CONC], 1.0,
                       false, "same, by the threads' CPU time (cores not shared)");
    }
    return nt;
}

/* ---- Table ------------------------------------------------------------------------------------ */

static void print_bytes(char *buf, size_t cap, uint64_t b) {
    if (b >= (UINT64_C(1) << 20)) snprintf(buf, cap, "%.1f MiB", (double)b / 1048576.0);
    else if (b) snprintf(buf, cap, "%.1f KiB", (double)b / 1024.0);
    else snprintf(buf, cap, "-");
}

static void cell(double v, int width, int prec) {
    if (isfinite(v)) printf(" %*.*f", width, prec, v);
    else printf(" %*s", width, "-");
}

/* Column names of the table, in metric order. */
static const char *const columns[M_COUNT] = {"add",   "addh",   "addc",   "present", "absent", "lat50",
                                             "lat99", "str",    "hashed", "loop",    "vloop",  "chain"};

/* One series row: name (+ suffix), size, bits, k, fpr, then v[metric]. */
static void print_row(const series *s, const char *suffix, const double *v) {
    char b[24], name[64];
    print_bytes(b, sizeof b, s->bytes);
    snprintf(name, sizeof name, "%s%s", s->name, suffix);
    printf("%-30s %10s", name, b);
    cell(s->bits_per_key, 5, 2);
    if (s->k) printf(" %3u", s->k);
    else printf(" %3s", "-");
    cell(s->fpr * 100.0, 7, 3);
    for (int mm = 0; mm < M_COUNT; mm++) cell(v[mm], 7, 2);
    printf("\n");
}

/* The clock of each column of the single-thread rows (the -xN rows say theirs in the name). */
static void print_clock_row(void) {
    static const char *const abbrev[] = {"cpu", "wall", "tsc"};
    printf("%-30s %10s %5s %3s %7s", "(clock)", "", "", "", "");
    for (int mm = 0; mm < M_COUNT; mm++) printf(" %7s", abbrev[metric_clock(S_BLOCKED, (metric)mm)]);
    printf("\n");
}

/* Per operation: the kernel dispatch chose, the fastest one measured, and whether they differ. */
static void print_dispatch(const size_run *r) {
    op_choice c[MAX_OP_CHOICES];
    size_t n = op_choices(r, c);
    bool header = false;
    for (size_t i = 0; i < n; i++) {
        if (!c[i].fastest) continue;
        if (!header)
            printf("dispatch per operation: the kernel it chose, the fastest kernel here, ns/key "
                   "(lat_p50: ns/call); paired: the median of the per-repetition ratios\n"
                   "chosen / other, for the other kernel where it is largest (decides the "
                   "verdict)\n");
        header = true;
        char op[32];
        snprintf(op, sizeof op, "%s %s", op_kind_name(c[i].kind), metric_names[c[i].m]);
        printf("  %-21s chose %-10s", op, bb_isa_to_string(c[i].chosen_isa));
        if (!c[i].chosen) {
            printf(" (not measured: --series left it out); fastest %s %.2f\n",
                   bb_isa_to_string(c[i].fastest->isa), c[i].fastest->value[c[i].m]);
            continue;
        }
        double mine = c[i].chosen->value[c[i].m], best = c[i].fastest->value[c[i].m];
        printf(" %7.2f   fastest %-10s %7.2f   %5.2fx  ", mine, bb_isa_to_string(c[i].fastest->isa),
               best, mine / best);
        /* The verdict is the paired ratio's, where there is one (choice.c, op_choice). */
        double q = isfinite(c[i].paired) ? c[i].paired : mine / best;
        const char *vs =
            bb_isa_to_string(isfinite(c[i].paired) ? c[i].paired_vs->isa : c[i].fastest->isa);
        if (isfinite(c[i].paired)) printf("paired %5.2fx vs %-10s ", q, vs);
        if (q <= 1.0 || (!isfinite(c[i].paired) && c[i].chosen == c[i].fastest))
            printf("chosen is fastest\n");
        else if (q <= 1.05) printf("%s faster, within 5%% (run-to-run spread)\n", vs);
        else printf("ANOTHER KERNEL (%s) MEASURED FASTER\n", vs);
    }
}

void report_table(const size_run *runs, size_t nruns, const machine *m, const bench_opts *o,
                  const keygen *g) {
    printf("blockbloom %s benchmark: %s, L1d %llu KiB, L2 %llu KiB, LLC %llu MiB, %d CPUs, THP %s\n",
           bb_version_string(), m->cpu, (unsigned long long)(m->l1d >> 10),
           (unsigned long long)(m->l2 >> 10), (unsigned long long)(m->llc >> 20), m->cpus, m->thp);
    printf("keys: %s; p = %g; median of %d interleaved repetitions of >= %zu keys; ns per key "
           "(lat: ns per call)\n", g->source, o->fpr, o->reps, o->ops);
    printf("add: string keys; addh: pre-hashed, bb_add_hashes; addc: pre-hashed, "
           "bb_add_hashes_concurrent;\n-xN rows: N threads share the keys (per key of all "
           "keys), reading one filter or adding into one\n(up to %zu keys their adds are "
           "timed a whole build at a time: each thread n/N keys in one call);\nloop: "
           "bb_contains_hash in a loop; vloop: inline bb_view_contains_hash; chain: inline, each "
           "answer picks the next key\n",
           o->ops / (size_t)o->reps);
    printf("clocks: cpu = this thread's CPU time (CLOCK_THREAD_CPUTIME_ID) around each timed call,\n"
           "so time slices given to other processes do not count; tsc = fenced TSC reads (wall) "
           "around\ngroups of 8 fenced calls; '-xN wall' rows: CLOCK_MONOTONIC from the first "
           "thread's start to\nthe last one's end; '-xN cpu' rows: the slowest thread's CPU time; "
           "'-jN wall' rows:\nCLOCK_MONOTONIC around each call (the library's own N threads); "
           "'-jN cpu all' rows: the\nCPU time of all threads (CLOCK_PROCESS_CPUTIME_ID)\n");
    for (size_t i = 0; i < nruns; i++) {
        const size_run *r = &runs[i];
        printf("\n%s: n = %llu (blocked filter fits %s here; mean key %.1f bytes; %.1f s; "
               "AnonHugePages %ld KiB)\n", r->label, (unsigned long long)r->n, r->fits,
               r->mean_key_len, r->build_s, r->anon_huge_kib);
        printf("%-30s %10s %5s %3s %7s", "series", "size", "bits", "k", "fpr%");
        for (int mm = 0; mm < M_COUNT; mm++) printf(" %7s", columns[mm]);
        printf("\n");
        print_clock_row();
        for (size_t j = 0; j < r->nseries; j++) {
            const series *s = &r->series[j];
            if (s->skip) {
                printf("%-30s skipped: %s\n", s->name, s->skip_why);
                continue;
            }
            print_row(s, s->type == S_THREADS || s->type == S_JOBS ? " wall" : "", s->value);
            if (s->type == S_THREADS) print_row(s, " cpu", s->cpu_value);
            if (s->type == S_JOBS) print_row(s, " cpu all", s->cpu_value);
        }
        print_dispatch(r);
    }
    if (!o->targets) return;
    target t[MAX_TARGETS];
    size_t nt = targets8(runs, nruns, o, t, targets(runs, nruns, o->best_isa, t));
    printf("\ntargets (blocked = %s kernel, adds on each size's dispatched kernel; ids as in "
           "bench/report.c):\n",
           bb_isa_to_string(o->best_isa));
    for (size_t i = 0; i < nt; i++)
        printf("  %-4s %-12s %-66s %6.2f %s %5.2f  %s\n", t[i].id, t[i].size, t[i].what, t[i].value,
               t[i].at_most ? "<=" : ">=", t[i].limit, met(&t[i]) ? "met" : "NOT MET");
}

/* ---- JSON -------------------------------------------------------------------------------------- */

static void jnum(FILE *fp, double v) {
    if (isfinite(v)) fprintf(fp, "%.6g", v);
    else fputs("null", fp);
}

/* Strings here are ours or file paths and CPU names: escape quotes, backslashes, controls. */
static void jstr(FILE *fp, const char *s) {
    fputc('"', fp);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fprintf(fp, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) fprintf(fp, "\\u%04x", *s);
        else fputc(*s, fp);
    }
    fputc('"', fp);
}

/* {"metric": v[metric], ...} over every metric, or only those measured on s. */
static void json_values(FILE *fp, const series *s, const double *v, bool measured_only) {
    fputc('{', fp);
    for (int m = 0, first = 1; m < M_COUNT; m++) {
        if (measured_only && !s->nreps[m]) continue;
        fprintf(fp, "%s\"%s\": ", first ? "" : ", ", metric_names[m]);
        jnum(fp, v[m]);
        first = 0;
    }
    fputc('}', fp);
}

static void json_series(FILE *fp, const series *s) {
    fputs("        {\"name\": ", fp);
    jstr(fp, s->name);
    if (s->skip) {
        fputs(", \"skipped\": ", fp);
        jstr(fp, s->skip_why);
        fputs("}", fp);
        return;
    }
    fprintf(fp, ", \"bytes\": %llu, \"k\": %u, \"bits_per_key\": ", (unsigned long long)s->bytes, s->k);
    jnum(fp, s->bits_per_key);
    fputs(", \"fpr\": ", fp);
    jnum(fp, s->fpr);
    fputs(", \"fpr_model\": ", fp);
    jnum(fp, s->fpr_model);
    fputs(",\n         \"ns_per_key\": ", fp);
    json_values(fp, s, s->value, false);
    if (s->type == S_THREADS) {
        fputs(",\n         \"ns_per_key_cpu\": ", fp);
        json_values(fp, s, s->cpu_value, true);
    }
    fputs(",\n         \"reps\": {", fp);
    for (int m = 0, first = 1; m < M_COUNT; m++) {
        if (!s->nreps[m]) continue;
        fprintf(fp, "%s\"%s\": [", first ? "" : ", ", metric_names[m]);
        for (int i = 0; i < s->nreps[m]; i++) {
            if (i) fputs(", ", fp);
            jnum(fp, s->reps[m][i]);
        }
        fputs("]", fp);
        first = 0;
    }
    fputs("}}", fp);
}

static void json_machine(FILE *fp, const machine *m) {
    fputs("  \"machine\": {\"cpu\": ", fp);
    jstr(fp, m->cpu);
    fprintf(fp, ", \"l1d_bytes\": %llu, \"l2_bytes\": %llu, \"llc_bytes\": %llu, \"cpus\": %d, ",
            (unsigned long long)m->l1d, (unsigned long long)m->l2, (unsigned long long)m->llc,
            m->cpus);
    fputs("\"thp\": ", fp);
    jstr(fp, m->thp);
    fputs(", \"clocksource\": ", fp);
    jstr(fp, m->clocksource);
    fputs(", \"tsc_ghz\": ", fp);
    jnum(fp, m->tick_ghz);
    fputs(", \"libbloom\": ", fp);
    jstr(fp, m->libbloom_version);
    fputs("},\n", fp);
}

/* "clocks": the clock of every metric of single-thread series and of the -xN figures. */
static void json_clocks(FILE *fp) {
    fputs("  \"clocks\": {", fp);
    for (int m = 0; m < M_COUNT; m++)
        fprintf(fp, "\"%s\": \"%s\", ", metric_names[m], clock_names[metric_clock(S_BLOCKED, (metric)m)]);
    fprintf(fp, "\"threads_ns_per_key\": \"%s\", \"threads_ns_per_key_cpu\": \"%s (slowest thread)\"},\n",
            clock_names[metric_clock(S_THREADS, M_BATCH_HASH)], clock_names[CLK_THREAD_CPU]);
}

/* ", "dispatch": [...]": choice.c's list of one size. */
static void json_dispatch(FILE *fp, const size_run *r) {
    op_choice c[MAX_OP_CHOICES];
    size_t n = op_choices(r, c);
    fputs(",\n      \"dispatch\": [", fp);
    for (size_t i = 0, first = 1; i < n; i++) {
        if (!c[i].fastest) continue;
        fprintf(fp, "%s\n        {\"kind\": \"%s\", \"op\": \"%s\", \"chosen\": \"%s\", \"chosen_ns\": ",
                first ? "" : ",", op_kind_name(c[i].kind), metric_names[c[i].m],
                bb_isa_to_string(c[i].chosen_isa));
        jnum(fp, c[i].chosen ? c[i].chosen->value[c[i].m] : NAN);
        fprintf(fp, ", \"fastest\": \"%s\", \"fastest_ns\": ", bb_isa_to_string(c[i].fastest->isa));
        jnum(fp, c[i].fastest->value[c[i].m]);
        fputs(", \"paired\": ", fp);
        jnum(fp, c[i].paired);
        if (isfinite(c[i].paired))
            fprintf(fp, ", \"paired_vs\": \"%s\"", bb_isa_to_string(c[i].paired_vs->isa));
        fputs("}", fp);
        first = 0;
    }
    fputs("]", fp);
}

bool report_json(const char *path, const size_run *runs, size_t nruns, const machine *m,
                 const bench_opts *o, const keygen *g, const char *cmdline) {
    FILE *fp = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    if (!fp) return false;
    fprintf(fp, "{\n  \"blockbloom\": \"%s\", \"kernel\": \"%s\",\n  \"command\": ",
            bb_version_string(), bb_isa_to_string(o->best_isa));
    jstr(fp, cmdline);
    fputs(",\n", fp);
    json_machine(fp, m);
    json_clocks(fp);
    fprintf(fp, "  \"config\": {\"fpr\": %g, \"reps\": %d, \"ops_per_rep\": %zu, "
                "\"query_max\": %zu, \"lat_calls\": %zu, \"fpr_keys\": %zu, "
                "\"seed\": %llu, \"keys\": ",
            o->fpr, o->reps, o->ops, o->query_max, o->lat_calls, o->fpr_keys,
            (unsigned long long)o->seed);
    jstr(fp, g->source);
    fputs("},\n  \"sizes\": [\n", fp);
    for (size_t i = 0; i < nruns; i++) {
        const size_run *r = &runs[i];
        fputs("    {\"label\": ", fp);
        jstr(fp, r->label);
        fprintf(fp, ", \"fits\": \"%s\", \"n\": %llu, \"mean_key_bytes\": %.2f, \"seconds\": %.2f, "
                    "\"anon_huge_kib\": %ld, \"series\": [\n",
                r->fits, (unsigned long long)r->n, r->mean_key_len, r->build_s, r->anon_huge_kib);
        for (size_t j = 0; j < r->nseries; j++) {
            json_series(fp, &r->series[j]);
            fputs(j + 1 < r->nseries ? ",\n" : "\n", fp);
        }
        fputs("      ]", fp);
        json_dispatch(fp, r);
        fprintf(fp, "}%s\n", i + 1 < nruns ? "," : "");
    }
    target t[MAX_TARGETS];
    size_t nt = o->targets
                    ? targets8(runs, nruns, o, t, targets(runs, nruns, o->best_isa, t))
                    : 0;
    fputs("  ],\n  \"targets\": [\n", fp);
    for (size_t i = 0; i < nt; i++) {
        fprintf(fp, "    {\"id\": \"%s\", \"size\": \"%s\", \"what\": ", t[i].id, t[i].size);
        jstr(fp, t[i].what);
        fputs(", \"value\": ", fp);
        jnum(fp, t[i].value);
        fprintf(fp, ", \"limit\": %.4g, \"at_most\": %s, \"met\": %s}%s\n", t[i].limit,
                t[i].at_most ? "true" : "false", met(&t[i]) ? "true" : "false",
                i + 1 < nt ? "," : "");
    }
    fputs("  ]\n}\n", fp);
    return fp == stdout ? fflush(fp) == 0 : fclose(fp) == 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * test_demo.c - `blockbloom demo`, run as a separate program (BB_CLI, the CLI's path, is a
 * compile definition of tests/CMakeLists.txt). `demo --quick --no-npm` must exit 0 and print
 * one table row per filter: for each p in {10%, 1%, 0.1%} a classic row and one blocked row per
 * native kernel, then the two overfill rows. Every row must show 0 false negatives; its model
 * column must equal the model for the row's own bits, k and keys (classic (1-e^{-kn/m})^k,
 * recomputed here; blocked from bb_fpr_model, whose exact block model test_sizing.c checks
 * against an independent derivation); and its measured FPR must lie within a two-sided band
 * around that model. A tiny
 * names file with repeated names checks part 2's exact truth (expected counts worked out by
 * hand below). The npm download itself is not tested (it needs the network).
 */
#include "testutil.h"

#include <sys/wait.h>
#include <unistd.h>

#define QUICK_N 100000u /* keys per filter, and ghost probes, of `demo --quick` */

#ifndef BB_CLI
Test(demo, cli_is_built) {
    cr_assert_fail("%s", "BB_CLI is not defined: the blockbloom CLI target was not built "
                         "(BB_BUILD_CLI=OFF?), so `blockbloom demo` cannot be tested");
}
#else

/* ---- Running the demo ------------------------------------------------------------------------ */
typedef struct run {
    char *out;  /* everything the command printed on the captured streams, NUL-terminated */
    int status; /* exit status, or -1 if it did not exit normally */
} run;

/* Run `BB_CLI demo <args>` through the shell; `redirect` is appended (e.g. "2>&1"). */
static run demo_run(const char *args, const char *redirect) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' demo %s %s", BB_CLI, args, redirect);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p, "cannot run %s", cmd);
    size_t len = 0, cap = 1 << 16;
    char *buf = malloc(cap);
    cr_assert_not_null(buf);
    size_t got;
    while ((got = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += got;
        if (cap - len < 2) {
            buf = realloc(buf, cap *= 2);
            cr_assert_not_null(buf);
        }
    }
    buf[len] = '\0';
    int ws = pclose(p);
    return (run){.out = buf, .status = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1};
}

/* ---- Parsing its tables ---------------------------------------------------------------------- */
typedef struct row {
    char kind[16], kernel[16];
    double p_pct;
    unsigned long long keys, bits;
    double kib, bits_per_key;
    unsigned k;
    unsigned long long fn;
    double fpr_pct, model_pct, add_ns, query_ns;
} row;

#define MAX_ROWS 64

/* Every table row (a line starting with "classic " or "blocked "), in order; returns count. */
static size_t parse_rows(const char *out, row *rows) {
    size_t n = 0;
    for (const char *line = out, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next) next++;
        if (strncmp(line, "classic ", 8) != 0 && strncmp(line, "blocked ", 8) != 0) continue;
        cr_assert_lt(n, MAX_ROWS, "more than %d rows", MAX_ROWS);
        row *r = &rows[n++];
        int got = sscanf(line, "%15s %15s %lf%% %llu %llu %lf %lf %u %llu %lf%% %lf%% %lf %lf",
                         r->kind, r->kernel, &r->p_pct, &r->keys, &r->bits, &r->kib,
                         &r->bits_per_key, &r->k, &r->fn, &r->fpr_pct, &r->model_pct,
                         &r->add_ns, &r->query_ns);
        cr_assert_eq(got, 13, "row %zu has %d of 13 columns: %.120s", n, got, line);
    }
    return n;
}

/* ---- The models, re-derived here ------------------------------------------------------------- */
static double classic_model(double n, double m, unsigned k) {
    return pow(1.0 - exp(-(double)k * n / m), k);
}

static double blocked_model(uint64_t n, uint64_t bits, unsigned k) {
    double f = -1.0;
    cr_assert_eq(bb_fpr_model(BB_BLOCKED, n, bits, k, &f), BB_OK);
    return f;
}

static double model_of(const row *r) {
    if (strcmp(r->kind, "classic") == 0)
        return classic_model((double)r->keys, (double)r->bits, r->k);
    cr_assert_eq(r->bits % 512, 0, "blocked filter of %llu bits: not whole blocks", r->bits);
    return blocked_model(r->keys, r->bits, r->k);
}

/* Kernels the demo times: every native one of the library's ISA table (NEON counts as
 * native on AArch64 only). */
static unsigned native_kernels(void) {
    unsigned n = 0;
    for (size_t i = 0; i < bb_isa_count(); i++) n += bb_isa_native(bb_isa_at(i));
    return n;
}

/* The quick demo's rows, after checking it exited 0. */
static size_t quick_rows(row *rows, char **out) {
    run r = demo_run("--quick --no-npm", "");
    cr_assert_eq(r.status, 0, "demo --quick --no-npm exited with %d; output:\n%s", r.status, r.out);
    size_t n = parse_rows(r.out, rows);
    if (out)
        *out = r.out;
    else
        free(r.out);
    return n;
}

/* ---- Tests ----------------------------------------------------------------------------------- */
Test(demo, quick_run_prints_header_and_all_rows) {
    row rows[MAX_ROWS];
    char *out;
    size_t n = quick_rows(rows, &out);
    char want[128];
    snprintf(want, sizeof want, "blockbloom %s demo: auto = lookups on %s, adds on %s",
             BB_VERSION_STRING, bb_isa_name(), bb_isa_name_for(BB_OP_ADD_KEYS));
    cr_assert_not_null(strstr(out, want), "no header \"%s\" in:\n%s", want, out);
    cr_assert_not_null(strstr(out, "Part 2 (npm names) skipped: --no-npm was given."),
                       "--no-npm ran part 2, or gave no reason:\n%s", out);

    unsigned kernels = native_kernels();
    cr_assert_eq(n, 3 * (1 + kernels) + 2, "%zu rows, expected %u (3 p x (classic + %u kernels)"
                 " + 2 overfill)", n, 3 * (1 + kernels) + 2, kernels);
    const double ps[] = {10, 1, 0.1};
    size_t i = 0;
    for (int j = 0; j < 3; j++)
        for (unsigned kk = 0; kk <= kernels; kk++, i++) {
            cr_assert_str_eq(rows[i].kind, kk ? "blocked" : "classic", "row %zu", i);
            cr_assert_float_eq(rows[i].p_pct, ps[j], 1e-9, "row %zu: p %g%%", i, rows[i].p_pct);
            cr_assert_eq(rows[i].keys, QUICK_N, "row %zu: %llu keys", i, rows[i].keys);
        }
    for (int j = 0; j < 2; j++, i++) { /* overfill: 2n keys into the 1% filters */
        cr_assert_str_eq(rows[i].kind, j ? "blocked" : "classic", "overfill row %d", j);
        cr_assert_float_eq(rows[i].p_pct, 1.0, 1e-9);
        cr_assert_eq(rows[i].keys, 2 * QUICK_N, "overfill row %d: %llu keys", j, rows[i].keys);
    }
    free(out);
}

Test(demo, no_false_negative_in_any_row) {
    row rows[MAX_ROWS];
    size_t n = quick_rows(rows, NULL);
    cr_assert_gt(n, 0, "no table rows");
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(rows[i].fn, 0, "row %zu (%s %s p=%g%%): %llu false negatives", i,
                     rows[i].kind, rows[i].kernel, rows[i].p_pct, rows[i].fn);
}

Test(demo, model_column_is_the_model) {
    row rows[MAX_ROWS];
    size_t n = quick_rows(rows, NULL);
    cr_assert_gt(n, 0, "no table rows");
    for (size_t i = 0; i < n; i++) {
        double want = model_of(&rows[i]) * 100, got = rows[i].model_pct;
        /* The column has 4 decimals of a percentage: allow its rounding plus 0.1%. */
        cr_assert(fabs(got - want) <= 0.00005 + 1e-3 * want,
                  "row %zu (%s %s, %llu keys, %llu bits, k=%u): model column %.4f%%, "
                  "recomputed %.6f%%", i, rows[i].kind, rows[i].kernel, rows[i].keys,
                  rows[i].bits, rows[i].k, got, want);
    }
}

Test(demo, measured_fpr_near_model) {
    row rows[MAX_ROWS];
    size_t n = quick_rows(rows, NULL);
    cr_assert_gt(n, 0, "no table rows");
    for (size_t i = 0; i < n; i++) {
        double model = model_of(&rows[i]), fpr = rows[i].fpr_pct / 100;
        /* QUICK_N ghost probes per row: 5 binomial sigmas, plus 5% of the model for the
         * model's own approximations (independent probes, Poisson block loads). */
        double band = 5 * tu_sigma(model, QUICK_N) + 0.05 * model;
        cr_assert(fabs(fpr - model) <= band,
                  "row %zu (%s %s p=%g%%, %llu keys): measured FPR %.4f%%, model %.4f%% +- %.4f%%",
                  i, rows[i].kind, rows[i].kernel, rows[i].p_pct, rows[i].keys, fpr * 100,
                  model * 100, band * 100);
        cr_assert_gt(fpr, 0.0, "row %zu: no false positive at all among %u probes", i, QUICK_N);
    }
}

/* Lines a b a c b b: inserted (even lines) a, a, b: one repeat; probed (odd lines) b, c, b:
 * two equal an inserted name and must count as true positives, never as false negatives. */
Test(demo, npm_part_uses_exact_truth) {
    char path[] = "/tmp/bb_demo_names.XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0, "mkstemp failed");
    static const char names[] = "a\nb\na\nc\nb\nb\n";
    cr_assert_eq(write(fd, names, sizeof names - 1), (ssize_t)(sizeof names - 1));
    close(fd);
    char args[128];
    snprintf(args, sizeof args, "--quick --data %s", path);
    run r = demo_run(args, "");
    unlink(path);
    cr_assert_eq(r.status, 0, "exit %d:\n%s", r.status, r.out);
    cr_assert_not_null(strstr(r.out, "6 npm package names"), "name count wrong:\n%s", r.out);
    cr_assert_not_null(strstr(r.out, "1 inserted names repeat an earlier one, 2\nprobes equal"),
                       "truth counts wrong:\n%s", r.out);
    row rows[MAX_ROWS];
    size_t n = parse_rows(r.out, rows);
    unsigned part1 = 3 * (1 + native_kernels()) + 2;
    cr_assert_eq(n, part1 + 2, "%zu rows, expected %u + 2 npm rows", n, part1);
    for (size_t i = part1; i < n; i++) {
        cr_assert_eq(rows[i].keys, 3, "npm row: %llu keys inserted, expected 3", rows[i].keys);
        cr_assert_eq(rows[i].fn, 0, "npm row %s: %llu false negatives", rows[i].kind, rows[i].fn);
    }
    free(r.out);
}

/* Without --data and without the names where they are looked for (BB_DATA_DIR here), the
 * demo says how to fetch them and runs part 1 (exit 0); a --data FILE that is missing is an
 * error (it used to exit 0 after a warning). */
Test(demo, missing_names_file_runs_part1_only) {
    setenv("BB_DATA_DIR", "/nonexistent", 1);
    run r = demo_run("--quick", "2>&1");
    unsetenv("BB_DATA_DIR");
    cr_assert_eq(r.status, 0, "exit %d:\n%s", r.status, r.out);
    cr_assert_not_null(strstr(r.out, "npm names not found at /nonexistent/npm-names.txt; fetch "
                                     "them with blockbloom-fetch-npm-names"),
                       "no hint about the missing file:\n%s", r.out);
    /* The skip line itself says why and how to get the names (the warning may have scrolled
     * away above part 1's tables). */
    cr_assert_not_null(strstr(r.out, "Part 2 (npm names) skipped: no names at "
                                     "/nonexistent/npm-names.txt.\nFetch them"),
                       "%s", r.out);
    cr_assert_not_null(strstr(r.out, "scripts/fetch-npm-names.sh in a source tree"), "%s", r.out);
    free(r.out);
    r = demo_run("--quick --data /nonexistent/bb-npm-names.txt", "2>&1");
    cr_assert_eq(r.status, 1, "missing --data FILE: exit %d:\n%s", r.status, r.out);
    cr_assert_not_null(strstr(r.out, "blockbloom: demo: cannot use --data "
                                     "'/nonexistent/bb-npm-names.txt': No such file"), "%s", r.out);
    free(r.out);
}

Test(demo, help_and_usage_errors) {
    run r = demo_run("--help", "");
    cr_assert_eq(r.status, 0);
    cr_assert_not_null(strstr(r.out, "Usage: blockbloom demo"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "--quick"), "%s", r.out);
    /* The fetcher by the name `cmake --install` gives it (an installed copy has no scripts/). */
    cr_assert_not_null(strstr(r.out, "fetch them with blockbloom-fetch-npm-names"), "%s", r.out);
    free(r.out);
    r = demo_run("--no-such-option", "2>&1");
    cr_assert_eq(r.status, 2, "unknown option: exit %d", r.status);
    free(r.out);
    r = demo_run("--quick stray-argument", "2>&1");
    cr_assert_eq(r.status, 2, "stray argument: exit %d", r.status);
    free(r.out);
}

#endif /* BB_CLI */

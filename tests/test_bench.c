/* SPDX-License-Identifier: MIT */
/*
 * test_bench.c - `blockbloom bench` (the benchmark program, run through the CLI as users do):
 * that it measures every operation on every kernel this CPU has, with the
 * kernels found here by CPUID, not by asking the library (and those of the library's ISA
 * table as well, so a new one is covered); that its report says which clock
 * each column used and which kernel dispatch chose per operation; and that single-thread
 * figures are timed by the thread's CPU clock. The last one is checked from outside: the
 * same small run is made twice, once as it is and once stopped with SIGSTOP for 9 ms out of
 * every 10. A wall clock counts the stopped time and reports 4-10x the figures of the first
 * run (measured with the bench switched to CLOCK_MONOTONIC); a CPU clock does not see it. The bound, 2.5x, leaves room for the load of a
 * shared CI machine between the two runs.
 */
#include "cliutil.h"

#include <blockbloom.h>

#include <math.h>
#include <signal.h>
#include <time.h>

TestSuite(bench, .init = enter_workdir, .fini = leave_workdir, .timeout = 300);

/* The kernels of the blocked and split kinds this CPU can run, by CPUID. */
static size_t kernels_here(const char *names[5], bool split) {
    size_t n = 0;
    names[n++] = "scalar";
#if defined(__x86_64__) || defined(__i386__)
    if (__builtin_cpu_supports("avx2")) names[n++] = "avx2";
    bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
    if (!split && avx512) names[n++] = "avx512";
    if (!split && avx512 && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512vbmi") &&
        __builtin_cpu_supports("gfni"))
        names[n++] = "avx512gfni";
#elif defined(__aarch64__)
    names[n++] = "neon";
#endif
    return n;
}

/* The JSON object of series `name`, from its name on. */
static const char *find_series(const char *json, const char *name) {
    char key[96];
    snprintf(key, sizeof key, "{\"name\": \"%s\"", name);
    const char *s = strstr(json, key);
    cr_assert_not_null(s, "no series %s in the JSON", name);
    return s;
}

/* ns_per_key.<metric> of series `name` in the bench's JSON; NAN if it is null or missing. */
static double series_value(const char *json, const char *name, const char *metric) {
    char key[96];
    const char *v = strstr(find_series(json, name), "\"ns_per_key\": {");
    cr_assert_not_null(v);
    const char *end = strchr(v, '}');
    snprintf(key, sizeof key, "\"%s\": ", metric);
    const char *p = strstr(v, key);
    if (!p || p > end) return NAN;
    p += strlen(key);
    return json_number(p) ? strtod(p, NULL) : NAN;
}

/* The blocked and split series of every native kernel of the library's ISA table (a split
 * series for the ISAs with a split kernel of their own), comma-separated, into buf. Besides
 * the kernels CPUID finds (kernels_here), so that a new ISA's series are checked too. */
static const char *table_series(char *buf, size_t cap, bool split) {
    size_t used = 0;
    for (size_t i = 0; i < bb_isa_count(); i++) {
        bb_isa isa = bb_isa_at(i), k = BB_ISA_AUTO;
        if (!bb_isa_native(isa)) continue;
        if (split && (bb_isa_kernel(isa, BB_SPLIT, BB_OP_CONTAINS, &k) != BB_OK || k != isa))
            continue;
        used += (size_t)snprintf(buf + used, cap - used, "%s%s-%s", used ? "," : "",
                                 split ? "split" : "blocked", bb_isa_to_string(isa));
        cr_assert_lt(used, cap);
    }
    return buf;
}

Test(bench, every_operation_on_every_kernel) {
    char blocked[256], split_list[256], all_series[520];
    snprintf(all_series, sizeof all_series, "%s,%s,sectorized-scalar",
             table_series(blocked, sizeof blocked, false),
             table_series(split_list, sizeof split_list, true));
    run_result r = RUN(NULL, "bench", "--quick", "--sizes", "10000", "--generated-keys",
                       "--series", all_series, "--json", "out.json");
    expect_ok(&r, "bench");
    char *json = read_bytes("out.json", NULL);
    static const char *const blocked_ops[] = {"add",  "add_hash", "add_conc",  "present",
                                              "absent", "batch_str", "batch_hash", "loop",
                                              "view_loop", "view_chain", "lat_p50"};
    static const char *const split_ops[] = {"add",       "add_hash",   "present", "absent",
                                            "batch_str", "batch_hash", "loop",    "lat_p50"};
    for (int split = 0; split < 2; split++) {
        const char *isa[5 + 16];
        size_t nk = kernels_here(isa, split);
        for (size_t i = 0; i < bb_isa_count() && nk < sizeof isa / sizeof *isa; i++) {
            bb_isa t = bb_isa_at(i), k = BB_ISA_AUTO;
            if (bb_isa_native(t) &&
                (!split || (bb_isa_kernel(t, BB_SPLIT, BB_OP_CONTAINS, &k) == BB_OK && k == t)))
                isa[nk++] = bb_isa_to_string(t); /* the table's kernels (CPUID's again too) */
        }
        const char *const *ops = split ? split_ops : blocked_ops;
        size_t nops = split ? 8 : 11;
        for (size_t k = 0; k < nk; k++) {
            char name[32];
            snprintf(name, sizeof name, "%s-%s", split ? "split" : "blocked", isa[k]);
            for (size_t i = 0; i < nops; i++) {
                double v = series_value(json, name, ops[i]);
                cr_expect(isfinite(v) && v > 0, "%s: %s not measured", name, ops[i]);
            }
        }
        /* Every operation that dispatch chooses a kernel for is in the dispatch list. */
        for (size_t i = 0; i < nops; i++) {
            if (!strncmp(ops[i], "view_", 5)) continue; /* inline: no dispatch */
            char key[96];
            snprintf(key, sizeof key, "{\"kind\": \"%s\", \"op\": \"%s\", \"chosen\": \"",
                     split ? "split" : "blocked", ops[i]);
            cr_expect_not_null(strstr(json, key), "no dispatch entry %s", key);
        }
    }
    cr_expect_not_null(strstr(json, "\"clocks\": {\"add\": \"thread_cpu\""), "JSON clocks");
    cr_expect_not_null(strstr(json, "\"lat_p50\": \"tsc\""), "JSON clocks");
    cr_expect_not_null(strstr(r.out, "cpu = this thread's CPU time (CLOCK_THREAD_CPUTIME_ID)"));
    cr_expect_not_null(strstr(r.out, "\n(clock)  "), "the table's clock row");
    cr_expect_not_null(strstr(r.out, "dispatch per operation"), "%s", r.out);
    cr_expect_not_null(strstr(r.out, "  blocked add_hash      chose "), "%s", r.out);
    /* The sectorized kind's operations are checked too. */
    cr_expect_not_null(
        strstr(json, "{\"kind\": \"sectorized\", \"op\": \"add_hash\", \"chosen\": \""),
        "no sectorized dispatch entry");
    /* The developers' targets only on request (--targets, below). */
    cr_expect_null(strstr(r.out, "targets ("), "%s", r.out);
    cr_expect_null(strstr(r.out, "NOT MET"), "%s", r.out);
    cr_expect_not_null(strstr(json, "\"targets\": [\n  ]"), "JSON targets not empty");
    free(json);
    run_free(&r);
}

/* The repetitions of one series' metric from the JSON, into v (at most cap); their count. */
static int series_reps(const char *json, const char *name, const char *metric, double *v, int cap) {
    char key[96];
    const char *reps = strstr(find_series(json, name), "\"reps\": {");
    cr_assert_not_null(reps);
    snprintf(key, sizeof key, "\"%s\": [", metric);
    const char *p = strstr(reps, key);
    cr_assert_not_null(p, "%s: no reps of %s", name, metric);
    p += strlen(key);
    int n = 0;
    while (*p != ']' && n < cap) {
        char *end;
        v[n++] = strtod(p, &end);
        cr_assert_neq(end, p, "%s: reps of %s not numbers", name, metric);
        p = end + strspn(end, ", ");
    }
    return n;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The dispatch verdict pairs repetitions: the JSON's "paired" for an operation is the largest,
 * over the other kernels, of the median of chosen / other per repetition, recomputed here from
 * the same JSON's repetitions (which every series measures in the same rounds). */
Test(bench, dispatch_verdict_pairs_the_repetitions) {
    const char *isa[5 + 16];
    size_t nk = kernels_here(isa, false);
    if (nk < 2) {
        /* One kernel: nothing to pair with, and the JSON says so. */
        run_result r = RUN(NULL, "bench", "--quick", "--sizes", "10000", "--generated-keys",
                           "--series", "blocked-scalar", "--json", "one.json");
        expect_ok(&r, "bench");
        char *json = read_bytes("one.json", NULL);
        cr_expect_not_null(strstr(json, "\"paired\": null"), "%s", json);
        free(json);
        return;
    }
    char list[256];
    run_result r =
        RUN(NULL, "bench", "--quick", "--sizes", "10000", "--generated-keys", "--reps", "7",
            "--series", table_series(list, sizeof list, false), "--json", "pair.json");
    expect_ok(&r, "bench");
    cr_expect_not_null(strstr(r.out, "paired "), "%s", r.out);
    char *json = read_bytes("pair.json", NULL);
    const char *e = strstr(json, "{\"kind\": \"blocked\", \"op\": \"add_hash\", \"chosen\": \"");
    cr_assert_not_null(e);
    const char *c0 =
        strchr(e + strlen("{\"kind\": \"blocked\", \"op\": \"add_hash\", \"chosen\": "), '"') + 1;
    char chosen[32];
    snprintf(chosen, sizeof chosen, "blocked-%.*s", (int)strcspn(c0, "\""), c0);
    double a[64], b[64], q[64], worst = NAN;
    int na = series_reps(json, chosen, "add_hash", a, 64);
    cr_assert_eq(na, 7, "%s: %d reps of add_hash", chosen, na);
    for (size_t k = 0; k < nk; k++) {
        char other[32];
        snprintf(other, sizeof other, "blocked-%s", isa[k]);
        if (!strcmp(other, chosen)) continue;
        int nb = series_reps(json, other, "add_hash", b, 64);
        cr_assert_eq(nb, na);
        for (int i = 0; i < na; i++) q[i] = a[i] / b[i];
        qsort(q, (size_t)na, sizeof *q, cmp_double);
        if (!(q[na / 2] <= worst)) worst = q[na / 2];
    }
    const char *p = strstr(e, "\"paired\": ");
    cr_assert(p && p < strchr(e, '}'), "no paired ratio: %.200s", e);
    double got = strtod(p + strlen("\"paired\": "), NULL);
    /* The JSON prints 6 significant digits of the ratio and of each repetition. */
    cr_expect(fabs(got - worst) <= 1e-4 * worst, "paired %.6g, recomputed %.6g", got, worst);
    free(json);
}

Test(bench, targets_only_with_the_flag) {
    run_result r = RUN(NULL, "bench", "--quick", "--sizes", "10000", "--generated-keys",
                       "--targets", "--json", "out.json");
    expect_ok(&r, "bench --targets");
    cr_expect_not_null(strstr(r.out, "\ntargets (blocked = "), "%s", r.out);
    cr_expect_not_null(strstr(r.out, "string batch contains / (XXH3 floor"), "%s", r.out);
    char *json = read_bytes("out.json", NULL);
    cr_expect_not_null(strstr(json, "\"targets\": [\n    {\"id\": "), "JSON targets empty");
    free(json);
    run_free(&r);
}

static void sleep_us(long us) {
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* The run's JSON in out (bench's args: size 10^4, 2M keys per repetition, one series), with
 * the program stopped 9 ms of every 10 when `stop`. */
static void stopped_run(const char *out, bool stop) {
    pid_t pid = spawn_bg(ARGS("bench", "--sizes", "10000", "--generated-keys", "--ops", "2000000",
                              "--series", "blocked-scalar", "--json", out));
    int ws;
    pid_t got;
    while ((got = waitpid(pid, &ws, WNOHANG)) == 0) {
        sleep_us(1000);
        if (!stop) continue;
        kill(pid, SIGSTOP);
        sleep_us(9000);
        kill(pid, SIGCONT);
    }
    cr_assert_eq(got, pid);
    cr_assert(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "bench failed (status 0x%x)", ws);
}

Test(bench, timed_by_the_thread_cpu_clock) {
    stopped_run("plain.json", false);
    stopped_run("stopped.json", true);
    char *plain = read_bytes("plain.json", NULL), *stopped = read_bytes("stopped.json", NULL);
    static const char *const ops[] = {"add", "add_hash", "add_conc", "batch_str", "batch_hash",
                                      "loop", "view_loop"};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        double a = series_value(plain, "blocked-scalar", ops[i]),
               b = series_value(stopped, "blocked-scalar", ops[i]);
        cr_assert(isfinite(a) && isfinite(b) && a > 0, "%s: %g, %g", ops[i], a, b);
        cr_expect_lt(b / a, 2.5, "%s: %.2f ns/key stopped 90%% of the time, %.2f not stopped: "
                                 "the time while stopped was counted", ops[i], b, a);
    }
    free(plain);
    free(stopped);
}

/* ---- The DRAM size fits the memory ------------------------------------------------------------
 * The DRAM size is the smallest n whose filter is 4x the last-level cache, but never more keys
 * than half the memory this process may use allows at 80 bytes per key (bench/main.c): with a
 * 2 GiB control-group limit laid out for BB_CGROUP_ROOT (the cgroup v2 group of
 * /proc/self/cgroup, as tests/test_faults.c does), n = floor(2^30 / 80) = 13421772 whatever
 * the cache, and a --sizes that needs more is refused before anything is allocated. */
Test(bench, the_dram_size_fits_the_memory) {
    cr_assert(lay_out_cgroup_limit("2147483648"), "no cgroup v2 line in /proc/self/cgroup");
    run_result r = RUN(NULL, "bench", "--plan");
    expect_ok(&r, "bench --plan");
    cr_assert(strstr(r.out, "DRAM  n = 13421772: blocked filter"), "plan: %s", r.out);
    cr_assert(strstr(r.err, "DRAM size capped by memory"), "%s", r.err);
    run_free(&r);
    r = RUN(NULL, "bench", "--sizes", "100000000");
    cr_assert_eq(r.status, 2, "exit %d: %s", r.status, r.err);
    cr_assert(strstr(r.err, "n = 100000000 needs about 7.5 GiB, more than half of the 2.0 GiB "
                            "this process may use; give a smaller --sizes"), "%s", r.err);
    run_free(&r);
    unsetenv("BB_CGROUP_ROOT");
}

/* --sizes takes only filters the library can build: a size past BB_MAX_BITS used to be
 * planned as a "0.0 MiB" filter (its bb_size failed unread), and empty items were skipped. */
Test(bench, sizes_that_cannot_be_built_are_usage_errors) {
    static const char *const cases[][2] = {
        {"18446744073709551615", "'18446744073709551615': its filter would be larger than the "
                                 "library's 2^56 bits"},
        {"1,,", "--sizes 1,,: '': an empty item"},
        {",1", "--sizes ,1: '': an empty item"},
        {"", "--sizes : '': an empty item"},
        {"0", "'0': not a whole number from 1 to 2^64 - 1"},
        {"10000,1x", "'1x': not a whole number"},
        {"1,2,3,4,5,6,7,8,9", "'9': more than 8 sizes"},
        /* strtoull skips spaces and takes a sign: these were planned as n = 1, 5, 5 and
         * called 2^64 - 1 too large. */
        {" -18446744073709551615", "' -18446744073709551615': not a whole number"},
        {" 5", "' 5': not a whole number"},
        {"+5", "'+5': not a whole number"},
        {" -1", "' -1': not a whole number"},
        {"10000,-5", "'-5': not a whole number"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        run_result r = RUN(NULL, "bench", "--plan", "--sizes", cases[i][0]);
        cr_expect_eq(r.status, 2, "--sizes '%s': exit %d: %s", cases[i][0], r.status, r.err);
        cr_expect(strstr(r.err, cases[i][1]), "--sizes '%s': %s", cases[i][0], r.err);
        cr_expect_eq(text_len(r.out), 0u, "--sizes '%s' planned: %s", cases[i][0], r.out);
        run_free(&r);
    }
}

/* The number options take digits only, within their range, with a message naming the option:
 * " 5", "+5" and "-1" were read by strtoull as 5, 5 and 2^64 - 1. */
Test(bench, number_options_take_digits_only) {
    static const char *const cases[][3] = {
        {"--reps", " 5", "--reps ' 5': not a whole number from 1 to 64"},
        {"--reps", "+5", "--reps '+5': not a whole number from 1 to 64"},
        {"--reps", "65", "--reps '65': not a whole number from 1 to 64"},
        {"--ops", "-1", "--ops '-1': not a whole number from 1 to "},
        {"--ops", "0", "--ops '0': not a whole number from 1 to "},
        {"--max-mib", " -18446744073709551615", "--max-mib ' -18446744073709551615': not a whole"},
        {"--threads", "0x4", "--threads '0x4': not a whole number from 1 to 16"},
        {"--threads", "17", "--threads '17': not a whole number from 1 to 16"},
        {"--threads", "", "--threads '': not a whole number from 1 to 16"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        run_result r = RUN(NULL, "bench", "--plan", "--sizes", "10000", cases[i][0], cases[i][1]);
        cr_expect_eq(r.status, 2, "%s '%s': exit %d: %s", cases[i][0], cases[i][1], r.status,
                     r.err);
        cr_expect(strstr(r.err, cases[i][2]), "%s '%s': %s", cases[i][0], cases[i][1], r.err);
        cr_expect_eq(text_len(r.out), 0u, "%s '%s' planned: %s", cases[i][0], cases[i][1], r.out);
        run_free(&r);
    }
    run_result r = RUN(NULL, "bench", "--plan", "--sizes", "10000", "--reps", "64", "--threads",
                       "16", "--ops", "007");
    expect_ok(&r, "bench --plan with the largest --reps and --threads");
    run_free(&r);
}

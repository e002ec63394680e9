/* SPDX-License-Identifier: MIT */
/*
 * test_cli_usage.c - the command-line tool as people use it: every writer of an
 * existing filter file takes the lock that add and remove take (build -o, merge -o, export -o
 * racing an add lose nobody's keys), `-` as the output, refusing to overwrite an input, query
 * -q and -H, messages that lead with their cause, the accepted number forms, and FIFOs given
 * as FILTER. Same harness as test_cli.c (cliutil.h): a fresh directory per test, the program
 * run with posix_spawn, expected values written out by hand.
 */
#include "cliutil.h"

#include <blockbloom.h>

TestSuite(usage, .init = enter_workdir, .fini = leave_workdir);

/* `query -c FILTER KEYS` prints `want`. */
static void expect_count(const char *filter, const char *keys, long want, const char *what) {
    run_result r = RUN(NULL, "query", "-c", filter, keys);
    expect_ok(&r, "query -c");
    long got = strtol(r.out, NULL, 10);
    cr_assert_eq(got, want, "%s: %ld of %ld keys of %s found in %s", what, got, want, keys,
                 filter);
    run_free(&r);
}

/* ==== Writers of one file take one lock ====================================================== */

/* `merge -o F F G` next to `add F C` lost one side's keys in 30 of 30 trials.
 * With the lock, the merge loads F either before the add (then the add loads the merged
 * file) or after it: F ends with A, B and C in every trial. */
Test(usage, merge_into_an_input_beside_an_add_keeps_every_key) {
    enum { KEYS = 60000, TRIALS = 6 };
    free(make_keys("a.txt", "a-", KEYS));
    free(make_keys("b.txt", "b-", KEYS));
    free(make_keys("c.txt", "c-", KEYS));
    for (int t = 0; t < TRIALS; t++) {
        run_result r = RUN(NULL, "build", "-n", "400000", "-o", "F.bb", "a.txt");
        expect_ok(&r, "build F");
        run_free(&r);
        r = RUN(NULL, "build", "-n", "400000", "-o", "G.bb", "b.txt");
        expect_ok(&r, "build G");
        run_free(&r);
        pid_t add = spawn_bg(ARGS("add", "F.bb", "c.txt"));
        pid_t merge = spawn_bg(ARGS("merge", "-o", "F.bb", "F.bb", "G.bb"));
        wait_ok(add, "add");
        wait_ok(merge, "merge");
        expect_count("F.bb", "a.txt", KEYS, "F's own keys");
        expect_count("F.bb", "b.txt", KEYS, "G's keys (merged)");
        expect_count("F.bb", "c.txt", KEYS, "the added keys");
    }
}

/* build -o F and export -o F replace F; racing an add to F, the lock orders them, so F is the
 * new filter, with or without the added keys, and never the old F plus the added keys (which
 * would drop every key of the new one). */
Test(usage, build_and_export_over_a_file_beside_an_add_keep_their_keys) {
    enum { KEYS = 60000, TRIALS = 4 };
    free(make_keys("old.txt", "old-", KEYS));
    free(make_keys("new.txt", "new-", KEYS));
    free(make_keys("c.txt", "c-", KEYS));
    run_result r = RUN(NULL, "build", "--kind", "counting", "-n", "400000", "-o", "cnt.bb", "new.txt");
    expect_ok(&r, "build counting");
    run_free(&r);
    for (int t = 0; t < 2 * TRIALS; t++) {
        r = RUN(NULL, "build", "-n", "400000", "-o", "F.bb", "old.txt");
        expect_ok(&r, "build old F");
        run_free(&r);
        pid_t add = spawn_bg(ARGS("add", "F.bb", "c.txt"));
        pid_t w = t < TRIALS ? spawn_bg(ARGS("build", "-n", "400000", "-o", "F.bb", "new.txt"))
                             : spawn_bg(ARGS("export", "-o", "F.bb", "cnt.bb"));
        wait_ok(add, "add");
        wait_ok(w, t < TRIALS ? "build" : "export");
        expect_count("F.bb", "new.txt", KEYS, t < TRIALS ? "the new build's keys" : "the export's keys");
    }
}

/* ==== The summary line ======================================================================== */

/* The "model FPR X" of a summary line. */
static double summary_model(const char *err) {
    const char *p = strstr(err, "model FPR ");
    cr_assert_not_null(p, "no model FPR in: %s", err);
    return strtod(p + 10, NULL);
}

/* The same keys added again made the summary's model FPR jump (0.123 for 3.5M keys
 * added twice, real rate 1.05%), since a repeated key sets no bit. 30,000 distinct keys in a
 * filter for 30,000 at 1%: after three more adds of the same keys keys_added is 120,000 (as
 * documented) and the model stays at ~1% (the model at 120,000 keys would be ~0.42). */
Test(usage, repeated_keys_keep_the_reported_model_at_the_distinct_count) {
    free(make_keys("k.txt", "k-", 30000));
    run_result r = RUN(NULL, "build", "-n", "30000", "-o", "f.bb", "k.txt");
    expect_ok(&r, "build");
    double first = summary_model(r.err);
    cr_assert(first > 0.008 && first <= 0.01, "model after build: %g", first);
    run_free(&r);
    r = RUN(NULL, "add", "f.bb", "k.txt", "k.txt", "k.txt");
    expect_ok(&r, "add");
    double again = summary_model(r.err);
    cr_assert(again > 0.008 && again <= 0.0105, "model after re-adding the keys: %g (%s)", again,
              r.err);
    cr_assert(strstr(r.err, "120000 keys (~"), "summary: %s", r.err);
    run_free(&r);
    expect_info("f.bb", "keys_added", "120000");
}

/* --bits-per-key 0.5 models an FPR of ~0.86: accepted, with a warning. */
Test(usage, a_model_fpr_above_one_half_is_warned_about) {
    free(make_keys("k.txt", "k-", 30000));
    run_result r = RUN(NULL, "build", "--bits-per-key", "0.5", "-o", "f.bb", "k.txt");
    expect_ok(&r, "build");
    cr_assert(strstr(r.err, "blockbloom: warning: the model false-positive rate 0.8"), "%s", r.err);
    run_free(&r);
    r = RUN(NULL, "build", "-o", "g.bb", "k.txt");
    expect_ok(&r, "build");
    cr_assert_null(strstr(r.err, "warning"), "%s", r.err);
    run_free(&r);
}

/* ==== Messages and special files ================================================================ */

/* "cannot write '/nonexistent/dir/x.bb': input/output error (No such file or
 * directory)" now leads with the cause. */
Test(usage, io_errors_lead_with_their_cause) {
    run_result r = RUN("k\n", "build", "-o", "/nonexistent/dir/x.bb");
    expect_fail(&r, 1, "build into a missing directory");
    cr_assert_str_eq(r.err, "blockbloom: cannot write '/nonexistent/dir/x.bb': No such file or "
                     "directory\n");
    run_free(&r);
    r = RUN(NULL, "info", "missing.bb");
    expect_fail(&r, 1, "info of a missing file");
    cr_assert_str_eq(r.err, "blockbloom: cannot open filter 'missing.bb': No such file or "
                     "directory\n");
    run_free(&r);
}

/* `mkfifo p; blockbloom info p` blocked forever. Every command that takes FILTER
 * now fails at once with exit 1 (a hang is a Criterion timeout, so a failure). */
Test(usage, a_fifo_as_filter_fails_at_once, .timeout = 20) {
    cr_assert_eq(mkfifo("p", 0600), 0);
    write_text("k.txt", "a\nb\n");
    static const char *const cmds[][6] = {
        {"info", "p", NULL},           {"query", "p", "k.txt", NULL},
        {"add", "p", "k.txt", NULL},   {"merge", "-o", "out.bb", "p", "p"},
        {"export", "-o", "out.bb", "p", NULL}};
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        run_result r = run_io(NULL, 0, NULL, cmds[i]);
        expect_fail(&r, 1, cmds[i][0]);
        cr_assert(strstr(r.err, "'p': "), "%s: %s", cmds[i][0], r.err);
        run_free(&r);
    }
    cr_assert(!exists("out.bb"));
}

/* ==== Files as grep users expect ================================================================= */

/* `build -o -` writes the filter to stdout (it used to create a file named "-"); that stream
 * is a filter file that query reads. */
Test(usage, build_to_dash_writes_the_filter_to_stdout) {
    run_result r = run_io("x\ny\n", 4, "s.bb", ARGS("build", "-o", "-"));
    expect_ok(&r, "build -o -");
    run_free(&r);
    cr_assert(!exists("-"), "a file named '-' was created");
    expect_query("s.bb", "x\nz\ny\n", "x\ny\n");
}

/* `build -o keys.txt keys.txt` silently replaced the key file; now a usage error (2), the
 * keys untouched, also when OUT is a link to a key file. */
Test(usage, build_refuses_an_output_that_is_an_input) {
    write_text("keys.txt", "a\nb\n");
    cr_assert_eq(symlink("keys.txt", "link.txt"), 0);
    run_result r = RUN(NULL, "build", "-o", "keys.txt", "keys.txt");
    expect_fail(&r, 2, "build -o keys.txt keys.txt");
    cr_assert(strstr(r.err, "refusing"), "%s", r.err);
    run_free(&r);
    r = RUN(NULL, "build", "-o", "link.txt", "other.txt", "keys.txt");
    expect_fail(&r, 2, "build -o link-to-keys");
    run_free(&r);
    size_t len;
    char *text = read_bytes("keys.txt", &len);
    cr_assert_str_eq(text, "a\nb\n", "the key file changed");
    free(text);
    /* The filter being updated is not an input in that sense: merge -o F F G is allowed. */
    build_from("F.bb", "a\n");
    build_from("G.bb", "b\n");
    r = RUN(NULL, "merge", "-o", "F.bb", "F.bb", "G.bb");
    expect_ok(&r, "merge -o F F G");
    run_free(&r);
    expect_query("F.bb", "a\nb\n", "a\nb\n");
}

/* query -q: nothing printed, grep's status (0 some key present, 1 none, 2 error); -H: each
 * key (and with -c each file's count) prefixed with its file's name. */
Test(usage, query_quiet_status_and_with_filename) {
    build_from("f.bb", "k1\nk2\n");
    write_text("in.txt", "zz\nk1\n");
    write_text("out.txt", "zz\nyy\n");
    run_result r = RUN(NULL, "query", "-q", "f.bb", "in.txt");
    cr_assert_eq(r.status, 0, "-q with a present key: %d", r.status);
    cr_assert_str_eq(r.out, "");
    run_free(&r);
    r = RUN(NULL, "query", "-q", "f.bb", "out.txt");
    cr_assert_eq(r.status, 1, "-q with no present key: %d", r.status);
    cr_assert_str_eq(r.out, "");
    run_free(&r);
    r = RUN(NULL, "query", "-q", "-v", "f.bb", "in.txt");
    cr_assert_eq(r.status, 0, "-q -v with an absent key: %d", r.status);
    run_free(&r);
    r = RUN(NULL, "query", "-q", "missing.bb", "in.txt");
    expect_fail(&r, 2, "-q on a missing filter");
    run_free(&r);
    r = RUN(NULL, "query", "-H", "f.bb", "in.txt", "out.txt");
    expect_ok(&r, "-H");
    cr_assert_str_eq(r.out, "in.txt:k1\n");
    run_free(&r);
    r = RUN(NULL, "query", "-H", "-c", "-v", "f.bb", "in.txt", "out.txt");
    expect_ok(&r, "-H -c -v");
    cr_assert_str_eq(r.out, "in.txt:1\nout.txt:2\n");
    run_free(&r);
}

/* ==== Messages ================================================================================== */

Test(usage, too_large_names_the_limit) {
    run_result r = RUN("k\n", "build", "-n", "1e15", "-p", "1e-9", "-o", "f.bb");
    expect_fail(&r, 2, "build of 10^15 keys at 1e-9");
    cr_assert(strstr(r.err, "more than 2^56 bits (8 PiB)"), "%s", r.err);
    run_free(&r);
}

/* The progress line (forced on with BB_PROGRESS, stderr not being a terminal here) has the
 * prefix and a rate. */
Test(usage, progress_line_has_prefix_and_rate) {
    free(make_keys("k.txt", "k-", 1000001));
    setenv("BB_PROGRESS", "1", 1);
    run_result r = RUN(NULL, "build", "-o", "f.bb", "k.txt");
    unsetenv("BB_PROGRESS");
    expect_ok(&r, "build");
    cr_assert(strstr(r.err, "\rblockbloom: read 1000000 keys ("), "%s", r.err);
    cr_assert(strstr(r.err, " keys/s)"), "%s", r.err);
    run_free(&r);
}

/* demo --data FILE that does not exist is an error (it exited 0 after a warning). */
Test(usage, demo_with_a_missing_data_file_fails) {
    run_result r = RUN(NULL, "demo", "--quick", "--data", "/nonexistent/names.txt");
    expect_fail(&r, 1, "demo --data /nonexistent");
    cr_assert(strstr(r.err, "'/nonexistent/names.txt': No such file or directory"), "%s", r.err);
    run_free(&r);
}

/* ==== Number forms ================================================================================ */

/* -n takes 1e6, 1_000_000 and 1M, all meaning 10^6 (the capacity field shows it); 1.5, 1__0
 * and 1M5 stay usage errors. -p 5e-324 (subnormal, inside (0, 1)) is a valid p: the filter is
 * then too large, not the value out of range. */
Test(usage, counts_in_the_obvious_forms) {
    static const char *const ok[] = {"1e6", "1_000_000", "1M", "1000k"};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        run_result r = RUN("k\n", "build", "-n", ok[i], "-o", "f.bb");
        expect_ok(&r, ok[i]);
        run_free(&r);
        expect_info("f.bb", "capacity", "1000000");
    }
    static const char *const bad[] = {"1.5", "1__0", "1M5", "_1", "1e30", "0"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        run_result r = RUN("k\n", "build", "-n", bad[i], "-o", "f.bb");
        expect_fail(&r, 2, bad[i]);
        cr_assert(strstr(r.err, "invalid value"), "%s: %s", bad[i], r.err);
        run_free(&r);
    }
    run_result r = RUN("k\n", "build", "-p", "5e-324", "-o", "g.bb");
    expect_fail(&r, 2, "-p 5e-324");
    cr_assert(strstr(r.err, "more than 2^56 bits"), "-p 5e-324: %s", r.err);
    run_free(&r);
}

/* ==== Global options ============================================================================== */

/* info's isa and isa_add are the kernels that serve the file's kind, which need not be the
 * blocked kind's: the facts of the library's ISA table, written out (a pair whose --isa this
 * CPU lacks is skipped, and said so). */
Test(usage, info_names_the_kernel_of_the_kind) {
    static const struct {
        const char *kind, *isa, *want, *want_add;
    } cases[] = {{"sectorized", "avx512gfni", "avx512", "avx512"},
                 {"sectorized", "avx2", "avx2", "avx2"},
                 {"split", "avx512gfni", "avx2", "avx2"},
                 {"split", "avx512", "avx2", "avx2"},
                 {"blocked", "avx512gfni", "avx512gfni", "avx512gfni"},
                 {"scalable", "avx2", "avx2", "scalar"}, /* adds key by key, portable code */
                 {"counting", "avx2", "scalar", "scalar"},
                 {"classic", "avx512", "scalar", "scalar"},
                 {"sectorized", "neon", "neon", "neon"},
                 {"split", "scalar", "scalar", "scalar"}};
    size_t ran = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        bb_isa isa;
        cr_assert_eq(bb_isa_from_string(cases[i].isa, &isa), BB_OK);
        if (!bb_isa_available(isa)) {
            fprintf(stderr, "[SKIP] info of a %s filter on %s: not available here\n", cases[i].kind,
                    cases[i].isa);
            continue;
        }
        run_result r = RUN("a\nb\n", "build", "--kind", cases[i].kind, "-o", "k.bb");
        expect_ok(&r, cases[i].kind);
        run_free(&r);
        r = RUN(NULL, "--isa", cases[i].isa, "info", "k.bb");
        expect_ok(&r, "info");
        char want[64];
        snprintf(want, sizeof want, "\nisa: %s\nisa_add: %s\n", cases[i].want, cases[i].want_add);
        cr_assert(strstr(r.out, want), "%s on %s: want %s in:\n%s", cases[i].kind, cases[i].isa,
                  cases[i].want, r.out);
        run_free(&r);
        ran++;
    }
    cr_assert_geq(ran, 4, "scalar and the emulated neon run everywhere");
}

/* info names the kernels the CLI's own calls run on the file's filter, batches of keys: on a
 * CPU whose row puts large filters on other kernels (dispatch.c), those of its size. The
 * library's answer for the loaded file is the reference; test_dispatch pins the table. */
Test(usage, info_names_the_kernels_of_the_filter_size) {
    static const char *const kinds[] = {"blocked", "sectorized"};
    static const char *const sizes[] = {"1000", "8000000"};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            run_result r = RUN("a\nb\n", "build", "--kind", kinds[i], "-n", sizes[j], "-o", "s.bb");
            expect_ok(&r, "build");
            bb_filter *f;
            cr_assert_eq(bb_load(&f, "s.bb"), BB_OK);
            bb_isa look, add;
            cr_assert_eq(bb_isa_kernel_for(BB_ISA_AUTO, f, BB_OP_CONTAINS_KEYS, &look), BB_OK);
            cr_assert_eq(bb_isa_kernel_for(BB_ISA_AUTO, f, BB_OP_ADD_KEYS, &add), BB_OK);
            bb_free(f);
            char want[96];
            snprintf(want, sizeof want, "adds on %s\n", bb_isa_to_string(add));
            cr_assert(strstr(r.err, want), "%s -n %s: want '%s' in: %s", kinds[i], sizes[j], want,
                      r.err);
            run_free(&r);
            r = RUN(NULL, "info", "s.bb");
            expect_ok(&r, "info");
            snprintf(want, sizeof want, "\nisa: %s\nisa_add: %s\n", bb_isa_to_string(look),
                     bb_isa_to_string(add));
            cr_assert(strstr(r.out, want), "%s -n %s: want %s in:\n%s", kinds[i], sizes[j], want,
                      r.out);
            run_free(&r);
        }
}

/* --isa KERNEL before the command runs every operation on that kernel, as BB_ISA does: the
 * build's summary and info name it. An unknown name is a usage error that lists the names. */
Test(usage, isa_option_puts_the_run_on_one_kernel) {
    run_result r = RUN("a\nb\n", "--isa", "scalar", "build", "-o", "f.bb");
    expect_ok(&r, "--isa scalar build");
    cr_assert(strstr(r.err, "adds on scalar"), "build summary: %s", r.err);
    run_free(&r);
    r = RUN(NULL, "--isa=scalar", "info", "f.bb");
    expect_ok(&r, "--isa=scalar info");
    cr_assert(strstr(r.out, "\nisa: scalar\n"), "info: %s", r.out);
    run_free(&r);
    r = RUN("a\n", "--isa", "scalar", "query", "f.bb");
    expect_ok(&r, "--isa scalar query");
    cr_assert_str_eq(r.out, "a\n");
    run_free(&r);
    r = RUN(NULL, "--isa", "sse9", "info", "f.bb");
    expect_fail(&r, 2, "--isa sse9");
    cr_assert(strstr(r.err, "unknown kernel 'sse9' (expected auto, scalar, "), "%s", r.err);
    cr_assert(strstr(r.err, ", avx2") && strstr(r.err, ", avx512gfni"), "%s", r.err);
    run_free(&r);
    r = RUN(NULL, "--isa");
    expect_fail(&r, 2, "--isa without a value");
    run_free(&r);
}

/* The kinds of the synopses of docs/CLI.md and the README are those the program takes: they
 * left out sectorized, which `build --help` lists. The list comes from the program's own
 * "unknown kind" message, "(expected A, B or C)", and each name is checked in --help too. */
Test(usage, documented_kinds_are_the_kinds_build_takes) {
    run_result r = RUN("", "build", "--kind=nope", "-o", "f.bb");
    expect_fail(&r, 2, "build --kind=nope");
    const char *list = strstr(r.err, "(expected ");
    cr_assert_not_null(list, "%s", r.err);
    list += strlen("(expected ");
    char want[256] = "build [--kind ";
    size_t w = strlen(want);
    while (*list && *list != ')' && w < sizeof want - 2) {
        if (!strncmp(list, ", ", 2)) list += 2, want[w++] = '|';
        else if (!strncmp(list, " or ", 4)) list += 4, want[w++] = '|';
        else want[w++] = *list++;
    }
    cr_assert_eq(*list, ')', "%s", r.err);
    want[w++] = ']';
    want[w] = '\0';
    run_free(&r);
    cr_assert(strstr(want, "|sectorized"), "%s", want);

    r = RUN(NULL, "build", "--help");
    expect_ok(&r, "build --help");
    char names[256];
    snprintf(names, sizeof names, "%s", want + strlen("build [--kind "));
    for (char *save, *name = strtok_r(names, "|]", &save); name; name = strtok_r(NULL, "|]", &save))
        cr_expect(strstr(r.out, name), "build --help does not name the kind %s", name);
    run_free(&r);

    static const char *const docs[] = {"README.md", "docs/CLI.md"};
    for (size_t i = 0; i < sizeof docs / sizeof *docs; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", BB_SOURCE_DIR, docs[i]);
        char *text = read_bytes(path, NULL);
        cr_expect(strstr(text, want), "%s has no '%s'", docs[i], want);
        free(text);
    }
}
